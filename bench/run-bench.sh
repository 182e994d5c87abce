#!/usr/bin/env bash
# FT-MPICH benchmarks: ch4:ftdev against stock ch4:ucx, side by side.
#
#   FTDEV_PREFIX=install STOCK_PREFIX=install-stock bench/run-bench.sh
#
# Both builds come from the same MPICH tarball with the same options but the
# device. Runs alternate between the builds (BENCH_ROUNDS rounds, default 15)
# so that drift of this shared machine hits both alike; the figures printed
# are the median over rounds of per-run medians, and ratios are ftdev/stock.
# This machine switches between a fast and a slow regime (2-3x apart) for
# stretches of runs, for stock MPICH as much as for ftdev, so the best round
# of each build is printed too.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
ftdev=$(cd "${FTDEV_PREFIX:-$top/install}" && pwd)
stock=$(cd "${STOCK_PREFIX:-$top/install-stock}" && pwd)
rounds=${BENCH_ROUNDS:-15}
bin=$here/bin
out=$here/results
mkdir -p "$bin" "$out"
raw=$out/raw-$(date +%Y%m%d-%H%M%S).txt

for b in ftdev stock; do
    prefix=$([ $b = ftdev ] && echo "$ftdev" || echo "$stock")
    for p in pingpong allreduce; do
        "$prefix/bin/mpicc" -O2 -o "$bin/$p-$b" "$here/$p.c"
    done
done

run() { # build program ranks args...
    local b=$1 p=$2 n=$3
    shift 3
    local prefix
    prefix=$([ $b = ftdev ] && echo "$ftdev" || echo "$stock")
    timeout -k 5 300 "$prefix/bin/mpiexec" -bind-to core -n "$n" "$bin/$p-$b" "$@" </dev/null |
        sed "s/^/$b $p$([ $p = allreduce ] && echo "-$n") /" >>"$raw"
}

echo "benchmarking ($rounds alternating rounds; raw results in ${raw#$top/})"
for r in $(seq "$rounds"); do
    for b in ftdev stock; do
        run $b pingpong 2 5
        run $b allreduce 2 5 8
        run $b allreduce 4 5 8
    done
done

# raw lines: build program size value [value]
awk -v rounds="$rounds" '
function best(key, low,    n, i, a, b) {
    n = split(vals[key], a, " ")
    b = a[1] + 0
    for (i = 2; i <= n; i++) if (low ? a[i] + 0 < b : a[i] + 0 > b) b = a[i] + 0
    return b
}
function median(key,    n, i, j, t, a) {
    n = split(vals[key], a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    if ($2 == "pingpong") { vals["lat " $1 " " $3] = vals["lat " $1 " " $3] " " $4; vals["bw " $1 " " $3] = vals["bw " $1 " " $3] " " $5; sizes[$3] = 1 }
    else { np = substr($2, 11); vals["ar" np " " $1 " " $3] = vals["ar" np " " $1 " " $3] " " $4; arsizes[$3] = 1; nps[np] = 1 }
}
END {
    printf "\nping-pong, 2 processes, one node (median of %d rounds)\n", rounds
    printf "%10s  %10s %10s %6s  %10s %10s %6s  | best: %8s %8s %6s\n", "bytes", "ftdev us", "stock us", "ratio", "ftdev MB/s", "stock MB/s", "ratio", "ftdev us", "stock us", "ratio"
    n = asorti_num(sizes, order)
    for (i = 1; i <= n; i++) {
        s = order[i]
        lf = median("lat ftdev " s); ls = median("lat stock " s)
        bf = median("bw ftdev " s); bs = median("bw stock " s)
        mf = best("lat ftdev " s, 1); ms = best("lat stock " s, 1)
        printf "%10d  %10.3f %10.3f %6.2f  %10.0f %10.0f %6.2f  | best: %8.3f %8.3f %6.2f\n", s, lf, ls, lf / ls, bf, bs, bf / bs, mf, ms, mf / ms
        if (s == 8) lat8 = lf / ls
        if (s == 1048576) bw1m = bf / bs
        if (s == 4194304) bw4m = bf / bs
    }
    printf "\nMPI_Allreduce (median of %d rounds; more processes than cores oversubscribe this machine)\n", rounds
    printf "%6s %10s  %12s %12s %7s\n", "procs", "bytes", "ftdev us", "stock us", "ratio"
    m = asorti_num(nps, porder)
    n = asorti_num(arsizes, order)
    for (q = 1; q <= m; q++) for (i = 1; i <= n; i++) {
        np = porder[q]; s = order[i]
        arf = median("ar" np " ftdev " s); ars = median("ar" np " stock " s)
        printf "%6d %10d  %12.3f %12.3f %7.2f\n", np, s, arf, ars, arf / ars
        if (s == 8 && np == 4) ar8 = arf / ars
    }
    printf "\ntargets: 8 B latency <= 1.15x stock: %.2fx %s; bandwidth >= 0.90x at 1 MiB: %.2fx %s, at 4 MiB: %.2fx %s; 8 B allreduce on 4 processes <= 1.15x: %.2fx %s\n",
        lat8, verdict(lat8 <= 1.15), bw1m, verdict(bw1m >= 0.90),
        bw4m, verdict(bw4m >= 0.90), ar8, verdict(ar8 <= 1.15)
}
function verdict(ok) { return ok ? "met" : "MISSED" }
# numeric order of the keys of an array (portable: no gawk extensions)
function asorti_num(arr, out,    k, n, i, j, t) {
    n = 0
    for (k in arr) out[++n] = k + 0
    for (i = 2; i <= n; i++) for (j = i; j > 1 && out[j-1] > out[j]; j--) { t = out[j]; out[j] = out[j-1]; out[j-1] = t }
    return n
}' "$raw" | tee "$out/summary-latest.txt"
