#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: how the fault-tolerance protocols grow, from counts.
# Messages per process and rounds (the longest chain of a protocol's
# messages) are exact at any process count, oversubscribed or not, so this
# part runs up to BENCH_SCALE_MAX_NP processes (default 128, fewer when the
# machine's memory cannot hold them) on any machine. No timing is used.
#
# Jobs (bench/scale.c), each at n = 2, 4, ..., max, with no victim, one,
# and two killed together (ranks n/2 and n-1):
#   recover   FTMPI_COMM_MODE=shrink, MANUAL: the failure notices (notify)
#             and the FT-MPI recovery agreement (recovery)
#   rebuild   FTMPI_COMM_MODE=rebuild: the REBUILD protocol, replacements
#             included, until their first application message
#   commit    FTMPI_COLL_MODE=atomic: one allreduce's commit
#   revoke    ULFM: MPIX_Comm_revoke by rank 0 (revoke), then
#             MPIX_Comm_agree (agree)
#   shrink    ULFM: MPIX_Comm_shrink (its agreement)
#   idle      2 s without failure: the heartbeat in steady state (datagrams
#             per process per second)
#   recover@0, rebuild@0, commit@0, shrink@0
#             the same with rank 0 killed alone: the root of the trees,
#             and the decider of a ULFM agreement
# BENCH_SCALE_JOBS="revoke shrink@0" runs only the jobs named. Each
# process writes its counters to its trace file at MPI_Finalize
# (MPIR_CVAR_FTMPI_TRACE_FILE); victims write none. Results: bench/results/scale-STAMP.{raw,table,png}.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup scale
dir=${BENCH_RAW_DIR:-$here/results}
bench_build scale

known_jobs="idle recover rebuild commit revoke shrink recover@0 rebuild@0 commit@0 shrink@0"
jobs=${BENCH_SCALE_JOBS:-$known_jobs}
for job in $jobs; do
    case " $known_jobs " in *" $job "*) ;;
        *) echo "run-scale.sh: BENCH_SCALE_JOBS names an unknown job '$job' (known: $known_jobs)" >&2; exit 2 ;;
    esac
done
max=${BENCH_SCALE_MAX_NP:-128}
case $max in '' | *[!0-9]*) echo "run-scale.sh: BENCH_SCALE_MAX_NP=$max is not a process count" >&2; exit 2 ;; esac
# about 60 MiB per process (UCX, the shared-memory segments): keep to half
# of what is free
fits=$(awk '/MemAvailable/ { print int($2 / 1024 / 2 / 60) }' /proc/meminfo)
dropped=
nps=
n=2
while [ $n -le "$max" ]; do
    if [ $n -le "$fits" ]; then nps="$nps $n"; else dropped="$dropped $n"; fi
    n=$((n * 2))
done
{
    echo "Fault-tolerance protocols by process count: messages and rounds, counted (no timing)"
    echo "machine: $(uname -n), $cores cores; process counts:$nps (above $cores oversubscribed; counts are exact regardless)"
    [ -z "$dropped" ] || echo "left out:$dropped processes (memory: $(awk '/MemAvailable/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) available)"
} | tee -a "$table"

traces=$(mktemp -d)
trap 'rm -rf "$traces"' EXIT

# one_job JOB N VICTIMS... : appends "JOB N F RANK proto sent sentB recv recvB rounds"
# lines and "JOB N F elapsed RANK SECONDS" lines to $raw
one_job() {
    local job=$1 n=$2 scenario env
    shift 2
    local f=$#
    case ${job%@0} in
        idle) scenario=idle env="FTMPI_COMM_MODE=shrink" ;;
        recover) scenario=recover env="FTMPI_COMM_MODE=shrink" ;;
        rebuild) scenario=recover env="FTMPI_COMM_MODE=rebuild" ;;
        commit) scenario=commit env="FTMPI_COMM_MODE=shrink FTMPI_COLL_MODE=atomic" ;;
        revoke) scenario=revoke env="FTMPI_RECOVERY_MODE=ulfm" ;;
        shrink) scenario=shrink env="FTMPI_RECOVERY_MODE=ulfm" ;;
    esac
    rm -f "$traces"/t.*
    local out rc=0 limit=$((30 + n))
    out=$(export $env MPIR_CVAR_FTMPI_TRACE_FILE="$traces/t"
        bench_mpiexec "$limit" "$prefix" "$n" "$bin/scale" "$scenario" "$@") || rc=$?
    local done_ok
    done_ok=$(grep -c '^DONE .* ok ' <<<"$out" || true)
    # with victims mpiexec's status may name the dead (ULFM); a time-out
    # or a missing or broken survivor is a failure
    if [ "$rc" = 124 ] || [ "$rc" = 137 ] || { [ "$f" = 0 ] && [ "$rc" != 0 ]; } ||
        [ "$done_ok" -lt $((n - f)) ] || grep -q '^DONE .* broken' <<<"$out"; then
        echo "$job $n $f FAILED status=$rc ok=$done_ok" >>"$raw"
        echo "  $job n=$n f=$f: FAILED (status $rc, $done_ok of $((n - f)) processes ok)"
        failures=$((failures + 1))
        return 0
    fi
    awk -v key="$job $n $f" '$1 == "DONE" { print key, "elapsed", $2, $4 }' <<<"$out" >>"$raw"
    for t in "$traces"/t.*; do
        sed -n 's/.*text="counters \([a-z]*\): sent \([0-9]*\) msgs \([0-9]*\) B, received \([0-9]*\) msgs \([0-9]*\) B, rounds \([0-9]*\)".*/\1 \2 \3 \4 \5 \6/p' "$t" |
            awk -v key="$job $n $f" -v p="${t##*.}" '{ print key, p, $0 }'
    done >>"$raw"
}

# a process count at which two jobs failed is given up (each failure may
# have waited out its time limit)
for n in $nps; do
    t0=$(date +%s)
    failures=0
    for job in $jobs; do
        for victims in none "$((n / 2))" "$((n / 2)) $((n - 1))"; do
            case $job:$victims in idle:none | commit:none | revoke:none | shrink:none) ;; idle:* | *:none) continue ;; esac
            case $job in *@0) [ "$victims" = "$((n / 2))" ] || continue; victims=0 ;; esac
            [ "$victims" = none ] && victims=
            [ "$(wc -w <<<"$victims")" -lt 2 ] || [ "$n" -ge 4 ] || continue
            [ $failures -lt 2 ] || { echo "$job $n $(wc -w <<<"$victims") FAILED given-up" >>"$raw"; continue; }
            one_job $job "$n" $victims
        done
    done
    echo "  n=$n: $(( $(date +%s) - t0 )) s, $failures failed job(s)"
done

python3 "$here/scale-table.py" "$raw" "$dir/scale-$stamp.png" "$cores" | tee -a "$table"
