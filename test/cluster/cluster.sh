#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A cluster of simulated nodes on one Linux machine, for trying FT-MPICH's
# multi-node behaviour (node loss, a frozen node, a cut link) without a
# cluster. Needs root (network, UTS, IPC and mount namespaces).
#
#   cluster.sh up N          nodes NAME0 (the head, where mpiexec runs) .. NAMEN
#   cluster.sh exec NODE CMD...   runs CMD on node NODE (a number or a name)
#   cluster.sh hosts         the compute nodes' names, comma-separated
#   cluster.sh kill NODE [SIGNAL]  signals every process of the node (KILL)
#   cluster.sh freeze NODE | thaw NODE   SIGSTOP / SIGCONT every process of it
#   cluster.sh cut NODE | heal NODE      takes its link down / up again
#   cluster.sh pids NODE     the processes running on it
#   cluster.sh down          ends every process of the cluster, removes it all
#
# Each node has its own network namespace, joined to the others by a
# bridge in a namespace of its own (addresses 10.213.0.0/24 that exist
# only inside these namespaces: nothing reaches the machine's own network),
# its own host name (UTS namespace), System V IPC namespace and /dev/shm,
# and an /etc/hosts naming every node. UCX on two nodes therefore sees two
# hosts and talks TCP between them, shared memory only within a node.
# Hydra reaches a node through node-exec (mpiexec -launcher ssh
# -launcher-exec test/cluster/node-exec, which is what `run` sets up):
#
#   cluster.sh run mpiexec -hosts "$(cluster.sh hosts)" -n 6 ./app
#
# FTMPI_CLUSTER (default ftc) names the cluster: its namespaces, links and
# the state directory /run/ftmpi-cluster-NAME.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${FTMPI_CLUSTER:-ftc}
state=/run/ftmpi-cluster-$name
switch=$name-sw

die() { echo "cluster.sh: $*" >&2; exit 1; }

node_index() { # a number, or a node name NAMEk
    case $1 in
        *[!0-9]*) [[ $1 == "${name}n"* ]] || die "no node $1 in cluster $name"; echo "${1#${name}n}" ;;
        *) echo "$1" ;;
    esac
}
node_name() { echo "${name}n$(node_index "$1")"; }
node_ns() { echo "$name-n$(node_index "$1")"; }
nodes() { cat "$state/nodes" 2>/dev/null || die "cluster $name is not up (cluster.sh up N)"; }

# Whether this machine can make the namespaces at all.
can_make() {
    [ "$(id -u)" = 0 ] || { echo "needs root"; return 1; }
    command -v ip >/dev/null && command -v unshare >/dev/null && command -v nsenter >/dev/null ||
        { echo "needs ip (iproute2), unshare and nsenter (util-linux)"; return 1; }
    ip netns add "$name-probe" 2>/dev/null || { echo "cannot make a network namespace"; return 1; }
    ip netns del "$name-probe"
    unshare --uts --ipc --mount true 2>/dev/null ||
        { echo "cannot make UTS, IPC and mount namespaces"; return 1; }
}

up() {
    local n=$1 i ns addr
    [ -n "$n" ] && [ "$n" -ge 1 ] 2>/dev/null || die "up N: N compute nodes, at least 1"
    [ ! -e "$state" ] || die "cluster $name is up already ($state); cluster.sh down first"
    why=$(can_make) || die "$why"
    mkdir -p "$state"
    # the namespace files below must live on a private mount
    mount --bind "$state" "$state"
    mount --make-private "$state"
    ip netns add "$switch"
    ip -n "$switch" link set lo up
    ip -n "$switch" link add br0 type bridge
    ip -n "$switch" link set br0 up
    : >"$state/hosts"
    echo "127.0.0.1 localhost" >>"$state/hosts"
    for ((i = 0; i <= n; i++)); do
        echo "10.213.0.$((i + 1)) $(node_name "$i")" >>"$state/hosts"
    done
    for ((i = 0; i <= n; i++)); do
        ns=$(node_ns "$i")
        ip netns add "$ns"
        ip link add "$name-v$i" type veth peer name eth0 netns "$ns"
        ip link set "$name-v$i" netns "$switch"
        ip -n "$switch" link set "$name-v$i" master br0 up
        ip -n "$ns" link set lo up
        ip -n "$ns" addr add "10.213.0.$((i + 1))/24" dev eth0
        ip -n "$ns" link set eth0 up
        mkdir -p "$state/n$i"
        touch "$state/n$i/uts" "$state/n$i/ipc" "$state/n$i/mnt"
        unshare --uts="$state/n$i/uts" --ipc="$state/n$i/ipc" --mount="$state/n$i/mnt" \
            --propagation private sh -c "hostname $(node_name "$i") &&
                mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
                mount --bind $state/hosts /etc/hosts"
    done
    echo "$n" >"$state/nodes"
    echo "cluster $name: head $(node_name 0), nodes $(hosts)"
}

