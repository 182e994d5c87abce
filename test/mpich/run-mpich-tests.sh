#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Runs MPICH 4.0.2's own test suite (test/mpi of the release tarball) against
# an installed MPI.
#
#   MPI_PREFIX=install test/mpich/run-mpich-tests.sh --smoke [--machine-readable]
#       the subset listed in test/mpich/smoke.txt, each under a timeout;
#       prints "ok/FAIL dir/test:procs seconds" lines and a total
#   MPI_PREFIX=install test/mpich/run-mpich-tests.sh --ft
#       MPICH's ULFM tests (test/mpi/ft) through its runtests; one
#       "ft/test:procs ok|FAIL seconds" line per test
#   MPI_PREFIX=install test/mpich/run-mpich-tests.sh --full RESULTS-DIR [dir...]
#       MPICH's runtests harness over whole directories (default: attr coll
#       comm datatype errhan group info init pt2pt topo), xfail tests
#       included, one file RESULTS-DIR/DIR.results of TAP lines per directory
#
# The suite is configured once per installation, in build/mpich-tests/NAME.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
prefix=$(cd "${MPI_PREFIX:-$top/install}" 2>/dev/null && pwd) ||
    { echo "run-mpich-tests.sh: no MPI installation at ${MPI_PREFIX:-$top/install}" >&2; exit 2; }
tree=$top/build/mpich-4.0.2
suite=$top/build/mpich-tests/$(basename "$prefix")
default_dirs="attr coll comm datatype errhan group info init pt2pt topo"
timeout_s=${MPICH_TEST_TIMEOUT:-180}

mode=${1:-}
shift || true
machine=no
[ "${1:-}" = --machine-readable ] && { machine=yes; shift; }

say() { [ $machine = yes ] || echo "$@"; }

# Whether the installation's mpifort compiles and links `use mpi_f08`.
f08_usable() {
    local dir rc
    dir=$(mktemp -d)
    printf 'program f08\n  use mpi_f08\n  call MPI_Init()\n  call MPI_Finalize()\nend program f08\n' >"$dir/f08.f90"
    [ -x "$prefix/bin/mpifort" ] && "$prefix/bin/mpifort" -o "$dir/f08" "$dir/f08.f90" >/dev/null 2>&1
    rc=$?
    rm -rf "$dir"
    return $rc
}

prepare() {
    [ -f "$tree/test/mpi/configure" ] || { echo "run-mpich-tests.sh: no MPICH tree (run make first)" >&2; exit 2; }
    local stamp="$prefix ft-tests fortran cxx romio f08"
    if [ ! -f "$suite/.configured" ] || [ "$(cat "$suite/.configured")" != "$stamp" ]; then
        say "configuring MPICH's test suite for $prefix (log: ${suite#$top/}/configure.log)"
        rm -rf "$suite"
        mkdir -p "$(dirname "$suite")"
        cp -a "$tree/test/mpi" "$suite"
        # Fortran, C++, MPI-IO and spawn as the installation has them
        (cd "$suite" && PATH="$prefix/bin:$PATH" ./configure --with-mpi="$prefix" \
            --enable-ft-tests >configure.log 2>&1) ||
            { echo "run-mpich-tests.sh: test-suite configure failed (see ${suite#$top/}/configure.log)" >&2; exit 2; }
        # The suite's configure turns its f08 directory on only when
        # MPICH's own configure runs it, from inside MPICH's build; against
        # an installation whose mpifort compiles `use mpi_f08` it is turned
        # on here, as that configure would.
        if f08_usable; then
            (cd "$suite" && sed -i -e 's/^S\["HAS_F08_TRUE"\]="#"$/S["HAS_F08_TRUE"]=""/' \
                -e 's/^S\["HAS_F08_FALSE"\]=""$/S["HAS_F08_FALSE"]="#"/' \
                -e 's/^S\["f08dir"\]="#"$/S["f08dir"]="f08"/' config.status &&
                grep -q '^S\["f08dir"\]="f08"$' config.status &&
                ./config.status >>configure.log 2>&1) ||
                { echo "run-mpich-tests.sh: turning on the f08 tests failed (see ${suite#$top/}/configure.log)" >&2; exit 2; }
        fi
        echo "$stamp" >"$suite/.configured"
    fi
    # Run the tests upstream marks as expected failures too.
    sed -i 's/^\$runxfail *= *"false"/$runxfail = "true"/' "$suite/runtests"
}

