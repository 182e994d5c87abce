#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# examples/cg_rebuild.c (REBUILD, AUTO recovery, error handler that
# longjmps, libftmpi_ckpt): with processes killed by the launcher
# (-inject-failure) the solution is the failure-free run's to the last bit
# (the digest of x), and the replacements restored from checkpoints. With
# RESTART_FILE (examples/restart_file.h) in the default mode, a kill ends
# the job and a new job goes on from the files to the same digest.
set -u
. "$(dirname "$0")/common.bash"
build cg_rebuild || exit 1
fail=0
args=(160 300 20 5000)   # 160x160 grid, 300 iterations (>= 1.5 s), checkpoint every 20
cg() { # inject-spec -> output
    FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=auto tagged_run 120 "$prefix/bin/mpiexec" -n 4 \
        ${1:+-inject-failure "$1"} "$bin/cg_rebuild" "${args[@]}" 2>&1
}
digest() { grep -o "solution digest [0-9a-f]*" <<<"$1" | awk '{print $3}'; }

ref=$(cg "")
rc=$?
want=$(digest "$ref")
if [ $rc != 0 ] || [ -z "$want" ] || ! grep -q "recoveries 0" <<<"$ref"; then
    echo "FAIL: failure-free run: status $rc"; echo "$ref" | tail -n 5; exit 1
fi
echo "failure-free: digest $want, $(grep -o 'residual norm .*' <<<"$ref")"
# two deaths of processes with different buddies (0 holds 3's copy, 1
# holds 0's): their states survive however the second death falls in the
# first recovery
for spec in 2@0.9 0@0.6,2@1.1; do
    out=$(cg "$spec")
    rc=$?
    kills=$(grep -c "^mpiexec: injected SIGKILL" <<<"$out")
    want_kills=$(tr ',' '\n' <<<"$spec" | wc -l)
    got=$(digest "$out")
    if [ $rc != 0 ] || [ "$kills" != "$want_kills" ] || ! grep -q "recoveries [1-9]" <<<"$out"; then
        echo "FAIL: kills $spec: status $rc, $kills kills:"; echo "$out" | tail -n 12; fail=1
    elif [ "$got" != "$want" ]; then
        echo "FAIL: kills $spec: digest $got, failure-free $want"; fail=1
    else
        echo "kills $spec: $kills kill(s), $(grep -o 'recoveries .*' <<<"$out"), digest $got (= failure-free)"
    fi
done
# the same solver without a fault-tolerant MPI: checkpoints in files, the
# job ends with the failure (default mode), a new job goes on from them
files=$(mktemp -d)
out=$(RESTART_FILE=$files/ck tagged_run 120 "$prefix/bin/mpiexec" -n 4 -inject-failure 2@0.9 \
    "$bin/cg_rebuild" "${args[@]}" 2>&1)
rc=$?
if [ $rc = 0 ] || ! ls "$files"/ck.3.* >/dev/null 2>&1; then
    echo "FAIL: default mode with checkpoint files: status $rc, files: $(ls "$files" | tr '\n' ' ')"; fail=1
else
    out=$(RESTART_FILE=$files/ck tagged_run 120 "$prefix/bin/mpiexec" -n 4 "$bin/cg_rebuild" \
        "${args[@]}" 2>&1)
    rc=$?
    from=$(grep -o "restarted from the files at iteration [0-9]*" <<<"$out" | awk '{print $NF}')
    if [ $rc != 0 ] || [ -z "$from" ] || [ "$from" = 0 ] || [ "$(digest "$out")" != "$want" ]; then
        echo "FAIL: restart from the files: status $rc, from iteration ${from:-none}, digest $(digest "$out")"
        echo "$out" | tail -n 5; fail=1
    else
        echo "checkpoint/restart through files: the job ended, a new one went on from iteration $from, digest $(digest "$out") (= failure-free)"
    fi
fi
rm -rf "$files"
no_process_left || fail=1
exit $fail
