#!/usr/bin/env bash
# FT-MPICH benchmark: REBUILD. Time from a SIGKILL until the replacement and
# every survivor are back in NO_FAILURES with a world of the original size
# (MANUAL and AUTO, at 4 and 8 processes, REBUILD_RUNS kills each, default
# 20, the victim rotating), against a full relaunch of the same application
# with a set-up phase of REBUILD_SETUP seconds (default 2): the job ends
# (ABORT, the default mode) and a new mpiexec gets back past the set-up.
set -euo pipefail
. "$(dirname "$0")/fault-common.bash"
fault_bench_setup rebuild
runs=${REBUILD_RUNS:-20}
setup=${REBUILD_SETUP:-2}
stats_width=36
now() { date +%s.%N; }

stats_header
for n in 4 8; do
    for rec in manual auto; do
        for i in $(seq "$runs"); do
            victim=$(( (i * 3 + 1) % n ))
            out=$(FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=$rec timeout -k 5 60 \
                "$prefix/bin/mpiexec" -n "$n" "$bin/rebuild" "$victim" 2>/dev/null </dev/null || true)
            # the last of the n processes back sets the time; a run where
            # fewer than n came back, or the world is broken, fails
            awk -v c="rebuild/$rec" -v n="$n" '/^KILL/ { k = $2 } /^RECOVERED/ { c2++; if ($3 > t) t = $3; if ($4 != "ok") bad = 1 }
                END { if (k && t && c2 == n && !bad) printf "%s %d %.3f\n", c, n, (t - k) * 1000; else printf "%s %d FAILED\n", c, n }' \
                <<<"$out" | tee -a "$raw"
        done | awk '$3 != "FAILED" { print $3 }' | stats "rebuild $rec, $n processes"
        failed=$(grep -c "^rebuild/$rec $n FAILED" "$raw" || true)
        [ "$failed" = 0 ] || echo "  ($failed of $runs runs failed)"
    done
    for i in $(seq "$runs"); do
        out=$(timeout -k 5 60 "$prefix/bin/mpiexec" -n "$n" "$bin/rebuild" 1 "$setup" 2>/dev/null </dev/null || true)
        ended=$(now)
        kill=$(awk '/^KILL/ { print $2 }' <<<"$out")
        start=$(now)
        out=$(timeout -k 5 60 "$prefix/bin/mpiexec" -n "$n" "$bin/rebuild" -1 "$setup" 2>/dev/null </dev/null)
        ready=$(awk '/^READY/ { if ($3 > t) t = $3 } END { print t }' <<<"$out")
        awk -v k="$kill" -v e="$ended" -v s="$start" -v r="$ready" -v n="$n" \
            'BEGIN { printf "relaunch %d %.3f\n", n, ((e - k) + (r - s)) * 1000 }' | tee -a "$raw"
    done | awk '{ print $3 }' | stats "relaunch (${setup} s set-up), $n"
done
echo "(raw: bench/results/$(basename "$raw"))"
