#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark under Slurm: recovery (SHRINK MANUAL, BLANK AUTO) and
# REBUILD (MANUAL, AUTO) times, the programs and measures of run-recover.sh
# and run-rebuild.sh, with each way of launching, on a private single-node
# Slurm that this script starts and stops (test/slurm/slurm-cluster.bash):
#
#   mpiexec  mpiexec -n N, no Slurm: the reference, same machine, same hour
#   slurm    salloc -n N mpiexec -bootstrap slurm -n N
#   srun     srun --mpi=pmi2 -n N
#
# At 4 and 8 processes (BENCH_NPS), BENCH_RUNS kills per case (default 5),
# the victim rotating; rows with more processes than cores say
# "oversubscribed". Needs root (Slurm's daemons); not part of `make bench`.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
. "$(dirname "$0")/../test/slurm/slurm-cluster.bash"
bench_setup slurm
bench_build recover
bench_build rebuild

# (|| true: errexit must not cut the stop short)
trap 'slurm_cluster_stop || true' EXIT
trap 'exit 1' INT TERM HUP
slurm_cluster_start 8 || { echo "run-slurm.sh: no Slurm to measure with: $slurm_skip_reason" >&2; exit 2; }

bench_launcher() { # prefix np
    case $launcher in
        mpiexec) launch_cmd=("$1/bin/mpiexec" -n "$2") ;;
        slurm) launch_cmd=(salloc -Q -n "$2" "$1/bin/mpiexec" -bootstrap slurm -n "$2") ;;
        # (REBUILD's replacements are steps of their own: README, "Running
        # under Slurm")
        srun) launch_cmd=(env SLURM_OVERLAP=1 srun -Q --mpi=pmi2 -n "$2") ;;
    esac
}

one_run() {
    local victim=$(( ($1 * 3 + 1) % n )) want=$((n - 1)) out left
    [ "$comm" != rebuild ] || want=$n
    out=$(FTMPI_COMM_MODE=$comm FTMPI_RECOVERY_MODE=$rec bench_mpiexec 40 "$prefix" "$n" \
        "$bin/$program" "$victim" || true)
    # a job or step Slurm still holds is a leak, as a process is
    left=$(slurm_cluster_leftovers 30) || {
        echo "bench: left behind in Slurm by a job: $left" >&2
        scancel --quiet $(squeue -h -o %i) 2>/dev/null || true
    }
    # the last process back sets the time: every survivor (and REBUILD's
    # replacement) in a usable world, else the run failed
    awk -v want="$want" '/^KILL/ { k = $2 } /^RECOVERED/ { c++; if ($3 > t) t = $3; if ($4 != "ok") bad = 1 }
        END { if (k && c == want && !bad) printf "%.3f\n", (t - k) * 1000; else print "FAILED" }' <<<"$out"
}

echo "Slurm $(sinfo -V | awk '{ print $2 }'), $cores cores: SIGKILL -> every survivor (REBUILD: and the" | tee -a "$table"
echo "replacement) back in a usable world (ms)" | tee -a "$table"
fault_table_header
for n in ${BENCH_NPS:-4 8}; do
    for launcher in mpiexec slurm srun; do
        for mode in "shrink manual recover" "blank auto recover" "rebuild manual rebuild" "rebuild auto rebuild"; do
            read -r comm rec program <<<"$mode"
            run_case "$launcher: $comm $rec" "$n"
        done
    done
done
echo "(raw: bench/results/$(basename "$raw"))"
