#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: failure detection. Time from a rank's SIGKILL until
# the last survivor's blocked call returns MPI_ERR_OTHER (SHRINK mode), for
# survivors receiving from the victim (recv-victim), from a live rank that
# never sends (recv-live, 3 processes and more), and inside MPI_Allreduce
# (coll); at 4, 8, ... processes up to BENCH_MAX_NP, BENCH_RUNS kills per
# case (default 5), the victim rotating. A run where a survivor's call
# returns another error counts as failed.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup detect
bench_build detect

one_run() {
    local victim=$(( ($1 * 7 + 1) % n )) out
    out=$(FTMPI_COMM_MODE=shrink bench_mpiexec 30 "$prefix" "$n" "$bin/detect" "$scenario" "$victim" || true)
    awk -v n="$n" '/^KILL/ { k = $2 } /^DETECT/ { c++; if ($3 > t) t = $3; if ($4 != "ok") bad = 1 }
        END { if (k && c == n - 1 && !bad) printf "%.3f\n", (t - k) * 1000; else print "FAILED" }' <<<"$out"
}

echo "failure detection: SIGKILL -> the last survivor's blocked call fails (ms)" | tee -a "$table"
fault_table_header
for n in $(fault_nps 4); do
    for scenario in recv-victim recv-live coll; do
        run_case "detect $scenario" "$n"
    done
done
