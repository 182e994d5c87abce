#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark against its fault-tolerant peer and stock MPICH
# (`make bench-peer`): the same benchmark sources, compiled by each
# library's own mpicc, at 2 processes (BENCH_PEER_NP) on this machine:
#   ftdev  FT-MPICH (FTDEV_PREFIX, default ./install); FTMPI_RECOVERY_MODE=ulfm
#          for the programs that use ULFM, the default (ABORT) mode for
#          ping-pong and the collectives (BENCH_FTDEV_MPI_MODE=ulfm runs
#          those in ULFM too)
#   peer   Open MPI 5 with ULFM (PEER_PREFIX, default ./install-peer, make peer):
#          mpirun --allow-run-as-root --oversubscribe -np N --with-ft ulfm
#          --mca async_mpi_finalize 1 --mca pml ob1 --mca btl $PEER_BTL
#          (default self,sm,tcp: shared memory between the processes of one
#          launch; a spawned process is reached over TCP, sm,self cannot
#          reach it; PEER_BTL=self,tcp measures TCP alone)
#   stock  MPICH 4.0.2 as normally built: ch4:ofi with its POSIX
#          shared-memory module (STOCK_PREFIX, default ./install-stock,
#          make stock); no ULFM in ch4 (its MPIX_Comm_agree aborts), so only
#          ping-pong, the collectives and the Jacobi without failure
# Rows:
#   ping-pong 8 B - 4 MiB, half round trip (bench/pingpong.c);
#   barrier; bcast, allreduce, alltoall 8 B - 1 MiB (bench/coll.c; a call
#     timed between barriers, barriers back to back);
#   MPIX_Comm_agree without failure (bench/ulfm.c agree);
#   after a SIGKILL (bench/ulfm.c after): until the survivors' blocked
#     receive failed, the first MPIX_Comm_agree over the communicator that
#     holds the dead process (failure acknowledged) and the next ones back
#     to back, MPIX_Comm_revoke + MPIX_Comm_shrink;
#   ULFM respawn (bench/respawn.c): revoke, shrink, MPI_Comm_spawn the
#     missing process, MPI_Intercomm_merge, from the failed receive on;
#   the ULFM Jacobi of examples/ulfm_jacobi.c, time per
#     iteration, without failure and with one kill at mid-run (recovery and
#     iterations done again included; JACOBI_ITERS, default 20000).
# Each round (BENCH_ROUNDS, default 5) runs every row's program once per
# library, the libraries alternating program by program, their order
# rotating from round to round, so that drift of this shared machine hits
# them alike. The table gives the medians over rounds and the ratios
# FT-MPICH/peer and FT-MPICH/stock (below 1: FT-MPICH is faster); a cell
# whose runs failed says "-" with a footnote, "(k/n)" where only k of n
# gave a figure. Every mpiexec/mpirun runs under `timeout`, and any
# process a job leaves behind is reported and killed (bench-common.bash).
# Results: bench/results/peer-STAMP.raw (ROUND LIBRARY CASE VALUE|FAILED)
# and .table.
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup peer
np=${BENCH_PEER_NP:-2}
rounds=${BENCH_ROUNDS:-5}
trials=${BENCH_TRIALS:-5}
budget=${BENCH_COLL_BUDGET:-60}
jacobi_iters=${JACOBI_ITERS:-20000}
peer_btl=${PEER_BTL:-self,sm,tcp}
ftdev_mpi_mode=${BENCH_FTDEV_MPI_MODE:-abort}
case $ftdev_mpi_mode in abort | ulfm) ;; *)
    echo "run-peer.sh: BENCH_FTDEV_MPI_MODE must be abort or ulfm" >&2; exit 2 ;;
esac
case $np in '' | *[!0-9]* | [01]) echo "run-peer.sh: BENCH_PEER_NP must be 2 or more" >&2; exit 2 ;; esac

declare -A pfx missing
libs=ftdev
pfx[ftdev]=$prefix
peer=$(cd "${PEER_PREFIX:-$top/install-peer}" 2>/dev/null && pwd) || peer=
stock=$(cd "${STOCK_PREFIX:-$top/install-stock}" 2>/dev/null && pwd) || stock=
if [ -n "$peer" ] && [ -x "$peer/bin/mpirun" ]; then
    pfx[peer]=$peer libs="$libs peer"
