#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: this build (FTDEV_PREFIX, default ./install) against
# another FT-MPICH build (REFERENCE_PREFIX, e.g. an earlier commit's
# `make PREFIX=...`), to measure what a change costs while nothing fails.
# Runs alternate between the builds, BENCH_ROUNDS rounds (default 7):
#   - ping-pong, 2 processes, in VERSUS_COMM_MODE (default shrink: the
#     heartbeat runs), 8 B, 1 KiB, 64 KiB, 1 MiB: median half round trip;
#   - aftermath (bench/aftermath.c, ULFM): a ring's speed after a kill
#     and after a revocation elsewhere, after/before.
# The table gives the medians over rounds and the ratio this/reference.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup versus
ref=$(cd "${REFERENCE_PREFIX:-}" 2>/dev/null && pwd) ||
    { echo "run-versus.sh: REFERENCE_PREFIX must name another FT-MPICH installation" >&2; exit 2; }
rounds=${BENCH_ROUNDS:-7}
mode=${VERSUS_COMM_MODE:-shrink}
iters=${AFTERMATH_ITERS:-10000}
for b in this ref; do
    p=$([ $b = this ] && echo "$prefix" || echo "$ref")
    bench_build pingpong "$p" "-$b"
    bench_build aftermath "$p" "-$b"
done

for r in $(seq "$rounds"); do
    for b in this ref; do
        p=$([ $b = this ] && echo "$prefix" || echo "$ref")
        out=$(FTMPI_COMM_MODE=$mode bench_mpiexec 120 "$p" 2 "$bin/pingpong-$b" 5 || true)
        grep -E '^(8|1024|65536|1048576) [0-9.]+ [0-9.]+$' <<<"$out" |
            awk -v b=$b '{ print b, "pingpong-" $1, $2 }' >>"$raw" || true
        for event in kill revoke; do
            out=$(FTMPI_RECOVERY_MODE=ulfm bench_mpiexec 120 "$p" 4 "$bin/aftermath-$b" "$event" \
                  "$iters" 5 || true)
            awk -v b=$b -v e=$event '$1 == "ratio" { print b, "aftermath-" e, $2 }' <<<"$out" >>"$raw"
        done
    done
done

{
    echo "this build ($prefix) against the reference ($ref): medians of $rounds alternating rounds"
    echo "(ping-pong: half round trip in us, FTMPI_COMM_MODE=$mode, 2 processes; aftermath: after/before,"
    echo "ULFM, 4 processes; $cores cores)"
    printf "%-18s %10s %10s %8s\n" case this reference ratio
    for c in pingpong-8 pingpong-1024 pingpong-65536 pingpong-1048576 aftermath-kill aftermath-revoke; do
        t=$(awk -v c=$c '$1 == "this" && $2 == c { print $3 }' "$raw" | median)
        f=$(awk -v c=$c '$1 == "ref" && $2 == c { print $3 }' "$raw" | median)
        printf "%-18s %10s %10s %8s\n" "$c" "$t" "$f" \
            "$(awk -v t="$t" -v f="$f" 'BEGIN { if (t > 0 && f > 0) printf "%.3f", t / f; else print "-" }')"
    done
} | tee -a "$table"
