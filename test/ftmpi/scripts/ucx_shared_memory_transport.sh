#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Processes of one node reach each other over shared memory, never TCP, and
# start without opening UCX's POSIX shared-memory transport where SysV
# segments work: UCX then uses SysV alone, and opening POSIX as well costs
# about 8 ms of every MPI_Init (ftdev sets UCX_TLS=^posix unless the user set
# UCX_TLS). Checked from UCX's report of each endpoint's lanes
# (UCX_LOG_LEVEL=info) and from the files the processes open (a POSIX
# transport creates /dev/shm/ucx_shm_posix_*). With the user's
# UCX_TLS=posix,self,cma the peers' lanes are POSIX: the setting is kept.
set -u
. "$(dirname "$0")/common.bash"
command -v strace >/dev/null || { echo "strace is not installed"; exit 77; }
build init_finalize || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# SysV shared memory works here if a segment can be made (ipcmk, util-linux)
sysv=no
if id=$(ipcmk -M 4096 2>/dev/null | grep -o '[0-9]*$'); then
    sysv=yes
    ipcrm -m "$id"
fi
fail=0
for case in default user; do
    if [ $case = default ]; then
        tls=
        want=$([ $sysv = yes ] && echo sysv || echo posix)
    else
        tls=posix,self,cma
        want=posix
    fi
    # the default case must not inherit a UCX_TLS of the caller's
    out=$(if [ -z "$tls" ]; then unset UCX_TLS; else export UCX_TLS=$tls; fi
        UCX_LOG_LEVEL=info tagged_run 60 strace -f -qq -e trace=openat -e signal=none -o "$log" \
            "$prefix/bin/mpiexec" -n 2 "$bin/init_finalize" 2>&1)
    rc=$?
    # the transport of each endpoint's tag lane, endpoints to self left out
    lanes=$(grep -o 'ep_cfg\[[0-9]*\]: tag([a-z0-9]*/' <<<"$out" | sed 's/.*tag(\([a-z0-9]*\)\/$/\1/' |
        grep -v '^self$' | sort -u | tr '\n' ' ')
    posix_opened=$(grep -c 'openat(.*"/dev/shm/ucx_shm_posix_' "$log")
    if [ $rc != 0 ] || ! grep -q " No Errors" <<<"$out"; then
        echo "$case: exit status $rc:"; echo "$out" | grep -v "UCX  INFO" | tail -n 5; fail=1
    elif [ "$lanes" != "$want " ]; then
        echo "$case: the peers' tag lanes are over '${lanes% }', expected $want"; fail=1
    elif [ $case = default ] && [ $sysv = yes ] && [ "$posix_opened" != 0 ]; then
        echo "default: SysV works here, yet the POSIX transport was opened ($posix_opened segments)"; fail=1
    else
        echo "$case: peers over $want; POSIX segments opened: $posix_opened"
    fi
done
no_process_left || fail=1
exit $fail