else
    missing[peer]="no Open MPI at ${PEER_PREFIX:-$top/install-peer} (make peer)"
fi
if [ -n "$stock" ] && [ -x "$stock/bin/mpiexec" ]; then
    pfx[stock]=$stock libs="$libs stock"
else
    missing[stock]="no stock MPICH at ${STOCK_PREFIX:-$top/install-stock} (make stock)"
fi

# Each library's binaries: bin/PROGRAM-LIBRARY. A program that does not
# compile leaves its rows "-" for that library.
declare -A built
for lib in $libs; do
    for prog in pingpong coll ulfm respawn; do
        if (bench_build "$prog" "${pfx[$lib]}" "-$lib") 2>>"$raw.compile"; then
            built[$prog $lib]=1
        fi
    done
    if "${pfx[$lib]}/bin/mpicc" -O2 -o "$bin/jacobi-$lib" "$top/examples/ulfm_jacobi.c" \
        2>>"$raw.compile"; then
        built[jacobi $lib]=1
    fi
done

bench_launcher() { # prefix np
    if [ -n "$peer" ] && [ "$1" = "$peer" ]; then
        launch_cmd=("$1/bin/mpirun" --allow-run-as-root --oversubscribe -np "$2" --with-ft ulfm
            --mca async_mpi_finalize 1 --mca pml ob1 --mca btl "$peer_btl"
            -x BENCH_JOB_TAG -x LD_LIBRARY_PATH)
    else
        launch_cmd=("$1/bin/mpiexec" -n "$2")
    fi
}

# run LIBRARY MODE LIMIT PROGRAM ARGS...: the job's stdout. MODE ulfm
# asks FT-MPICH for ULFM (Open MPI always runs with --with-ft ulfm, stock
# MPICH has nothing to ask for); each program runs on its own library.
run() {
    local lib=$1 mode=$2 limit=$3 prog=$4
    shift 4
    (
        unset FTMPI_TEST_POINT FTMPI_COMM_MODE FTMPI_RECOVERY_MODE FTMPI_COLL_MODE FTMPI_MSG_MODE \
            MPIR_CVAR_ENABLE_FT
        [ "$lib" != ftdev ] || [ "$mode" != ulfm ] || export FTMPI_RECOVERY_MODE=ulfm
        export LD_LIBRARY_PATH=${pfx[$lib]}/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
        bench_mpiexec "$limit" "${pfx[$lib]}" "$np" "$bin/$prog-$lib" "$@"
    ) || true
}

# jacobi_time PROCESSES CASE: "CASE us-per-iteration" from ulfm_jacobi's
# output on stdin, when PROCESSES finished with the right result
jacobi_time() {
    awk -v n="$1" -v c="$2" '
        / process\(es\) finished .* is identical to / { ok = ($2 == n) }
        / us per iteration$/ { t = $2 }
        END { if (ok && t != "") print c, t }'
}

# record LIBRARY CASES...: "CASE VALUE" lines on stdin become raw lines of
# this round; a case without a value is FAILED.
record() {
    local lib=$1 got c v
    shift
    got=$(cat)
    for c in "$@"; do
        v=$(awk -v c="$c" '$1 == c { print $2; exit }' <<<"$got")
        echo "$r $lib $c ${v:-FAILED}" >>"$raw"
    done
}

pp_sizes="8 64 1024 8192 65536 1048576 4194304"
coll_sizes="8 64 512 4096 32768 262144 1048576"
pp_cases=$(for s in $pp_sizes; do printf 'pp-%s ' "$s"; done)
coll_cases="barrier-0 $(for c in bcast allreduce alltoall; do for s in $coll_sizes; do
    printf '%s-%s ' "$c" "$s"; done; done)"
after_cases="detect agree1 agree revshrink"
victim=$((np - 1))
half=$((jacobi_iters / 2))

