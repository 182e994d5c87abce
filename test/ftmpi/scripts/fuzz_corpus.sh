#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# The fuzz targets' corpora (test/fuzz/corpus), replayed through each
# decoder of outside input with the address and undefined-behaviour
# sanitizers (gcc): heartbeat datagrams, control messages, REBUILD's
# messages, the layers' channel messages, mpiexec's checks of its
# proxies' commands, the names dynamic processes exchange, checkpoint
# states a peer sends. A finding aborts the target and fails the test.
# `make fuzz` runs the same targets under libFuzzer.
set -u
. "$(dirname "$0")/common.bash"
top=$(cd "$src/../.." && pwd)
[ -f "$top/build/mpich-4.0.2/src/pm/hydra/pm/pmiserv/ft_checks.c" ] ||
    { echo "no prepared MPICH tree (build/mpich-4.0.2): run make first"; exit 77; }
out=$(make -s -C "$top/test/fuzz" replay 2>&1)
rc=$?
echo "$out" | tail -n 8
if [ $rc != 0 ]; then
    echo "FAIL: a fuzz target found a fault in its corpus (or did not build)"
    exit 1
fi
# every target ran its whole corpus
for t in heartbeat control rebuild channels hydra spawn ckpt; do
    n=$(ls "$top/test/fuzz/corpus/$t" | wc -l)
    grep -q "^replay_$t: $n inputs" <<<"$out" ||
        { echo "FAIL: replay_$t did not run its $n inputs"; exit 1; }
done
echo "ok"
