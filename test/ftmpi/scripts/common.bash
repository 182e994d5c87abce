# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Sourced by the script tests: $prefix (the MPI installation), $src (the
# test sources) and $bin (where programs are built: FTMPI_TEST_BIN, one
# folder per installation, else test/ftmpi/bin), build PROGRAM, and
# tagged_run / no_process_left, cluster_up / left_on_node (below).
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=$(cd "${MPI_PREFIX:-$src/../../install}" && pwd)
bin=${FTMPI_TEST_BIN:-$src/bin}
mkdir -p "$bin"

build() { # PROGRAM of test/ftmpi, else of examples/
    local c=$src/$1.c
    [ -f "$c" ] || c=$src/../../examples/$1.c
    "$prefix/bin/mpicc" -O2 -o "$bin/$1" "$c" -lftmpi_ckpt -lm
}

# reap_tagged TAG: the processes with FTMPI_TEST_JOB_TAG=TAG in their
# environment still alive 3 s after their job ended, killed; prints their
# pids (nothing when none is left).
reap_tagged() {
    local pids waited=0
    while :; do
        pids=$(grep -lsa "FTMPI_TEST_JOB_TAG=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')
        [ -z "${pids// /}" ] || [ $waited -ge 30 ] && break
        sleep 0.1
        waited=$((waited + 1))
    done
    [ -z "${pids// /}" ] && return 0
    kill -9 $pids 2>/dev/null
    echo "$pids"
}

# tagged_run TIMEOUT COMMAND...: runs COMMAND under timeout with a job tag
# in its environment, which every process of the job inherits. Processes
# with the tag still alive 3 s after it ended are killed and named in
# $bin/left_behind.$$, which no_process_left checks.
tagged_run() {
    local limit=$1 tag=ftmpi-script-$$-$RANDOM$RANDOM rc pids
    shift
    FTMPI_TEST_JOB_TAG=$tag timeout -k 5 "$limit" "$@" </dev/null
    rc=$?
    pids=$(reap_tagged "$tag")
    [ -z "$pids" ] || echo "left behind by '$*': $pids" >>"$bin/left_behind.$$"
    return $rc
}

# Nonzero (and says so) if a tagged_run left a process behind.
no_process_left() {
    [ -s "$bin/left_behind.$$" ] || return 0
    echo "FAIL: processes left behind:"
    cat "$bin/left_behind.$$"
    rm -f "$bin/left_behind.$$"
    return 1
}

# expect_refused WHAT PATTERN TIMEOUT COMMAND...: COMMAND (under tagged_run)
# must fail with output matching PATTERN; nonzero (and says so) otherwise.
expect_refused() {
    local what=$1 pattern=$2 limit=$3 out rc
    shift 3
    out=$(tagged_run "$limit" "$@" 2>&1)
    rc=$?
    if [ $rc = 0 ] || ! grep -q "$pattern" <<<"$out"; then
        echo "FAIL: $what: status $rc, output:"; printf '%s\n' "$out" | head -n 8
        return 1
    fi
    echo "$what: refused (status $rc)"
}

# cluster_up NAME N: N simulated nodes (test/cluster/cluster.sh) named
# after NAME, taken down when the script exits; sets $cluster and $hosts
# (the nodes' names, comma-separated). Exits 77 where namespaces cannot be
# made (not root, no iproute2, a container without the privilege), 1 when
# the nodes do not come up.
cluster_up() {
    local why
    cluster=$src/../cluster/cluster.sh
    export FTMPI_CLUSTER=$1
    why=$("$cluster" check 2>&1) || { echo "cannot make the simulated nodes: $why"; exit 77; }
    trap '"$cluster" down' EXIT
    "$cluster" up "$2" >/dev/null || { echo "FAIL: the cluster did not come up"; exit 1; }
    hosts=$("$cluster" hosts)
}

# left_on_node NODE TENTHS: what still runs on simulated node NODE after
# waiting up to TENTHS tenths of a second for it to empty (nothing: empty).
left_on_node() {
    local i
    for ((i = 0; i < $2; i++)); do
        [ -z "$("$cluster" pids "$1")" ] && return 0
        sleep 0.1
    done
    "$cluster" pids "$1"
}
