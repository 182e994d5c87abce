#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmarks (`make bench`): every part below in turn, then one
# summary and a plot of recovery time against process count.
#
#   FTDEV_PREFIX=install STOCK_PREFIX=install-stock-ucx bench/run-bench.sh
#
#   part       what                                              processes
#   pingpong   ping-pong latency/bandwidth, ftdev against stock  2
#   coll       allreduce and bcast: ATOMIC, NONATOMIC, stock     2, 4, ... <= cores
#   detect     SIGKILL -> blocked calls fail                     4, 8, ... <= BENCH_MAX_NP
#   nodeloss   a node killed, frozen, cut off -> survivors know  6 on 3 simulated nodes
#   recover    SIGKILL -> SHRINK/BLANK world usable; relaunch    2, 4, ... <= BENCH_MAX_NP
#   rebuild    SIGKILL -> REBUILD world whole; relaunch          2, 4, ... <= BENCH_MAX_NP
#   ulfm       agree, shrink, revoke; SIGKILL -> shrunk          2, 4, ... <= BENCH_MAX_NP
#   ckpt       libftmpi_ckpt checkpoint cost per MiB              2, 4
#   aftermath  a ring's speed before and after a kill or revoke     4 (ULFM)
#   scale      each protocol's messages and rounds, counted (no      2, 4, ... <= 128
#              timing): growth fitted, plotted                       (BENCH_SCALE_MAX_NP)
#   appcost    a kill at mid-run in three example applications:      2, 4
#              recovering in place against checkpoint/restart
#
# Settings: BENCH_PARTS (default all of the above, in that order),
# BENCH_MAX_NP (default the larger of 8 and the core count), BENCH_ROUNDS
# (alternating rounds of the comparisons, default 5), BENCH_TRIALS,
# BENCH_RUNS (kills per fault case, default 5). Collective comparisons
# never run more processes than cores (stock MPICH busy-polls, and an
# oversubscribed figure says little about either build); fault benchmarks
# go up to BENCH_MAX_NP, and rows above the core count say
# "oversubscribed". Results: bench/results/PART-STAMP.raw (raw data),
# .table (its table), summary-STAMP.txt (all tables), recovery-STAMP.png
# and .dat (the plot and its data); summary-latest.txt and
# recovery-latest.png point to the newest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-common.bash"
BENCH_STAMP=${BENCH_STAMP:-$(date +%Y%m%d-%H%M%S)}
export BENCH_STAMP
bench_setup bench
rm -f "$raw" "$table"
export BENCH_MAX_NP FTDEV_PREFIX=$prefix
parts=${BENCH_PARTS:-pingpong coll detect nodeloss recover rebuild ulfm ckpt aftermath scale appcost}
dir=${BENCH_RAW_DIR:-$here/results}
shown=${dir#$top/}
summary=$dir/summary-$BENCH_STAMP.txt
for p in $parts; do
    [ -x "$here/run-$p.sh" ] || { echo "run-bench.sh: no benchmark part '$p' (BENCH_PARTS)" >&2; exit 2; }
done

{
    echo "FT-MPICH benchmarks, $(date '+%Y-%m-%d %H:%M'), $(uname -n): $cores cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (above $cores, others were running too)"
    echo "collective comparisons at: $(coll_nps) processes (never more than the cores)"
    echo "fault benchmarks at: $(fault_nps 2) processes (BENCH_MAX_NP=$BENCH_MAX_NP; above $cores oversubscribed)"
} | tee "$summary"

start=$(date +%s)
for p in $parts; do
    t0=$(date +%s)
    echo
    echo "== $p"
    "$here/run-$p.sh" || echo "run-bench.sh: part $p failed (status $?)" | tee -a "$summary"
    { echo; cat "$dir/$p-$BENCH_STAMP.table"; echo "($p: $(( $(date +%s) - t0 )) s; raw data: $shown/$p-$BENCH_STAMP.raw)"; } >>"$summary"
done

# The curves side by side: one row per case, one column per process count.
curves=$(ls "$dir"/*-"$BENCH_STAMP".curve 2>/dev/null || true)
if [ -n "$curves" ]; then
    {
        echo
        echo "median ms by process count (from the tables above; * = oversubscribed here)"
        cat $curves | awk -v cores="$cores" '
            { v[$1 " " $2] = $3; if (!($1 in seen)) { seen[$1] = 1; names[++nn] = $1 } np[$2] = 1 }
            END {
                n = 0; for (k in np) o[++n] = k + 0
                for (i = 2; i <= n; i++) for (j = i; j > 1 && o[j-1] > o[j]; j--) { t = o[j]; o[j] = o[j-1]; o[j-1] = t }
                printf "%-26s", "case"; for (i = 1; i <= n; i++) printf " %9s", o[i] (o[i] > cores ? "*" : ""); printf "\n"
                for (q = 1; q <= nn; q++) {
                    printf "%-26s", names[q]
                    for (i = 1; i <= n; i++) { k = names[q] " " o[i]; printf " %9s", k in v ? sprintf("%.2f", v[k]) : "-" }
                    printf "\n"
                }
            }'
    } | tee -a "$summary"

    # the plot: recovery after a kill (ms) against the relaunch, and ULFM's
    # failure-free operations (converted to ms) on a second panel
    dat=$dir/recovery-$BENCH_STAMP.dat png=$dir/recovery-$BENCH_STAMP.png
    cat $curves | sort -k1,1 -k2,2n |
        awk 'BEGIN { prev = "" } $1 != prev { if (prev != "") printf "\n\n"; printf "# %s\n", $1; prev = $1 } { print $2, $3 }' >"$dat"
    if command -v gnuplot >/dev/null && grep -q '^# [^d]' "$dat"; then
        plots_fault= plots_ulfm= i=0
        for name in $(grep '^# ' "$dat" | cut -c3-); do
            title=${name//_/ }
            entry="'$dat' index $i using 1:2 with linespoints lw 2 title '$title'"
            case $name in
                detect_* | relaunch_\(*) ;;   # in the tables, not the plot
                ulfm-agree | ulfm-shrink | ulfm-revoke) plots_ulfm="${plots_ulfm:+$plots_ulfm, }$entry" ;;
                *) plots_fault="${plots_fault:+$plots_fault, }$entry" ;;
            esac
            i=$((i + 1))
        done
        {
            echo "set terminal pngcairo size 1400,560 noenhanced font ',10'"
            echo "set output '$png'"
            panels=$(( ${plots_fault:+1} + ${plots_ulfm:+1} + 0 ))
            echo "set multiplot layout 1,$panels title 'FT-MPICH, $(uname -n), $cores cores ($BENCH_STAMP): right of the dashed line oversubscribed'"
            echo "set logscale xy 2; set xlabel 'processes'; set grid; set key top left"
            echo "set arrow 1 from $cores, graph 0 to $cores, graph 1 nohead dashtype 2"
            echo "set ylabel 'ms (median)'"
            [ -z "$plots_fault" ] || echo "set title 'SIGKILL -> survivors usable again'; plot $plots_fault"
            [ -z "$plots_ulfm" ] || echo "set title 'ULFM, no failure: one call'; plot $plots_ulfm"
            echo "unset multiplot"
        } | gnuplot 2>"$dat.log" && rm -f "$dat.log" && ln -sf "$(basename "$png")" "$dir/recovery-latest.png" &&
            echo "plot: $shown/$(basename "$png")" | tee -a "$summary" ||
            echo "plot failed (gnuplot: $(head -n 2 "$dat.log" | tr '\n' ' '))" | tee -a "$summary"
    elif ! command -v gnuplot >/dev/null; then
        echo "no plot: gnuplot is not installed (apt-get install gnuplot-nox)" | tee -a "$summary"
    fi
fi

echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); total $(( $(date +%s) - start )) s" | tee -a "$summary"
ln -sf "$(basename "$summary")" "$dir/summary-latest.txt"
echo "summary: $shown/$(basename "$summary")"
