#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Fault tolerance under Slurm, both ways of launching, on a Slurm of its
# own (test/slurm/run-slurm-tests.sh); skipped (status 77) where Slurm
# cannot run.
exec "$(dirname "$0")/../../slurm/run-slurm-tests.sh"
