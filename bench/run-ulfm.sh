#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: ULFM (FTMPI_RECOVERY_MODE=ulfm) at 2, 4, 8, ...
# processes up to BENCH_MAX_NP:
#   - failure-free latency of MPIX_Comm_agree (against MPI_Allreduce of one
#     int, its floor), of MPIX_Comm_shrink, and the time from
#     MPIX_Comm_revoke until every other process is out of a receive on the
#     revoked communicator (bench/ulfm.c latency; median of BENCH_TRIALS
#     trials, default 7);
#   - after a SIGKILL: until the last survivor's MPI_Recv failed with
#     MPIX_ERR_PROC_FAILED, and until the last survivor has a working
#     communicator from MPIX_Comm_shrink (BENCH_RUNS kills, default 5).
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup ulfm
bench_build ulfm
trials=${BENCH_TRIALS:-7}

{
    echo "ULFM, no failure: microseconds per call (median of $trials trials, slowest rank)"
    printf "%6s %12s %12s %12s %12s\n" procs agree allreduce shrink revoke
} | tee -a "$table"
for n in $(fault_nps 2); do
    out=$(FTMPI_RECOVERY_MODE=ulfm bench_mpiexec 120 "$prefix" "$n" "$bin/ulfm" latency "$trials" || true)
    sed "s/^/$n /" <<<"$out" | grep -E "^$n (agree|allreduce|shrink|revoke|#)" >>"$raw" || true
    awk -v n="$n" -v label="$(np_label "$n")" '
        /^(agree|allreduce|shrink|revoke) / { v[$1] = $2 }
        /^#/ { note = note " " $0 }
        function f(x) { return x == "" ? "-" : sprintf("%.1f", x) }
        END { printf "%6d %12s %12s %12s %12s%s%s\n", n, f(v["agree"]), f(v["allreduce"]),
                  f(v["shrink"]), f(v["revoke"]), label, note == "" && length(v) ? "" : note == "" ? " (run failed)" : note }' \
        <<<"$out" | tee -a "$table"
    for op in agree shrink revoke; do
        v=$(awk -v op=$op '$1 == op { print $2 / 1000 }' <<<"$out")
        [ -z "$v" ] || echo "ulfm-$op $n $v" >>"$curve"
    done
done

# one kill gives both figures: the shrink time is the case's, the
# detection time goes to $raw.detect
one_run() {
    local victim=$(( ($1 * 3 + 1) % n )) out
    out=$(FTMPI_RECOVERY_MODE=ulfm bench_mpiexec 30 "$prefix" "$n" "$bin/ulfm" kill "$victim" || true)
    awk -v n="$n" -v side="$raw.detect" '/^KILL/ { k = $2 }
        /^DETECTED/ { d++; if ($3 > td) td = $3; if ($4 != "ok") bad = 1 }
        /^SHRUNK/ { s++; if ($3 > ts) ts = $3; if ($4 != "ok") bad = 1 }
        END { if (k && d == n - 1 && s == n - 1 && !bad) {
                  printf "%.3f\n", (td - k) * 1000 >>side
                  printf "%.3f\n", (ts - k) * 1000 } else print "FAILED" }' <<<"$out"
}

case_extra() { printf ' %14s' "$(fmt_ms "$(median <"$raw.detect")")"; }
echo | tee -a "$table"
echo "ULFM after a SIGKILL: until the last survivor's MPI_Recv failed (detected) and until" \
    "the last one has its MPIX_Comm_shrink communicator (shrunk), ms" | tee -a "$table"
printf "%-26s %5s %7s %10s %10s %14s\n" case procs "ok/runs" "median ms" "max ms" "detected (med)" | tee -a "$table"
for n in $(fault_nps 2); do
    : >"$raw.detect"
    run_case "ulfm kill->shrunk" "$n"
    sed "s/^/ulfm_kill->detected $n /" "$raw.detect" >>"$raw"
done
rm -f "$raw.detect"
