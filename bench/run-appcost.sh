#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: what a failure costs an application, end to end,
# against what a user does without a fault-tolerant MPI.
#
# For examples/cg_rebuild (REBUILD, AUTO), examples/mc_blank (BLANK, AUTO,
# ATOMIC) and examples/farm_shrink (SHRINK, MANUAL), at 2 and 4 processes
# (BENCH_APPCOST_NPS), with the same work each time:
#   (a) the failure-free run;
#   (b) rank 1 killed (SIGKILL, mpiexec -inject-failure) at half of (a)'s
#       median, the job recovering in place;
#   (c) checkpoint/restart: the same program writing its checkpoints to
#       files on local disk at the same interval (RESTART_FILE, see
#       examples/restart_file.h), run in the default mode, killed at the
#       same moment so that the whole job ends, then started again from its
#       files: the time of both jobs together.
# Every run's answer is checked (cg_rebuild: the failure-free digest;
# the others: their own "check passed"); a run whose answer is wrong
# counts as FAILED. Medians of BENCH_RUNS runs (default 5) of each, wall
# clock of mpiexec. Results: bench/results/appcost-STAMP.{raw,table,png}.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup appcost
dir=${BENCH_RAW_DIR:-$here/results}
ex=$top/examples
for p in cg_rebuild mc_blank farm_shrink; do
    "$prefix/bin/mpicc" -O2 -o "$bin/$p" "$ex/$p.c" -lftmpi_ckpt -lm ||
        { echo "run-appcost.sh: examples/$p.c does not compile" >&2; exit 2; }
done
runs=${BENCH_RUNS:-5}
nps=${BENCH_APPCOST_NPS:-2 4}
files=$(mktemp -d)
trap 'rm -rf "$files"' EXIT

# per example: the FT-MPI modes of (b), the arguments, the checkpoint
# interval of (c) in the application's steps
setup() {
    case $1 in
        cg_rebuild) modes="FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=auto" plain=""
            args="160 400 20 5000" every=20 ;;
        mc_blank) modes="FTMPI_COMM_MODE=blank FTMPI_RECOVERY_MODE=auto FTMPI_COLL_MODE=atomic"
            plain="FTMPI_COLL_MODE=atomic" args="100 200000 20000" every=5 ;;
        farm_shrink) modes="FTMPI_COMM_MODE=shrink" plain="" args="100 40" every=5 ;;
    esac
}

# timed PROGRAM NP ENV [INJECT]: "SECONDS VERDICT STATUS DIGEST" of one job;
# VERDICT is right when the answer checks out (cg_rebuild: the digest is
# $want, or any digest while $want is empty)
timed() {
    local prog=$1 n=$2 envs=$3 inject=${4:-} t0 t1 out rc=0 digest verdict=wrong
    t0=$(date +%s.%N)
    out=$(export $envs
        bench_mpiexec 120 "$prefix" "$n" ${inject:+-inject-failure "$inject"} "$bin/$prog" $args) || rc=$?
    t1=$(date +%s.%N)
    digest=$(grep -o 'solution digest [0-9a-f]*' <<<"$out" | awk '{print $3}' || true)
    case $prog in
        cg_rebuild) [ -z "$digest" ] || { [ -n "$want" ] && [ "$digest" != "$want" ]; } || verdict=right ;;
        *) ! grep -q "$prog: check passed" <<<"$out" || verdict=right ;;
    esac
    awk -v a="$t0" -v b="$t1" -v v="$verdict" -v rc="$rc" -v d="${digest:--}" \
        'BEGIN { printf "%.3f %s %s %s\n", b - a, v, rc, d }'
}

