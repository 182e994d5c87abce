# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Sourced by every benchmark script (bench/run-*.sh). Provides:
#
#   bench_setup NAME      $here, $top, $prefix (FTDEV_PREFIX, default ./install),
#                         $bin, $cores, $raw (BENCH_RAW_DIR/NAME-STAMP.raw) and
#                         $table (the same .table), $stamp
#   bench_build PROGRAM [PREFIX [SUFFIX]]   compiles bench/PROGRAM.c (unless
#                         the program is newer than its source and library)
#   fault_nps             the process counts of the fault benchmarks: 2, 4, 8,
#                         ... up to BENCH_MAX_NP (default: the larger of 8 and
#                         the core count)
#   coll_nps              the same for collective comparisons, never above
#                         the core count: a build that busy-polls (stock
#                         MPICH) says nothing useful when oversubscribed
#   np_label N            "" or " (oversubscribed)" for N processes here
#   bench_mpiexec LIMIT PREFIX NP ARGS...   mpiexec under `timeout` with a job
#                         tag; afterwards any process of the job still alive
#                         is killed and reported (a leak is a bug); the
#                         launch command comes from bench_launcher, which a
#                         benchmark may redefine
#   run_case NAME NP      the runs of one fault case, its table row and its
#                         point on the plot ($curve)
#   median                the median of the numbers on stdin
#
# Every mpiexec runs under `timeout`. A benchmark never waits out a time-out
# it could have predicted: a case that failed twice in a row (a time-out, a
# crash, a broken world) is not run again in the same invocation, and the
# table says so.

bench_setup() {
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    top=$(cd "$here/.." && pwd)
    prefix=$(cd "${FTDEV_PREFIX:-$top/install}" 2>/dev/null && pwd) ||
        { echo "$1: no FT-MPICH installation at ${FTDEV_PREFIX:-$top/install} (run make)" >&2; exit 2; }
    bin=$here/bin
    cores=$(nproc 2>/dev/null || echo 1)
    stamp=${BENCH_STAMP:-$(date +%Y%m%d-%H%M%S)}
    local dir=${BENCH_RAW_DIR:-$here/results}
    mkdir -p "$bin" "$dir"
    raw=$dir/$1-$stamp.raw
    table=$dir/$1-$stamp.table
    curve=$dir/$1-$stamp.curve
    : >"$raw"
    : >"$table"
    BENCH_MAX_NP=${BENCH_MAX_NP:-$((cores > 8 ? cores : 8))}
    case $BENCH_MAX_NP in
        '' | *[!0-9]*) echo "$1: BENCH_MAX_NP=$BENCH_MAX_NP is not a process count" >&2; exit 2 ;;
    esac
    [ "$BENCH_MAX_NP" -ge 2 ] || { echo "$1: BENCH_MAX_NP must be at least 2" >&2; exit 2; }
}

bench_build() { # program [prefix [suffix]]
    local p=${2:-$prefix} exe=$bin/$1${3:-}
    # a program newer than its source and than the library it links is
    # kept, so that benchmarks also run where no compiler is installed
    if [ -x "$exe" ] && [ "$exe" -nt "$here/$1.c" ] && [ "$exe" -nt "$here/bench_util.h" ] &&
        [ "$exe" -nt "$p/lib/libmpi.so" ]; then
        return 0
    fi
    "$p/bin/mpicc" -O2 -o "$exe" "$here/$1.c" ||
        { echo "bench: $1.c does not compile with $p/bin/mpicc" >&2; exit 2; }
}

# Powers of two from `from` to BENCH_MAX_NP, and BENCH_MAX_NP itself.
nps_up_to() { # from max
    local n=$1 out=
    while [ "$n" -le "$2" ]; do
        out="$out $n"
        n=$((n * 2))
    done
    [ $((n / 2)) = "$2" ] || [ "$2" -lt "$1" ] || out="$out $2"
    echo $out
}

fault_nps() { nps_up_to "${1:-2}" "$BENCH_MAX_NP"; }

coll_nps() {
    local max=$((BENCH_MAX_NP < cores ? BENCH_MAX_NP : cores))
    [ "$max" -ge 2 ] || { echo ""; return; }
    nps_up_to 2 "$max"
}