# enter NODE COMMAND...: runs COMMAND in the node's namespaces (replacing
# this process unless ENTER_AS_CHILD is set).
enter() {
    local i
    i=$(node_index "$1")
    shift
    local dir=$state/n$i
    [ -e "$dir/mnt" ] || die "no node $i in cluster $name"
    local cmd=(nsenter --net="/run/netns/$(node_ns "$i")" --uts="$dir/uts" --ipc="$dir/ipc"
               --mount="$dir/mnt" --wd="$PWD" -- "$@")
    if [ -n "${ENTER_AS_CHILD:-}" ]; then "${cmd[@]}"; else exec "${cmd[@]}"; fi
}

hosts() {
    local n i out=
    n=$(nodes)
    for ((i = 1; i <= n; i++)); do out="$out${out:+,}$(node_name "$i")"; done
    echo "$out"
}

pids() { ip netns pids "$(node_ns "$1")" 2>/dev/null || true; }

signal_node() { # node signal
    local p
    p=$(pids "$1")
    [ -z "$p" ] || kill -"$2" $p 2>/dev/null || true
}

# With FTMPI_CLUSTER_EVENT_TIME set, prints the time (seconds since the
# epoch) right before the link changes, for benchmarks that time the event.
link() {
    local veth=$name-v$(node_index "$1")
    [ -z "${FTMPI_CLUSTER_EVENT_TIME:-}" ] || date +%s.%N
    ip -n "$switch" link set "$veth" "$2"
}

# The link back up, and the node reachable at once: no neighbour entry
# anywhere still says it (or the head) is unreachable.
heal() {
    local n i ns
    link "$1" up
    n=$(nodes)
    for ((i = 0; i <= n; i++)); do
        ip -n "$(node_ns "$i")" neigh flush all 2>/dev/null || true
    done
    ns=$(node_ns "$1")
    for ((i = 0; i < 50; i++)); do
        ip -n "$ns" link show eth0 | grep -q "state UP" && break
        sleep 0.1
    done
}

down() {
    local n i ns p
    [ -e "$state" ] || return 0
    n=$(cat "$state/nodes" 2>/dev/null || echo 64)
    for ((i = 0; i <= n; i++)); do
        ns=$(node_ns "$i")
        ip netns list 2>/dev/null | grep -qw "$ns" || continue
        p=$(ip netns pids "$ns" 2>/dev/null || true)
        [ -z "$p" ] || kill -9 $p 2>/dev/null || true
    done
    for ((i = 0; i <= n; i++)); do
        for f in uts ipc mnt; do umount "$state/n$i/$f" 2>/dev/null || true; done
        ip netns del "$(node_ns "$i")" 2>/dev/null || true
    done
    ip netns del "$switch" 2>/dev/null || true
    umount "$state" 2>/dev/null || true
    rm -rf "$state"
}

cmd=${1:-}
shift || true
case $cmd in
    up) up "${1:-}" ;;
    down) down ;;
    check) can_make ;;
    exec) [ $# -ge 2 ] || die "exec NODE COMMAND..."; enter "$@" ;;
    run) # mpiexec on the head node, launching through node-exec. A node's
        # mount namespace does not hold the others' (the kernel leaves mount
        # namespace files out of a copy), so node-exec goes back to this
        # shell's, which stays for as long as the command runs.
        [ $# -ge 1 ] || die "run COMMAND..."
        FTMPI_CLUSTER=$name FTMPI_CLUSTER_MOUNTS=/proc/$$/ns/mnt HYDRA_LAUNCHER=ssh \
            HYDRA_LAUNCHER_EXEC=$here/node-exec HYDRA_LAUNCHER_AUTOFORK=0 ENTER_AS_CHILD=1 \
            enter 0 "$@" ;;
    hosts) hosts ;;
    pids) pids "$1" ;;
    kill) signal_node "$1" "${2:-KILL}" ;;
    freeze) signal_node "$1" STOP ;;
    thaw) signal_node "$1" CONT ;;
    cut) link "$1" down ;;
    heal) heal "$1" ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; [ -z "$cmd" ] || exit 2 ;;
esac
