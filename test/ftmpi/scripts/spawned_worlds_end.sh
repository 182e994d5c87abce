#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# How spawned worlds end:
#  - MPI_Abort(MPI_COMM_WORLD, 3) in a spawned process ends every process
#    of the job and mpiexec exits with 3, in the default mode, SHRINK and
#    ULFM, and nothing says "ending the job" unless the job ends;
#  - a program that spawns and finishes 50 children one after another
#    leaves mpiexec no zombie child (checked within a second after each);
#  - spawns that start and end in quick succession, with the children
#    asking mpiexec's name service while they end: SPAWN_CHURN_CYCLES (50)
#    cycles of 2 children, no mpiexec assertion, every cycle right;
#  - a spawn onto a host that does not exist fails within 2 s with
#    MPI_ERR_SPAWN, mpiexec names the host, and the job and mpiexec end.
# test-timeout: 400
set -u
. "$(dirname "$0")/common.bash"
build spawn_abort || exit 1
build spawn_churn || exit 1
build spawn_badhost || exit 1
fail=0
for mode in "" "FTMPI_COMM_MODE=shrink" "FTMPI_RECOVERY_MODE=ulfm"; do
    out=$( [ -z "$mode" ] || export "${mode?}"
        tagged_run 60 "$prefix/bin/mpiexec" -n 2 "$bin/spawn_abort" 3 2>&1)
    rc=$?
    label="MPI_Abort(3) in a spawned process${mode:+, $mode}"
    if [ $rc != 3 ]; then
        echo "FAIL: $label: mpiexec exited $rc, expected 3:"; printf '%s\n' "$out" | tail -n 8
        fail=1
    elif grep -q SURVIVED <<<"$out"; then
        echo "FAIL: $label: a parent went on:"; grep SURVIVED <<<"$out"; fail=1
    else
        echo "$label: the job ended, status 3"
    fi
done
out=$(SPAWN_CHURN_ZOMBIES=1 tagged_run 200 "$prefix/bin/mpiexec" -n 2 "$bin/spawn_churn" 50 2>&1)
rc=$?
if [ $rc != 0 ] || ! grep -q "^ No Errors" <<<"$out"; then
    echo "FAIL: 50 spawns one after another (zombies checked): status $rc:"
    printf '%s\n' "$out" | grep -v "^ *$" | tail -n 8
    fail=1
else
    echo "50 spawns one after another: no zombie left under mpiexec"
fi
cycles=${SPAWN_CHURN_CYCLES:-50}
out=$(tagged_run 300 "$prefix/bin/mpiexec" -n 2 "$bin/spawn_churn" "$cycles" 2 2>&1)
rc=$?
if [ $rc != 0 ] || ! grep -q "^ No Errors" <<<"$out" || grep -qi "assert" <<<"$out"; then
    echo "FAIL: $cycles spawns of 2 ending children: status $rc:"
    printf '%s\n' "$out" | grep -v "^ *$" | tail -n 8
    fail=1
else
    echo "$cycles spawns of 2 children asking mpiexec while they end: ok"
fi
out=$(tagged_run 60 "$prefix/bin/mpiexec" -n 2 "$bin/spawn_badhost" nonexistent.invalid 2>&1)
rc=$?
if [ $rc != 0 ] || ! grep -q "^ No Errors" <<<"$out" ||
    ! grep -q "could not start the proxy on nonexistent.invalid" <<<"$out"; then
    echo "FAIL: a spawn onto an unknown host: status $rc:"
    printf '%s\n' "$out" | grep -v "^ *$" | tail -n 8
    fail=1
else
    echo "a spawn onto an unknown host: $(grep -o 'class .*' <<<"$out")"
fi
no_process_left || fail=1
exit $fail
