# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A private Slurm (slurmctld, slurmd, munged) for tests and benchmarks,
# sourced by test/slurm/run-slurm-tests.sh, test/slurm/slurm-node-loss.sh
# and bench/run-slurm.sh: one node on this machine, or several simulated
# nodes (test/cluster/cluster.sh) with one slurmd each.
#
#   slurm_cluster_start [CPUS [NODES]]
#                                0: running, SLURM_CONF exported
#                                1: cannot run here ($slurm_skip_reason says why)
#                                2: installed but would not start (same)
#   slurm_run COMMAND...         runs a Slurm command (salloc, srun, sinfo...)
#                                where the controller is reachable
#   slurm_cluster_stop           stops what start started, by PID; 1 if job
#                                steps or slurmstepd processes had to be
#                                ended (a leak of the job that left them);
#                                copies the logs to $slurm_keep_logs if set
#
# Everything lives in a fresh directory (state, spool, logs, pid files,
# munge socket and key), the daemons listen on free ports above 36000 and
# carry FTMPI_SLURM_CLUSTER=<that directory> in their environment: what
# the cluster started is found by that tag or by its working directory
# (slurmstepd), never by name. The node declares CPUS CPUs (default 8) whatever
# the machine has (SlurmdParameters=config_overrides), so jobs of up to 8
# tasks fit on 2 cores. Needs root and the Debian packages slurm-wlm and
# munge; slurm_cluster_start installs them when it can.
#
# With NODES > 1 the cluster has simulated nodes (cluster.sh, named
# sl<pid of the shell>): slurmctld runs on the head node n0, where jobs are
# submitted (slurm_run) and mpiexec runs, and one slurmd per compute node
# n1..NODES (NodeName = its host name, CPUS CPUs each) in that node's
# namespaces, so that losing a node loses its slurmd too. Each slurmd has
# its own spool, pid and log file (%n). Stopping removes the nodes.

slurm_cluster_dir=
slurm_skip_reason=
slurm_nodes=0              # simulated compute nodes; 0: this machine is the node
slurm_node_names=()        # their host names (= Slurm node names)
slurm_cluster_sh=$(cd "$(dirname "${BASH_SOURCE[0]}")/../cluster" && pwd)/cluster.sh
slurm_exec=()              # what runs a command on the head node
slurm_keep_logs=${slurm_keep_logs:-}   # where stop copies the daemons' logs
slurm_daemons=()

slurm_cluster_packages_ready() {
    local c
    for c in slurmctld slurmd srun salloc squeue scancel sinfo munged; do
        command -v "$c" >/dev/null 2>&1 || return 1
    done
    # srun --mpi=pmix opens the PMIx library by its development name
    compgen -G '/usr/lib/*/pmix2/lib/libpmix.so' >/dev/null
}

# apt-get install slurm-wlm munge (and PMIx) with no service started by the packages'
# scripts (a container has no init system to own them).
slurm_cluster_install() {
    local policy=/usr/sbin/policy-rc.d added=no rc
    if [ ! -e $policy ]; then
        printf '#!/bin/sh\nexit 101\n' >$policy && chmod 755 $policy && added=yes
    fi
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        -o DPkg::Lock::Timeout=120 --no-install-recommends slurm-wlm munge libpmix-dev; } >/dev/null 2>&1
    rc=$?
    [ $added = no ] || rm -f $policy
    return $rc
}

