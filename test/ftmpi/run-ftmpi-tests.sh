#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH test runner.
#
#   MPI_PREFIX=install test/ftmpi/run-ftmpi-tests.sh [--mpich-smoke] [name...]
#   ... run-ftmpi-tests.sh --testlist FILE --launcher mpiexec|slurm|srun
#   FTMPI_TIMEOUT_SCALE=N ... (every time limit N times longer)
#
# Builds the programs of test/ftmpi with the installed mpicc and runs each
# entry of test/ftmpi/testlist under a timeout (a hang is a failure). With
# --mpich-smoke it also runs the smoke subset of MPICH's own test suite and
# counts it in the same total. --testlist runs the entries of another list
# only (with --scripts, the script tests and the short soak too);
# --launcher starts each job with mpiexec (default), with
# `salloc mpiexec -bootstrap slurm` or with `srun --mpi=pmi2` (both need a
# Slurm to talk to: test/slurm/run-slurm-tests.sh). The last line is
# "N passed, N failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
prefix=$(cd "${MPI_PREFIX:-$top/install}" 2>/dev/null && pwd) || { echo "run-ftmpi-tests.sh: no install prefix ${MPI_PREFIX:-$top/install} (build first: make)" >&2; exit 2; }
# FTMPI_TEST_BIN: where the test programs are built (one folder per installation)
bindir=${FTMPI_TEST_BIN:-$here/bin}
# MPI_PREFIX_TEST_POINTS: a build with --enable-ft-test-points for the tests
# that need one (NEEDS=test-points in the testlist, "# needs: test points"
# in a script); without it every test runs on MPI_PREFIX, which must then
# have them
tp_prefix=
if [ -n "${MPI_PREFIX_TEST_POINTS:-}" ]; then
    tp_prefix=$(cd "$MPI_PREFIX_TEST_POINTS" 2>/dev/null && pwd) ||
        { echo "run-ftmpi-tests.sh: no install prefix $MPI_PREFIX_TEST_POINTS (build first: make test-points)" >&2; exit 2; }
fi
tp_bindir=$bindir-tp
smoke=no
only=()
testlist=$here/testlist
listed_only=no
with_scripts=no
launcher=mpiexec
while [ $# -gt 0 ]; do
    case "$1" in
        --mpich-smoke) smoke=yes ;;
        --testlist) testlist=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); listed_only=yes; shift ;;
        --launcher) launcher=$2; shift ;;
        --scripts) with_scripts=yes ;;
        -*) echo "run-ftmpi-tests.sh: unknown option $1" >&2; exit 2 ;;
        *) only+=("$1") ;;
    esac
    shift
done
case "$launcher" in
    mpiexec|slurm|srun) ;;
    *) echo "run-ftmpi-tests.sh: --launcher is mpiexec, slurm or srun, not '$launcher'" >&2; exit 2 ;;
esac

[ -x "$prefix/bin/mpicc" ] || { echo "run-ftmpi-tests.sh: no mpicc in $prefix/bin (build first: make)" >&2; exit 2; }
mkdir -p "$bindir"
[ -z "$tp_prefix" ] || mkdir -p "$tp_bindir"
base_path=$PATH
export PATH=$prefix/bin:$PATH

passed=0
failed=0
failures=()
# FTMPI_TIMEOUT_SCALE=N gives every test N times its time limit (a
# sanitizer build runs slower)
timeout_scale=${FTMPI_TIMEOUT_SCALE:-1}

elapsed() { awk -v s="$1" -v e="$(date +%s%N)" 'BEGIN { printf "%.1f", (e - s) / 1e9 }'; }

record() { # name ok|FAIL seconds [detail]
    if [ "$2" = ok ]; then
        passed=$((passed + 1))
        printf 'ok    %-44s %6.1fs%s\n' "$1" "$3" "${4:+  $4}"
    else
        failed=$((failed + 1))
        failures+=("$1")
        printf 'FAIL  %-44s %6.1fs  %s\n' "$1" "$3" "${4:-}"
        # the CI keeps only this log: the output's end goes into it
        [ -n "${out:-}" ] && [ -f "$out" ] && tail -n 12 "$out" | sed 's/^/      | /'
    fi
}

