#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A live process is never declared failed, however long it is silent: a
# missed heartbeat only makes it a suspect, and its node decides (it has
# ended or is stopped by a signal: failed; it runs, sleeps or is held by a
# debugger: not). Covered:
#   - load: 8 processes busy-polling (never yielding their core) plus a
#     CPU hog per core, in BLANK+CONT and SHRINK+CONT, with a heartbeat
#     period of 10 ms and a timeout of 30 ms so that silences past it
#     happen (a process whose thread waits for a core);
#   - a debugger: a rank held under gdb for HEALTHY_GDB_SECONDS (30)
#     seconds, 10 times the default timeout, then detached;
#   - a process stopped (SIGSTOP) for less than the timeout, then
#     continued;
#   - and the other side: a process stopped for good is still declared
#     failed (and killed), and the job goes on without it.
# Each job must finish with every process reporting and no "declared
# failed" line (but in the last), and leave nothing behind.
set -u
. "$(dirname "$0")/common.bash"
build busy_wait || exit 1
build inject_target || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
DECLARED="is declared failed"

# ospid_of_rank TAG RANK: the OS pid of rank RANK of the job tagged TAG
ospid_of_rank() {
    local f
    for f in $(grep -lsa "FTMPI_TEST_JOB_TAG=$1" /proc/[0-9]*/environ 2>/dev/null); do
        if tr '\0' '\n' <"$f" 2>/dev/null | grep -qx "PMI_RANK=$2"; then
            echo "$f" | cut -d/ -f3
            return 0
        fi
    done
    return 1
}

# wait_for_rank TAG RANK: its OS pid once it runs (10 s at most)
wait_for_rank() {
    local i p
    for ((i = 0; i < 100; i++)); do
        p=$(ospid_of_rank "$1" "$2") && { echo "$p"; return 0; }
        sleep 0.1
    done
    return 1
}

# expect LABEL RC OUT SURVIVORS DECLARED_LINES
expect() {
    local n d
    n=$(grep -Ec "rank [0-9]+: No Errors" <<<"$3")
    d=$(grep -c "$DECLARED" <<<"$3")
    if [ "$n" != "$4" ] || [ "$d" != "$5" ] || { [ "$5" = 0 ] && [ "$2" != 0 ]; }; then
        bad "$1: status $2, $n of $4 processes reported, $d 'declared failed' lines (expected $5):"
        grep -E "$DECLARED|FT-MPICH|Errors|rank" <<<"$3" | head -n 20
    else
        echo "$1: ok ($n processes reported, $d declared failed)"
    fi
}

# ---- load: busy-polling processes and a CPU hog per core ----
hogs=""
for ((i = 0; i < $(nproc); i++)); do
    sh -c 'while :; do :; done' &
    hogs="$hogs $!"
done
for mode in "blank cont" "shrink cont"; do
    set -- $mode
    out=$(FTMPI_COMM_MODE=$1 FTMPI_MSG_MODE=$2 MPIR_CVAR_CH4_FTDEV_HEARTBEAT_PERIOD=10 \
          MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT=30 \
          MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD=0 \
          tagged_run 120 "$prefix/bin/mpiexec" -n 8 "$bin/busy_wait" 8 2>&1)
    expect "8 busy-polling processes and $(nproc) hogs, $1+$2, timeout 30 ms" $? "$out" 8 0
done
kill $hogs 2>/dev/null
wait $hogs 2>/dev/null

# ---- a rank held under a debugger, 10 times the default timeout ----
if command -v gdb >/dev/null 2>&1; then
    held=${HEALTHY_GDB_SECONDS:-30}
    tag=ftmpi-healthy-$$-$RANDOM
    out_file=$(mktemp)
    FTMPI_COMM_MODE=shrink FTMPI_TEST_JOB_TAG=$tag \
        timeout -k 5 $((held + 90)) "$prefix/bin/mpiexec" -n 4 "$bin/busy_wait" 4 \
        >"$out_file" 2>&1 </dev/null &
    job=$!
    victim=$(wait_for_rank "$tag" 2)
    if [ -z "$victim" ]; then
        bad "gdb: rank 2 of the job never appeared"
    else
        sleep 1
        gdb -p "$victim" -batch -ex "shell sleep $held" >/dev/null 2>&1
    fi
    wait $job
    rc=$?
    expect "rank 2 held under gdb for $held s, then detached (SHRINK)" $rc "$(cat "$out_file")" 4 0
    grep -q "held by a debugger" "$out_file" ||
        bad "gdb: nobody said that rank 2 is held by a debugger"
    rm -f "$out_file"
    pids=$(grep -lsa "FTMPI_TEST_JOB_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3)
    [ -z "$pids" ] || { bad "gdb: processes left behind: $pids"; kill -9 $pids 2>/dev/null; }
else
    echo "gdb: not installed, the debugger case is not run"
fi

# ---- stopped, then continued within the timeout; then stopped for good ----
for how in brief forever; do
    tag=ftmpi-healthy-$$-$RANDOM
    out_file=$(mktemp)
    FTMPI_COMM_MODE=blank FTMPI_TEST_JOB_TAG=$tag timeout -k 5 90 \
        "$prefix/bin/mpiexec" -n 4 "$bin/inject_target" 8 >"$out_file" 2>&1 </dev/null &
    job=$!
    victim=$(wait_for_rank "$tag" 1)
    sleep 1
    kill -STOP "$victim" 2>/dev/null
    if [ $how = brief ]; then
        sleep 1.5
        kill -CONT "$victim" 2>/dev/null
    fi
    wait $job
    rc=$?
    if [ $how = brief ]; then
        expect "rank 1 stopped for 1.5 s then continued (BLANK)" $rc "$(cat "$out_file")" 4 0
    else
        expect "rank 1 stopped for good (BLANK)" $rc "$(cat "$out_file")" 3 1
        grep "$DECLARED" "$out_file" | grep -q "process 1 .*stopped by a signal" ||
            bad "stopped for good: the line does not name process 1 stopped by a signal"
    fi
    rm -f "$out_file"
    pids=$(grep -lsa "FTMPI_TEST_JOB_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3)
    [ -z "$pids" ] || { bad "$how: processes left behind: $pids"; kill -9 $pids 2>/dev/null; }
done

no_process_left || fail=1
exit $fail
