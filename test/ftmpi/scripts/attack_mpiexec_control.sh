#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Another user of the node (nobody; the job is root's) connects
# to mpiexec's control port while a 4-process job runs and speaks Hydra's
# control protocol as a proxy would (test/ftmpi/attacker.c). It tries
# every TCP socket of uid 0 listening since it looked before the job
# (/proc/net/tcp, tcp6), all at once. One job per case, in SHRINK and in
# ULFM mode, with one proxy (and two on this node for read and
# terminated):
#   unknown     a proxy id mpiexec does not know (777)
#   read        claims proxy 0 and reads all that comes (mpiexec's
#               environment must not be in it)
#   hangup      claims proxy 0 and hangs up at once
#   declared    claims proxy 0, then PMI gets of PMI_declared_failed_<r>
#               for every rank
#   terminated  claims proxy 0, then PROCESS_TERMINATED of rank 1 (alive)
# In each the job must not notice: every process finishes with correct
# results, mpiexec exits 0, nothing is declared failed or dead, and the
# secret in mpiexec's environment is nowhere in what the attacker got
# (attack.bash).
# test-timeout: 900
set -u
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/attack.bash"
attack_setup
build attack_target || exit 1

# one proxy (the usual one-node job), and two proxies on this node for
# the cases whose harm shows best there: reading, then hanging up (today
# the other proxy's processes go on as a world of their own) and
# PROCESS_TERMINATED (today the other proxy's processes are told a live
# rank died)
for mode in shrink ulfm; do
    for case in unknown read hangup declared terminated 2:read 2:terminated; do
        mpiexec_args= how="one proxy"
        if [ "${case#2:}" != "$case" ]; then
            case=${case#2:}
            mpiexec_args="-launcher fork -hosts localhost:2,127.0.0.1:2"
            how="two proxies"
        fi
        label="control connection: $case, $mode, $how"
        dump=$adir/received.$mode.$case.${how// /-}
        attack_snapshot
        start_job $mode "$bin/attack_target" 5
        if ! wait_ready; then
            finish_job
            continue
        fi
        as_attacker control $case "$adir/snapshot" "$dump" 4 2 >"$adir/control.out" 2>&1
        arc=$?
        sed 's/^/  /' "$adir/control.out"
        [ $arc = 0 ] || bad "$label: the attacker found nothing to attack (status $arc): no test"
        sleep 1
        finish_job
        judge "$dump" "$adir/control.out"
    done
done

attack_finish
