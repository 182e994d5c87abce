#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# MPI_Init makes its hardware topology without hwloc's libxml2 plugin,
# whose libraries (libxml2, ICU) are most of the time hwloc takes to open
# its plugins in every start-up and every REBUILD's replacement: no process
# of the program opens libxml2 by default. A user who sets
# HWLOC_PLUGINS_BLACKLIST keeps hwloc's choice: with it set to another
# plugin, libxml2 is opened. In both cases the variable reads afterwards as
# the user left it, and the application's own topology goes to XML and back
# (hw_topology_xml.c).
set -u
. "$(dirname "$0")/common.bash"
command -v strace >/dev/null || { echo "strace is not installed"; exit 77; }
plugins=$(pkg-config --variable=libdir hwloc 2>/dev/null)/hwloc
[ -f "$plugins/hwloc_xml_libxml.so" ] || plugins=$(ls -d /usr/lib/*/hwloc 2>/dev/null | head -n 1)
[ -f "$plugins/hwloc_xml_libxml.so" ] ||
    { echo "hwloc's libxml2 plugin is not installed here (libhwloc-plugins)"; exit 77; }
"$prefix/bin/mpicc" -O2 -o "$bin/hw_topology_xml" "$src/hw_topology_xml.c" -lhwloc || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail=0
for case in default user; do
    if [ $case = default ]; then
        expected=unset
    else
        expected=hwloc_gl
    fi
    out=$(if [ $case = default ]; then unset HWLOC_PLUGINS_BLACKLIST; else export HWLOC_PLUGINS_BLACKLIST=$expected; fi
        tagged_run 60 strace -f -qq -e trace=execve,openat -e signal=none -o "$log" \
            "$prefix/bin/mpiexec" -n 2 "$bin/hw_topology_xml" "$expected" 2>&1)
    rc=$?
    # per process of the program: whether it opened libxml2 (the call, not
    # its result: with several processes traced into one file, strace
    # prints a call and its result on two lines when another process's
    # call comes in between)
    opened=$(awk '
        /execve\(.*hw_topology_xml/ { app[$1] = 0 }
        ($1 in app) && /openat\(.*libxml2\.so/ { app[$1] = 1 }
        END { for (p in app) printf "%d\n", app[p] }' "$log" | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
    if [ $rc != 0 ] || ! grep -q " No Errors" <<<"$out"; then
        echo "$case: exit status $rc:"; echo "$out" | tail -n 5; fail=1
    elif [ $case = default ] && [ "$opened" != "0:2 " ]; then
        echo "default: processes that opened libxml2 (1) or not (0): $opened; expected none of 2"; fail=1
    elif [ $case = user ] && [ "$opened" != "1:2 " ]; then
        echo "user's HWLOC_PLUGINS_BLACKLIST=$expected: processes that opened libxml2 (1) or not (0): $opened; expected both"; fail=1
    else
        echo "$case: libxml2 opened by $([ $case = default ] && echo none || echo both) of 2 processes; HWLOC_PLUGINS_BLACKLIST $expected after MPI_Init; own topology to XML and back"
    fi
done
no_process_left || fail=1
exit $fail
