#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Another user of the node (nobody; the job is root's) sends the
# heartbeat sockets of a running 4-process job forged datagrams "process k
# has failed" (HB_FAILED) for every k, claiming every sender id with every
# OS pid of the job's processes (what /proc shows every user), in today's
# 24-byte form and padded to 48 bytes with a garbage counter and MAC
# (test/ftmpi/attacker.c). It finds the sockets in /proc/net/udp (those of
# uid 0 made since it looked before the job) and the processes by their
# name in /proc/PID/comm. In SHRINK and in ULFM mode the job must not
# notice: every process finishes with correct results, mpiexec exits 0,
# nothing is declared failed (attack.bash). The job traces
# (MPIR_CVAR_FTMPI_TRACE_FILE): each process drops hundreds of
# datagrams, and its trace reports at most the first 10 and then one a
# second, so that no flood from outside makes a trace grow without bound;
# the count of all of them is in the trace's last lines.
# test-timeout: 400
set -u
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/attack.bash"
attack_setup
build attack_target || exit 1

for mode in shrink ulfm; do
    label="forged heartbeat datagrams, $mode"
    attack_snapshot
    mkdir -p "$tmp/trace.$mode"
    job_env="MPIR_CVAR_FTMPI_TRACE_FILE=$tmp/trace.$mode/t"
    start_job $mode "$bin/attack_target" 5
    if ! wait_ready; then
        finish_job
        continue
    fi
    as_attacker heartbeat "$adir/snapshot" attack_target 4 >"$adir/heartbeat.out" 2>&1
    arc=$?
    sed 's/^/  /' "$adir/heartbeat.out"
    [ $arc = 0 ] || bad "$label: the attacker found nothing to attack (status $arc): no test"
    # what the datagrams do, they do at once: the thread acts on receipt
    sleep 2
    finish_job
    judge "$adir/heartbeat.out"
    for t in "$tmp/trace.$mode"/t.*; do
        [ -f "$t" ] || { bad "$label: no trace file"; break; }
        lines=$(grep -c 'heartbeat: dropped a datagram' "$t")
        dropped=$(sed -n 's/.*counters rejected: \([0-9]*\) heartbeat datagrams.*/\1/p' "$t" | tail -n 1)
        echo "  $(basename "$t"): ${dropped:-no count of} datagrams dropped, $lines lines about them"
        if [ -z "$dropped" ] || [ "$dropped" -le 20 ]; then
            bad "$label: the trace does not show the flood ($dropped dropped): no test of its bound"
        elif [ "$lines" -gt 20 ]; then
            bad "$label: $lines trace lines for $dropped dropped datagrams"
        fi
    done
done

attack_finish
