#!/usr/bin/env bash
# FT-MPICH benchmark: collectives (bench/coll.c: MPI_Allreduce and MPI_Bcast,
# 8 B to 1 MiB, each call timed between barriers) in three configurations
# side by side:
#   atomic     ftdev, FTMPI_COLL_MODE=atomic     (FTDEV_PREFIX, default ./install)
#   nonatomic  ftdev, FTMPI_COLL_MODE=nonatomic
#   stock      stock ch4:ucx                     (STOCK_PREFIX, default ./install-stock;
#              left out with a note if it is not built: make stock)
# at 2, 4, 8, ... processes, never more than this machine has cores
# (BENCH_COLL_NPS="2 4" overrides the list; counts above the core count are
# then labelled oversubscribed). The configurations alternate within each
# round (BENCH_ROUNDS, default 5) so that drift of this shared machine hits
# them alike; a run prints per size the median of BENCH_TRIALS trials
# (default 5), the table the median over rounds, the ratios atomic/nonatomic
# and nonatomic/stock, and the best round of each configuration. A run stops
# measuring once BENCH_COLL_BUDGET seconds (default 40) have passed, so a
# slow configuration (stock MPICH busy-polls) costs that much, not a
# time-out; a configuration that failed twice is not run again.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup coll
stock=$(cd "${STOCK_PREFIX:-$top/install-stock}" 2>/dev/null && pwd) || stock=
rounds=${BENCH_ROUNDS:-5}
trials=${BENCH_TRIALS:-5}
budget=${BENCH_COLL_BUDGET:-40}
nps=${BENCH_COLL_NPS:-$(coll_nps)}

configs="atomic nonatomic"
bench_build coll "$prefix" -ftdev
if [ -n "$stock" ] && [ -x "$stock/bin/mpicc" ]; then
    bench_build coll "$stock" -stock
    configs="$configs stock"
else
    echo "note: no stock MPICH at ${STOCK_PREFIX:-$top/install-stock} (make stock);" \
        "atomic against nonatomic only" | tee -a "$table"
fi
if [ -z "$nps" ]; then
    echo "collectives: not measured: this machine has $cores core(s), and comparisons run at" \
        "2 processes or more, never more than the cores" | tee -a "$table"
    exit 0
fi

declare -A failures
run() { # configuration np
    local c=$1 n=$2 p=$prefix exe=$bin/coll-ftdev out rc=0
    local env=(env -u FTMPI_TEST_ATOMIC_DEATH -u FTMPI_COMM_MODE -u FTMPI_RECOVERY_MODE)
    case $c in
        atomic) env+=(FTMPI_COLL_MODE=atomic) ;;
        nonatomic) env+=(FTMPI_COLL_MODE=nonatomic) ;;
        stock) p=$stock exe=$bin/coll-stock env+=(-u FTMPI_COLL_MODE) ;;
    esac
    [ "${failures[$c $n]:-0}" -lt 2 ] || return 0
    out=$("${env[@]}" bench_mpiexec $((budget + 30 + n)) "$p" "$n" "$exe" "$trials" "$budget") || rc=$?
    grep -E '^(allreduce|bcast) [0-9]+ [0-9.]+$' <<<"$out" | sed "s/^/$n $c /" >>"$raw" || true
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

# raw lines: np configuration collective bytes microseconds
awk -v rounds="$rounds" -v cores="$cores" -v have_stock="${stock:+1}" '
/^#/ { notes[++nnotes] = $0; next }
NF == 5 { vals[$1 " " $2 " " $3 " " $4] = vals[$1 " " $2 " " $3 " " $4] " " $5; nps[$1] = 1; sizes[$4] = 1 }
function sorted(list, a,    n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n
}
function median(key,    n, a) { n = sorted(vals[key], a); return n == 0 ? -1 : n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function best(key,    n, a) { n = sorted(vals[key], a); return n == 0 ? -1 : a[1] }
function ratio(x, y) { return x > 0 && y > 0 ? x / y : -1 }
function f(v, w, p) { return v < 0 ? sprintf("%" w "s", "-") : sprintf("%" w "." p "f", v) }
function keys(arr, out,    k, n, i, j, t) {
    n = 0; for (k in arr) out[++n] = k + 0
    for (i = 2; i <= n; i++) for (j = i; j > 1 && out[j-1] > out[j]; j--) { t = out[j]; out[j] = out[j-1]; out[j-1] = t }
    return n
}
END {
    printf "collectives: microseconds per call (each between barriers), median of %d rounds; one node, %d cores\n", rounds, cores
    printf "issue 14 targets (at 16 processes): atomic/nonatomic <= 1.5 at 8 B allreduce and <= 1.3 from 4 KiB; nonatomic/stock <= 1.05\n"
    m = keys(nps, porder); ns = keys(sizes, sorder)
    for (q = 1; q <= m; q++) {
        np = porder[q]
        printf "\n%d processes%s\n", np, np > cores ? " (oversubscribed: more processes than cores)" : ""
        printf "%-9s %8s  %10s %10s %10s  %7s %7s  | best: %9s %9s %9s\n", "coll", "bytes", "atomic", "nonatomic",
            "stock", "at/non", "non/st", "atomic", "nonatomic", "stock"
        split("allreduce bcast", cl, " ")
        for (c = 1; c <= 2; c++) for (i = 1; i <= ns; i++) {
            s = sorder[i]; k = np " %s " cl[c] " " s
            a = median(sprintf(k, "atomic")); na = median(sprintf(k, "nonatomic")); st = median(sprintf(k, "stock"))
            if (a < 0 && na < 0 && st < 0) continue
            printf "%-9s %8d  %s %s %s  %s %s  | best: %s %s %s\n", cl[c], s, f(a, 10, 2), f(na, 10, 2), f(st, 10, 2),
                f(ratio(a, na), 7, 2), f(ratio(na, st), 7, 2), f(best(sprintf(k, "atomic")), 9, 2),
                f(best(sprintf(k, "nonatomic")), 9, 2), f(best(sprintf(k, "stock")), 9, 2)
        }
    }
    if (!have_stock) printf "(no stock build: nonatomic/stock not measured)\n"
    for (i = 1; i <= nnotes; i++) print notes[i]
}' "$raw" | tee -a "$table"
