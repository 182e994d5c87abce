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