# Processes still alive 3 s after the job ended that carry its tag (their
# pids and names); they are killed so that later tests start clean.
left_behind() {
    local tag=$1 pids= waited=0 p
    while :; do
        pids=$(grep -lsa "FTMPI_TEST_JOB_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')
        pids=${pids% }
        [ -z "$pids" ] || [ $waited -ge 30 ] && break
        sleep 0.1
        waited=$((waited + 1))
    done
    [ -n "$pids" ] || return 0
    for p in $pids; do printf '%s(%s) ' "$p" "$(cat /proc/$p/comm 2>/dev/null)"; done
    kill -9 $pids 2>/dev/null
}

# The command that starts a job of $1 processes, and the number of
# processes the launcher's output says died (mpiexec: one line per rank
# that died before MPI_Finalize; srun: "task(s) LIST: Killed" or "Exited
# with exit code N" per death or group of deaths).
launch_command() {
    case $launcher in
        mpiexec) echo "mpiexec -n $1" ;;
        slurm) echo "salloc -Q -n $1 mpiexec -bootstrap slurm -n $1" ;;
        srun) echo "srun -Q --mpi=pmi2 -n $1" ;;
    esac
}
deaths_reported() { # output file
    if [ $launcher = srun ]; then
        sed -nE 's/^srun: error: [^:]*: tasks? ([0-9,-]+): (Killed|Exited with exit code [0-9]+)$/\1/p' "$1" |
            tr ',' '\n' | awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n + 0 }'
    else
        grep -c "died before MPI_Finalize" "$1"
    fi
}

# Slurm jobs, and slurmstepd processes of the test's private Slurm
# (FTMPI_SLURM_CLUSTER_DIR, from test/slurm/run-slurm-tests.sh), still
# there 3 s after the job ended; the jobs are cancelled so that later tests
# start clean. (Against another Slurm only the job's processes are checked.)
if [ $launcher != mpiexec ]; then
    . "$top/test/slurm/slurm-cluster.bash"
    slurm_cluster_dir=${FTMPI_SLURM_CLUSTER_DIR:-}
fi
slurm_left_behind() {
    local left
    [ -n "${slurm_cluster_dir:-}" ] || return 0
    left=$(slurm_cluster_leftovers 30) && return 0
    echo "Slurm $left"
    scancel $(squeue -h -o %i) >/dev/null 2>&1
}

build() { # program (of test/ftmpi, else of examples; C, C++ or Fortran) -> 0 if built
    local src= exe=$bindir/$1 d ext cc
    for d in "$here" "$top/examples"; do
        for ext in c cxx f f90; do
            [ -z "$src" ] && [ -f "$d/$1.$ext" ] && src=$d/$1.$ext
        done
    done
    [ -n "$src" ] || { echo "no source for $1 in test/ftmpi or examples" >"$bindir/$1.build.log"; return 1; }
    case "$src" in
        *.cxx) cc=mpicxx ;;
        *.f|*.f90) cc=mpifort ;;
        *) cc=mpicc ;;
    esac
    if [ ! -x "$exe" ] || [ "$src" -nt "$exe" ] || [ "$here/ftmpi_test.h" -nt "$exe" ] ||
        [ "$prefix/lib/libmpi.so" -nt "$exe" ] || [ "$prefix/lib/libftmpi_ckpt.so" -nt "$exe" ]; then
        local libs="-lftmpi_ckpt -lm"
        [ $cc = mpifort ] && libs=
        $cc -O2 -Wall -o "$exe" "$src" $libs >"$bindir/$1.build.log" 2>&1 || return 1
    fi
}

