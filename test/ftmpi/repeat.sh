#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Runs one test program many times, in parallel lanes, and counts how its
# runs ended: the repetition counts behind claims such as "100 of 100".
#
#   MPI_PREFIX=install test/ftmpi/repeat.sh RUNS LANES LIMIT NP PROGRAM [ARGS...]
#
# PROGRAM is a test of test/ftmpi (built into test/ftmpi/bin when missing)
# or an executable path; the environment (FTMPI_RECOVERY_MODE=ulfm, ...)
# passes through. A run is "ok" when mpiexec exits 0 within LIMIT seconds
# and none of its processes is still alive 3 s later; otherwise "hang" (the
# limit), "left" (processes left behind, killed) or "fail STATUS". Prints
# one line per run that was not ok (its output is kept in
# test/ftmpi/bin/repeat.*) and, last, "PROGRAM ARGS at NP: N of RUNS ok
# (H hang, F fail, L left)". Exit status 0 only if every run was ok.
set -u
[ $# -ge 5 ] || { sed -n 3,16p "$0" >&2; exit 2; }
runs=$1 lanes=$2 limit=$3 np=$4 prog=$5
shift 5
for n in "$runs" "$lanes" "$limit" "$np"; do
    case $n in '' | *[!0-9]* | 0) echo "repeat.sh: '$n' is not a positive number" >&2; exit 2 ;; esac
done
here=$(cd "$(dirname "$0")" && pwd)
[ -d "${MPI_PREFIX:-$here/../../install}" ] ||
    { echo "repeat.sh: no MPI installation at ${MPI_PREFIX:-$here/../../install}" >&2; exit 2; }
. "$here/scripts/common.bash"   # $src, $prefix, $bin, reap_tagged
exe=$prog
if [ ! -x "$exe" ]; then
    exe=$bin/$prog
    if [ ! -x "$exe" ] || [ "$src/$prog.c" -nt "$exe" ]; then
        "$prefix/bin/mpicc" -O2 -o "$exe" "$src/$prog.c" -lm ||
            { echo "repeat.sh: $prog does not build" >&2; exit 2; }
    fi
fi
results=$(mktemp -d)

one_run() { # lane index ARGS...
    local tag=ftmpi-repeat-$$-$1-$2 run=$2 out=$bin/repeat.$$.$2 rc pids verdict
    shift 2
    FTMPI_TEST_JOB_TAG=$tag timeout -k 5 "$limit" "$prefix/bin/mpiexec" -n "$np" "$exe" "$@" \
        >"$out" 2>&1 </dev/null
    rc=$?
    pids=$(reap_tagged "$tag")
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        verdict=hang
    elif [ $rc != 0 ]; then
        verdict="fail $rc"
    elif [ -n "$pids" ]; then
        verdict=left
    else
        verdict=ok
    fi
    echo "$verdict" >"$results/$run"
    if [ "$verdict" = ok ]; then
        rm -f "$out"
    else
        echo "run $run: $verdict (output: ${out#$src/})"
    fi
}

lane() { # lane ARGS...: runs lane, lane + lanes, ...
    local i l=$1
    shift
    for ((i = l; i < runs; i += lanes)); do
        one_run "$l" "$i" "$@"
    done
}

for ((l = 0; l < lanes && l < runs; l++)); do
    lane "$l" "$@" &
done
wait
ok=$(grep -lx ok "$results"/* 2>/dev/null | wc -l)
hang=$(grep -lx hang "$results"/* 2>/dev/null | wc -l)
left=$(grep -lx left "$results"/* 2>/dev/null | wc -l)
failed=$(grep -l '^fail' "$results"/* 2>/dev/null | wc -l)
rm -rf "$results"
echo "$prog $* at $np: $ok of $runs ok ($hang hang, $failed fail, $left left)"
[ "$ok" = "$runs" ]
