#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# needs: test points
# Whoever captured a job's traffic can send it again unchanged: the MACs
# still hold. Process 0 plays that part (the test point "replay"): after
# each control message it sends, it sends the one before again to that
# one's recipient and to the new one's; when a process is replaced, it
# sends the replacement the last control message and the last heartbeat
# datagram (one declaring the dead process failed, if it sent one) that
# went to the process replaced. Every copy must be dropped, and the job
# must not notice:
#   ulfm      a kill, then revocations, agreements and a shrink
#   rebuild   process 1 killed, replaced, its replacement killed in a
#             later round and replaced again (the process 0 talks to
#             first on the heartbeat ring: it has datagrams and control
#             messages of the process replaced to send again)
# Each job ends with every expected process reporting No Errors and
# mpiexec's status 0; the processes report the copies on stderr (control
# messages: replayed, meant for another process, meant for the process
# a replacement replaced) and in their traces (datagrams), and no copy is
# taken: a replayed message would be acted on twice.
# test-timeout: 300
set -u
. "$(dirname "$0")/common.bash"
build ulfm_basic || exit 1
build ft_rebuild || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

check_job() { # LABEL RC OUT SURVIVORS PATTERN...
    local label=$1 rc=$2 out=$3 survivors=$4 ok
    shift 4
    ok=$(grep -c " rank [0-9]*: No Errors" "$out")
    if [ "$rc" != 0 ] || [ "$ok" != "$survivors" ]; then
        echo "$label: exit status $rc, $ok of $survivors processes without errors:"
        grep -v "^FT-MPICH: rank [0-9]*: dropped" "$out" | tail -n 8
        fail=1
        return
    fi
    for pattern in "$@"; do
        if ! grep -rq -- "$pattern" "$out" "$tmp/trace.$label".* 2>/dev/null; then
            echo "$label: no process reported '$pattern'"
            fail=1
            return
        fi
    done
    echo "$label: $ok processes finished; copies dropped: $(grep -c "dropped" "$out") reported on stderr, $(cat "$tmp/trace.$label".* 2>/dev/null | grep -c "dropped a datagram meant for") in traces"
}

export FTMPI_TEST_POINT=0:replay
FTMPI_RECOVERY_MODE=ulfm MPIR_CVAR_FTMPI_TRACE_FILE=$tmp/trace.ulfm \
    tagged_run 90 "$prefix/bin/mpiexec" -n 4 "$bin/ulfm_basic" 2 kill >"$tmp/ulfm.out" 2>&1
check_job ulfm $? "$tmp/ulfm.out" 3 "dropped a replayed control message" \
    "dropped a control message meant for another process"

FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=manual MPIR_CVAR_FTMPI_TRACE_FILE=$tmp/trace.rebuild \
    tagged_run 120 "$prefix/bin/mpiexec" -n 4 "$bin/ft_rebuild" 1:-:1 kill >"$tmp/rebuild.out" 2>&1
check_job rebuild $? "$tmp/rebuild.out" 4 "dropped a replayed control message" \
    "dropped a control message meant for the process this one replaced" \
    "dropped a datagram meant for the process this one replaced"

no_process_left || fail=1
exit $fail