np_label() { [ "$1" -le "$cores" ] || echo " (oversubscribed)"; }

# A job's processes all inherit BENCH_JOB_TAG; those still alive a moment
# after mpiexec returned are reported on stderr and killed.
left_behind() { # tag
    local pids= waited=0 p
    while :; do
        pids=$(grep -lsa "BENCH_JOB_TAG=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')
        pids=${pids% }
        { [ -z "$pids" ] || [ $waited -ge 30 ]; } && break
        sleep 0.1
        waited=$((waited + 1))
    done
    [ -n "$pids" ] || return 0
    echo "bench: processes left behind by a job: $(for p in $pids; do printf '%s(%s) ' "$p" "$(cat /proc/$p/comm 2>/dev/null)"; done)" >&2
    kill -9 $pids 2>/dev/null || true
}

# Sets launch_cmd to the command that starts a job of NP processes of
# PREFIX's build; a benchmark that launches otherwise (bench/run-slurm.sh)
# redefines it.
bench_launcher() { # prefix np
    launch_cmd=("$1/bin/mpiexec" -n "$2")
}

# bench_mpiexec LIMIT PREFIX NP PROGRAM ARGS...: stdout of the job on
# stdout, stderr discarded; the exit status of timeout (124/137 on a
# time-out). The environment of the caller (FTMPI_* variables) goes through.
bench_mpiexec() {
    local limit=$1 p=$2 n=$3 tag=bench-$$-$RANDOM$RANDOM rc=0 launch_cmd
    shift 3
    bench_launcher "$p" "$n"
    BENCH_JOB_TAG=$tag timeout -k 5 "$limit" "${launch_cmd[@]}" "$@" </dev/null 2>/dev/null || rc=$?
    left_behind "$tag"
    return $rc
}

# run_case NAME NP: runs `one_run RUN_NUMBER` (defined by the caller) up
# to BENCH_RUNS times (default 5); one_run prints the milliseconds of that
# run, or FAILED. Appends "NAME NP MS|FAILED" lines to $raw, prints the
# table row "NAME NP ok/runs median max" (with a note when the case was
# given up after two failures in a row, or NP oversubscribes this machine)
# and appends "NAME NP MEDIAN" to $curve for the plot. A caller's
# case_extra function, if defined, prints more columns for the row.
run_case() { # name np
    local name=$1 n=$2 i v ok=0 tried=0 streak=0 vals= note=
    for i in $(seq "${BENCH_RUNS:-5}"); do
        v=$(one_run "$i" || true)
        tried=$((tried + 1))
        [ -n "$v" ] || v=FAILED
        echo "$name $n $v" >>"$raw"
        if [ "$v" = FAILED ]; then
            streak=$((streak + 1))
            if [ $streak -ge 2 ] && [ "$i" -lt "${BENCH_RUNS:-5}" ]; then
                note=" (gave up after 2 failures in a row)"
                break
            fi
        else
            streak=0
            ok=$((ok + 1))
            vals="$vals $v"
        fi
    done
    local med max
    med=$(printf '%s\n' $vals | median)
    max=$(printf '%s\n' $vals | sort -g | tail -n 1)
    [ -n "$max" ] || max=-
    local extra=
    ! declare -F case_extra >/dev/null || extra=$(case_extra)
    printf "%-26s %5d %7s %10s %10s%s%s%s\n" "$name" "$n" "$ok/$tried" "$(fmt_ms "$med")" "$(fmt_ms "$max")" \
        "$extra" "$(np_label "$n")" "$note" | tee -a "$table"
    [ "$med" = - ] || echo "${name// /_} $n $med" >>"$curve"
}

fmt_ms() { [ "$1" = - ] && echo - || printf '%.2f' "$1"; }

fault_table_header() {
    printf "%-26s %5s %7s %10s %10s\n" case procs "ok/runs" "median ms" "max ms" | tee -a "$table"
}

# Median of the numbers on stdin ("-" if none).
median() {
    sort -g | awk 'NF { v[++n] = $1 } END { if (n == 0) { print "-"; exit }
        print n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
