#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Programs built for stock MPICH run fault-tolerant on FT-MPICH unchanged:
#   - built by Debian's own MPICH (mpicc.mpich, so linked to
#     libmpich.so.12) and started with LD_LIBRARY_PATH naming FT-MPICH's
#     lib folder, a program loads FT-MPICH's library (the file holding
#     MPI_Init, and MPI_Get_library_version's first line);
#   - Debian's parallel HDF5 for MPICH (h5pcc.mpich) writes a dataset
#     collectively from 4 processes through FT-MPICH's MPI-IO and reads it
#     back, every value checked;
#   - started the way stock MPICH's tools ask for survivors (OpenCoarrays'
#     cafrun: `mpiexec -disable-auto-cleanup` and nothing else; and with
#     MPIR_CVAR_ENABLE_FT=1), a ULFM program whose last rank is SIGKILLed
#     gets ULFM's behaviour: every survivor sees the failure, shrinks and
#     goes on, and the job exits 0. The same with FT-MPICH's own mpicc.
# Needs Debian's libmpich-dev and libhdf5-mpich-dev (make check installs
# them); without them the test cannot run here and says so.
set -u
. "$(dirname "$0")/common.bash"
for c in mpicc.mpich h5pcc.mpich; do
    command -v $c >/dev/null || { echo "no $c here (make check installs it)"; exit 77; }
done
fail=0
mpicc.mpich -O2 -o "$bin/abi_probe_debian" "$src/abi_probe.c" || exit 1
build abi_probe || exit 1
if ! ldd "$bin/abi_probe_debian" | grep -q 'libmpich\.so\.12'; then
    echo "FAIL: mpicc.mpich's program does not link libmpich.so.12:"; ldd "$bin/abi_probe_debian"
    exit 1
fi

out=$(LD_LIBRARY_PATH=$prefix/lib tagged_run 30 "$prefix/bin/mpiexec" -n 2 "$bin/abi_probe_debian" 2>&1)
rc=$?
lib=$(sed -n 's/^library: //p' <<<"$out")
if [ $rc != 0 ] || [ "$(readlink -f "$lib")" != "$(readlink -f "$prefix/lib/libmpi.so.12")" ] ||
    ! grep -q '^version: FT-MPICH:' <<<"$out"; then
    echo "FAIL: Debian-built program on FT-MPICH (exit $rc):"; echo "$out" | head -n 5
    fail=1
fi

h5pcc.mpich -O2 -o "$bin/hdf5_parallel" "$src/hdf5_parallel.c" || exit 1
h5=$(mktemp -d)
out=$(cd "$h5" && LD_LIBRARY_PATH=$prefix/lib tagged_run 120 "$prefix/bin/mpiexec" -n 4 \
    "$bin/hdf5_parallel" "$h5/rows.h5" 2>&1)
rc=$?
rm -rf "$h5"
lib=$(sed -n 's/^library: //p' <<<"$out")
if [ $rc != 0 ] || [ "$(readlink -f "$lib")" != "$(readlink -f "$prefix/lib/libmpi.so.12")" ] ||
    [ "$(grep -c '^rank [0-3]: rows checked$' <<<"$out")" != 4 ]; then
    echo "FAIL: Debian's parallel HDF5 on FT-MPICH (exit $rc):"; echo "$out" | head -n 6
    fail=1
fi

# how each run asks for survivors: program, then mpiexec's environment and options
runs=("debian|-|-disable-auto-cleanup"
      "debian|MPIR_CVAR_ENABLE_FT=1|-disable-auto-cleanup"
      "own|-|-disable-auto-cleanup"
      "own|-|-dac")
for r in "${runs[@]}"; do
    IFS='|' read -r which env_setting flag <<<"$r"
    exe=$bin/abi_probe; [ $which = debian ] && exe=$bin/abi_probe_debian
    envs=(LD_LIBRARY_PATH=$prefix/lib)
    [ "$env_setting" = - ] || envs+=("$env_setting")
    for run in 1 2 3; do
        out=$(tagged_run 60 env "${envs[@]}" "$prefix/bin/mpiexec" $flag -n 4 "$exe" kill 2>&1)
        rc=$?
        why=
        if [ $rc != 0 ]; then why="exit status $rc"
        elif grep -q 'ends the job\|FAIL' <<<"$out"; then why="not ULFM's behaviour"
        elif [ "$(grep -c '^rank [012]: survived with 3$' <<<"$out")" != 3 ]; then why="not every survivor went on"
        fi
        if [ -n "$why" ]; then
            echo "FAIL: $which program, ${env_setting/-/no variable}, mpiexec $flag, run $run: $why:"
            echo "$out" | head -n 8
            fail=1
        fi
    done
done
no_process_left || fail=1
[ $fail = 0 ] && echo "ok: Debian-built programs and HDF5 run on FT-MPICH; -disable-auto-cleanup runs ULFM"
exit $fail
