#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: REBUILD. Time from a SIGKILL until the replacement and
# every survivor are back in NO_FAILURES with a world of the original size
# (MANUAL and AUTO), at 2, 4, 8, ... processes up to BENCH_MAX_NP,
# BENCH_RUNS kills each (default 5), the victim rotating; against a full
# relaunch of the same application with a set-up phase of REBUILD_SETUP
# seconds (default 2): the job ends (ABORT, the default mode) and a new
# mpiexec gets back past the set-up.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup rebuild
bench_build rebuild
setup=${REBUILD_SETUP:-2}
now() { date +%s.%N; }

one_run() {
    local victim=$(( ($1 * 3 + 1) % n )) out
    if [ "$rec" = relaunch ]; then
        local kill ended start ready
        out=$(bench_mpiexec 30 "$prefix" "$n" "$bin/rebuild" 1 "$setup" || true)
        ended=$(now)
        kill=$(awk '/^KILL/ { print $2 }' <<<"$out")
        start=$(now)
        out=$(bench_mpiexec 30 "$prefix" "$n" "$bin/rebuild" -1 "$setup") || { echo FAILED; return; }
        ready=$(awk '/^READY/ { if ($3 > t) t = $3 } END { print t }' <<<"$out")
        awk -v k="$kill" -v e="$ended" -v s="$start" -v r="$ready" \
            'BEGIN { if (k && r) printf "%.3f\n", ((e - k) + (r - s)) * 1000; else print "FAILED" }'
        return
    fi
    out=$(FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=$rec bench_mpiexec 40 "$prefix" "$n" \
        "$bin/rebuild" "$victim" || true)
    # the last of the n processes back sets the time; fewer than n back, or
    # a broken world, fail the run
    awk -v n="$n" '/^KILL/ { k = $2 } /^RECOVERED/ { c++; if ($3 > t) t = $3; if ($4 != "ok") bad = 1 }
        END { if (k && c == n && !bad) printf "%.3f\n", (t - k) * 1000; else print "FAILED" }' <<<"$out"
}

echo "REBUILD: SIGKILL -> the replacement and every survivor back at full size (ms)" | tee -a "$table"
fault_table_header
for n in $(fault_nps 2); do
    for rec in manual auto; do
        run_case "rebuild $rec" "$n"
    done
    rec=relaunch
    run_case "relaunch (${setup} s set-up)" "$n"
done
