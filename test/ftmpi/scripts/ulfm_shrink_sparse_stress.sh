#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# ULFM: a late notice of a death never fails an operation on the
# communicator MPIX_Comm_shrink returned. SHRINK_SPARSE_RUNS (20) runs of
# ulfm_shrink_sparse on 4 processes, the victim alternating between rank
# 1 (_exit) and rank 0 (SIGKILL): revoke, shrink, free, then 20 rounds of
# a sparse all-to-all (MPI_Issend, MPI_Iprobe(MPI_ANY_SOURCE), MPI_Recv,
# MPI_Testall, MPI_Ibarrier with MPI_Test) on the shrunk communicator.
# Every survivor must finish with no error and mpiexec exit 0.
# test-timeout: 300
set -u
. "$(dirname "$0")/common.bash"
build ulfm_shrink_sparse || exit 1
runs=${SHRINK_SPARSE_RUNS:-20}
bad=0
for run in $(seq 1 "$runs"); do
    if [ $((run % 2)) = 1 ]; then args="1 exit"; else args="0 kill"; fi
    out=$(FTMPI_RECOVERY_MODE=ulfm tagged_run 30 "$prefix/bin/mpiexec" -n 4 \
        "$bin/ulfm_shrink_sparse" $args 2>&1)
    rc=$?
    if [ $rc != 0 ] || [ "$(grep -c ": No Errors" <<<"$out")" != 3 ]; then
        echo "run $run (victim, death: $args): exit status $rc:"
        grep -v "^ *$" <<<"$out" | head -n 8
        bad=$((bad + 1))
    fi
done
echo "$((runs - bad)) of $runs runs without a spurious failure"
no_process_left || bad=$((bad + 1))
[ $bad = 0 ]
