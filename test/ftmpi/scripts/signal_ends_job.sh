#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A signal that ends the job (a scheduler's or timeout's SIGTERM, Ctrl-C's
# SIGINT, a closed terminal's SIGHUP) sent to mpiexec while the processes
# wait in MPI calls: mpiexec forwards it, the job ends, and mpiexec exits
# with 128 + the signal in every mode, however the processes die (in a
# fault-tolerant job they would otherwise count as failures to recover
# from, REBUILD would replace them, and the job could end with status 0).
# A program that ignores the signal is killed after the grace period
# (MPIEXEC_SIGNAL_GRACE). Nothing is left behind.
# SIGNAL_TRIES (default 3) runs of each case.
set -u
. "$(dirname "$0")/common.bash"
build inject_target || exit 1
fail=0
tries=${SIGNAL_TRIES:-3}

# run LABEL SIGNAL EXPECTED_STATUS ENV...: inject_target runs 30 s; the
# signal reaches mpiexec after 1.5 s
run() {
    local label=$1 sig=$2 want=$3 ok=0 rc out i
    shift 3
    for ((i = 0; i < tries; i++)); do
        out=$(export "$@"; tagged_run 60 timeout --preserve-status -s "$sig" -k 30 1.5 \
              "$prefix/bin/mpiexec" -n 3 "$bin/inject_target" 30 2>&1)
        rc=$?
        if [ "$rc" = "$want" ]; then
            ok=$((ok + 1))
        else
            echo "FAIL: $label: mpiexec exited with $rc, expected $want; its output:"
            printf '%s\n' "$out" | tail -n 8
            fail=1
        fi
    done
    echo "$label: $ok of $tries exited with $want"
}

for mode in abort shrink blank rebuild; do
    run "SIGTERM, FTMPI_COMM_MODE=$mode" TERM 143 FTMPI_COMM_MODE=$mode
done
run "SIGTERM, ULFM" TERM 143 FTMPI_RECOVERY_MODE=ulfm
run "SIGTERM, REBUILD + ATOMIC + CONT" TERM 143 FTMPI_COMM_MODE=rebuild FTMPI_COLL_MODE=atomic \
    FTMPI_MSG_MODE=cont
run "SIGHUP, FTMPI_COMM_MODE=shrink" HUP 129 FTMPI_COMM_MODE=shrink
run "SIGINT, FTMPI_COMM_MODE=blank" INT 130 FTMPI_COMM_MODE=blank
# processes that ignore the signal: killed after the grace period
run "SIGTERM ignored by the processes, FTMPI_COMM_MODE=shrink" TERM 143 \
    FTMPI_COMM_MODE=shrink FTMPI_TEST_IGNORE_SIGTERM=1 MPIEXEC_SIGNAL_GRACE=2

no_process_left || fail=1
exit $fail
