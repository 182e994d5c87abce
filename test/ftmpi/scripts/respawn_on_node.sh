#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# ULFM's respawn across simulated nodes (test/cluster/cluster.sh): a job
# of 4 processes, 1 on the first of 2 nodes and 3 on the second; the last
# rank (on the second node) dies by SIGKILL, then by _exit; the survivors revoke, shrink, and spawn
# one process with the info "host" naming the dead process's node, then
# merge it in (test/ftmpi/dynamic.c, respawn ... samenode). The
# replacement must run on that node and take part in a ring and an
# allreduce over the whole (left to itself, Hydra would place it on the
# first node, the less loaded one); every process must report no errors, and no
# process may be left on any node. Exits 77 where namespaces cannot be
# made.
# test-timeout: 240
set -u
. "$(dirname "$0")/common.bash"
"$prefix/bin/mpicc" -O2 -o "$bin/dynamic" "$src/dynamic.c" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cluster_up rs$$ 2
first=${hosts%%,*}
second=${hosts#*,}

for how in kill exit; do
    out=$(mktemp "$bin/respawn_on_node.XXXXXX")
    FTMPI_RECOVERY_MODE=ulfm FTMPI_TEST_JOB_TAG=respawn-$$ timeout -k 5 90 "$cluster" run \
        "$prefix/bin/mpiexec" -hosts "$first:1,$second:3" -n 4 "$bin/dynamic" respawn $how samenode \
        >"$out" 2>&1 </dev/null
    rc=$?
    n=$(grep -Ec "rank [0-9]+: No Errors" "$out")
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        bad "$how: timed out (output: $out)"
    elif grep -q "Found" "$out" || [ "$n" != 4 ]; then
        bad "$how: $n of 4 processes reported no errors (output: $out)"
    elif ! grep -q "^replacement runs on $second, the node of the dead process" "$out"; then
        bad "$how: the replacement did not say it runs on $second (output: $out)"
    else
        echo "$how: ok (the replacement ran on $second)"
    fi
    for node in 1 2; do
        left=$(left_on_node $node 30)
        [ -z "$left" ] || bad "$how: processes left on node $node: $left"
    done
    [ -z "$(reap_tagged respawn-$$)" ] || bad "$how: processes of the job left on this machine"
done
exit $fail