{
    echo "A failure's cost to an application: wall-clock seconds of mpiexec, median of $runs runs"
    echo "(a) failure-free; (b) rank 1 SIGKILLed at half of (a), recovering in place;"
    echo "(c) checkpoint/restart from files: killed at the same moment, the job ends, started again"
    printf "%-12s %5s %8s %8s %8s %8s %8s %9s\n" example procs "(a) s" "(b) s" "(c) s" "(b)/(a)" "(c)/(a)" "kill at s"
} | tee -a "$table"
plotdat=$dir/appcost-$stamp.dat
: >"$plotdat"
for prog in cg_rebuild mc_blank farm_shrink; do
    setup $prog
    for n in $nps; do
        want=
        a= b= c= bad=
        for i in $(seq "$runs"); do
            set -- $(timed $prog "$n" "$modes")
            echo "$prog $n a $*" >>"$raw"
            [ "$2" = right ] && [ "$3" = 0 ] && a="$a $1" || bad="$bad a"
            [ -n "$want" ] || [ "$4" = - ] || [ "$3" != 0 ] || want=$4
        done
        ma=$(printf '%s\n' $a | median)
        [ "$ma" != - ] || { echo "$prog $n: no failure-free run succeeded" | tee -a "$table"; continue; }
        kill_at=$(awk -v a="$ma" 'BEGIN { printf "%.2f", a / 2 }')
        for i in $(seq "$runs"); do
            set -- $(timed $prog "$n" "$modes" "1@$kill_at")
            echo "$prog $n b $*" >>"$raw"
            [ "$2" = right ] && [ "$3" = 0 ] && b="$b $1" || bad="$bad b"
            rm -f "$files"/ck.*
            set -- $(timed $prog "$n" "$plain RESTART_FILE=$files/ck RESTART_FILE_EVERY=$every" "1@$kill_at")
            local_first=$1 first_rc=$3
            set -- $(timed $prog "$n" "$plain RESTART_FILE=$files/ck RESTART_FILE_EVERY=$every")
            echo "$prog $n c $local_first $first_rc $*" >>"$raw"
            if [ "$2" = right ] && [ "$3" = 0 ] && [ "$first_rc" != 0 ]; then
                c="$c $(awk -v x="$local_first" -v y="$1" 'BEGIN { print x + y }')"
            else
                bad="$bad c"
            fi
        done
        mb=$(printf '%s\n' $b | median)
        mc=$(printf '%s\n' $c | median)
        ratio() { [ "$1" = - ] && echo - || awk -v x="$1" -v y="$ma" 'BEGIN { printf "%.2f", x / y }'; }
        printf "%-12s %5d %8.2f %8s %8s %8s %8s %9s%s\n" $prog "$n" "$ma" "$(fmt_ms "$mb")" "$(fmt_ms "$mc")" "$(ratio "$mb")" \
            "$(ratio "$mc")" "$kill_at" "${bad:+ (failed runs:$bad)}" | tee -a "$table"
        echo "\"$prog $n\" $(ratio "$mb") $(ratio "$mc")" >>"$plotdat"
    done
done
echo "(c) writes its checkpoints with fsync to $(df -P "$files" | awk 'NR == 2 { print $1 }'); (b) and (a) use the example's own in-memory checkpoints, if any" | tee -a "$table"

png=$dir/appcost-$stamp.png
if command -v gnuplot >/dev/null && [ -s "$plotdat" ]; then
    gnuplot 2>/dev/null <<EOF2 && echo "plot: ${png#$top/}" | tee -a "$table" || echo "no plot (gnuplot failed)" | tee -a "$table"
set terminal pngcairo size 1000,500 noenhanced font ',10'
set output '$png'
set title 'Time to solution after one SIGKILL at mid-run, relative to the failure-free run'
set style data histograms; set style histogram clustered gap 1; set style fill solid 0.8 border -1
set ylabel 'time / failure-free time'; set yrange [0:*]; set grid ytics; set key top left
set xtics rotate by -20
plot '$plotdat' using 2:xtic(1) title '(b) FT-MPICH, recovering in place', '' using 3 title '(c) checkpoint/restart from files'
EOF2
fi
