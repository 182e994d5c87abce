#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Another user of the node (nobody; the job is root's) floods every TCP
# port the job's processes listen on (UCX's TCP transport, one listener
# per network interface) with connections that never speak
# (test/ftmpi/attacker.c flood, processes holding all they can), and
# only then does the 4-process job need new connections
# (test/ftmpi/late_proxy.c):
#   spawn      MPI_Comm_spawn of one child, which must reach its parents
#   rebuild    REBUILD (AUTO): a process is killed, its replacement joins
# UCX 1.13 closes its listening socket for good when accept() finds no
# descriptor left, and nothing new reaches the process over TCP after it.
# Each case runs with a descriptor limit as sites set it:
#   asleep     soft limit 1,024, the hard one this machine's; the processes
#              make no MPI call until the go (their limit's headroom must
#              hold the flood)
#   in MPI     soft 1,024, hard 16,384, and as many attacking processes
#              (each with a limit of 4,096, the kernel's default) as it
#              takes to hold half again as many connections as the 4
#              processes' limits allow: 25, which on a small node also
#              leave the job little CPU; the processes call MPI every
#              millisecond (the connections that never spoke must be shut
#              down and counted, with few trace lines about them; the
#              listeners may refuse new connections for a while)
# The job must end correctly (4 processes report No Errors, mpiexec exits
# 0, nobody else declared failed), and each process must still listen on
# as many TCP ports at the end of the flood as before it.
# test-timeout: 600
set -u
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/attack.bash"
attack_setup
command -v prlimit >/dev/null || { echo "no prlimit (util-linux) to set the job's descriptor limit"; exit 77; }
build late_proxy || exit 1

FLOOD_SECONDS=20
# the flood has run this long when the job needs its new connections
GO_AFTER=12
WORKERS=2
SOFT_NOFILE=1024
IN_MPI_HARD_NOFILE=16384
# an attacking process holds as many connections as its own limit allows
# (attacker.c: 16 fewer)
IN_MPI_ATTACKER_NOFILE=4096
IN_MPI_WORKERS=$(( (4 * IN_MPI_HARD_NOFILE * 3 / 2 + IN_MPI_ATTACKER_NOFILE - 17) / (IN_MPI_ATTACKER_NOFILE - 16) ))
# trace lines about shut connections per process: the first 10, then
# at most one a second
MOST_GUARD_LINES=$((10 + FLOOD_SECONDS + 10))

# pids of the job's processes (those whose environment names $1)
job_pids() {
    local p
    for p in $(pgrep -x late_proxy); do
        grep -qaF "ATTACK_READY_FILE=$1" "/proc/$p/environ" 2>/dev/null && echo "$p"
    done
}

# listening TCP sockets of process $1, as ADDRESS:PORT (0.0.0.0 as
# 127.0.0.1); one pass over its descriptors, which a flood makes many
listening() {
    ls -l "/proc/$1/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' |
        awk 'NR == FNR { mine[$1] = 1; next }
             $4 == "0A" && ($10 in mine) { print $2 }' - /proc/net/tcp |
        while IFS=: read -r a p; do
            local ip=$((16#${a:6:2})).$((16#${a:4:2})).$((16#${a:2:2})).$((16#${a:0:2}))
            [ "$ip" = 0.0.0.0 ] && ip=127.0.0.1
            echo "$ip:$((16#$p))"
        done | sort -u
}

for case in "spawn asleep" "spawn in-MPI" "rebuild in-MPI"; do
    what=${case% *} waiting=${case#* }
    label="flood of the processes' UCX listeners, then $what ($waiting)"
    go=$tmp/go.$attack_jobs
    traces=$tmp/trace.$attack_jobs
    mkdir -p "$traces"
    job_env="ATTACK_GO_FILE=$go MPIR_CVAR_FTMPI_TRACE_FILE=$traces/t"
    [ $what = rebuild ] &&
        job_env="$job_env FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=auto MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT=30"
    if [ $waiting = asleep ]; then
        nofile=$SOFT_NOFILE:$(ulimit -Hn) workers=$WORKERS attacker_nofile=
    else
        nofile=$SOFT_NOFILE:$IN_MPI_HARD_NOFILE workers=$IN_MPI_WORKERS
        attacker_nofile=$IN_MPI_ATTACKER_NOFILE
        job_env="$job_env ATTACK_WAIT_IN_MPI=1"
    fi
    mpiexec_args=
    start_job plain prlimit --nofile=$nofile "$bin/late_proxy" $what
    wait_ready || { touch "$go"; wait "$job"; continue; }
    pids=$(job_pids "$ready")
    targets=
    declare -A before=()
    for p in $pids; do
        before[$p]=$(listening "$p" | wc -l)
        targets="$targets $(listening "$p" | tr '\n' ' ')"
    done
    if [ -z "${targets// /}" ]; then
        bad "$label: no listening port of the job's processes found"
        touch "$go"; wait "$job"; continue
    fi
    as_attacker flood $FLOOD_SECONDS $workers $targets >"$adir/flood.out" 2>&1 &
    flooder=$!
    sleep $GO_AFTER
    # what the flood left listening (a process replaced since is not counted)
    lost=
    for p in $pids; do
        [ -d "/proc/$p" ] || continue
        n=$(listening "$p" | wc -l)
        [ "$n" -ge "${before[$p]}" ] || lost="$lost process $p listened on ${before[$p]} port(s), now on $n;"
    done
    end_flooded_job "$go" "$flooder"
    deaths=$(grep -Ea "$ATTACK_DEATH_LINES" "$out" | head -n 3)
    shut=0 most_lines=0 gated=0
    for t in "$traces"/t.*; do
        [ -f "$t" ] || continue
        k=$(sed -n 's/.*counters rejected: .* \([0-9]*\) silent connections.*/\1/p' "$t" | tail -n 1)
        l=$(grep -c 'connection guard: dropped' "$t")
        shut=$((shut + ${k:-0}))
        [ "$l" -le "$most_lines" ] || most_lines=$l
        grep -q 'connection guard: .* take no new connections' "$t" && gated=$((gated + 1))
    done
    ok=1
    [ -z "$lost" ] || { ok=0; echo "  listeners lost to the flood:$lost"; }
    job_ended_right || ok=0
    if [ $what = spawn ] && [ -n "$deaths" ]; then
        ok=0; echo "  the job's output tells of a death:"; echo "$deaths" | sed 's/^/      | /'
    fi
    if [ $waiting = in-MPI ] && [ "$shut" = 0 ]; then
        ok=0; echo "  no connection was shut down although the flood outgrew the limit: no test of the guard"
    fi
    [ "$most_lines" -le $MOST_GUARD_LINES ] ||
        { ok=0; echo "  $most_lines trace lines about shut connections in one process (at most $MOST_GUARD_LINES)"; }
    if [ $ok = 1 ]; then
        echo "$label: the job ended correctly (status 0, 4 processes correct), every listener still open;" \
            "$shut silent connection(s) shut down, at most $most_lines trace lines about them in a process;" \
            "$gated process(es) refused new connections for a while"
    else
        bad_job
    fi
done

attack_finish
