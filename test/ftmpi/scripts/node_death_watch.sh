#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A death on a process's own node is learned from the pidfd its heartbeat
# thread holds (MPIR_CVAR_CH4_FTDEV_WATCH_NODE_PEERS), not only from the
# launcher's notice: each death must appear in some survivor's trace file
# (MPIR_CVAR_FTMPI_TRACE_FILE: one file per process, so that no line is
# cut by another's output) as a failure "its process ended, seen from its
# node". Covered: a SIGKILL the launcher injects at a random moment (the
# program knows nothing of it), a SIGTERM, a rank's own _exit, and in
# REBUILD the death of a replacement (watched from the moment it joined).
# With every process watched, the launcher's list is not fetched. With the
# watch turned off, no survivor may name it, every fetch is made, and the
# deaths are still found. Every job runs under a time-out and leaves no
# process behind.
set -u
. "$(dirname "$0")/common.bash"
# UCX's keepalive (every 100 ms under ftdev) can see a dying process first:
# its address space goes a few ms before its pidfd says it ended, and a
# check that lands in between reports a reset connection (this happens in
# the SIGTERM case). The watch is what this test is about, so UCX checks
# rarely here; the deaths are still found with the watch off.
export UCX_KEEPALIVE_INTERVAL=30s
build inject_target || exit 1
build ft_notify || exit 1
build ft_rebuild || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

WATCHED="its process ended, seen from its node"

traces=$(mktemp -d "$bin/node_death_watch.XXXXXX")
trap 'rm -rf "$traces"' EXIT

# traced COMMAND...: runs COMMAND with a fresh trace file per process
traced() {
    rm -f "$traces"/t.*
    MPIR_CVAR_FTMPI_TRACE_FILE=$traces/t "$@"
}

# failures VICTIM: how each survivor learned of process VICTIM's death,
# one line per report, after the epoch the survivor was in (a REBUILD's
# second death of one process is in a later epoch)
failures() {
    local f
    for f in "$traces"/t.*; do
        awk -v v="$1" '$2 == "step" && $3 == "text=\"epoch:" && $5 == "begins\"" { ep = $4 }
            $2 == "failure" && $3 == "pid=" v { h = substr($0, index($0, "how=") + 5)
                print ep + 0, "(" substr(h, 1, length(h) - 1) ")" }' "$f"
    done
}

# skipped: how many processes did not fetch the launcher's list, since
# they watched every live process
skipped() {
    cat "$traces"/t.* | grep -c "the launcher's list is not fetched (every live process is watched"
}

# check LABEL VICTIM WANT_WATCHED DEATHS: DEATHS deaths of VICTIM
# (in as many epochs); WANT_WATCHED yes: each one seen by the watch of
# some survivor, no: none seen so
check() {
    local label=$1 victim=$2 want=$3 deaths=$4 lines epochs seen_in
    lines=$(failures "$victim")
    epochs=$(awk '{ print $1 }' <<<"$lines" | sort -u | grep -c .)
    seen_in=$(grep -F "($WATCHED)" <<<"$lines" | awk '{ print $1 }' | sort -u | grep -c .)
    if [ "$epochs" != "$deaths" ]; then
        bad "$label: process $victim reported failed in $epochs epochs, expected $deaths:"
        grep -hE "failure|epoch:" "$traces"/t.* | head -n 20
    elif [ "$want" = yes ] && [ "$seen_in" != "$deaths" ]; then
        bad "$label: $deaths deaths of process $victim, $seen_in seen by a node watcher; how the survivors learned (epoch, how):"
        sort <<<"$lines" | uniq -c
    elif [ "$want" = no ] && [ "$seen_in" != 0 ]; then
        bad "$label: the watch was off, yet a survivor names it:"
        sort <<<"$lines" | uniq -c
    else
        echo "$label: ok ($(sort <<<"$lines" | uniq -c | sed 's/^ *//' | paste -sd ';'))"
    fi
}

# status LABEL RC SURVIVORS OUTPUT: the job ended well
status() {
    local n
    n=$(grep -Ec "rank [0-9]+: No Errors" <<<"$4")
    if [ "$2" != 0 ] || [ "$n" != "$3" ]; then
        bad "$1: exit status $2, $n survivors reported (expected $3):"
        printf '%s\n' "$4" | head -n 20
        return 1
    fi
}

seed=${NODE_WATCH_SEED:-$RANDOM}
echo "seed $seed (NODE_WATCH_SEED=$seed replays the random kill)"

# ---- a SIGKILL from outside at a random moment (SHRINK) ----
for watch in 1 0; do
    out=$(FTMPI_COMM_MODE=shrink MPIR_CVAR_CH4_FTDEV_WATCH_NODE_PEERS=$watch \
          traced tagged_run 60 "$prefix/bin/mpiexec" -n 4 -inject-failure "random:1@0.2-1.0:$seed" \
          "$bin/inject_target" 1.5 2>&1)
    rc=$?
    victim=$(grep -o "injected SIGKILL into rank [0-9]*" <<<"$out" | awk '{print $5}')
    label="random SIGKILL, watch=$watch"
    if [ -z "$victim" ]; then
        bad "$label: no kill was injected (status $rc):"; printf '%s\n' "$out" | head
        continue
    fi
    status "$label" $rc 3 "$out" || continue
    check "$label (rank $victim)" "$victim" "$([ $watch = 1 ] && echo yes || echo no)" 1
    # the launcher's notice still comes; its list is fetched only when
    # some live process is not watched
    skipped=$(skipped)
    if [ $watch = 1 ] && [ "$skipped" = 0 ]; then
        bad "$label: every process was watched, yet no survivor skipped the launcher's list"
    elif [ $watch = 0 ] && [ "$skipped" != 0 ]; then
        bad "$label: with the watch off, $skipped survivors skipped the launcher's list"
    fi
done

# ---- SIGTERM from outside (BLANK) ----
out=$(FTMPI_COMM_MODE=blank traced tagged_run 60 "$prefix/bin/mpiexec" -n 3 \
      -inject-failure 2@0.4:TERM "$bin/inject_target" 1.2 2>&1)
rc=$?
status "SIGTERM" $rc 2 "$out" && check "SIGTERM (rank 2)" 2 yes 1

# ---- a rank's own _exit at a chosen point (SHRINK) ----
out=$(FTMPI_COMM_MODE=shrink traced tagged_run 60 "$prefix/bin/mpiexec" -n 4 \
      "$bin/ft_notify" 1 exit recv-live 2>&1)
rc=$?
status "_exit" $rc 3 "$out" && check "_exit (rank 1)" 1 yes 1

# ---- REBUILD: rank 1 dies, then its replacement dies too ----
out=$(FTMPI_COMM_MODE=rebuild traced tagged_run 90 "$prefix/bin/mpiexec" -n 3 \
      "$bin/ft_rebuild" 1:-:1 kill 2>&1)
rc=$?
status "REBUILD, the replacement killed" $rc 3 "$out" &&
    check "REBUILD, the replacement killed (rank 1 twice)" 1 yes 2

no_process_left || fail=1
exit $fail
