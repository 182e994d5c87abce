#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# test-timeout: 600
# Deaths under CPU load: two busy loops hold the cores while a 6-process
# job (test/ftmpi/load_ring.c: a ring, two allreduces and a barrier per
# iteration, MANUAL recovery) loses two processes, SIGKILLed from outside
# at random moments 0.2-1.7 s apart. Every run must end in time with the
# four survivors reporting no error, two deaths named by mpiexec, status
# 0, and nothing left behind. The runs go round SHRINK and BLANK with CONT
# and RESET messages, NONATOMIC collectives with the survivors agreeing
# where to go on after each recovery, and ATOMIC ones without.
#
#   load_soak.sh [RUNS]     (LOAD_SOAK_RUNS, default 20; LOAD_SOAK_SEED)
set -u
. "$(dirname "$0")/common.bash"
build load_ring || exit 1
runs=${1:-${LOAD_SOAK_RUNS:-20}}
seed=${LOAD_SOAK_SEED:-$$}
RANDOM=$seed
fail=0
modes=("shrink cont nonatomic agree" "blank cont nonatomic agree" "shrink reset nonatomic agree"
    "blank reset nonatomic agree" "shrink cont atomic atomic" "blank reset atomic atomic")

hogs=()
for i in 1 2; do
    (while :; do :; done) &
    hogs+=($!)
done
trap 'kill ${hogs[*]} 2>/dev/null' EXIT

# ranks_of TAG: os pids of the job's ranks once all 6 said they are ready
ranks_of() {
    grep -o 'LOAD READY [0-9]*' "$1" 2>/dev/null | awk '{ print $3 }'
}

for ((run = 1; run <= runs; run++)); do
    set -- ${modes[$((run % ${#modes[@]}))]}
    comm=$1 msg=$2 coll=$3 resync=$4
    out=$bin/load_soak.$run.out
    tag=ftmpi-script-$$-$RANDOM$RANDOM
    first=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.2 + (r % 600) / 1000 }')
    gap=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.2 + (r % 1500) / 1000 }')
    start=$(date +%s.%N)
    FTMPI_TEST_JOB_TAG=$tag FTMPI_COMM_MODE=$comm FTMPI_MSG_MODE=$msg FTMPI_COLL_MODE=$coll \
        timeout -k 5 60 "$prefix/bin/mpiexec" -n 6 "$bin/load_ring" 4 "$resync" </dev/null >"$out" 2>&1 &
    job=$!
    # the victims: two of the six, killed once every process is past MPI_Init
    for ((w = 0; w < 300; w++)); do
        [ "$(ranks_of "$out" | wc -l)" -ge 6 ] && break
        sleep 0.05
    done
    pids=($(ranks_of "$out"))
    v1=${pids[$((RANDOM % 6))]}
    v2=$v1
    while [ "$v2" = "$v1" ]; do v2=${pids[$((RANDOM % 6))]}; done
    sleep "$first"; kill -9 "$v1" 2>/dev/null
    sleep "$gap"; kill -9 "$v2" 2>/dev/null
    wait $job
    rc=$?
    secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    left=$(reap_tagged "$tag")
    survivors=$(grep -c "^ rank [0-9]*: No Errors" "$out")
    deaths=$(grep -c "died before MPI_Finalize" "$out")
    what="run $run ($comm $msg $coll, kills at $first s and +$gap s)"
    if [ $rc != 0 ] || [ "$survivors" != 4 ] || [ "$deaths" != 2 ] || [ -n "$left" ] ||
        grep -q "WRONG\|check failed\|Assertion\|assert" "$out"; then
        echo "FAIL: $what: status $rc after $secs s, $survivors survivors, $deaths deaths${left:+, left behind: $left}"
        sed 's/^/      | /' "$out" | tail -n 15
        fail=1
    else
        echo "$what: ok in $secs s ($(grep -o '[0-9]* recoveries' "$out" | sort -u | tr '\n' ' '))"
    fi
done
[ $fail = 0 ] && echo "ok: $runs runs under load (seed $seed)"
exit $fail
