#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# The installed compiler wrappers name the plain compilers, whatever the
# build ran them through (ccache): `mpicc -show` starts with gcc, `mpicxx`
# with g++, `mpif77`, `mpif90` and `mpifort` with gfortran, and none names
# ccache. Each wrapper then builds a program that runs.
set -u
. "$(dirname "$0")/common.bash"
fail=0
for pair in mpicc:gcc mpicxx:g++ mpif77:gfortran mpif90:gfortran mpifort:gfortran; do
    wrapper=${pair%%:*} compiler=${pair#*:}
    shown=$("$prefix/bin/$wrapper" -show 2>&1)
    if [ "${shown%% *}" != "$compiler" ] || grep -q ccache <<<"$shown"; then
        echo "FAIL: $wrapper -show: $shown"; fail=1
    else
        echo "$wrapper -show: $compiler ..."
    fi
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' >"$dir/c.c"
cp "$dir/c.c" "$dir/cxx.cpp"
printf 'program f\n  use mpi_f08\n  call MPI_Init()\n  call MPI_Finalize()\nend program f\n' >"$dir/f.f90"
for build in "mpicc c.c" "mpicxx cxx.cpp" "mpifort f.f90"; do
    set -- $build
    if ! (cd "$dir" && "$prefix/bin/$1" -o prog "$2" >build.log 2>&1 &&
          tagged_run 30 "$prefix/bin/mpiexec" -n 1 ./prog >run.log 2>&1); then
        echo "FAIL: $1 $2 does not build and run:"; cat "$dir/build.log" "$dir/run.log" | head -n 5; fail=1
    fi
done
no_process_left || fail=1
exit $fail
