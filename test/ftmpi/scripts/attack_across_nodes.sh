#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Attacks from another node of the simulated cluster (test/cluster/
# cluster.sh: a network namespace per node, joined by a bridge). The job
# (root's) runs 4 processes on nodes 1 and 2; the attacker is nobody on
# node 3, which sees nothing of the job but its ports (found here with
# ss on the job's nodes, as a port scan would).
#   datagrams  in SHRINK, ULFM and REBUILD: for 5 s, random datagrams of
#              the heartbeat's sizes and replays of every distinct
#              datagram the job sent across the bridge in the 2 s before
#              (test/cluster/capture.py: what a host on the network path
#              sees), as fast as node 3 can send them, to every UDP port
#              of the job's processes (test/ftmpi/attacker.c datagrams).
#              The job must not notice (attack_target: every process
#              correct, mpiexec exits 0, nothing declared failed), and
#              each trace says little about what it dropped: at most 20
#              lines, however many datagrams came.
#   listeners  spawn in SHRINK and in ULFM, and REBUILD
#              (test/ftmpi/late_proxy.c, soft limit
#              1,024 and hard 4,096 descriptors, the processes calling MPI
#              every millisecond): for 20 s node 3 floods every TCP port
#              the job's processes listen on (UCX's) with connections that
#              never speak, 4 processes of nobody each holding all they
#              can; 12 s into it the job spawns a child, or loses a
#              process whose replacement must join. The job must end
#              correctly, no listener may be lost (UCX closing one says
#              so on stderr) and connections must have been shut down.
# Exits 77 where namespaces cannot be made.
# test-timeout: 900
set -u
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/attack.bash"
attack_setup
build attack_target || exit 1
build late_proxy || exit 1
command -v python3 >/dev/null || { echo "no python3 to capture datagrams"; exit 77; }
command -v ss >/dev/null || { echo "no ss (iproute2) to find the job's ports"; exit 77; }
cluster_up fa$$ 3
trap 'attack_cleanup; "$cluster" down' EXIT
job_runner="$cluster run"
mpiexec_args="-hosts ${FTMPI_CLUSTER}n1,${FTMPI_CLUSTER}n2 -ppn 2"
capture=$src/../cluster/capture.py

# node_address N: node N's address on the cluster's network
node_address() { echo "10.213.0.$(($1 + 1))"; }

# job_ports PROGRAM udp|tcp: ADDRESS:PORT of every UDP socket (tcp: every
# listening TCP socket) of the processes named PROGRAM on nodes 1 and 2,
# at the node's address
job_ports() {
    local n opt
    [ "$2" = udp ] && opt=-Huanp || opt=-Htlnp
    for n in 1 2; do
        "$cluster" exec $n ss $opt 2>/dev/null | grep -F "((\"$1\"" |
            awk '{ print $4 }' | sed 's/.*://' | sort -u | sed "s/^/$(node_address $n):/"
    done
}

# on_node3 ARGS...: the attacker as nobody on node 3
on_node3() {
    "$cluster" exec 3 setpriv --reuid="$attack_user" --regid="$attack_group" --clear-groups \
        -- "$attacker" "$@"
}

for mode in shrink ulfm rebuild; do
    label="datagrams from another node, $mode"
    traces=$tmp/trace.$mode
    mkdir -p "$traces"
    job_env="MPIR_CVAR_FTMPI_TRACE_FILE=$traces/t"
    [ $mode = rebuild ] && job_env="$job_env FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=auto"
    start_job $mode "$bin/attack_target" 10
    wait_ready || { finish_job; continue; }
    ports=$(job_ports attack_target udp)
    if [ -z "$ports" ]; then
        bad "$label: no UDP port of the job's processes found on nodes 1 and 2"
        finish_job
        continue
    fi
    ip netns exec "$FTMPI_CLUSTER-sw" python3 "$capture" any 2 "$adir/captured" \
        $(echo "$ports" | sed 's/.*://') >"$adir/capture.out" 2>&1
    captured=$?
    [ -f "$adir/captured" ] || : >"$adir/captured"
    chmod 0644 "$adir/captured"
    on_node3 datagrams 5 "$adir/captured" $ports >"$adir/datagrams.out" 2>&1 ||
        bad "$label: the attacker sent nothing: $(cat "$adir/datagrams.out")"
    sed 's/^/  /' "$adir/capture.out" "$adir/datagrams.out"
    if [ $captured = 77 ]; then
        echo "  replays not tried: this machine lets no packet socket be opened"
    elif ! grep -q "^captured [1-9]" "$adir/capture.out"; then
        bad "$label: no datagram of the job crossed the bridge: nothing replayed"
    fi
    sleep 1
    finish_job
    judge
    for t in "$traces"/t.*; do
        [ -f "$t" ] || { bad "$label: no trace file"; break; }
        lines=$(grep -c 'heartbeat: dropped' "$t")
        dropped=$(sed -n 's/.*counters rejected: \([0-9]*\) heartbeat datagrams.*/\1/p' "$t" | tail -n 1)
        if [ "$lines" -gt 20 ]; then
            bad "$label: $lines trace lines in $(basename "$t") for ${dropped:-?} dropped datagrams"
        fi
    done
    echo "  traces: $(cat "$traces"/t.* | grep -c 'heartbeat: dropped') lines about dropped datagrams in all"
done

FLOOD_SECONDS=20
GO_AFTER=12
for case in "spawn shrink" "spawn ulfm" "rebuild rebuild"; do
    what=${case% *} mode=${case#* }
    label="UCX listeners flooded from another node, then $what, $mode"
    go=$tmp/go.$what.$mode
    traces=$tmp/trace.flood.$what.$mode
    mkdir -p "$traces"
    job_env="ATTACK_GO_FILE=$go ATTACK_WAIT_IN_MPI=1 MPIR_CVAR_FTMPI_TRACE_FILE=$traces/t"
    [ $what = rebuild ] &&
        job_env="$job_env FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=auto MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT=30"
    start_job $mode prlimit --nofile=1024:4096 "$bin/late_proxy" $what
    wait_ready || { touch "$go"; wait "$job"; continue; }
    targets=$(job_ports late_proxy tcp)
    if [ -z "$targets" ]; then
        bad "$label: no listening port of the job's processes found on nodes 1 and 2"
        touch "$go"; wait "$job"; continue
    fi
    flood_and_go on_node3 flood $FLOOD_SECONDS 4 $targets
    lost=$(grep -a "UCX closed its TCP listening socket" "$out" | head -n 2)
    deaths=$(grep -Ea "$ATTACK_DEATH_LINES" "$out" | head -n 3)
    shut=0
    for t in "$traces"/t.*; do
        k=$(sed -n 's/.*counters rejected: .* \([0-9]*\) silent connections.*/\1/p' "$t" 2>/dev/null | tail -n 1)
        shut=$((shut + ${k:-0}))
    done
    ok=1
    [ -z "$lost" ] || { ok=0; echo "  listeners lost:"; echo "$lost" | sed 's/^/      | /'; }
    job_ended_right || ok=0
    if [ $what = spawn ] && [ -n "$deaths" ]; then
        ok=0; echo "  the job's output tells of a death:"; echo "$deaths" | sed 's/^/      | /'
    fi
    [ "$shut" -gt 0 ] || { ok=0; echo "  no connection was shut down: the flood did not reach the guard"; }
    if [ $ok = 1 ]; then
        echo "$label: the job ended correctly (status 0, 4 processes correct), no listener lost;" \
            "$shut silent connection(s) shut down"
    else
        bad_job
    fi
done

attack_finish
