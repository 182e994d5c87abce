#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: collectives (bench/coll.c: MPI_Allreduce and MPI_Bcast,
# 8 B to 1 MiB, each call timed between barriers) in three configurations
# side by side:
#   atomic     ftdev, FTMPI_COLL_MODE=atomic     (FTDEV_PREFIX, default ./install)
#   nonatomic  ftdev, FTMPI_COLL_MODE=nonatomic
#   stock      stock ch4:ucx                     (STOCK_PREFIX, default ./install-stock-ucx;
#              left out with a note if it is not built: make stock-ucx)
# at 2, 4, 8, ... processes, never more than this machine has cores
# (BENCH_COLL_NPS="2 4" overrides the list; counts above the core count are
# then labelled oversubscribed). The configurations alternate within each
# round (BENCH_ROUNDS, default 5) so that drift of this shared machine hits
# them alike; a run prints per size the median of BENCH_TRIALS trials
# (default 5), the table the median over rounds, the ratios atomic/nonatomic
# and nonatomic/stock, and the best trial of each configuration. A run stops
# measuring once BENCH_COLL_BUDGET seconds (default 40) have passed, so a
# slow configuration (stock MPICH busy-polls) costs that much, not a
# time-out; a configuration that failed twice is not run again.
# BENCH_REF_PREFIX=DIR adds ref-atomic and ref-nonatomic from another
# FT-MPICH installation (before/after comparisons in one run).
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup coll
stock=$(cd "${STOCK_PREFIX:-$top/install-stock-ucx}" 2>/dev/null && pwd) || stock=
rounds=${BENCH_ROUNDS:-5}
trials=${BENCH_TRIALS:-5}
budget=${BENCH_COLL_BUDGET:-40}
nps=${BENCH_COLL_NPS:-$(coll_nps)}

configs="atomic nonatomic"
bench_build coll "$prefix" -ftdev
# BENCH_REF_PREFIX: another FT-MPICH installation (an earlier version, say)
# measured alongside as ref-atomic and ref-nonatomic
ref=
if [ -n "${BENCH_REF_PREFIX:-}" ]; then
    ref=$(cd "$BENCH_REF_PREFIX" 2>/dev/null && pwd) ||
        { echo "run-coll.sh: BENCH_REF_PREFIX=$BENCH_REF_PREFIX is not a directory" >&2; exit 2; }
    bench_build coll "$ref" -ref
    configs="$configs ref-atomic ref-nonatomic"
fi
if [ -n "$stock" ] && [ -x "$stock/bin/mpicc" ]; then
    bench_build coll "$stock" -stock
    configs="$configs stock"
else
    echo "note: no stock MPICH at ${STOCK_PREFIX:-$top/install-stock-ucx} (make stock-ucx);" \
        "atomic against nonatomic only" | tee -a "$table"
fi
if [ -z "$nps" ]; then
    echo "collectives: not measured: this machine has $cores core(s), and comparisons run at" \
        "2 processes or more, never more than the cores" | tee -a "$table"
    exit 0
fi

declare -A failures
run() { # configuration np
    local c=$1 n=$2 p=$prefix exe=$bin/coll-ftdev out rc=0 mode=
    case $c in
        atomic | nonatomic) mode=$c ;;
        ref-*) mode=${c#ref-} p=$ref exe=$bin/coll-ref ;;
        stock) p=$stock exe=$bin/coll-stock ;;
    esac
    [ "${failures[$c $n]:-0}" -lt 2 ] || return 0
    # failure-free FT-MPICH (ABORT mode) with the collective mode under
    # test; each program runs with its own installation's library (also
    # when that was copied from where it was built)
    out=$(unset FTMPI_TEST_POINT FTMPI_COMM_MODE FTMPI_RECOVERY_MODE FTMPI_COLL_MODE
        [ -z "$mode" ] || export FTMPI_COLL_MODE=$mode
        export LD_LIBRARY_PATH=$p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
        bench_mpiexec $((budget + 30 + n)) "$p" "$n" "$exe" "$trials" "$budget" allreduce,bcast) || rc=$?
    grep -E '^(allreduce|bcast) [0-9]+ [0-9.]+ [0-9.]+$' <<<"$out" | sed "s/^/$n $c /" >>"$raw" || true
    grep '^# ' <<<"$out" | sed "s/^# /# $n $c: /" >>"$raw" || true
    if [ $rc != 0 ]; then
        failures[$c $n]=$((${failures[$c $n]:-0} + 1))
        echo "# $n $c: run failed with status $rc" >>"$raw"
        echo "warning: a $c run at $n processes failed with status $rc" >&2
    fi
}

