#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH under Slurm: stands up a private single-node Slurm
# (slurm-cluster.bash), runs the fault-tolerance tests of
# test/slurm/testlist.slurm and testlist.srun through the two ways of
# launching under Slurm, and stops every daemon it started, also when a
# test fails or the script is interrupted.
#
#   MPI_PREFIX=install test/slurm/run-slurm-tests.sh
#
#   slurm:  salloc -n N mpiexec -bootstrap slurm -n N ./app  (Hydra's proxies
#           are job steps; REBUILD's replacements get steps of their own)
#   srun:   srun --mpi=pmi2 -n N ./app  (Slurm's PMI serves MPICH's client)
#
# Also checks that a plain mpiexec inside an allocation chooses Slurm by
# itself, that srun --mpi=pmix is refused in one line per process, and (run-ftmpi-tests.sh, after each test) that no process of the
# job, Slurm job, step or slurmstepd outlives it. Exit status:
# 0 passed, 1 failed, 77 Slurm cannot run here (the last line says why).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
prefix=$(cd "${MPI_PREFIX:-$top/install}" 2>/dev/null && pwd) ||
    { echo "run-slurm-tests.sh: no install prefix ${MPI_PREFIX:-$top/install} (build first: make)" >&2; exit 2; }
runner=$top/test/ftmpi/run-ftmpi-tests.sh
export PATH=$prefix/bin:$PATH
. "$here/slurm-cluster.bash"

status=0
trap slurm_test_finish EXIT
trap 'echo "run-slurm-tests.sh: interrupted"; exit 1' INT TERM HUP

if ! slurm_cluster_start 8; then
    echo "SKIP: no Slurm to test with: $slurm_skip_reason"
    exit 77
fi
echo "Slurm $(sinfo -V | awk '{ print $2 }') running in $slurm_cluster_dir"

# Inside an allocation a plain mpiexec starts its proxies as a job step.
step=$(cd /tmp && timeout -k 5 60 salloc -Q -n 2 mpiexec -n 2 printenv SLURM_STEP_ID 2>&1 </dev/null)
if [ "$step" = "$(printf '0\n0')" ]; then
    echo "ok    mpiexec inside an allocation launches through Slurm"
else
    echo "FAIL  mpiexec inside an allocation did not launch through Slurm: $(echo "$step" | head -n 3 | tr '\n' ' ')"
    status=1
fi

# Under a PMIx launcher, which FT-MPICH cannot use, every process refuses
# at once with one line saying what works (srun --mpi=pmi2).
probe=$slurm_cluster_dir/abi_probe
if ! "$prefix/bin/mpicc" -o "$probe" "$top/test/ftmpi/abi_probe.c"; then
    echo "FAIL  test/ftmpi/abi_probe.c does not compile"
    status=1
else
    out=$(cd /tmp && timeout -k 5 60 srun -Q --mpi=pmix -n 2 "$probe" 2>&1 </dev/null)
    rc=$?
    refusals=$(grep -c '^FT-MPICH: started by a PMIx launcher (PMIX_[A-Z]* is set).*srun --mpi=pmi2' <<<"$out")
    if [ $rc != 0 ] && [ $rc != 124 ] && [ "$refusals" = 2 ] && ! grep -q '^library:' <<<"$out"; then
        echo "ok    srun --mpi=pmix: each process refuses at once, naming srun --mpi=pmi2"
    else
        echo "FAIL  srun --mpi=pmix: exit $rc, $refusals refusals: $(echo "$out" | head -n 4 | tr '\n' ' ')"
        status=1
    fi
fi

for launcher in slurm srun; do
    MPI_PREFIX=$prefix FTMPI_SLURM_CLUSTER_DIR=$slurm_cluster_dir \
        "$runner" --testlist "$here/testlist.$launcher" --launcher $launcher || status=1
done
exit $status