# testlist line: name nprocs timeout [VAR=value ...] [ARGS=a,b,c] [NEEDS=test-points] [REPEAT=N]
# Expectations: " No Errors" in the output and exit status 0, unless the line
# sets EXPECT_EXIT=nonzero and EXPECT_OUTPUT=<regex> (tests of error paths),
# or EXPECT_SURVIVORS=k (fault-tolerance tests: exactly k processes report
# " rank R: No Errors", none reports errors, mpiexec names each dead process
# once, nprocs - k of them unless EXPECT_DEATHS says otherwise (REBUILD
# replaces the dead), and its exit status counts only the processes alive
# at the end). ARGS are the program's arguments, comma-separated.
# EXPECT_INJECTED=k: mpiexec reports k failures it injected (set them with
# MPIEXEC_INJECT_FAILURE, the environment form of -inject-failure).
run_entry() {
    local name=$1 np=$2 limit=$(($3 * timeout_scale))
    shift 3
    local envs=() args=() expect_exit=0 expect_output=" No Errors" survivors= deaths= injected=
    # an entry that needs the test points runs on their build, its programs
    # built there (build and the launch below read these)
    local prefix=$prefix bindir=$bindir PATH=$PATH
    for kv in "$@"; do
        case "$kv" in
            NEEDS=test-points)
                if [ -n "$tp_prefix" ]; then
                    prefix=$tp_prefix bindir=$tp_bindir PATH=$tp_prefix/bin:$base_path
                fi ;;
            NEEDS=*) echo "run-ftmpi-tests.sh: unknown $kv in the entry of $name" >&2 ;;
            EXPECT_EXIT=*) expect_exit=${kv#EXPECT_EXIT=} ;;
            EXPECT_OUTPUT=*) expect_output=${kv#EXPECT_OUTPUT=} ;;
            EXPECT_SURVIVORS=*) survivors=${kv#EXPECT_SURVIVORS=} ;;
            EXPECT_DEATHS=*) deaths=${kv#EXPECT_DEATHS=} ;;
            EXPECT_INJECTED=*) injected=${kv#EXPECT_INJECTED=} ;;
            ARGS=*) IFS=, read -r -a args <<<"${kv#ARGS=}" ;;
            *=*) envs+=("$kv") ;;
        esac
    done
    [ -n "$survivors" ] && [ -z "$deaths" ] && deaths=$((np - survivors))
    # srun's exit status is its tasks' worst: a dead one's
    [ $launcher = srun ] && [ "${deaths:-0}" -gt 0 ] && expect_exit=nonzero
    local via=
    [ $launcher = mpiexec ] || via="$launcher: "
    local label="$via$name -n $np${args[*]:+ ${args[*]}}${envs[*]:+ ${envs[*]}}${run_label:+ ($run_label)}"
    local prog=${name%%.*}
    if ! build "$prog"; then
        record "$label" FAIL 0 "does not compile: $(head -n 3 "$bindir/$prog.build.log" | tr '\n' ' ')"
        return
    fi
    local out=$bindir/$name.$np.$(echo "${args[*]} ${envs[*]}" | md5sum | cut -c1-8)${via:+.$launcher}${run_label:+.${run_label// /_}}.out start rc
    # every process of the job (launcher, proxies, ranks, replacements)
    # inherits the tag, so those left behind can be found afterwards
    local tag left secs attempt fenced= deaf
    for attempt in 1 2; do
        tag=ftmpi-test-$$-$RANDOM$RANDOM
        start=$(date +%s%N)
        (cd "$bindir" && env "${envs[@]}" FTMPI_TEST_JOB_TAG=$tag timeout -k 5 "$limit" $(launch_command "$np") "./$prog" "${args[@]}") </dev/null >"$out" 2>&1
        rc=$?
        secs=$(elapsed "$start")
        left=$(left_behind "$tag")$(slurm_left_behind)
        rm -f "/dev/shm/$tag"   # the table of ftmpi_test.h's meetings, when the job died first
        # A process that the receive check made leave (a killed sender
        # blocked its shared-memory queue: ftdev_echo.c) is a second
        # failure that a test written for one cannot expect: such a run
        # says nothing about the test, which runs once more. ft_deaf
        # (the test point "deaf") is about that very exit.
        deaf=$(sed -n 's/^FT-MPICH: process \([0-9]*\) receives nothing.*/\1/p' "$out" | tr '\n' ' ')
        if [ $attempt = 1 ] && [ -n "$deaf" ] && [ -z "$left" ] &&
            [[ " ${envs[*]} " != *" FTMPI_TEST_POINT="*":deaf "* ]]; then
            mv "$out" "$out.fenced"
            fenced="(run twice: in the first, process ${deaf% } found itself deaf and left; output: $out.fenced)"
            continue
        fi
        break
    done
    if [ -n "$left" ]; then
        record "$label" FAIL "$secs" "processes left behind 3 s after mpiexec returned: $left (output: $out)${fenced:+ $fenced}"
    # (137 before the limit is srun's status for a task killed by SIGKILL)
    elif [ $rc = 124 ] || { [ $rc = 137 ] && awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s >= l) }'; }; then
        record "$label" FAIL "$secs" "timed out after ${limit}s (output: $out)${fenced:+ $fenced}"
    elif grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|: runtime error: " "$out"; then
        record "$label" FAIL "$secs" "a sanitizer found a fault (output: $out)${fenced:+ $fenced}"
    elif grep -qE "Ring ids do not match|Unknown error class" "$out"; then
        record "$label" FAIL "$secs" "an error code MPICH could not read (output: $out)${fenced:+ $fenced}"
    elif [ "$expect_exit" = 0 ] && [ $rc != 0 ]; then
        record "$label" FAIL "$secs" "exit status $rc (output: $out)${fenced:+ $fenced}"
    elif [ "$expect_exit" = nonzero ] && [ $rc = 0 ]; then
        record "$label" FAIL "$secs" "exit status 0, expected failure (output: $out)${fenced:+ $fenced}"
    elif [ -n "$injected" ] && [ "$(grep -c "^mpiexec: injected " "$out")" != "$injected" ]; then
        record "$label" FAIL "$secs" "mpiexec injected $(grep -c "^mpiexec: injected " "$out") failures, expected $injected (output: $out)${fenced:+ $fenced}"
    elif [ -n "$survivors" ] && grep -Eq "rank [0-9]+: Found" "$out"; then
        record "$label" FAIL "$secs" "a survivor found errors (output: $out)${fenced:+ $fenced}"
    elif [ -n "$survivors" ] && [ "$(grep -Ec "rank [0-9]+: No Errors" "$out")" != "$survivors" ]; then
        record "$label" FAIL "$secs" "$(grep -Ec "rank [0-9]+: No Errors" "$out") survivors reported, expected $survivors (output: $out)${fenced:+ $fenced}"
    elif [ -n "$survivors" ] && [ "$(deaths_reported "$out")" != "$deaths" ]; then
        record "$label" FAIL "$secs" "$launcher reported $(deaths_reported "$out") dead ranks, expected $deaths (output: $out)${fenced:+ $fenced}"
    elif [ -z "$survivors" ] && ! grep -Eq -- "$expect_output" "$out"; then
        record "$label" FAIL "$secs" "output lacks '$expect_output' (output: $out)${fenced:+ $fenced}"
    else
        record "$label" ok "$secs" "$fenced"
    fi
}

