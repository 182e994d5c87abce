#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Another user of the node (nobody; the job is root's) floods mpiexec's
# control port with connections that never prove the job key
# (test/ftmpi/attacker.c flood: two processes, each holding as many as its
# descriptors allow and reopening those mpiexec closes) while a 4-process
# job runs, and only then does the job need a new proxy
# (test/ftmpi/late_proxy.c):
#   rebuild   REBUILD (AUTO): a process is killed, the replacement's proxy
#             connects to the port of its new process group
#   spawn     MPI_Comm_spawn of one child, whose proxy connects likewise
# The new proxy waits a second after it connected before it answers the
# challenge (slow_proxy.c, preloaded), as one on a loaded node or across a
# slow network would: under a flood that must still be soon enough. The
# job must end correctly (4 processes report No Errors, mpiexec exits 0),
# mpiexec must print its summary of refused connections, and its lines
# about them stay few.
# test-timeout: 600
set -u
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/attack.bash"
attack_setup
build late_proxy || exit 1
slow=$tmp/slow_proxy.so
gcc -O2 -Wall -shared -fPIC -o "$slow" "$src/slow_proxy.c" -ldl || { echo "FAIL: slow_proxy.c does not compile"; exit 1; }
chmod 0755 "$slow"

FLOOD_SECONDS=15
# past the proof deadline (5 s): some connections are refused for it
GO_AFTER=7
# mpiexec's lines about refused connections: the first 8, at most one
# every 10 s after them, and the summary
MOST_REFUSAL_LINES=12

# mpiexec's listening TCP ports (that of the job whose ready file is $1)
mpiexec_ports() {
    local p i h inodes
    for p in $(pgrep -x mpiexec; pgrep -x mpiexec.hydra); do
        grep -qaF "ATTACK_READY_FILE=$1" "/proc/$p/environ" 2>/dev/null || continue
        inodes=$(ls -l "/proc/$p/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p')
        for i in $inodes; do
            awk -v i="$i" '$10 == i && $4 == "0A" { n = split($2, a, ":"); print a[n] }' \
                /proc/net/tcp /proc/net/tcp6
        done | while read -r h; do echo $((16#$h)); done
    done | sort -u | tr '\n' ' '
}

for case in rebuild spawn; do
    label="flood of mpiexec's control port, then $case"
    go=$tmp/go.$case
    job_env="ATTACK_GO_FILE=$go LD_PRELOAD=$slow FTMPI_TEST_PROXY_DELAY_MS=1000"
    [ $case = rebuild ] &&
        job_env="$job_env FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=auto MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT=20"
    mpiexec_args=
    start_job plain "$bin/late_proxy" $case
    wait_ready || { touch "$go"; wait "$job"; continue; }
    ports=$(mpiexec_ports "$ready")
    if [ -z "${ports// /}" ]; then
        bad "$label: mpiexec's control port not found"
        touch "$go"; wait "$job"; continue
    fi
    flood_and_go as_attacker flood $FLOOD_SECONDS 2 $ports
    summary=$(grep -a "refused [0-9]* control connection.*(" "$out")
    lines=$(grep -Eac "refused|not reported" "$out")
    ok=1
    job_ended_right || ok=0
    [ -n "$summary" ] || { ok=0; echo "  no summary of refused connections from mpiexec"; }
    [ "$lines" -le $MOST_REFUSAL_LINES ] || { ok=0; echo "  $lines lines about refused connections (at most $MOST_REFUSAL_LINES)"; }
    if [ $ok = 1 ]; then
        echo "$label: the job ended correctly (status 0, 4 processes correct); $lines lines about refusals, the last:"
        echo "  $summary"
    else
        bad_job
    fi
done

attack_finish