run_smoke() {
    local passed=0 failed=0 dir test np rest
    while read -r dir test np rest; do
        case "$dir" in ''|'#'*) continue ;; esac
        local args=() envs=() w
        for w in $rest; do
            case "$w" in
                arg=*) args+=("${w#arg=}") ;;
                env=*) envs+=("${w#env=}") ;;
            esac
        done
        local name="$dir/$test:$np" start secs rc out
        start=$(date +%s%N)
        out=$suite/$dir/$test.$np.out
        if ! make -C "$suite/$dir" "$test" >"$out" 2>&1; then
            secs=$(awk -v s="$start" -v e="$(date +%s%N)" 'BEGIN{printf "%.1f", (e-s)/1e9}')
            echo "$name FAIL $secs does not build (see ${out#$top/})"
            failed=$((failed + 1))
            continue
        fi
        (cd "$suite/$dir" && env "${envs[@]}" timeout -k 5 "$timeout_s" "$prefix/bin/mpiexec" -n "$np" \
            "./$test" "${args[@]}") </dev/null >"$out" 2>&1
        rc=$?
        secs=$(awk -v s="$start" -v e="$(date +%s%N)" 'BEGIN{printf "%.1f", (e-s)/1e9}')
        if [ $rc = 0 ] && grep -q "No Errors" "$out"; then
            echo "$name ok $secs"
            passed=$((passed + 1))
        else
            local why="exit status $rc"
            [ $rc = 124 ] && why="timed out after ${timeout_s}s"
            echo "$name FAIL $secs $why (see ${out#$top/})"
            failed=$((failed + 1))
        fi
    done <"$here/smoke.txt"
    [ $machine = yes ] || echo "MPICH smoke subset: $passed passed, $failed failed"
    [ $failed = 0 ]
}

run_full() {
    local results=$1
    shift
    local dirs=${*:-$default_dirs} d
    mkdir -p "$results"
    results=$(cd "$results" && pwd)
    for d in $dirs; do
        say "running MPICH tests in $d with $prefix"
        (cd "$suite/$d" && timeout -k 10 7200 ../runtests -srcdir=. -tests=testlist \
            -mpiexec="$prefix/bin/mpiexec" -tapfile="$results/$d.tap" >"$results/$d.log" 2>&1)
        grep -E '^(not )?ok' "$results/$d.tap" | sed -E 's/ +# time=.*//' >"$results/$d.results"
        say "  $(grep -c '^ok' "$results/$d.results") ok, $(grep -c '^not ok' "$results/$d.results") not ok"
    done
}

# MPICH's fault-tolerance tests (test/mpi/ft: ULFM), through its runtests
# with the environment and mpiexec arguments its testlist gives each test
# (MPIR_CVAR_ENABLE_FT=1, -disable-auto-cleanup), xfail tests included;
# one "ft/NAME:NP ok|FAIL SECONDS [why]" line per test.
run_ft() {
    local results=$top/build/mpich-ft-results
    rm -rf "$results"
    run_full "$results" ft >/dev/null
    local line name np verdict why
    while read -r line; do
        verdict=ok
        [[ "$line" == "not ok"* ]] && verdict=FAIL
        name=$(sed -E 's/^(not )?ok +- +\.\/([^ ]+) ([0-9]+).*/\2:\3/' <<<"$line")
        why=
        [ $verdict = FAIL ] && why="see build/mpich-ft-results/ft.log"
        echo "ft/$name $verdict 0 $why"
    done <"$results/ft.results"
}

case "$mode" in
    --smoke) prepare; run_smoke ;;
    --ft) machine=yes; prepare; run_ft ;;
    --full) [ $# -ge 1 ] || { echo "usage: $0 --full RESULTS-DIR [dir...]" >&2; exit 2; }
        prepare; run_full "$@" ;;
    *) echo "usage: $0 --smoke [--machine-readable] | --ft | --full RESULTS-DIR [dir...]" >&2; exit 2 ;;
esac
