#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Another user of the node, also one in the job owner's primary group
# (nobody with root's group, test/ftmpi/attacker.c shm), tries to read a
# running 4-process job's shared memory: it attaches every SysV segment
# the job's processes created, opens every file of /dev/shm and every
# descriptor of theirs that names one. Under ftdev's default (UCX's POSIX
# shared memory, 0600 and unlinked at once) it must get nothing, in
# SHRINK and in ULFM mode, and the job must not notice (attack.bash). A
# control job where the user chose SysV (UCX_TLS=sysv,self,cma: UCX 1.13
# makes those segments 0660) must let the group member attach them: the
# attack is real, and the job is still unharmed by a reader.
# test-timeout: 300
set -u
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/attack.bash"
attack_setup
build attack_target || exit 1

for case in shrink ulfm sysv; do
    mode=$case job_env=
    [ $case = sysv ] && mode=shrink job_env="UCX_TLS=sysv,self,cma UCX_WARN_UNUSED_ENV_VARS=n"
    for who in outsider member; do
        label="$who of the node, $case"
        start_job $mode "$bin/attack_target" 1
        wait_ready || { finish_job; continue; }
        if [ $who = outsider ]; then got=$(as_attacker shm attack_target 2>&1)
        else got=$(as_group_member shm attack_target 2>&1); fi
        finish_job
        echo "$label: $got"
        read -r _ attached _ segments _ _ files _ _ _ _ fds _ <<<"$got"
        case "$attached $files $fds" in
            *[!0-9\ ]* | '') bad "$label: the attacker did not run: $got" ;;
        esac
        if [ $case = sysv ] && [ $who = member ]; then
            [ "${attached:-0}" -gt 0 ] ||
                bad "$label: the control failed: no SysV segment of the job attached ($got)"
        elif [ "${attached:-1}" != 0 ] || [ "${files:-1}" != 0 ] || [ "${fds:-1}" != 0 ]; then
            bad "$label: the job's shared memory was readable: $got"
        fi
        judge
    done
done
attack_finish
