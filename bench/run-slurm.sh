#!/usr/bin/env bash
# FT-MPICH benchmark under Slurm: failure detection, recovery and REBUILD
# times (the programs and measures of run-detect.sh, run-recover.sh and
# run-rebuild.sh) with each way of launching, on a private single-node
# Slurm that this script starts and stops (test/slurm/slurm-cluster.bash):
#
#   mpiexec  mpiexec -n N (no Slurm; the reference, same machine, same hour)
#   slurm    salloc -n N mpiexec -bootstrap slurm -n N
#   srun     srun --mpi=pmi2 -n N
#
# SLURM_RUNS kills per case (default 10), the victim rotating; at 4 and 8
# processes (8 is oversubscribed on a 2-core machine). Needs root.
set -euo pipefail
. "$(dirname "$0")/fault-common.bash"
. "$(dirname "$0")/../test/slurm/slurm-cluster.bash"
fault_bench_setup detect
for p in recover rebuild; do "$prefix/bin/mpicc" -O2 -o "$bin/$p" "$here/$p.c"; done
raw=$here/results/slurm-$(date +%Y%m%d-%H%M%S).txt
runs=${SLURM_RUNS:-10}
stats_width=40
export PATH=$prefix/bin:$PATH

trap 'slurm_cluster_stop' EXIT
trap 'exit 1' INT TERM HUP
slurm_cluster_start 8 || { echo "run-slurm.sh: no Slurm: $slurm_skip_reason" >&2; exit 1; }

launch() { # launcher nprocs
    case $1 in
        mpiexec) echo "mpiexec -n $2" ;;
        slurm) echo "salloc -Q -n $2 mpiexec -bootstrap slurm -n $2" ;;
        srun) echo "srun -Q --mpi=pmi2 -n $2" ;;
    esac
}

# run LAUNCHER N ENV... -- PROGRAM ARGS: the job's output, whatever its end
run() {
    local l=$1 n=$2 envs=()
    shift 2
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    (cd /tmp && env "${envs[@]}" timeout -k 5 90 $(launch "$l" "$n") "$@" 2>/dev/null </dev/null) || true
}

# ms from KILL to the last of `want` RECOVERED lines, all "ok"; else FAILED
kill_to_recovered() {
    awk -v want="$1" '/^KILL/ { k = $2 } /^RECOVERED/ { c++; if ($3 > t) t = $3; if ($4 != "ok") bad = 1 }
        END { if (k && t && c == want && !bad) printf "%.3f\n", (t - k) * 1000; else print "FAILED" }'
}

# one case: LABEL then the arguments of run; prints its statistics line
# and how many runs failed
measure() {
    local label=$1 l=$2 n=$3 i victim results
    shift 3
    results=$(for i in $(seq "$runs"); do
        victim=$(( (i * 3 + 1) % n ))
        case "$label" in
            detect*) run "$l" "$n" "$@" "$victim" |
                awk '/^KILL/ { k = $2 } /^DETECT/ { if ($4 != "ok") bad = 1; if ($3 > t) t = $3 }
                    END { if (k && t && !bad) printf "%.3f\n", (t - k) * 1000; else print "FAILED" }' ;;
            recover*) run "$l" "$n" "$@" "$victim" | kill_to_recovered $((n - 1)) ;;
            rebuild*) run "$l" "$n" "$@" "$victim" | kill_to_recovered "$n" ;;
        esac
    done)
    sed "s|^|$l $n $label |" <<<"$results" >>"$raw"
    grep -v FAILED <<<"$results" | stats "$l: $label, $n"
    local failed
    failed=$(grep -c FAILED <<<"$results" || true)
    [ "$failed" = 0 ] || echo "  ($failed of $runs runs failed)"
}

echo "Slurm $(sinfo -V | awk '{ print $2 }'), $runs kills per case; detect: slowest survivor's blocked"
echo "receive from a live rank; recover/rebuild: last process back in a usable world"
stats_header
for n in 4 8; do
    for l in mpiexec slurm srun; do
        measure "detect" "$l" "$n" FTMPI_COMM_MODE=shrink -- "$bin/detect" recv-live
        measure "recover shrink manual" "$l" "$n" FTMPI_COMM_MODE=shrink -- "$bin/recover"
        measure "recover blank auto" "$l" "$n" FTMPI_COMM_MODE=blank FTMPI_RECOVERY_MODE=auto -- "$bin/recover"
        measure "rebuild manual" "$l" "$n" FTMPI_COMM_MODE=rebuild -- "$bin/rebuild"
        measure "rebuild auto" "$l" "$n" FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=auto -- "$bin/rebuild"
    done
done
echo "(raw: bench/results/$(basename "$raw"): launcher procs case ms)"
