#!/usr/bin/env bash
# FT-MPICH benchmark: time from a SIGKILL until every survivor is back in
# NO_FAILURES with a usable world (SHRINK and BLANK, MANUAL and AUTO, at 4
# and 8 processes, RECOVER_RUNS kills each, default 20, the victim
# rotating), against what a user can do today: let the job die (ABORT mode,
# the default) and start it again with mpiexec until every process is back
# past MPI_Init and a barrier.
set -euo pipefail
. "$(dirname "$0")/fault-common.bash"
fault_bench_setup recover
runs=${RECOVER_RUNS:-20}
now() { date +%s.%N; }

stats_header
for n in 4 8; do
    for comm in shrink blank; do
        for rec in manual auto; do
            for i in $(seq "$runs"); do
                victim=$(( (i * 3 + 1) % n ))
                out=$(FTMPI_COMM_MODE=$comm FTMPI_RECOVERY_MODE=$rec timeout -k 5 60 \
                    "$prefix/bin/mpiexec" -n "$n" "$bin/recover" "$victim" 2>/dev/null </dev/null || true)
                # the slowest survivor sets the time; a broken world fails the run
                awk -v c="$comm/$rec" -v n="$n" '/^KILL/ { k = $2 } /^RECOVERED/ { if ($3 > t) t = $3; if ($4 != "ok") bad = 1 }
                    END { if (k && t && !bad) printf "%s %d %.3f\n", c, n, (t - k) * 1000; else printf "%s %d FAILED\n", c, n }' \
                    <<<"$out" | tee -a "$raw"
            done | awk '$3 != "FAILED" { print $3 }' | stats "$comm $rec, $n processes"
        done
    done
    # today's alternative: the job ends (ABORT), then a new one gets back to
    # the same point
    for i in $(seq "$runs"); do
        out=$(timeout -k 5 60 "$prefix/bin/mpiexec" -n "$n" "$bin/recover" 1 2>/dev/null </dev/null || true)
        ended=$(now)
        kill=$(awk '/^KILL/ { print $2 }' <<<"$out")
        start=$(now)
        out=$(timeout -k 5 60 "$prefix/bin/mpiexec" -n "$n" "$bin/recover" -1 2>/dev/null </dev/null)
        ready=$(awk '/^READY/ { if ($3 > t) t = $3 } END { print t }' <<<"$out")
        awk -v k="$kill" -v e="$ended" -v s="$start" -v r="$ready" -v n="$n" \
            'BEGIN { printf "relaunch %d %.3f\n", n, ((e - k) + (r - s)) * 1000 }' | tee -a "$raw"
    done | awk '{ print $3 }' | stats "relaunch (abort + mpiexec), $n"
done
echo "(raw: bench/results/$(basename "$raw"))"