while read -r line; do
    line=${line%%#*}
    [ -n "${line// /}" ] || continue
    read -r -a words <<<"$line"
    if [ ${#only[@]} -gt 0 ]; then
        match=no
        for o in "${only[@]}"; do [ "${words[0]}" = "$o" ] && match=yes; done
        [ $match = yes ] || continue
    fi
    # REPEAT=N: the entry runs N times, each run a test of its own
    repeat=1 entry=()
    for w in "${words[@]}"; do
        case "$w" in
            REPEAT=*) repeat=${w#REPEAT=} ;;
            *) entry+=("$w") ;;
        esac
    done
    for ((run = 1; run <= repeat; run++)); do
        if [ "$repeat" = 1 ]; then run_entry "${entry[@]}"
        else run_label="run $run of $repeat" run_entry "${entry[@]}"; fi
    done
done <"$testlist"

# Shell-level tests of the build scripts and launcher (each prints ok/FAIL;
# exit status 77 means it could not run here, its last line says why). Each
# has 300 s, or what a line "# test-timeout: SECONDS" in it says.
if [ ${#only[@]} -eq 0 ] && { [ $listed_only = no ] || [ $with_scripts = yes ]; }; then
    for t in "$here"/scripts/*.sh; do
        [ -f "$t" ] || continue
        start=$(date +%s%N)
        limit=$(sed -n 's/^# test-timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
        t_prefix=$prefix t_bin=$bindir
        if [ -n "$tp_prefix" ] && grep -qx "# needs: test points" "$t"; then
            t_prefix=$tp_prefix t_bin=$tp_bindir
        fi
        msg=$(PATH=$t_prefix/bin:$base_path MPI_PREFIX=$t_prefix MPI_PREFIX_TEST_POINTS=$tp_prefix FTMPI_TEST_BIN=$t_bin \
            timeout -k 5 "$((${limit:-300} * timeout_scale))" bash "$t" 2>&1)
        rc=$?
        secs=$(elapsed "$start")
        if [ $rc = 0 ]; then record "$(basename "$t" .sh)" ok "$secs"
        elif [ $rc = 77 ]; then printf 'SKIP  %-44s %6.1fs  %s\n' "$(basename "$t" .sh)" "$secs" "$(echo "$msg" | tail -n 1)"
        else
            out= record "$(basename "$t" .sh)" FAIL "$secs" "$(echo "$msg" | tail -n 2 | tr '\n' ' ')"
            # what the script said of the failure, for the CI's log
            echo "$msg" | grep -E '^(FAIL|  )' | head -n 40 | sed 's/^/      | /'
        fi
    done
fi

# The short random-kill soak: every fault-tolerance mode once, REBUILD's
# eight included, processes killed from outside at random moments
# (test/soak/soak.py).
if [ ${#only[@]} -eq 0 ] && { [ $listed_only = no ] || [ $with_scripts = yes ]; } &&
    [ "${FTMPI_SKIP_SOAK:-0}" != 1 ]; then
    while read -r name result secs detail; do
        if [ "$result" = ok ]; then record "$name" ok "$secs"
        else record "$name" FAIL "$secs" "$detail"; fi
    done < <(python3 "$top/test/soak/soak.py" --prefix "$prefix" --short --machine-readable)
fi

if [ $smoke = yes ]; then
    while read -r name result secs detail; do
        if [ "$result" = ok ]; then record "mpich/$name" ok "$secs"
        else record "mpich/$name" FAIL "$secs" "$detail"; fi
    done < <(MPI_PREFIX=$prefix "$top/test/mpich/run-mpich-tests.sh" --smoke --machine-readable)
fi

if [ $failed -gt 0 ]; then
    echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
