#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Losing a whole node: a job of 6 processes over 3 simulated nodes
# (test/cluster/cluster.sh: a network, UTS, IPC and mount namespace per
# node, TCP between nodes, shared memory within one), launched by mpiexec
# on a head node through the cluster's ssh stand-in. The checked workload
# of the soak (test/soak/soak_workload.c) runs; once it is under way every
# process of the third node, its hydra_pmi_proxy included, is killed at the
# same moment. mpiexec must name the lost processes once and keep the job
# running, the survivors must recover the way their mode says and finish
# with every check right, and nothing may be left on any node.
# The same with only the node's proxy killed (its processes must end with
# it), with the node frozen (SIGSTOP to every process of it) and with
# its link cut: the survivors' heartbeat declares its processes failed and
# tells mpiexec, which gives the node's proxy up; once the node is thawed
# or its link back, what ran on it ends.
# Modes: SHRINK, BLANK, REBUILD (whose replacements must run on the nodes
# left), ULFM. Exits 77 where namespaces cannot be
# made (not root, no iproute2, a container without the privilege).
# NODE_LOSS_CASES=REGEX runs only the cases whose label matches it;
# NODE_LOSS_KEEP=DIR keeps the whole output of each failed case there.
set -u
. "$(dirname "$0")/common.bash"
"$prefix/bin/mpicc" -O2 -o "$bin/soak_workload" "$src/../soak/soak_workload.c" || exit 1
fail=0
failed_cases=
bad() { echo "FAIL: $*"; fail=1; failed_cases+="${failed_cases:+; }${1%%:*}"; }
cluster_up ft$$ 3

# node_lose HOW NODE LABEL SURVIVORS STATUS ENV...: HOW (kill, freeze,
# cut, kill-during-recovery, kill-/freeze-replacement-node: NODE is the
# one found) NODE once the workload runs; STATUS: mpiexec's (0: survivors alone count,
# in every mode)
node_lose() {
    local how=$1 victim=$2 label=$3 want=$4 want_rc=$5 rundir out rc n lost given_up
    shift 5
    [[ $label =~ ${NODE_LOSS_CASES:-.} ]] || return 0
    rundir=$(mktemp -d "$bin/node_loss.XXXXXX")
    out=$rundir/out
    env "$@" FTMPI_TEST_JOB_TAG=node-loss-$$ timeout -k 5 120 "$cluster" run \
        "$prefix/bin/mpiexec" -hosts "$hosts" -ppn 2 -n 6 "$bin/soak_workload" "$rundir" 6 \
        >"$out" 2>&1 </dev/null &
    local job=$!
    for ((n = 0; n < 200; n++)); do
        grep -q "SOAK READY" "$out" 2>/dev/null && break
        sleep 0.1
    done
    sleep 1
    case $how in
        kill-during-recovery)
            # rank 2 (node 2) first; its node stays. Node `victim` goes
            # while the survivors recover from that death.
            kill -KILL "$(ls "$rundir"/pid.2.* | sed 's/.*\.//')"
            sleep 0.02
            "$cluster" kill "$victim"
            ;;
        kill-replacement-node | freeze-replacement-node)
            # rank 2 first; once its replacement runs, the node that holds
            # the replacement is killed or frozen (its proxy of the job's
            # first process group and the one of the replacement's spawned
            # group)
            local old new=
            old=$(ls "$rundir"/pid.2.* | sed 's/.*\.//')
            kill -KILL "$old"
            for ((n = 0; n < 300; n++)); do
                new=$(ls "$rundir"/pid.2.* 2>/dev/null | sed 's/.*\.//' | grep -vx "$old")
                [ -n "$new" ] && break
                sleep 0.05
            done
            victim=
            for node in 1 2 3; do
                "$cluster" pids $node | tr ' ' '\n' | grep -qx "${new:-none}" && victim=$node
            done
            if [ -z "$victim" ]; then
                bad "$label: rank 2's replacement (pid ${new:-none}) runs on no node; node 3 killed"
                victim=3
            fi
            sleep 0.5
            "$cluster" "${how%%-*}" "$victim"
            ;;
        kill-proxy)
            # the node stays; its proxy alone is killed: what it started
            # must end with it, not run on as a world of its own
            local proxies=
            for pid in $("$cluster" pids "$victim"); do
                [ "$(cat /proc/$pid/comm 2>/dev/null)" = hydra_pmi_proxy ] && proxies+=" $pid"
            done
            [ -n "$proxies" ] || bad "$label: no proxy found on node $victim"
            kill -KILL $proxies
            ;;
        *) "$cluster" "$how" "$victim" ;;
    esac
    wait $job
    rc=$?
    # what ran on a frozen or cut-off node ends once it is back
    case $how in
        freeze*) "$cluster" thaw "$victim" ;;
        cut) "$cluster" heal "$victim" ;;
    esac
    n=$(grep -Ec "^soak-end .* errors 0:" "$out")
    # replacements (REBUILD) run on nodes that are alive
    local misplaced placed
    misplaced=$(grep -c "(replacement) on ${FTMPI_CLUSTER}n$victim\$" "$out")
    placed=$(grep -o "(replacement) on .*" "$out" | sed 's/(replacement) on //' | sort | uniq -c |
        awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }')
    lost=$(grep -c "lost the proxy on" "$out")
    local want_lost=1
    [[ $how == *-replacement-node ]] && want_lost=2
    given_up=$(grep -c "was declared failed by the others .*giving up its proxy" "$out")
    if { [ "$want_rc" = 0 ] && [ "$rc" != 0 ]; } || { [ "$want_rc" != 0 ] && [ "$rc" = 0 ]; } ||
       [ "$rc" -ge 124 ] || [ "$n" != "$want" ] || [ "$lost" != "$want_lost" ] || [ "$misplaced" != 0 ] ||
       { [[ $how == freeze* || $how == cut ]] && [ "$given_up" != 1 ]; } ||
       grep -qE "WRONG|Backtrace|INTERNAL ERROR" "$out"; then
        bad "$label: status $rc, $n of $want survivors reported, $lost 'lost the proxy' lines, $given_up 'giving up its proxy' lines, $misplaced replacements on the lost node:"
        grep -avE "^\s*$|^ *[0-9]+ +/" "$out" | tail -n 25
        [ -z "${NODE_LOSS_KEEP:-}" ] || cp "$out" "$NODE_LOSS_KEEP/${label//[^A-Za-z0-9]/_}.$$.out"
    else
        echo "$label: ok ($n survivors${placed:+, replacements on $placed}; $(grep -o 'lost the proxy on [^:]*: its [0-9]* process(es) are dead:[0-9 ]*' "$out" |
            paste -sd ';'))"
    fi
    local left
    for node in 1 2 3; do
        left=$(left_on_node $node 100)
        [ -z "$left" ] || bad "$label: processes left on node $node: $left"
    done
    rm -rf "$rundir"
}

