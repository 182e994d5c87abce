#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# examples/cg_rebuild.c (REBUILD, AUTO recovery, error handler that
# longjmps, libftmpi_ckpt): with processes killed by the launcher
# (-inject-failure) the solution is the failure-free run's to the last bit
# (the digest of x), and the replacements restored from checkpoints.
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
no_process_left || fail=1
exit $fail
