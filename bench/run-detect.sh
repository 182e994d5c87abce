#!/usr/bin/env bash
# FT-MPICH benchmark: time from a rank's SIGKILL until each survivor's
# blocked call returns MPI_ERR_OTHER, for a survivor receiving from the
# victim, receiving from a live rank, and inside a collective; at 4 and 8
# processes; DETECT_RUNS kills per case (default 20), the victim rotating
# over the ranks. Prints median and max over all survivors of all runs.
set -euo pipefail
. "$(dirname "$0")/fault-common.bash"
fault_bench_setup detect
runs=${DETECT_RUNS:-20}

printf '%-12s %5s %6s %10s %10s %8s\n' scenario procs kills "median ms" "max ms" "wrong"
for n in 4 8; do
    for scenario in recv-victim recv-live coll; do
        : >"$raw.case"
        for i in $(seq "$runs"); do
            victim=$(( (i * 7 + 1) % n ))
            out=$(FTMPI_COMM_MODE=shrink timeout -k 5 60 "$prefix/bin/mpiexec" -n "$n" \
                "$bin/detect" "$scenario" "$victim" 2>/dev/null </dev/null || true)
            kill=$(awk '/^KILL/ { print $2 }' <<<"$out")
            awk -v k="$kill" -v s="$scenario" -v n="$n" '/^DETECT/ { printf "%s %d %.3f %s\n", s, n, ($3 - k) * 1000, $4 }' \
                <<<"$out" | tee -a "$raw" >>"$raw.case"
        done
        sort -n -k3 "$raw.case" | awk -v s="$scenario" -v n="$n" -v runs="$runs" '
            { v[NR] = $3; if ($4 != "ok") bad++ }
            END { if (NR == 0) { printf "%-12s %5d %6d %10s %10s %8s\n", s, n, runs, "-", "-", "no data"; exit }
                  m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                  printf "%-12s %5d %6d %10.1f %10.1f %8d\n", s, n, runs, m, v[NR], bad }'
    done
done
rm -f "$raw.case"
echo "(raw: bench/results/$(basename "$raw"); one line per survivor: scenario procs ms result)"
