#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Processes of one node reach each other over shared memory, never TCP,
# and that memory is the job user's alone: where POSIX shared memory works
# ftdev sets UCX_TLS=^sysv (unless the user set UCX_TLS), so UCX uses its
# POSIX segments (created 0600, unlinked at once, mapped by peers through
# /proc/PID/fd) and makes no SysV segment, which UCX 1.13 makes 0660, open
# to the owner's group. Checked from UCX's report of each endpoint's lanes
# (UCX_LOG_LEVEL=info) and from the processes' system calls: every
# /dev/shm file created 0600, no SysV segment created with any
# permission for group or others. With the user's UCX_TLS=sysv,self,cma
# the peers' lanes are SysV: the setting is kept.
set -u
. "$(dirname "$0")/common.bash"
command -v strace >/dev/null || { echo "strace is not installed"; exit 77; }
build init_finalize || exit 1
# one trace file per process (-ff): a call another process interrupts is
# never split over two lines
tracedir=$(mktemp -d)
trap 'rm -rf "$tracedir"' EXIT
log=$tracedir/all
# POSIX shared memory works here if a file can be made in /dev/shm
posix=no
probe=/dev/shm/ftmpi-transport-probe-$$
if (umask 077 && : >"$probe") 2>/dev/null; then
    posix=yes
    rm -f "$probe"
fi
fail=0
for case in default user; do
    if [ $case = default ]; then
        tls=
        want=$([ $posix = yes ] && echo posix || echo sysv)
    else
        tls=sysv,self,cma
        want=sysv
    fi
    # the default case must not inherit a UCX_TLS of the caller's
    out=$(if [ -z "$tls" ]; then unset UCX_TLS; else export UCX_TLS=$tls; fi
        UCX_LOG_LEVEL=info tagged_run 60 strace -ff -qq -e trace=openat,shmget -e signal=none -o "$tracedir/trace" \
            "$prefix/bin/mpiexec" -n 2 "$bin/init_finalize" 2>&1)
    rc=$?
    cat "$tracedir"/trace.* >"$log"; rm -f "$tracedir"/trace.*
    # the transport of each endpoint's tag lane, endpoints to self left out
    lanes=$(grep -o 'ep_cfg\[[0-9]*\]: tag([a-z0-9]*/' <<<"$out" | sed 's/.*tag(\([a-z0-9]*\)\/$/\1/' |
        grep -v '^self$' | sort -u | tr '\n' ' ')
    posix_opened=$(grep -c 'openat(.*"/dev/shm/ucx_shm_posix_' "$log")
    # files made in /dev/shm, and SysV segments, open to anyone but the user
    shared_files=$(grep 'openat(.*"/dev/shm/.*O_CREAT' "$log" | grep -vc ', 0600)')
    shared_segments=$(grep -oE 'shmget\(.*IPC_CREAT[|A-Z_]*\|0[0-7]+' "$log" | grep -vc '|0600$')
    if [ $rc != 0 ] || ! grep -q " No Errors" <<<"$out"; then
        echo "$case: exit status $rc:"; echo "$out" | grep -v "UCX  INFO" | tail -n 5; fail=1
    elif [ "$lanes" != "$want " ]; then
        echo "$case: the peers' tag lanes are over '${lanes% }', expected $want"; fail=1
    elif [ $case = default ] && { [ "$shared_files" != 0 ] || [ "$shared_segments" != 0 ]; }; then
        echo "default: shared memory open to others: $shared_files files, $shared_segments SysV segments:"
        grep -E 'shmget\(|O_CREAT' "$log" | grep -vE ', 0600\)|\|0600[ )]' | head -n 4; fail=1
    else
        echo "$case: peers over $want; POSIX segments opened: $posix_opened; shared with others: $shared_files files, $shared_segments segments"
    fi
done
no_process_left || fail=1
exit $fail
