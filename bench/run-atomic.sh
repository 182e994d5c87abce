#!/usr/bin/env bash
# FT-MPICH benchmark: what ATOMIC collectives cost. MPI_Allreduce (sum of
# doubles) and MPI_Bcast (bytes) at 8 B .. 1 MiB on 4 processes, in three
# configurations side by side:
#   atomic     ftdev, FTMPI_COLL_MODE=atomic     (FTDEV_PREFIX, default ./install)
#   nonatomic  ftdev, FTMPI_COLL_MODE=nonatomic
#   stock      stock ch4:ucx                     (STOCK_PREFIX, default ./install-stock;
#              skipped with a note if it is not built: make stock)
#
#   BENCH_ROUNDS=9 BENCH_TRIALS=7 BENCH_NP=4 bench/run-atomic.sh
#
# The configurations alternate within each round (BENCH_ROUNDS, default 9),
# so that drift of this shared machine hits them alike; a run prints per size
# the median over BENCH_TRIALS trials (default 7) of the time per call, and
# the table shows the median over rounds of those, the ratios
# atomic/nonatomic and nonatomic/stock against their targets, and the best
# round of each configuration (the machine switches between a fast and a
# slow regime for stretches of runs). Raw results: bench/results/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
ftdev=$(cd "${FTDEV_PREFIX:-$top/install}" 2>/dev/null && pwd) ||
    { echo "run-atomic.sh: no ftdev install at ${FTDEV_PREFIX:-$top/install} (run make)" >&2; exit 2; }
stock=$(cd "${STOCK_PREFIX:-$top/install-stock}" 2>/dev/null && pwd) || stock=
rounds=${BENCH_ROUNDS:-9}
trials=${BENCH_TRIALS:-7}
np=${BENCH_NP:-4}
cores=$(nproc 2>/dev/null || echo "$np")
bin=$here/bin
out=$here/results
mkdir -p "$bin" "$out"
raw=$out/atomic-$(date +%Y%m%d-%H%M%S).txt

configs="atomic nonatomic"
"$ftdev/bin/mpicc" -O2 -o "$bin/atomic-ftdev" "$here/atomic.c"
if [ -n "$stock" ] && [ -x "$stock/bin/mpicc" ]; then
    "$stock/bin/mpicc" -O2 -o "$bin/atomic-stock" "$here/atomic.c"
    configs="$configs stock"
else
    echo "note: no stock MPICH at ${STOCK_PREFIX:-$top/install-stock} (build it with: make stock);" \
        "comparing atomic and nonatomic only"
    stock=
fi

run() { # configuration
    local c=$1 prefix=$ftdev exe=$bin/atomic-ftdev tmp rc=0
    local env=(env -u FTMPI_TEST_ATOMIC_DEATH -u FTMPI_COMM_MODE -u FTMPI_RECOVERY_MODE)
    case $c in
        atomic) env+=(FTMPI_COLL_MODE=atomic) ;;
        nonatomic) env+=(FTMPI_COLL_MODE=nonatomic) ;;
        stock) prefix=$stock exe=$bin/atomic-stock env+=(-u FTMPI_COLL_MODE) ;;
    esac
    tmp=$(mktemp)
    "${env[@]}" timeout -k 5 300 "$prefix/bin/mpiexec" -bind-to core -n $np "$exe" "$trials" \
        </dev/null >"$tmp" 2>"$tmp.err" || rc=$?
    # only result lines (mpiexec prints its own banners on stdout)
    grep -E '^(allreduce|bcast) [0-9]+ [0-9.]+$' "$tmp" | sed "s/^/$c /" >>"$raw" || true
    if [ $rc != 0 ]; then
        echo "# $c run failed with status $rc: $(head -n 2 "$tmp.err" | tr '\n' ' ')" >>"$raw"
        echo "warning: a $c run failed with status $rc (see ${raw#$top/})" >&2
    fi
    rm -f "$tmp" "$tmp.err"
}

