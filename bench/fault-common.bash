# Sourced by the fault benchmarks (run-detect.sh, run-recover.sh):
# fault_bench_setup PROGRAM builds bench/PROGRAM.c with the ftdev mpicc and
# sets $here, $prefix (FTDEV_PREFIX, default ./install), $bin and $raw (a
# new results file named after PROGRAM).
fault_bench_setup() {
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    prefix=$(cd "${FTDEV_PREFIX:-$here/../install}" && pwd)
    bin=$here/bin
    mkdir -p "$bin" "$here/results"
    "$prefix/bin/mpicc" -O2 -o "$bin/$1" "$here/$1.c"
    raw=$here/results/$1-$(date +%Y%m%d-%H%M%S).txt
}

# stats_header prints the column titles; stats LABEL reads ms values on
# stdin and prints their count, median and max. The label column is
# $stats_width wide (default 32).
stats_header() {
    printf "%-${stats_width:-32}s %5s %10s %10s\n" case runs "median ms" "max ms"
}

stats() {
    sort -n | awk -v l="$1" -v w="${stats_width:-32}" '{ v[NR] = $1 } END {
        if (NR == 0) { printf "%-*s %5s %10s %10s\n", w, l, 0, "-", "-"; exit }
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%-*s %5d %10.1f %10.1f\n", w, l, NR, m, v[NR] }'
}
