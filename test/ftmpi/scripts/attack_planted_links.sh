#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A 4-process job of root's traces into a shared scratch folder
# (world-writable, not sticky: MPIR_CVAR_FTMPI_TRACE_FILE=FOLDER/traceN,
# so each process's MPI_Init writes FOLDER/traceN.HOST.PID, and the
# checkpoint library, libftmpi_ckpt, appends to the same name from its
# first checkpoint on). Another user of the node (nobody,
# test/ftmpi/attacker.c) points symbolic links at a file of root's, mode
# 0600, with known content:
#   planted  links at the names of the next pids (after
#            /proc/sys/kernel/ns_last_pid), kept a thousand ahead while the
#            job starts: MPI's trace and the library's meet them;
#   swapped  once the job runs, the traces MPI_Init made are replaced by
#            links (anyone may remove files in such a folder), before the
#            first checkpoint: the library's trace meets them.
# In SHRINK and in ULFM mode the linked file must be byte for byte as it
# was, and the job must not notice (every process correct, mpiexec exits 0,
# nothing declared failed: attack.bash). A run where a process's name was
# not a link in time is not a test, and fails as such.
# test-timeout: 400
set -u
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/attack.bash"
attack_setup
build attack_target || exit 1

shared=$tmp/shared
mkdir "$shared"
chmod 0777 "$shared"    # world-writable, no sticky bit
victim=$tmp/victim
printf 'a file of root'"'"'s, mode 0600, that nobody may change: %s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' ')" >"$tmp/victim.orig"
host=$(hostname)
n=0

for variant in "shrink planted" "ulfm planted" "shrink swapped" "ulfm swapped"; do
    set -- $variant
    mode=$1 how=$2
    n=$((n + 1))
    name=trace$n.$host
    cp "$tmp/victim.orig" "$victim"
    chmod 0600 "$victim"
    job_env="MPIR_CVAR_FTMPI_TRACE_FILE=$shared/trace$n"
    if [ $how = planted ]; then
        label="links planted ahead at the trace names, $mode"
        log=$adir/links.$n.log
        as_attacker links "$shared" "$name" 1000 "$victim" "$adir/stop.$n" "$log" \
            >"$adir/attacker.$n.out" 2>&1 &
        planter=$!
        for ((i = 0; i < 100; i++)); do
            grep -q '^ready' "$log" 2>/dev/null && break
            sleep 0.1
        done
        grep -q '^ready' "$log" 2>/dev/null || bad "$label: the attacker planted no links"
        start_job $mode "$bin/attack_target" 5 ckpt
        wait_ready && sleep 1
        finish_job
        touch "$adir/stop.$n"
        wait $planter
        planter=
    else
        label="links swapped in for the traces before the first checkpoint, $mode"
        go=$tmp/go.$n
        job_env="$job_env ATTACK_CKPT_GO_FILE=$go"
        start_job $mode "$bin/attack_target" 5 ckpt
        if wait_ready; then
            as_attacker swap "$shared" "$name" "$victim" >"$adir/attacker.$n.out" 2>&1
            touch "$go"
            sleep 1
        fi
        finish_job
    fi
    grep -v '^swapped' "$adir/attacker.$n.out" | sed 's/^/  /'
    # what the attacker can read in the folder afterwards
    as_attacker sh -c "cat '$shared'/* 2>/dev/null" >"$adir/read.$n" 2>&1
    judge "$adir/read.$n" "$adir/attacker.$n.out"

    # was every process's name a link when the library came to it?
    pids=$(sed -n 's/^attack_target: rank [0-9]* pid \([0-9]*\)$/\1/p' "$out")
    covered=0
    for p in $pids; do
        if [ $how = planted ]; then
            grep -qx "link $p" "$log" && ! grep -qx "late $p" "$log"
        else
            grep -qx "swapped $p" "$adir/attacker.$n.out"
        fi
        if [ $? = 0 ]; then
            covered=$((covered + 1))
        else
            bad "$label: no link was in place in time for pid $p: no test"
        fi
    done
    echo "  a link was in place at the trace names of $covered of the 4 processes ($(echo $pids))"
    if cmp -s "$victim" "$tmp/victim.orig"; then
        echo "$label: the linked file is untouched"
    else
        bad "$label: the linked file (root's, mode 0600) was written through a link: $(stat -c %s "$victim") bytes (was $(stat -c %s "$tmp/victim.orig")), $(grep -c '^[0-9.]* ckpt-' "$victim") line(s) of the checkpoint library; it begins:"
        head -n 3 "$victim" | cut -c1-100 | sed 's/^/      | /'
    fi
    find "$shared" -mindepth 1 -delete
done

attack_finish