# part LIBRARY PART: one run of a part's program, recorded
part() {
    local lib=$1 p=$2 out
    case $p in
        pingpong)
            [ -n "${built[pingpong $lib]:-}" ] || return 0
            out=$(run "$lib" "$ftdev_mpi_mode" 180 pingpong "$trials")
            awk 'NF == 3 && $1 ~ /^[0-9]+$/ { print "pp-" $1, $2 }' <<<"$out" | record "$lib" $pp_cases ;;
        coll)
            [ -n "${built[coll $lib]:-}" ] || return 0
            out=$(run "$lib" "$ftdev_mpi_mode" $((budget + 60)) coll "$trials" "$budget" \
                barrier,bcast,allreduce,alltoall)
            awk 'NF == 4 && $2 ~ /^[0-9]+$/ { print $1 "-" $2, $3 }' <<<"$out" | record "$lib" $coll_cases ;;
        agree)
            [ -n "${built[ulfm $lib]:-}" ] && [ "$lib" != stock ] || return 0
            out=$(run "$lib" ulfm 60 ulfm agree "$trials")
            awk '$1 == "agree" { print "agree-ff", $2 }' <<<"$out" | record "$lib" agree-ff ;;
        after)
            [ -n "${built[ulfm $lib]:-}" ] && [ "$lib" != stock ] || return 0
            out=$(run "$lib" ulfm 60 ulfm after "$victim")
            awk -v n="$np" '
                /^KILL/ { k = $2 }
                /^DETECTED/ { d++; if ($3 > td) td = $3; if ($4 != "ok" && $4 != "revoked") bad = 1 }
                /^AGREE1/ { if ($4 == "ok") { a1++; if ($3 > ta1) ta1 = $3 } }
                /^AGREE / { a++; if ($3 > ta) ta = $3 }
                /^REVSHRINK/ { if ($4 == "ok") { rs++; if ($3 > trs) trs = $3 } }
                END { s = n - 1
                      if (k && d == s && !bad) printf "detect %.3f\n", (td - k) * 1000
                      if (a1 == s) printf "agree1 %.3f\n", ta1
                      if (a == s) printf "agree %.3f\n", ta
                      if (rs == s) printf "revshrink %.3f\n", trs / 1000 }' <<<"$out" |
                record "$lib" $after_cases ;;
        respawn)
            [ -n "${built[respawn $lib]:-}" ] && [ "$lib" != stock ] || return 0
            out=$(run "$lib" ulfm 90 respawn "$victim")
            awk -v n="$np" '
                /^RESPAWN/ { if ($7 == "ok") { ok++; if ($6 > t) t = $6; if ($4 > sp) sp = $4 } }
                END { if (ok == n - 1) printf "respawn %.3f\nrespawn-spawn %.3f\n", t / 1000, sp / 1000 }' \
                <<<"$out" | record "$lib" respawn respawn-spawn ;;
        jacobi)
            [ -n "${built[jacobi $lib]:-}" ] || return 0
            out=$(ULFM_JACOBI_ITERATIONS=$jacobi_iters run "$lib" ulfm 120 jacobi)
            jacobi_time "$np" jacobi-ff <<<"$out" | record "$lib" jacobi-ff ;;
        jacobi-kill)
            [ -n "${built[jacobi $lib]:-}" ] && [ "$lib" != stock ] || return 0
            out=$(ULFM_JACOBI_ITERATIONS=$jacobi_iters run "$lib" ulfm 120 jacobi "$victim" "$half")
            jacobi_time $((np - 1)) jacobi-kill <<<"$out" | record "$lib" jacobi-kill ;;
    esac
}

parts="pingpong coll agree after respawn jacobi jacobi-kill"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
set -- $libs
nlibs=$#
for r in $(seq "$rounds"); do
    # this round's order: the libraries rotated by the round number
    order=$(for i in $(seq 0 $((nlibs - 1))); do
        k=$(( (i + r - 1) % nlibs + 1 )); echo "${!k}"; done | tr '\n' ' ')
    echo "round $r of $rounds: $order" >&2
    for p in $parts; do
        for lib in $order; do
            part "$lib" "$p"
        done
    done
done