# The first of `count` consecutive TCP ports from `from` that no socket
# listens on.
slurm_free_ports() {
    local from=$1 count=$2 used=() base p clash f st addr
    for f in /proc/net/tcp /proc/net/tcp6; do
        [ -r $f ] || continue
        while read -r _ addr _ st _; do
            [ "$st" = 0A ] && used+=($((16#${addr##*:})))
        done < <(tail -n +2 $f)
    done
    for ((base = from; base < 60000; base += count)); do
        clash=no
        for p in "${used[@]}"; do
            if [ "$p" -ge $base ] && [ "$p" -lt $((base + count)) ]; then clash=yes; break; fi
        done
        [ $clash = no ] && { echo $base; return 0; }
    done
    return 1
}

slurm_run() { "${slurm_exec[@]}" "$@"; }

# The EXIT trap of a test script that uses the cluster: stops it (a job or
# step it had to end fails the script) and exits with the script's $status
# (set to 1 by a failure), or with 77 when the script exited so.
slurm_test_finish() {
    local rc=$?
    [ $rc = 0 ] || [ $rc = 77 ] || status=1
    if ! slurm_cluster_stop; then
        echo "FAIL: Slurm jobs or slurmstepd processes outlived the tests"
        status=1
    fi
    [ $rc = 77 ] && exit 77
    exit $status
}

slurm_cluster_start() {
    local cpus=${1:-8} nodes=${2:-1} d host port i state why ctld_addr node_lines names
    if [ "$(id -u)" != 0 ]; then
        slurm_skip_reason="not root (Slurm's daemons and munged must run as root)"
        return 1
    fi
    if ! slurm_cluster_packages_ready; then
        if ! command -v apt-get >/dev/null 2>&1 || ! slurm_cluster_install ||
            ! slurm_cluster_packages_ready; then
            slurm_skip_reason="the packages slurm-wlm and munge are not installed and could not be installed"
            return 1
        fi
    fi
    if [ "$nodes" -gt 1 ]; then
        why=$("$slurm_cluster_sh" check 2>&1) || { slurm_skip_reason="cannot make simulated nodes: $why"; return 1; }
    fi
    # an allocation this script may itself run in must not leak into ours
    unset $(env | awk -F= '/^SLURM_/ { print $1 }')

    d=$(mktemp -d /tmp/ftmpi-slurm.XXXXXX) || { slurm_skip_reason="mktemp failed"; return 2; }
    slurm_cluster_dir=$d
    # munged wants its socket's directory and every parent searchable by all
    chmod 755 "$d"
    mkdir -p "$d/munge" "$d/munge-key" "$d/state" "$d/spool" "$d/log"
    chmod 755 "$d/munge"
    chmod 700 "$d/munge-key"
    head -c 1024 /dev/urandom >"$d/munge-key/munge.key"
    chmod 400 "$d/munge-key/munge.key"

    host=$(uname -n)
    host=${host%%.*}
    ctld_addr=127.0.0.1
    node_lines="NodeName=ftnode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN"
    names=ftnode
    slurm_node_names=(ftnode)
    if [ "$nodes" -gt 1 ]; then
        export FTMPI_CLUSTER=sl$$
        slurm_nodes=$nodes
        "$slurm_cluster_sh" up "$nodes" >"$d/log/cluster.out" 2>&1 ||
            { slurm_cluster_start_failed "the simulated nodes did not come up" "$d/log/cluster.out"; return 2; }
        slurm_exec=("$slurm_cluster_sh" exec 0)
        host=${FTMPI_CLUSTER}n0
        ctld_addr=$(awk -v h="$host" '$2 == h { print $1 }' "/run/ftmpi-cluster-$FTMPI_CLUSTER/hosts")
        node_lines=
        slurm_node_names=()
        for ((i = 1; i <= nodes; i++)); do
            slurm_node_names+=("${FTMPI_CLUSTER}n$i")
            node_lines+="NodeName=${FTMPI_CLUSTER}n$i NodeAddr=$(awk -v h="${FTMPI_CLUSTER}n$i" \
                '$2 == h { print $1 }' "/run/ftmpi-cluster-$FTMPI_CLUSTER/hosts") CPUs=$cpus State=UNKNOWN
"
        done
        names=${FTMPI_CLUSTER}n[1-$nodes]
    fi
    port=$(slurm_free_ports 36000 100) || { slurm_skip_reason="no free TCP ports"; return 2; }
    cat >"$d/slurm.conf" <<EOF
# generated by test/slurm/slurm-cluster.bash
ClusterName=ftmpich
SlurmctldHost=$host($ctld_addr)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SrunPortRange=$((port + 10))-$((port + 99))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd-%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
KillWait=2
SlurmdTimeout=5
$node_lines
PartitionName=ft Nodes=$names Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF=$d/slurm.conf

    # each daemon forks into the background and writes its pid file
    FTMPI_SLURM_CLUSTER=$d munged --socket="$d/munge/socket" --key-file="$d/munge-key/munge.key" \
        --pid-file="$d/munged.pid" --log-file="$d/log/munged.log" --seed-file="$d/munge/seed" \
        >"$d/log/munged.out" 2>&1 && slurm_daemon_started munged ||
        { slurm_cluster_start_failed "munged would not start" "$d/log/munged.out" "$d/log/munged.log"; return 2; }
    FTMPI_SLURM_CLUSTER=$d slurm_run slurmctld -f "$d/slurm.conf" >"$d/log/slurmctld.out" 2>&1 &&
        slurm_daemon_started slurmctld ||
        { slurm_cluster_start_failed "slurmctld would not start" "$d/log/slurmctld.out" "$d/log/slurmctld.log"; return 2; }
    for ((i = 0; i < ${#slurm_node_names[@]}; i++)); do
        slurm_node_start $((i + 1)) ||
            { slurm_cluster_start_failed "slurmd would not start" "$d/log/slurmd.out" \
                "$d/log/slurmd-${slurm_node_names[i]}.log"; return 2; }
    done

    for ((i = 0; i < 150; i++)); do
        state=$(slurm_run sinfo -h -o %t 2>/dev/null | sort -u | tr '\n' ' ')
        [ "$state" = "idle " ] && return 0
        sleep 0.2
    done
    slurm_cluster_start_failed "the nodes did not come up (states '${state}')" "$d/log/slurmctld.log" \
        "$d/log/slurmd-${slurm_node_names[0]}.log"
    return 2
}

# slurm_node_start K: starts the slurmd of compute node K (1..), in its
# namespaces when the nodes are simulated; again after the node was lost.
slurm_node_start() {
    local name=${slurm_node_names[$(($1 - 1))]} d=$slurm_cluster_dir
    local on=()
    [ "$slurm_nodes" -gt 1 ] && on=("$slurm_cluster_sh" exec "$1")
    mkdir -p "$d/spool/$name"
    FTMPI_SLURM_CLUSTER=$d "${on[@]}" slurmd -f "$d/slurm.conf" -N "$name" >>"$d/log/slurmd.out" 2>&1 &&
        slurm_daemon_started "slurmd-$name"
}

# slurm_node_state NAME: the node's state as sinfo prints it (idle, down*...)
slurm_node_state() { slurm_run sinfo -h -n "$1" -o %t 2>/dev/null; }

# Records the pid a daemon wrote, waiting a little for the file.
slurm_daemon_started() {
    local name=$1 i pid
    for ((i = 0; i < 50; i++)); do
        pid=$(cat "$slurm_cluster_dir/$name.pid" 2>/dev/null)
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            slurm_daemons+=("$name:$pid")
            return 0
        fi
        sleep 0.1
    done
    return 1
}

slurm_cluster_start_failed() { # reason log...
    local f
    slurm_skip_reason=$1
    for f in "${@:2}"; do
        [ -s "$f" ] && slurm_skip_reason+="; $(basename "$f"): $(grep -v '^\s*$' "$f" | tail -n 2 | tr '\n' ' ')"
    done
    slurm_cluster_stop >/dev/null
}

# "state ppid" of a process ("" once it is gone)
slurm_proc_state() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    set -- ${stat##*) }
    echo "$1 $2"
}

# Pids of live processes of this cluster, daemons and their helpers
# (slurmscriptd) excluded: those that carry its tag, and those that work
# in its directory (slurmstepd starts with an empty environment in
# slurmd's working directory, the log folder). The daemons are known by
# their pid files, so that another script that only knows the directory
# (test/ftmpi/run-ftmpi-tests.sh, given FTMPI_SLURM_CLUSTER_DIR) can ask.
slurm_cluster_tagged() {
    local daemons=" " pid st
    [ -n "$slurm_cluster_dir" ] || return 0
    for pid in $(cat "$slurm_cluster_dir"/*.pid 2>/dev/null); do daemons+="$pid "; done
    for pid in $( (grep -lsa "FTMPI_SLURM_CLUSTER=$slurm_cluster_dir" /proc/[0-9]*/environ | cut -d/ -f3
        find /proc/[0-9]*/cwd -maxdepth 0 -lname "$slurm_cluster_dir/*" | cut -d/ -f3) 2>/dev/null |
        sort -un); do
        st=$(slurm_proc_state "$pid")
        [ -n "$st" ] && [ "${st% *}" != Z ] || continue
        [[ "$daemons" == *" $pid "* || "$daemons" == *" ${st#* } "* ]] || echo "$pid"
    done
}

# Waits up to `tenths` tenths of a second for the cluster to hold no job
# and no slurmstepd; prints what is left: "jobs ...; processes ..."
slurm_cluster_leftovers() {
    local tenths=${1:-30} jobs procs p deadline
    # (a deadline, not a count of rounds: one look at /proc takes a while)
    deadline=$((${EPOCHREALTIME//[.,]/} + tenths * 100000))
    while :; do
        jobs=$(slurm_run squeue -h -o '%i:%T' 2>/dev/null | tr '\n' ' ')
        procs=$(slurm_cluster_tagged | tr '\n' ' ')
        [ -z "$jobs$procs" ] && return 0
        [ "${EPOCHREALTIME//[.,]/}" -lt $deadline ] || break
        sleep 0.1
    done
    [ -z "$jobs" ] || printf 'jobs %s' "$jobs"
    if [ -n "$procs" ]; then
        printf 'processes'
        for p in $procs; do printf ' %s(%s)' "$p" "$(cat /proc/$p/comm 2>/dev/null)"; done
    fi
    echo
    return 1
}

slurm_cluster_stop() {
    local leak=0 left entry name pid i job st
    [ -n "$slurm_cluster_dir" ] || return 0
    if [ ${#slurm_daemons[@]} -gt 0 ]; then
        left=$(slurm_cluster_leftovers 30)
        if [ -n "$left" ]; then
            echo "slurm-cluster: left behind at the end: $left"
            leak=1
            for job in $(slurm_run squeue -h -o %i 2>/dev/null); do slurm_run scancel "$job" 2>/dev/null; done
            slurm_cluster_leftovers 50 >/dev/null
        fi
    fi
    # slurmd first (it ends its steps), then the controller, munged last
    for name in slurmd slurmctld munged; do
        for entry in "${slurm_daemons[@]}"; do
            [[ "${entry%%:*}" == $name || "${entry%%:*}" == $name-* ]] || continue
            pid=${entry#*:}
            kill -TERM "$pid" 2>/dev/null
            for ((i = 0; i < 100; i++)); do
                st=$(slurm_proc_state "$pid")
                [ -n "$st" ] && [ "${st% *}" != Z ] || break
                sleep 0.1
            done
            kill -KILL "$pid" 2>/dev/null
        done
    done
    slurm_daemons=()
    # whatever still carries the tag (a slurmstepd its slurmd left)
    for pid in $(slurm_cluster_tagged); do
        echo "slurm-cluster: killing $pid ($(cat /proc/$pid/comm 2>/dev/null)), left after the daemons stopped"
        kill -KILL "$pid" 2>/dev/null
        leak=1
    done
    if [ -n "$slurm_keep_logs" ]; then
        mkdir -p "$slurm_keep_logs" && cp -r "$slurm_cluster_dir/log/." "$slurm_keep_logs/" 2>/dev/null
    fi
    if [ "$slurm_nodes" -gt 1 ]; then
        "$slurm_cluster_sh" down
        slurm_nodes=0
        slurm_exec=()
    fi
    rm -rf "$slurm_cluster_dir"
    slurm_cluster_dir=
    unset SLURM_CONF
    return $leak
}