node_lose kill 3 "node 3 killed, SHRINK" 4 0 FTMPI_COMM_MODE=shrink
node_lose kill 3 "node 3 killed, BLANK" 4 0 FTMPI_COMM_MODE=blank
node_lose kill 3 "node 3 killed, BLANK+CONT" 4 0 FTMPI_COMM_MODE=blank FTMPI_MSG_MODE=cont
node_lose kill 3 "node 3 killed, BLANK+IGNORE" 4 0 FTMPI_COMM_MODE=blank FTMPI_RECOVERY_MODE=ignore
node_lose kill 2 "node 2 killed, SHRINK+IGNORE+CONT" 4 0 FTMPI_COMM_MODE=shrink \
    FTMPI_RECOVERY_MODE=ignore FTMPI_MSG_MODE=cont
node_lose kill 3 "node 3 killed, ULFM" 4 0 FTMPI_RECOVERY_MODE=ulfm
# the node's proxy alone killed: a lost node to the others, and its
# processes end with it
node_lose kill-proxy 3 "node 3's proxy killed, SHRINK" 4 0 FTMPI_COMM_MODE=shrink
node_lose kill-proxy 2 "node 2's proxy killed, ULFM" 4 0 FTMPI_RECOVERY_MODE=ulfm
# a node lost while the survivors recover from a process's death
node_lose kill-during-recovery 3 "node 3 killed 20 ms after rank 2, SHRINK" 3 0 FTMPI_COMM_MODE=shrink
node_lose kill-during-recovery 3 "node 3 killed 20 ms after rank 2, BLANK" 3 0 FTMPI_COMM_MODE=blank
# REBUILD: the lost node's ranks are replaced on the nodes left (the
# survivors and the replacements report)
node_lose kill 3 "node 3 killed, REBUILD" 6 0 FTMPI_COMM_MODE=rebuild
node_lose kill 1 "node 1 (rank 0) killed, REBUILD" 6 0 FTMPI_COMM_MODE=rebuild
# the node that holds a replacement: its proxies of two process groups
node_lose kill-replacement-node 0 "rank 2 killed, then its replacement's node, REBUILD" 6 0 \
    FTMPI_COMM_MODE=rebuild
node_lose freeze-replacement-node 0 "rank 2 killed, then its replacement's node frozen, REBUILD" \
    6 0 FTMPI_COMM_MODE=rebuild
# the node of rank 0 (the recovery's first coordinator)
node_lose kill 1 "node 1 (rank 0) killed, SHRINK" 4 0 FTMPI_COMM_MODE=shrink
node_lose kill 1 "node 1 (rank 0) killed, BLANK+AUTO" 4 0 FTMPI_COMM_MODE=blank FTMPI_RECOVERY_MODE=auto
# found by the heartbeat alone: a frozen node, a cut link
node_lose freeze 3 "node 3 frozen, SHRINK" 4 0 FTMPI_COMM_MODE=shrink
node_lose freeze 2 "node 2 frozen, BLANK" 4 0 FTMPI_COMM_MODE=blank
node_lose cut 3 "node 3 cut off, SHRINK" 4 0 FTMPI_COMM_MODE=shrink
node_lose freeze 3 "node 3 frozen, ULFM" 4 0 FTMPI_RECOVERY_MODE=ulfm

# the runner shows the last lines only: name what failed there
[ -z "$failed_cases" ] || echo "failed cases: $failed_cases"
exit $fail
