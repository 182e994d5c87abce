#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A node lost under Slurm over simulated nodes, salloc + mpiexec and srun
# (test/slurm/slurm-node-loss.sh); skipped (status 77) where Slurm or the
# namespaces cannot run.
# test-timeout: 480
exec "$(dirname "$0")/../../slurm/slurm-node-loss.sh"
