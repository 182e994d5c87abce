#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# needs: test points
# The test runner runs a test once more when a process of its run found
# itself deaf and left (the receive check, ftdev_echo.c), and says so
# on the test's line; a test that sets FTMPI_TEST_POINT=D:deaf itself (ft_deaf) is
# about that exit and runs once. The check is made to fire with
# FTMPI_TEST_POINT=1:deaf given to the runner, so that the entry does not set it.
set -u
. "$(dirname "$0")/common.bash"
list=$bin/fenced_run_rerun.$$.testlist
fail=0
echo "ft_deaf 4 90 ARGS=3,kill FTMPI_COMM_MODE=shrink EXPECT_SURVIVORS=2" >"$list"
out=$(FTMPI_TEST_POINT=1:deaf MPI_PREFIX=$prefix timeout -k 5 200 bash "$src/run-ftmpi-tests.sh" --testlist "$list" 2>&1)
if ! grep -q "^ok .*run twice: in the first, process 1 found itself deaf" <<<"$out"; then
    echo "a fenced run was not run again with a note:"; echo "$out" | tail -n 3; fail=1
fi
echo "ft_deaf 4 90 ARGS=3,kill FTMPI_TEST_POINT=1:deaf FTMPI_COMM_MODE=shrink EXPECT_SURVIVORS=2" >"$list"
out=$(MPI_PREFIX=$prefix timeout -k 5 200 bash "$src/run-ftmpi-tests.sh" --testlist "$list" 2>&1)
if ! grep -q "^ok " <<<"$out" || grep -q "run twice" <<<"$out"; then
    echo "ft_deaf's own entry was run twice or failed:"; echo "$out" | tail -n 3; fail=1
fi
rm -f "$list"
[ $fail = 0 ] && echo "a fenced run is run again and said so; ft_deaf's entry runs once"
exit $fail
