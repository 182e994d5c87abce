#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Losing a node under Slurm: a private Slurm over 3 simulated nodes
# (slurm-cluster.bash with test/cluster/cluster.sh: one slurmd per node, in
# the node's namespaces, slurmctld on the head node) runs the checked
# workload of the soak (test/soak/soak_workload.c) on 6 processes, 2 per
# node, launched the two ways Slurm users launch:
#
#   salloc --no-kill -N 3 -n 6 mpiexec -bootstrap slurm -n 6 ./app
#   srun --no-kill --mpi=pmi2 -N 3 -n 6 ./app
#
# Once the workload runs, every process of one node (its slurmd,
# slurmstepd, Hydra proxy and ranks) is killed at the same moment, or
# frozen. The survivors must recover the way their mode says and finish
# with every check right; Slurm must have found the node failed (DOWN)
# while the job still ran, so the job outlived Slurm's own handling of the
# failure too; replacements (REBUILD) must run on nodes that are alive;
# afterwards no job, step or process of the job may be left on any node.
# Exit status: 0 passed, 1 failed, 77 Slurm or the namespaces cannot run
# here (the last line says why).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
prefix=$(cd "${MPI_PREFIX:-$top/install}" 2>/dev/null && pwd) ||
    { echo "slurm-node-loss.sh: no install prefix ${MPI_PREFIX:-$top/install} (build first: make)" >&2; exit 2; }
export PATH=$prefix/bin:$PATH
. "$here/slurm-cluster.bash"
bin=$top/test/ftmpi/bin
mkdir -p "$bin"
# long enough for Slurm to declare the lost node DOWN (about 25 s with
# SlurmdTimeout=5) while the job still runs
seconds=${FTMPI_SLURM_NODE_LOSS_SECONDS:-45}

status=0
bad() { echo "FAIL: $*"; status=1; }
trap slurm_test_finish EXIT
trap 'echo "slurm-node-loss.sh: interrupted"; exit 1' INT TERM HUP

"$prefix/bin/mpicc" -O2 -o "$bin/soak_workload" "$top/test/soak/soak_workload.c" || exit 1
if ! slurm_cluster_start 2 3; then
    echo "SKIP: no Slurm over simulated nodes here: $slurm_skip_reason"
    exit 77
fi
echo "Slurm $(slurm_run sinfo -V | awk '{ print $2 }') on nodes ${slurm_node_names[*]}"

# node_processes K: the pids on compute node K, its slurmd left out
node_processes() {
    local p out=
    for p in $("$slurm_cluster_sh" pids "$1"); do
        [ "$(cat /proc/$p/comm 2>/dev/null)" = slurmd ] || out+="$p "
    done
    echo "$out"
}

# slurm_lose LAUNCHER HOW NODE LABEL SURVIVORS STATUS ENV...: LAUNCHER
# mpiexec or srun; HOW kill or freeze compute node NODE (1..3) once the
# workload runs; SURVIVORS: processes that must report a clean end; STATUS:
# the launcher's (0: the survivors alone count, in every mode, or nonzero)
slurm_lose() {
    local launcher=$1 how=$2 victim=$3 label=$4 want=$5 want_rc=$6
    shift 6
    local rundir out job rc n down=no state vname=${slurm_node_names[$((victim - 1))]} cmd
    rundir=$(mktemp -d "$bin/slurm_node_loss.XXXXXX")
    out=$rundir/out
    case $launcher in
        mpiexec) cmd=(salloc -Q --no-kill -N 3 -n 6 "$prefix/bin/mpiexec" -bootstrap slurm -n 6) ;;
        srun) cmd=(srun -Q --no-kill --mpi=pmi2 -N 3 -n 6) ;;
    esac
    env "$@" FTMPI_TEST_JOB_TAG=slurm-node-loss-$$ timeout -k 5 $((seconds + 60)) \
        "${slurm_exec[@]}" "${cmd[@]}" "$bin/soak_workload" "$rundir" "$seconds" \
        >"$out" 2>&1 </dev/null &
    job=$!
    for ((n = 0; n < 300; n++)); do
        grep -q "SOAK READY" "$out" 2>/dev/null && break
        sleep 0.1
    done
    sleep 1
    "$slurm_cluster_sh" "$how" "$victim"
    # Slurm's own handling of the failure: the node DOWN, while the job runs
    while kill -0 $job 2>/dev/null; do
        state=$(slurm_node_state "$vname")
        [[ $state == down* ]] && { down=yes; break; }
        sleep 0.5
    done
    wait $job
    rc=$?
    [ "$how" = freeze ] && "$slurm_cluster_sh" thaw "$victim"
    n=$(grep -Ec "^soak-end .* errors 0:" "$out")
    local misplaced placed
    misplaced=$(grep -c "(replacement) on $vname\$" "$out")
    placed=$(grep -o "(replacement) on .*" "$out" | sed 's/(replacement) on //' | sort | uniq -c |
        awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }')
    if { [ "$want_rc" = 0 ] && [ "$rc" != 0 ]; } || { [ "$want_rc" != 0 ] && [ "$rc" = 0 ]; } ||
       [ "$rc" -ge 124 ] || [ "$n" != "$want" ] || [ "$misplaced" != 0 ] || [ $down != yes ] ||
       grep -qE "WRONG|Backtrace|INTERNAL ERROR" "$out"; then
        bad "$label: status $rc, $n of $want survivors reported, node DOWN in Slurm while the job ran: $down, $misplaced replacements on the lost node:"
        grep -avE "^\s*$|^ *[0-9]+ +/" "$out" | tail -n 25
    else
        echo "ok    $label ($n survivors${placed:+, replacements on $placed}; Slurm set $vname DOWN while the job ran)"
    fi
    local node i left
    for node in 1 2 3; do
        for ((i = 0; i < 100; i++)); do
            [ -z "$(node_processes $node)" ] && break
            sleep 0.1
        done
        left=$(node_processes $node)
        [ -z "$left" ] || bad "$label: processes left on ${slurm_node_names[$((node - 1))]}: $left"
    done
    left=$(slurm_cluster_leftovers 50) || bad "$label: Slurm $left"
    # the node back for the next test: a new slurmd where it was killed,
    # the thawed one otherwise
    [ "$how" = kill ] && slurm_node_start "$victim"
    for ((i = 0; i < 300; i++)); do
        [ "$(slurm_node_state "$vname")" = idle ] && break
        sleep 0.2
    done
    [ "$(slurm_node_state "$vname")" = idle ] ||
        bad "$label: $vname did not come back ($(slurm_node_state "$vname"))"
    rm -rf "$rundir"
}

slurm_lose mpiexec kill 3 "salloc + mpiexec: node 3 killed, SHRINK" 4 0 FTMPI_COMM_MODE=shrink
slurm_lose mpiexec kill 1 "salloc + mpiexec: node 1 (rank 0) killed, REBUILD" 6 0 FTMPI_COMM_MODE=rebuild
slurm_lose mpiexec kill 2 "salloc + mpiexec: node 2 killed, ULFM" 4 0 FTMPI_RECOVERY_MODE=ulfm
slurm_lose mpiexec freeze 3 "salloc + mpiexec: node 3 frozen, BLANK" 4 0 FTMPI_COMM_MODE=blank
slurm_lose srun kill 3 "srun --mpi=pmi2: node 3 killed, SHRINK" 4 0 FTMPI_COMM_MODE=shrink
exit $status
