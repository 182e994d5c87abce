#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: learning of a lost node. 3 simulated nodes of 2
# processes (test/cluster/cluster.sh; needs root); once the job runs, node
# 3 is killed whole (its processes and its launcher proxy, SIGKILL),
# frozen (SIGSTOP to all of it) or cut off (its link down). Reported, over
# BENCH_RUNS trials per event (default 20): the time from the event until
# the last survivor knew of the first of the node's processes, and until
# it knew of both (median and worst, ms); BENCH_NODELOSS_EVENTS picks the
# events (default "kill freeze cut"). The survivors poll
# MPIX_Comm_get_failed (bench/nodeloss.c, ULFM mode, so that nothing else
# happens); detection is the same in every mode but ABORT.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup nodeloss
bench_build nodeloss
runs=${BENCH_RUNS:-20}
cluster=$top/test/cluster/cluster.sh
export FTMPI_CLUSTER=bn$$
if ! why=$("$cluster" check 2>&1); then
    echo "nodeloss: cannot make simulated nodes ($why); skipped" | tee -a "$table"
    exit 0
fi
trap '"$cluster" down >/dev/null 2>&1 || true' EXIT
"$cluster" up 3 >/dev/null
hosts=$("$cluster" hosts)

# one_trial EVENT: prints "first all" in ms, or FAILED
one_trial() {
    local event=$1 out t0 job n
    out=$(mktemp)
    FTMPI_RECOVERY_MODE=ulfm timeout -k 5 90 "$cluster" run "$prefix/bin/mpiexec" -hosts "$hosts" \
        -ppn 2 -n 6 "$bin/nodeloss" 2 >"$out" 2>&1 </dev/null &
    job=$!
    for ((n = 0; n < 300; n++)); do
        grep -q READY "$out" && break
        sleep 0.05
    done
    sleep 0.5
    # the clock is read right before the signal or the link change (by
    # cluster.sh itself): the driver's own start-up is not counted
    local pids
    pids=$("$cluster" pids 3)
    case $event in
        kill) t0=$(date +%s.%N); kill -KILL $pids ;;
        freeze) t0=$(date +%s.%N); kill -STOP $pids ;;
        cut) t0=$(FTMPI_CLUSTER_EVENT_TIME=1 "$cluster" cut 3) ;;
    esac
    wait $job || true
    case $event in
        freeze) "$cluster" thaw 3 ;;
        cut) "$cluster" heal 3 ;;
    esac
    echo "# $event t0=$t0" >>"$raw"
    cat "$out" >>"$raw"
    awk -v t0="$t0" '/^LEARNED/ { c++; if ($3 == "-") bad = 1; else { if ($3 > f) f = $3; if ($4 > a) a = $4 } }
        END { if (c == 4 && !bad) printf "%.1f %.1f\n", (f - t0) * 1000, (a - t0) * 1000; else print "FAILED" }' "$out"
    rm -f "$out"
    # what ran on the node ends once it is back
    for ((n = 0; n < 100; n++)); do
        [ -z "$("$cluster" pids 3)" ] && break
        sleep 0.1
    done
    [ -z "$("$cluster" pids 3)" ] || echo "nodeloss: processes left on node 3: $("$cluster" pids 3)" >&2
}

stats() { # the numbers on stdin: "median worst"
    local v
    v=$(awk 'NF' | sort -g)
    [ -n "$v" ] || { echo "- -"; return; }
    printf '%.1f %.1f\n' "$(median <<<"$v")" "$(tail -n 1 <<<"$v")"
}

{
    echo "learning of a lost node: 3 simulated nodes x 2 processes, node 3 lost;"
    echo "ms from the event until the last survivor knew of the node's first / both processes"
    echo "(heartbeat timeout: MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT, default 3000 ms)"
    printf '%-8s %6s %8s %18s %18s\n' event trials failed "first: median max" "both: median max"
} | tee -a "$table"
for event in ${BENCH_NODELOSS_EVENTS:-kill freeze cut}; do
    results=()
    failed=0
    for ((i = 0; i < runs; i++)); do
        r=$(one_trial "$event")
        if [ "$r" = FAILED ]; then failed=$((failed + 1)); else results+=("$r"); fi
    done
    first=$(printf '%s\n' "${results[@]}" | awk 'NF { print $1 }' | stats)
    both=$(printf '%s\n' "${results[@]}" | awk 'NF { print $2 }' | stats)
    printf '%-8s %6d %8d %9s %8s %9s %8s\n' "$event" "$runs" "$failed" $first $both | tee -a "$table"
done
