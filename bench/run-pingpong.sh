#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: ping-pong latency and bandwidth between 2 processes,
# ch4:ftdev (FTDEV_PREFIX, default ./install) against stock ch4:ucx
# (STOCK_PREFIX, default ./install-stock-ucx) from the same MPICH tarball, built
# as MPICH normally is (the Makefile's STOCK_CONFIGURE): for ch4:ucx its
# configure takes no shared-memory module, so both builds send their
# messages through UCX. Runs alternate between the builds
# (BENCH_ROUNDS rounds, default 5) so that drift of this shared machine hits
# both alike; a run prints per size the median of its trials, the table the
# median over rounds (and the best round: the machine switches between
# fast and slow stretches), ratios are ftdev/stock.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup pingpong
stock=$(cd "${STOCK_PREFIX:-$top/install-stock-ucx}" 2>/dev/null && pwd) || stock=
rounds=${BENCH_ROUNDS:-5}
trials=${BENCH_TRIALS:-5}
builds=ftdev
bench_build pingpong "$prefix" -ftdev
if [ -n "$stock" ] && [ -x "$stock/bin/mpicc" ]; then
    bench_build pingpong "$stock" -stock
    builds="ftdev stock"
else
    echo "note: no stock MPICH at ${STOCK_PREFIX:-$top/install-stock-ucx} (make stock-ucx); ftdev alone" | tee -a "$table"
fi

for r in $(seq "$rounds"); do
    for b in $builds; do
        p=$([ $b = ftdev ] && echo "$prefix" || echo "$stock")
        # ABORT mode, the default: no fault-tolerance machinery runs
        if out=$(unset FTMPI_COMM_MODE FTMPI_RECOVERY_MODE FTMPI_COLL_MODE
            bench_mpiexec 120 "$p" 2 "$bin/pingpong-$b" "$trials"); then
            grep -E '^[0-9]+ [0-9.]+ [0-9.]+$' <<<"$out" | sed "s/^/$b /" >>"$raw" || true
        else
            echo "# $b run failed (status $?)" >>"$raw"
        fi
    done
done

# raw lines: build bytes half-round-trip-us MB/s
awk -v rounds="$rounds" -v cores="$cores" '
/^#/ { failed++; next }
{ lat[$1 " " $2] = lat[$1 " " $2] " " $3; bw[$1 " " $2] = bw[$1 " " $2] " " $4; sizes[$2] = 1 }
function sorted(list, a,    n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n
}
function median(list,    n, a) { n = sorted(list, a); return n == 0 ? -1 : n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function low(list,    n, a) { n = sorted(list, a); return n == 0 ? -1 : a[1] }
function f(v, w, p) { return v < 0 ? sprintf("%" w "s", "-") : sprintf("%" w "." p "f", v) }
function ratio(x, y) { return x > 0 && y > 0 ? x / y : -1 }
END {
    printf "ping-pong, 2 processes, one node (%d cores%s): median of %d rounds\n", cores, cores < 2 ? ", oversubscribed" : "", rounds
    printf "%10s  %10s %10s %6s  %10s %10s %6s  | best: %8s %8s\n", "bytes", "ftdev us", "stock us", "ratio",
        "ftdev MB/s", "stock MB/s", "ratio", "ftdev us", "stock us"
    n = 0; for (s in sizes) order[++n] = s + 0
    for (i = 2; i <= n; i++) for (j = i; j > 1 && order[j-1] > order[j]; j--) { t = order[j]; order[j] = order[j-1]; order[j-1] = t }
    for (i = 1; i <= n; i++) {
        s = order[i]
        lf = median(lat["ftdev " s]); ls = median(lat["stock " s]); bf = median(bw["ftdev " s]); bs = median(bw["stock " s])
        printf "%10d  %s %s %s  %s %s %s  | best: %s %s\n", s, f(lf, 10, 3), f(ls, 10, 3), f(ratio(lf, ls), 6, 2),
            f(bf, 10, 0), f(bs, 10, 0), f(ratio(bf, bs), 6, 2), f(low(lat["ftdev " s]), 8, 3), f(low(lat["stock " s]), 8, 3)
    }
    if (failed) printf "%d runs failed (see the raw results)\n", failed
}' "$raw" | tee -a "$table"
