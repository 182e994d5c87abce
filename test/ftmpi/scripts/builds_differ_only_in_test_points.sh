#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# make check runs most tests on the build users install and the tests that
# need a fault-injection point on a second build (--enable-ft-test-points).
# What the first build's tests show holds for the second only if the two
# differ in the test points alone: their libraries must define the same
# symbols but for the test points' own, and the same sizes for every
# object both define (a structure whose layout followed the switch would
# change the size of the globals holding it).
set -u
. "$(dirname "$0")/common.bash"
[ -n "${MPI_PREFIX_TEST_POINTS:-}" ] || { echo "no build with test points (MPI_PREFIX_TEST_POINTS)"; exit 77; }
tp=$(cd "$MPI_PREFIX_TEST_POINTS" && pwd)
[ "$tp" != "$prefix" ] || { echo "the build under test has the test points itself"; exit 77; }
# the test points' own symbols (mpid_ft.h, ftdev_test_point.h and .c, its
# replay point's replay_*, ftmpi_coll_atomic.c), and the configure line
# that MPICH records (which names --enable-ft-test-points)
allowed='^(MPID_FT_test_point|MPID_FT_test_death|MPIDI_FTDEV_test_deaf|MPIDI_FTDEV_test_deaf_after|MPIDI_FTDEV_test_replay_[a-z_]*|replay_[a-z_]*|progress_for|known_points|wanted|MPII_Version_configure)$'
# library -> "name size" of its global functions (no size: their code may
# differ) and of every data object, sorted; a static's compiler suffix
# (.0, .lto_priv...) is left out
symbols() {
    nm --defined-only -S "$1" | awk '{ if (NF == 4) { size = $2; type = $3; name = $4 }
            else { size = "-"; type = $2; name = $3 }
            sub(/\..*/, "", name)
            if (type ~ /^[TW]$/) print name, "-"
            else if (type ~ /^[dDbBrRV]$/) print name, size }' | sort -u
}
fail=0
for lib in libmpi.so libmpifort.so; do
    [ -f "$prefix/lib/$lib" ] || { echo "FAIL: no $lib in $prefix/lib"; fail=1; continue; }
    diff <(symbols "$prefix/lib/$lib") <(symbols "$tp/lib/$lib") | sed -n 's/^[<>] //p' |
        awk '{ print $1 }' | sort -u | grep -Ev "$allowed" >"$bin/builds_differ.$$" || true
    if [ -s "$bin/builds_differ.$$" ]; then
        echo "FAIL: $lib: symbols or sizes that differ between the builds:"
        head -n 20 "$bin/builds_differ.$$"
        fail=1
    else
        echo "$lib: $(symbols "$prefix/lib/$lib" | wc -l) symbols, the same but the test points'"
    fi
    rm -f "$bin/builds_differ.$$"
done
exit $fail
