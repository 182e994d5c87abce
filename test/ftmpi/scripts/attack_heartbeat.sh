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
# nothing is declared failed (attack.bash).
# test-timeout: 400
set -u
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/attack.bash"
attack_setup
build attack_target || exit 1

for mode in shrink ulfm; do
    label="forged heartbeat datagrams, $mode"
    attack_snapshot
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
done

attack_finish
