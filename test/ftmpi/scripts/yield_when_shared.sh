#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A waiting process yields its core (sched_yield) only when the node runs
# more of the job's processes than they have cores, unless
# MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD says otherwise; a bad value
# of it is refused in one line. Yields are counted with strace: a waiting
# process that yields makes tens of thousands of calls while rank 0 sleeps
# a second; MPI_Init's shared-memory barriers make a few hundred of their
# own when the processes share a core.
set -u
. "$(dirname "$0")/common.bash"
build idle_wait || exit 1
fail=0
command -v strace >/dev/null || { echo "strace is not installed (make deps installs it)"; exit 1; }
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
    echo "skipped: strace cannot trace processes here (ptrace not permitted)"
    exit 0
fi

yields() { # CPU-LIST [VAR=value...]: sched_yield calls of a 2-process job
    local cpus=$1 log=$bin/yield_when_shared.$$
    shift
    tagged_run 60 env "$@" taskset -c "$cpus" strace -f -qq -c -o "$log" -e trace=sched_yield \
        "$prefix/bin/mpiexec" -n 2 "$bin/idle_wait" >/dev/null || { echo "a failed job"; return; }
    awk '$NF == "sched_yield" { n = $4 } END { print n + 0 }' "$log"
    rm -f "$log"
}

expect() { # LABEL few|many COUNT
    if ! [[ $3 =~ ^[0-9]+$ ]] || { [ "$2" = few ] && [ "$3" -gt 2000 ]; } ||
        { [ "$2" = many ] && [ "$3" -le 2000 ]; }; then
        echo "$1: expected $2 sched_yield calls, counted $3"; fail=1
    else
        echo "$1: ok ($3 sched_yield calls)"
    fi
}

if [ "$(nproc)" -ge 2 ]; then
    expect "2 processes on 2 cores" few "$(yields 0,1)"
    expect "2 processes on 2 cores, told to yield" many \
        "$(yields 0,1 MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD=64)"
fi
expect "2 processes on 1 core" many "$(yields 0)"
expect "2 processes on 1 core, told never to yield" few \
    "$(yields 0 MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD=0)"

out=$(tagged_run 60 env MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD=-7 \
    "$prefix/bin/mpiexec" -n 2 "$bin/idle_wait" 2>&1)
rc=$?
if [ $rc = 0 ] || [ $rc = 124 ] || [ "$(printf '%s\n' "$out" | grep -c .)" != 1 ] ||
    ! grep -q "MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD=-7: the value must be" <<<"$out"; then
    echo "bad value: exit status $rc, expected one line naming the value, got:"
    printf '%s\n' "$out" | head -n 8
    fail=1
else
    echo "bad value: ok ($out)"
fi
no_process_left || fail=1
exit $fail