for n in $nps; do
    echo "collectives at $n processes$(np_label "$n"): $configs, $rounds alternating rounds"
    for r in $(seq "$rounds"); do
        for c in $configs; do
            run "$c" "$n"
        done
    done
done

# raw lines: np configuration collective bytes median-us best-trial-us
awk -v rounds="$rounds" -v cores="$cores" -v configs="$configs" '
/^#/ { notes[++nnotes] = $0; next }
NF == 6 { k = $1 " " $2 " " $3 " " $4; vals[k] = vals[k] " " $5; bests[k] = bests[k] " " $6; nps[$1] = 1; sizes[$4] = 1 }
function sorted(list, a,    n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n
}
function median(key,    n, a) { n = sorted(vals[key], a); return n == 0 ? -1 : n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function best(key,    n, a) { n = sorted(bests[key], a); return n == 0 ? -1 : a[1] }
function ratio(x, y) { return x > 0 && y > 0 ? x / y : -1 }
function f(v, w, p) { return v < 0 ? sprintf("%" w "s", "-") : sprintf("%" w "." p "f", v) }
function keys(arr, out,    k, n, i, j, t) {
    n = 0; for (k in arr) out[++n] = k + 0
    for (i = 2; i <= n; i++) for (j = i; j > 1 && out[j-1] > out[j]; j--) { t = out[j]; out[j] = out[j-1]; out[j-1] = t }
    return n
}
# the ratios shown: each "a/b" where both configurations ran
function ratios(stat, np, c, s,    i, out, x, y) {
    out = ""
    for (i = 1; i <= nr; i++) {
        x = stat == "med" ? median(np " " ra[i] " " c " " s) : best(np " " ra[i] " " c " " s)
        y = stat == "med" ? median(np " " rb[i] " " c " " s) : best(np " " rb[i] " " c " " s)
        out = out f(ratio(x, y), 8, 2)
    }
    return out
}
END {
    nc = split(configs, cf, " ")
    split("atomic/nonatomic nonatomic/stock atomic/ref-atomic nonatomic/ref-nonatomic", cand, " ")
    nr = 0
    for (i = 1; i <= 4; i++) {
        split(cand[i], ab, "/")
        if (index(" " configs " ", " " ab[1] " ") && index(" " configs " ", " " ab[2] " ")) {
            nr++; ra[nr] = ab[1]; rb[nr] = ab[2]
            rname[nr] = ab[2] == "nonatomic" ? "at/non" : ab[2] == "stock" ? "non/st" : ab[1] == "atomic" ? "at/ref" : "non/ref"
        }
    }
    printf "collectives: microseconds per call (each between barriers): median over %d rounds of per-run medians,\n", rounds
    printf "and the fastest trial of any round (best; robust against a loaded machine); one node, %d cores\n", cores
    printf "targets (at 16 processes): at/non <= 1.5 at 8 B allreduce and <= 1.3 from 4 KiB; non/st <= 1.05\n"
    m = keys(nps, porder); ns = keys(sizes, sorder)
    for (q = 1; q <= m; q++) {
        np = porder[q]
        printf "\n%d processes%s\n%-17s", np, (np > cores ? " (oversubscribed: more processes than cores)" : ""), "median"
        for (i = 1; i <= nc; i++) printf " %13s", cf[i]
        for (i = 1; i <= nr; i++) printf " %8s", rname[i]
        printf "\n"
        for (st = 1; st <= 2; st++) {
            if (st == 2) { printf "%-17s", "best"; for (i = 1; i <= nc; i++) printf " %13s", cf[i]; for (i = 1; i <= nr; i++) printf " %8s", rname[i]; printf "\n" }
            split("allreduce bcast", cl, " ")
            for (c = 1; c <= 2; c++) for (i = 1; i <= ns; i++) {
                s = sorder[i]; line = ""; any = 0
                for (j = 1; j <= nc; j++) {
                    v = st == 1 ? median(np " " cf[j] " " cl[c] " " s) : best(np " " cf[j] " " cl[c] " " s)
                    any += v >= 0; line = line " " f(v, 13, 2)
                }
                if (any) printf "%-9s %7d%s%s\n", cl[c], s, line, ratios(st == 1 ? "med" : "best", np, cl[c], s)
            }
        }
    }
    for (i = 1; i <= nnotes; i++) print notes[i]
}' "$raw" | tee -a "$table"
