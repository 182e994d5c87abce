#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A protocol's wait that does not end is traced, and ends once its peer
# runs again: 3 processes agree (MPIX_Comm_agree) again and again while
# rank 1 is held stopped for 13 s with the heartbeat off, so that nothing
# declares it failed. The others wait in their agreement; with
# MPIR_CVAR_FTMPI_TRACE=1 each must say that it still waits after 10 s,
# and once rank 1 is continued every process must finish the loop with no
# error and nothing left behind.
set -u
. "$(dirname "$0")/common.bash"
build agree_pause || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

tag=ftmpi-wait-$$-$RANDOM
out=$(mktemp)
FTMPI_RECOVERY_MODE=ulfm MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT=0 MPIR_CVAR_FTMPI_TRACE=1 \
    FTMPI_TEST_JOB_TAG=$tag timeout -k 5 90 "$prefix/bin/mpiexec" -n 3 "$bin/agree_pause" 16 \
    >"$out" 2>&1 </dev/null &
job=$!
for ((i = 0; i < 200; i++)); do
    grep -q READY "$out" && break
    sleep 0.1
done
victim=
for f in $(grep -lsa "FTMPI_TEST_JOB_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null); do
    tr '\0' '\n' <"$f" 2>/dev/null | grep -qx "PMI_RANK=1" && victim=$(echo "$f" | cut -d/ -f3)
done
if [ -z "$victim" ]; then
    bad "rank 1 of the job was not found"
else
    kill -STOP "$victim"
    sleep 13
    kill -CONT "$victim"
fi
wait $job
rc=$?
n=$(grep -Ec "rank [0-9]+: No Errors" "$out")
traced=$(grep -c "wait for a ULFM agreement: still waiting after 1[0-9] s" "$out")
if [ $rc != 0 ] || [ "$n" != 3 ] || [ "$traced" -lt 2 ]; then
    bad "status $rc, $n of 3 processes reported, $traced processes traced their long wait (2 expected):"
    grep -vE "^\[ftmpi [0-9]+ [0-9.]+\] (agree|commit|revoke)" "$out" | tail -n 15
else
    echo "rank 1 stopped 13 s in an agreement: ok (the other 2 traced their wait, all 3 finished)"
fi
rm -f "$out"
sleep 1
pids=$(grep -lsa "FTMPI_TEST_JOB_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3)
[ -z "$pids" ] || { bad "processes left behind: $pids"; kill -9 $pids 2>/dev/null; }
exit $fail
