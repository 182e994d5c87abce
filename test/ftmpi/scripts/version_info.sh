#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# mpichversion and mpiexec -info name FT-MPICH and the fault-tolerance
# modes this build supports (MPI_Get_library_version: library_version in
# the test list).
set -u
. "$(dirname "$0")/common.bash"
fail=0
v=$("$prefix/bin/mpichversion" 2>&1)
line=$(grep "^FT-MPICH:" <<<"$v")
if [ -z "$line" ] || ! grep -q "FTMPI_COMM_MODE=abort|rebuild|blank|shrink" <<<"$line" ||
   ! grep -q "MPICH Device:.*ch4:ftdev" <<<"$v"; then
    echo "FAIL: mpichversion:"; echo "$v" | head -n 5; fail=1
else
    echo "mpichversion: $line"
fi
info=$(timeout -k 5 30 "$prefix/bin/mpiexec" -info 2>&1)
if ! grep -q "FT-MPICH fault-tolerance modes:.*FTMPI_RECOVERY_MODE=manual|auto|ignore|ulfm" <<<"$info" ||
   ! grep -q "FT-MPICH failure injection:.*-inject-failure" <<<"$info"; then
    echo "FAIL: mpiexec -info:"; echo "$info" | tail -n 4; fail=1
else
    grep "FT-MPICH" <<<"$info"
fi
exit $fail
