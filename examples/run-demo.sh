#!/usr/bin/env bash
# FT-MPICH demo: build the ring example with the installed mpicc and run it
# on 4 processes with the installed mpiexec.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(cd "${MPI_PREFIX:-$here/../install}" && pwd)
mkdir -p "$here/bin"
"$prefix/bin/mpicc" -O2 -o "$here/bin/ring" "$here/ring.c"
echo "+ mpiexec -n 4 examples/bin/ring 1000"
timeout -k 5 120 "$prefix/bin/mpiexec" -n 4 "$here/bin/ring" 1000