echo "benchmarking $configs ($rounds alternating rounds, $np processes; raw results in ${raw#$top/})"
[ "$np" -le "$cores" ] || echo "note: $np processes on $cores cores oversubscribe this machine (BENCH_NP sets the number)"
for r in $(seq "$rounds"); do
    for c in $configs; do
        run "$c"
    done
done

# raw lines: configuration collective bytes microseconds
awk -v rounds="$rounds" -v np="$np" -v cores="$cores" -v have_stock="${stock:+1}" '
/^#/ { failed++; next }
NF == 4 { vals[$1 " " $2 " " $3] = vals[$1 " " $2 " " $3] " " $4; colls[$2] = 1; sizes[$3] = 1 }
function median(key,    n, i, j, t, a) {
    n = split(vals[key], a, " ")
    if (n == 0) return -1
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function best(key,    n, i, a, b) {
    n = split(vals[key], a, " ")
    if (n == 0) return -1
    b = a[1] + 0
    for (i = 2; i <= n; i++) if (a[i] + 0 < b) b = a[i] + 0
    return b
}
function ratio(x, y) { return x > 0 && y > 0 ? x / y : -1 }
function fmt(v, w, p) { return v < 0 ? sprintf("%" w "s", "-") : sprintf("%" w "." p "f", v) }
function verdict(v, limit) { return v < 0 || limit == "" ? "" : v <= limit ? "ok" : "MISSED" }
# numeric order of the keys of an array (portable: no gawk extensions)
function asorti_num(arr, out,    k, n, i, j, t) {
    n = 0
    for (k in arr) out[++n] = k + 0
    for (i = 2; i <= n; i++) for (j = i; j > 1 && out[j-1] > out[j]; j--) { t = out[j]; out[j] = out[j-1]; out[j-1] = t }
    return n
}
END {
    printf "\nATOMIC collectives, %d processes, one node (%d cores): microseconds per call, median of %d rounds\n", np, cores, rounds
    printf "targets: atomic/nonatomic <= 2x up to 1 KiB and <= 1.3x at 1 MiB; nonatomic/stock <= 1.15x\n\n"
    printf "%-9s %8s  %10s %10s %10s  %7s %6s %-6s  %7s %6s %-6s  | best: %9s %9s %9s\n",
        "coll", "bytes", "atomic", "nonatomic", "stock", "at/non", "target", "", "non/st", "target", "",
        "atomic", "nonatomic", "stock"
    n = asorti_num(sizes, order)
    split("allreduce bcast", cl, " ")
    for (q = 1; q <= 2; q++) {
        c = cl[q]
        if (!(c in colls)) continue
        for (i = 1; i <= n; i++) {
            s = order[i]
            a = median("atomic " c " " s); na = median("nonatomic " c " " s); st = median("stock " c " " s)
            r1 = ratio(a, na); r2 = ratio(na, st)
            t1 = s <= 1024 ? 2.0 : s == 1048576 ? 1.3 : ""
            t2 = 1.15
            v1 = verdict(r1, t1); v2 = verdict(r2, t2)
            if (v1 == "MISSED") missed1++; else if (v1 == "ok") met1++
            if (v2 == "MISSED") missed2++; else if (v2 == "ok") met2++
            printf "%-9s %8d  %s %s %s  %s %6s %-6s  %s %6s %-6s  | best: %s %s %s\n",
                c, s, fmt(a, 10, 2), fmt(na, 10, 2), fmt(st, 10, 2),
                fmt(r1, 7, 2), t1 == "" ? "-" : sprintf("%.2f", t1), v1,
                fmt(r2, 7, 2), have_stock ? sprintf("%.2f", t2) : "-", v2,
                fmt(best("atomic " c " " s), 9, 2), fmt(best("nonatomic " c " " s), 9, 2),
                fmt(best("stock " c " " s), 9, 2)
        }
    }
    printf "\natomic/nonatomic: %d targets met, %d missed", met1, missed1
    if (have_stock) printf "; nonatomic/stock: %d met, %d missed", met2, missed2
    else printf "; nonatomic/stock: not measured (no stock build)"
    printf "\n"
    if (failed) printf "%d runs failed (see the raw results)\n", failed
}' "$raw" | tee "$out/atomic-summary-latest.txt"