# ---- the table -------------------------------------------------------------

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
    commit="$commit (with uncommitted changes in the working tree)"
ucx=$(dpkg-query -W -f='${Version}' libucx0 2>/dev/null || echo "?")
version_of() { # library
    case $1 in
        ftdev | stock) "${pfx[$1]}/bin/mpichversion" 2>/dev/null |
            awk '/^MPICH Version:/ { print "MPICH " $3; exit }' ;;
        peer) "${pfx[peer]}/bin/mpirun" --version 2>/dev/null | awk 'NR == 1 { print "Open MPI " $NF }' ;;
    esac
}
transport_of() { # library
    case $1 in
        ftdev)
            # ftdev leaves one of UCX's two shared-memory transports out
            # unless UCX_TLS is set (src/mpid/ftdev/ftdev_ucx_settings.c); which
            # one, the library's own string says
            local tls left
            left=$(grep -a -o -m 1 -E '\^(sysv|posix)' "${pfx[ftdev]}/lib/libmpi.so" 2>/dev/null | head -n 1 || true)
            tls=${left:+$left, the default of ftdev}
            echo "ch4:ftdev over UCX $ucx, within the node UCX's shared memory" \
                "(UCX_TLS=${UCX_TLS:-${tls:-as UCX chooses}})" ;;
        peer)
            case ,$peer_btl, in
                *,sm,*) echo "PML ob1, BTLs $peer_btl: shared memory (sm) between the processes of one launch" \
                    "$(case ,$peer_btl, in *,tcp,*) echo "(TCP to a spawned process)" ;; esac)" ;;
                *) echo "PML ob1, BTLs $peer_btl" ;;
            esac ;;
        stock)
            # MPICH 4.0.2 adds its POSIX shared-memory module to ch4:ofi
            # unless told otherwise, and none to ch4:ucx (its default,
            # auto, means none there)
            local info device shm
            info=$("${pfx[stock]}/bin/mpichversion" 2>/dev/null || true)
            device=$(awk '/^MPICH Device:/ { print $3; exit }' <<<"$info")
            shm=$(sed -n 's/.*--with-ch4-shmmods=\([^ ]*\).*/\1/p' <<<"$info")
            case $device:${shm:-auto} in
                ch4:ucx:none | ch4:ucx:no | ch4:ucx:auto | *:none | *:no)
                    echo "$device, no ch4 shared-memory module (--with-ch4-shmmods=${shm:-auto}):" \
                        "the netmod carries messages within the node" ;;
                *:auto) echo "$device, its default POSIX shared-memory module within the node" ;;
                *) echo "$device, ch4 shared-memory modules $shm within the node" ;;
            esac ;;
    esac
}

# footnote TEXT: sets mark to its mark, numbered in order of first use
declare -a note_text
footnote() {
    local i
    for i in "${!note_text[@]}"; do
        [ "${note_text[$i]}" != "$1" ] || { mark="[$((i + 1))]"; return; }
    done
    note_text+=("$1")
    mark="[${#note_text[@]}]"
}

# why_none LIBRARY PROGRAM TRIED: the footnote of a cell without a figure
why_none() {
    local lib=$1 prog=$2 tried=$3
    if [ -n "${missing[$lib]:-}" ]; then
        footnote "${missing[$lib]}"
    elif [ -z "${built[$prog $lib]:-}" ]; then
        footnote "bench/$prog.c does not compile with that library's mpicc ($(basename "$raw").compile)"
    elif [ "$tried" = 0 ] && [ "$lib" = stock ]; then
        footnote "not run: stock MPICH 4.0.2 has no ULFM in ch4 (its MPIX_Comm_agree aborts: ch4's MPID_Comm_failure_get_acked is an assertion)"
    else
        footnote "every run failed: a time-out, a crash or a wrong result ($(basename "$raw"))"
    fi
}

