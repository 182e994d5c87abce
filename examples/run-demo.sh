#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH demo: build the survive example with the installed mpicc and run
# it on 4 processes with the installed mpiexec, in SHRINK mode; one process
# kills itself halfway and the survivors recover and finish.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(cd "${MPI_PREFIX:-$here/../install}" && pwd)
mkdir -p "$here/bin"
"$prefix/bin/mpicc" -O2 -o "$here/bin/survive" "$here/survive.c"
echo "+ FTMPI_COMM_MODE=shrink mpiexec -n 4 examples/bin/survive"
FTMPI_COMM_MODE=shrink timeout -k 5 120 "$prefix/bin/mpiexec" -n 4 "$here/bin/survive"
