#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# MPI_Init loads the hardware topology without its I/O objects (reading
# every PCI device costs about 20 ms of each start-up and of each REBUILD's
# replacement), and the first lookup of a device by name loads them: no
# file under /sys/bus/pci/devices is opened before the program's
# HWTOPO-LOOKUP marker, and some are after it, when the lookup names a PCI
# device. Splits by cores, caches and packages give the same groups before
# and after (hw_topology.c checks that).
set -u
. "$(dirname "$0")/common.bash"
command -v strace >/dev/null || { echo "strace is not installed"; exit 77; }
device=$(ls /sys/bus/pci/devices 2>/dev/null | head -n 1)
[ -n "$device" ] || { echo "this machine shows no PCI device in /sys/bus/pci/devices"; exit 77; }
build hw_topology || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
out=$(tagged_run 60 strace -f -qq -e trace=execve,openat,write -e signal=none -o "$log" \
    "$prefix/bin/mpiexec" -n 2 "$bin/hw_topology" "pci:$device" 2>&1)
rc=$?
fail=0
if [ $rc != 0 ] || ! grep -q " No Errors" <<<"$out"; then
    echo "hw_topology pci:$device: exit status $rc:"; echo "$out" | tail -n 5; fail=1
fi
# per process of the program: PCI files opened before and after its marker
counts=$(awk '
    /execve\(.*hw_topology/ { app[$1] = 1 }
    !($1 in app) { next }
    /write\(1, "HWTOPO-LOOKUP/ { marked[$1] = 1; next }
    /openat\(.*"\/sys\/bus\/pci\/devices\// { if (marked[$1]) after[$1]++; else before[$1]++ }
    END { for (p in app) printf "%d %d %d\n", marked[p] + 0, before[p] + 0, after[p] + 0 }' "$log")
[ "$(wc -l <<<"$counts")" = 2 ] || { echo "expected 2 traced processes, found: $counts"; fail=1; }
while read -r marked before after; do
    if [ "$marked" != 1 ]; then
        echo "a process never reached its lookup"; fail=1
    elif [ "$before" != 0 ]; then
        echo "MPI_Init read $before PCI device files: the I/O objects were loaded at start-up"; fail=1
    elif [ "$after" = 0 ]; then
        echo "the lookup of pci:$device read no PCI device file: the I/O objects were never loaded"; fail=1
    fi
done <<<"$counts"
no_process_left || fail=1
[ $fail = 0 ] && echo "pci:$device: no PCI file read at start-up, read at the first lookup; splits unchanged"
exit $fail
