#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# MPI-4's initial error handler from the launcher: mpiexec
# -initial-errhandler NAME starts MPI_COMM_WORLD and MPI_COMM_SELF with that
# handler and MPI_INFO_ENV says so (initial_errhandler checks both, and that
# errors are then returned); mpi_errors_abort (MPICH 4.0.2 has no object for
# MPI_ERRORS_ABORT) and names that are none of MPI-4's are refused by
# mpiexec, and by MPI_Init when set through MPIR_CVAR_INITIAL_ERRHANDLER,
# each with one line naming it; nothing is left behind.
set -u
. "$(dirname "$0")/common.bash"
build initial_errhandler || exit 1
fail=0
for value in mpi_errors_return MPI_ERRORS_ARE_FATAL; do
    out=$(tagged_run 60 "$prefix/bin/mpiexec" -initial-errhandler $value -n 2 \
          "$bin/initial_errhandler" $value 2>&1)
    rc=$?
    if [ $rc != 0 ] || ! grep -q " No Errors" <<<"$out"; then
        echo "FAIL: -initial-errhandler $value: status $rc:"; printf '%s\n' "$out" | tail -n 8
        fail=1
    else
        echo "-initial-errhandler $value: ok"
    fi
done
expect_refused "-initial-errhandler bogus" \
    "initial-errhandler takes mpi_errors_are_fatal or mpi_errors_return, not bogus" \
    30 "$prefix/bin/mpiexec" -initial-errhandler bogus -n 1 true || fail=1
expect_refused "-initial-errhandler mpi_errors_abort" \
    "initial-errhandler mpi_errors_abort is not available" \
    30 "$prefix/bin/mpiexec" -initial-errhandler mpi_errors_abort -n 1 true || fail=1
expect_refused "MPIR_CVAR_INITIAL_ERRHANDLER=bogus" \
    "Invalid MPIR_CVAR_INITIAL_ERRHANDLER value (bogus)" \
    60 env MPIR_CVAR_INITIAL_ERRHANDLER=bogus "$prefix/bin/mpiexec" -n 2 \
    "$bin/initial_errhandler" mpi_errors_return || fail=1
no_process_left || fail=1
exit $fail
