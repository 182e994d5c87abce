#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: the cost of having survived. Under ULFM, 3 processes
# time a ring of 8-byte MPI_Sendrecv (AFTERMATH_ITERS iterations, default
# 10000, 5 rounds, median) before and after an event, with a fourth
# process outside the ring: it is killed (SIGKILL), or a duplicate of
# MPI_COMM_WORLD is revoked; or (unmatched) rank 0's MPI_Ssend to rank 1
# is timed while rank 1 leaves it 1000 messages it never receives per
# iteration (AFTERMATH_UNMATCHED_ITERS iterations, default 4), before and
# after the fourth process is killed. A job that survived must not run
# slower afterwards: the target is a ratio after/before within 1.05 (1.1
# for unmatched). BENCH_RUNS jobs per event (default 5); the table gives
# the medians.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup aftermath
bench_build aftermath
iters=${AFTERMATH_ITERS:-10000}

{
    echo "ULFM: a ring of 8-byte MPI_Sendrecv among 3 processes, us per iteration before and"
    echo "after an event outside it ($iters iterations x 5 rounds per job, medians of BENCH_RUNS jobs;"
    echo "4 processes on $cores cores; target: after/before <= 1.05)"
    printf "%-8s %7s %10s %10s %8s\n" event ok/runs before after ratio
} | tee -a "$table"
for event in kill revoke unmatched; do
    ok=0 runs=0
    : >"$raw.$event"
    for i in $(seq "${BENCH_RUNS:-5}"); do
        runs=$((runs + 1))
        # unmatched: each iteration leaves 1000 messages queued
        n=$iters
        [ $event = unmatched ] && n=${AFTERMATH_UNMATCHED_ITERS:-4}
        out=$(FTMPI_RECOVERY_MODE=ulfm bench_mpiexec 120 "$prefix" 4 "$bin/aftermath" "$event" \
              "$n" 5 || true)
        if grep -q '^ratio ' <<<"$out"; then
            ok=$((ok + 1))
            awk '{ v[$1] = $2 } END { print v["before"], v["after"], v["ratio"] }' <<<"$out" >>"$raw.$event"
        fi
        sed "s/^/$event $i /" <<<"$out" >>"$raw"
    done
    b=$(awk '{ print $1 }' "$raw.$event" | median)
    a=$(awk '{ print $2 }' "$raw.$event" | median)
    r=$(awk '{ print $3 }' "$raw.$event" | median)
    printf "%-8s %7s %10s %10s %8s\n" "$event" "$ok/$runs" "$b" "$a" "$r" | tee -a "$table"
    rm -f "$raw.$event"
done
