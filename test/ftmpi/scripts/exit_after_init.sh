#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A rank that exits with status 1 right after its own MPI_Init strands
# nobody, in ULFM mode (MPICH's way: MPIR_CVAR_ENABLE_FT=1 and
# -disable-auto-cleanup; there another rank exits with 1 at the end, after
# a message) and in SHRINK mode (which halts communication after a failure
# until recovery, so only the first exit): the others finish, the launcher
# does not end the job ("died before every process finished MPI_Init"),
# and mpiexec prints no termination banner (the proxy reports the status
# it reaped, never a provisional raw status 1 that would read as "killed
# by signal 1"). Both depend on the order in which the proxy sees the exits
# and the others' MPI_Init, so each mode runs 12 times. Exit status: 0,
# which counts the processes alive at the end only, in both modes.
set -u
. "$(dirname "$0")/common.bash"
build exit_after_init || exit 1
fail=0
for mode in ulfm shrink; do
    bad=0
    for run in $(seq 1 12); do
        if [ $mode = ulfm ]; then
            set -- env MPIR_CVAR_ENABLE_FT=1 "$prefix/bin/mpiexec" -disable-auto-cleanup -n 4
            want=0 args="1 3" survivors="[02]" nsurv=2
        else
            set -- env FTMPI_COMM_MODE=shrink "$prefix/bin/mpiexec" -n 4
            want=0 args=1 survivors="[023]" nsurv=3
        fi
        out=$(tagged_run 30 "$@" "$bin/exit_after_init" $args 2>&1)
        rc=$?
        why=
        if [ $rc != $want ]; then why="exit status $rc, expected $want"
        elif grep -q "ending the job" <<<"$out"; then why="the launcher ended the job"
        elif grep -q "EXIT STRING" <<<"$out"; then why="mpiexec printed its termination banner"
        elif [ "$(grep -c "rank $survivors: No Errors" <<<"$out")" != $nsurv ]; then why="not every survivor finished"
        fi
        if [ -n "$why" ]; then
            echo "$mode, run $run: $why:"; echo "$out" | head -n 6
            bad=$((bad + 1))
        fi
    done
    echo "$mode: $((12 - bad)) of 12 runs ok"
    [ $bad = 0 ] || fail=1
done
no_process_left || fail=1
exit $fail
