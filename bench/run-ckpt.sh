#!/usr/bin/env bash
# FT-MPICH benchmark: cost of a diskless checkpoint with libftmpi_ckpt per
# MiB of state per process, at 2 processes and at 4 (oversubscribed on 2
# cores), SHRINK mode (ABORT mode would do, no failure happens). See
# bench/ckpt.c for what is timed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(cd "${FTDEV_PREFIX:-$here/../install}" && pwd)
bin=$here/bin
mkdir -p "$bin" "$here/results"
"$prefix/bin/mpicc" -O2 -I"$here" -o "$bin/ckpt" "$here/ckpt.c" -lftmpi_ckpt
raw=$here/results/ckpt-$(date +%Y%m%d-%H%M%S).txt
cores=$(nproc)
for n in 2 4; do
    label="$n processes"
    [ "$n" -gt "$cores" ] && label="$label (oversubscribed: $cores cores)"
    echo "checkpoint cost, $label, medians of 15 (slowest process each time):" | tee -a "$raw"
    FTMPI_COMM_MODE=shrink timeout -k 5 300 "$prefix/bin/mpiexec" -n "$n" "$bin/ckpt" "${CKPT_MAX_MIB:-64}" \
        </dev/null | tee -a "$raw"
done
echo "(raw: bench/results/$(basename "$raw"))"
