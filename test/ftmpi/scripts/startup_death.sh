#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# needs: test points
# A process that dies before MPI_Init, or inside it, leaves the others
# waiting in its barriers: the job must end at once with a nonzero status
# and a line naming the rank, in the default mode and in the fault-tolerant
# ones (which can only keep survivors once every process is past MPI_Init).
# "init" dies inside MPI_Init (the test point "init") after the first PMI
# barrier, before the node's shared-memory ones, where the others would
# otherwise spin for ever.
set -u
. "$(dirname "$0")/common.bash"
build ft_startup || exit 1
fail=0
for mode in abort shrink blank; do
    for how in kill exit init; do
        start=$(date +%s.%N)
        if [ $how = init ]; then
            set -- env FTMPI_TEST_POINT=1:init "$prefix/bin/mpiexec" -n 4 "$bin/ft_startup" -1 kill
        else
            set -- "$prefix/bin/mpiexec" -n 4 "$bin/ft_startup" 1 "$how"
        fi
        out=$(FTMPI_COMM_MODE=$mode timeout -k 5 30 "$@" 2>&1 </dev/null)
        rc=$?
        took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
        if [ $rc = 0 ] || [ $rc = 124 ] || [ $rc = 137 ]; then
            echo "$mode, $how: exit status $rc after ${took}s, expected the job to fail at once"; fail=1
        elif grep -q SURVIVED <<<"$out"; then
            echo "$mode, $how: a process got past MPI_Init"; fail=1
        elif ! grep -q "rank 1 (pid [0-9]*) died before every process finished MPI_Init" <<<"$out"; then
            echo "$mode, $how: no line names the dead rank:"; echo "$out" | head -n 5; fail=1
        else
            echo "$mode, $how: ended after ${took}s, status $rc"
        fi
    done
done
exit $fail
