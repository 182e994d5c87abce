#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH benchmark: cost of a diskless checkpoint with libftmpi_ckpt per
# MiB of state per process, at 2 processes and at 4 (oversubscribed on 2
# cores), SHRINK mode (ABORT mode would do, no failure happens). See
# bench/ckpt.c for what is timed. CKPT_MAX_MIB (default 64): the largest
# state per process. A part of bench/run-bench.sh (BENCH_PARTS=ckpt).
set -euo pipefail
. "$(dirname "$0")/bench-common.bash"
bench_setup ckpt
"$prefix/bin/mpicc" -O2 -o "$bin/ckpt" "$here/ckpt.c" -lftmpi_ckpt ||
    { echo "bench: ckpt.c does not compile with $prefix/bin/mpicc -lftmpi_ckpt" >&2; exit 2; }
for n in 2 4; do
    echo "checkpoint cost, $n processes$(np_label "$n"), medians of 15 (slowest process each time):" |
        tee -a "$table"
    out=$(FTMPI_COMM_MODE=shrink bench_mpiexec 300 "$prefix" "$n" "$bin/ckpt" "${CKPT_MAX_MIB:-64}" ||
          echo "(run failed: status $?)")
    sed "s/^/$n /" <<<"$out" >>"$raw"
    tee -a "$table" <<<"$out"
done
