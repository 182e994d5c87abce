#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: recovery. Time from a SIGKILL until the last
# survivor is back in NO_FAILURES with a usable world (SHRINK and BLANK,
# MANUAL and AUTO), at 2, 4, 8, ... processes up to BENCH_MAX_NP,
# BENCH_RUNS kills each (default 5), the victim rotating; against what a
# user can do without FT-MPI: let the job die (ABORT, the default mode) and
# start it again until every process is back past MPI_Init and a barrier.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup recover
bench_build recover
now() { date +%s.%N; }

one_run() {
    local victim=$(( ($1 * 3 + 1) % n )) out
    if [ "$comm" = relaunch ]; then
        local kill ended start ready
        out=$(bench_mpiexec 30 "$prefix" "$n" "$bin/recover" 1 || true)
        ended=$(now)
        kill=$(awk '/^KILL/ { print $2 }' <<<"$out")
        start=$(now)
        out=$(bench_mpiexec 30 "$prefix" "$n" "$bin/recover" -1) || { echo FAILED; return; }
        ready=$(awk '/^READY/ { if ($3 > t) t = $3 } END { print t }' <<<"$out")
        awk -v k="$kill" -v e="$ended" -v s="$start" -v r="$ready" \
            'BEGIN { if (k && r) printf "%.3f\n", ((e - k) + (r - s)) * 1000; else print "FAILED" }'
        return
    fi
    out=$(FTMPI_COMM_MODE=$comm FTMPI_RECOVERY_MODE=$rec bench_mpiexec 30 "$prefix" "$n" \
        "$bin/recover" "$victim" || true)
    # the slowest survivor sets the time; a missing survivor or a broken
    # world fails the run
    awk -v n="$n" '/^KILL/ { k = $2 } /^RECOVERED/ { c++; if ($3 > t) t = $3; if ($4 != "ok") bad = 1 }
        END { if (k && c == n - 1 && !bad) printf "%.3f\n", (t - k) * 1000; else print "FAILED" }' <<<"$out"
}

echo "recovery: SIGKILL -> every survivor back in a usable world (ms)" | tee -a "$table"
fault_table_header
for n in $(fault_nps 2); do
    for comm in shrink blank; do
        for rec in manual auto; do
            run_case "$comm $rec" "$n"
        done
    done
    comm=relaunch
    run_case "relaunch (abort+mpiexec)" "$n"
done
