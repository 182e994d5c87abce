#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# mpiexec -with-ft ulfm (Open MPI's mpirun switch) runs a job under ULFM as
# FTMPI_RECOVERY_MODE=ulfm does: a ULFM program whose rank 2 kills itself
# keeps its 3 survivors, which see MPIX_ERR_PROC_FAILED and shrink;
# -with-ft mpi is the same; -with-ft no (a conformance suite's command
# line) runs the job as without the switch: the first death ends it (ABORT
# mode); any other value is refused with a line naming it, and nothing is
# left behind.
set -u
. "$(dirname "$0")/common.bash"
build ulfm_basic || exit 1
fail=0
for value in ulfm mpi; do
    out=$(unset FTMPI_RECOVERY_MODE MPIR_CVAR_ENABLE_FT; tagged_run 60 \
          "$prefix/bin/mpiexec" -with-ft $value -n 4 "$bin/ulfm_basic" 2 kill 2>&1)
    n=$(grep -Ec "rank [0-9]+: No Errors" <<<"$out")
    if [ "$n" != 3 ]; then
        echo "FAIL: -with-ft $value: $n of 3 survivors reported:"; printf '%s\n' "$out" | tail -n 10
        fail=1
    else
        echo "-with-ft $value: ok (3 survivors)"
    fi
done
out=$(unset FTMPI_RECOVERY_MODE MPIR_CVAR_ENABLE_FT FTMPI_COMM_MODE; tagged_run 60 \
      "$prefix/bin/mpiexec" -with-ft no -n 4 "$bin/ulfm_basic" 2 kill 2>&1)
rc=$?
if [ $rc = 0 ] || [ $rc = 124 ] || grep -Eq "rank [0-9]+: No Errors" <<<"$out"; then
    echo "FAIL: -with-ft no: status $rc, expected the death to end the job:"
    printf '%s\n' "$out" | tail -n 10
    fail=1
else
    echo "-with-ft no: ok (the death ended the job, status $rc)"
fi
expect_refused "-with-ft bogus" "with-ft takes ulfm, mpi or no, not bogus" \
    30 "$prefix/bin/mpiexec" -with-ft bogus -n 1 true || fail=1
no_process_left || fail=1
exit $fail