rows="$(for s in $pp_sizes; do echo "pp-$s|ping-pong $s|us|pingpong"; done)
barrier-0|barrier|us|coll
$(for c in bcast allreduce alltoall; do for s in $coll_sizes; do echo "$c-$s|$c $s|us|coll"; done; done)
agree-ff|MPIX_Comm_agree, no failure|us|ulfm
detect|kill -> first error|ms|ulfm
agree1|agree after a kill, first call|us|ulfm
agree|agree after a kill, per call|us|ulfm
revshrink|revoke + shrink after a kill|ms|ulfm
respawn|respawn: revoke+shrink+spawn+merge|ms|respawn
respawn-spawn|  of which MPI_Comm_spawn|ms|respawn
jacobi-ff|Jacobi per iteration, no failure|us|jacobi
jacobi-kill|Jacobi per iteration, one kill|us|jacobi"

size_label() { # bytes
    local b=$1
    if [ "$b" -ge 1048576 ]; then echo "$((b / 1048576)) MiB"
    elif [ "$b" -ge 1024 ]; then echo "$((b / 1024)) KiB"
    else echo "$b B"; fi
}
fmt() { awk -v v="$1" 'BEGIN { if (v < 10) printf "%.3f", v; else if (v < 1000) printf "%.1f", v; else printf "%.0f", v }'; }

{
    echo "FT-MPICH against Open MPI with ULFM and stock MPICH: commit $commit, $(date '+%Y-%m-%d %H:%M %Z'),"
    echo "$(uname -n): $cores cores ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $np processes;"
    echo "medians of $rounds alternating rounds; load average at the start $load_start, at the end" \
        "$(cut -d' ' -f1-3 /proc/loadavg) (above $cores: others were running too)"
    for lib in ftdev peer stock; do
        name=$(case $lib in ftdev) echo FT-MPICH ;; peer) echo "peer" ;; stock) echo stock ;; esac)
        if [ -n "${missing[$lib]:-}" ]; then
            printf '  %-8s %s\n' "$name" "${missing[$lib]}"
        else
            printf '  %-8s %s (%s): %s\n' "$name" "$(version_of "$lib")" "${pfx[$lib]#$top/}" "$(transport_of "$lib")"
        fi
    done
    echo "  FT-MPICH ran ping-pong and the collectives in $( [ "$ftdev_mpi_mode" = ulfm ] && echo "ULFM" ||
        echo "its default (ABORT) mode"), the rest with FTMPI_RECOVERY_MODE=ulfm; the peer ran everything"
    echo "  with --with-ft ulfm; kills: rank $victim of $np, SIGKILL by itself"
    printf '%-38s %4s %14s %14s %14s %8s %8s\n' case unit FT-MPICH peer stock ft/peer ft/stock
    while IFS='|' read -r c label unit prog; do
        case $c in
            pp-* | bcast-* | allreduce-* | alltoall-*) label="${label% *} $(size_label "${c##*-}")" ;;
        esac
        line=$(printf '%-38s %4s' "$label" "$unit")
        declare -A med=()
        for lib in ftdev peer stock; do
            vals=$(awk -v l="$lib" -v c="$c" '$2 == l && $3 == c && $4 != "FAILED" { print $4 }' "$raw")
            tried=$(awk -v l="$lib" -v c="$c" '$2 == l && $3 == c' "$raw" | wc -l)
            ok=$(printf '%s' "$vals" | grep -c . || true)
            if [ "$ok" -gt 0 ]; then
                med[$lib]=$(printf '%s\n' $vals | median)
                txt=$(fmt "${med[$lib]}")
                [ "$ok" = "$tried" ] || txt="$txt ($ok/$tried)"
            else
                med[$lib]=-
                why_none "$lib" "$prog" "$tried"
                txt="- $mark"
            fi
            line="$line $(printf '%14s' "$txt")"
        done
        for other in peer stock; do
            line="$line $(awk -v a="${med[ftdev]}" -v b="${med[$other]}" \
                'BEGIN { if (a != "-" && b != "-" && a > 0 && b > 0) printf "%8.2f", a / b; else printf "%8s", "-" }')"
        done
        echo "$line"
    done <<<"$rows"
    for i in "${!note_text[@]}"; do
        echo "[$((i + 1))] ${note_text[$i]}"
    done
    echo "raw data: ${raw#$top/}"
} | tee -a "$table"
