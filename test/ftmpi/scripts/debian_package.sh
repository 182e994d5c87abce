#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# The Debian package of the installation (packaging/make-deb.sh), as a site
# would use it: lintian finds no error; installing it beside Debian's MPICH
# and Open MPI leaves mpicc and mpirun as they were (priority 10, below
# their 40 and 50);
# selected with update-alternatives, /usr/bin/mpicc and /usr/bin/mpiexec
# build and run a ULFM program whose last rank is SIGKILLed, on the
# package's library; `module load ft-mpich` puts its mpicc first; switched
# back, mpicc is Debian's again; purged, nothing of it is left (files,
# alternatives, modulefile). Needs root, Debian's libmpich-dev and
# lintian; make check installs them, and Debian's Open MPI, which must
# stay what mpicc means.
# test-timeout: 600
set -u
. "$(dirname "$0")/common.bash"
[ "$(id -u)" = 0 ] || { echo "needs root to install a package"; exit 77; }
for c in dpkg-deb lintian mpicc.mpich; do
    command -v $c >/dev/null || { echo "no $c here (make check installs it)"; exit 77; }
done
top=$(cd "$src/../.." && pwd)
target=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/ft-mpich
work=$(mktemp -d)
trap 'dpkg --purge ft-mpich >/dev/null 2>&1; rm -rf "$work"' EXIT
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }
mpicc_means() { readlink -f /usr/bin/mpicc; }

dpkg --purge ft-mpich >/dev/null 2>&1
deb=$work/ft-mpich_0~check_$(dpkg-architecture -qDEB_HOST_ARCH).deb
"$top/packaging/make-deb.sh" "$prefix" 0~check "$deb" || { echo "FAIL: make-deb.sh"; exit 1; }
if ! lint=$(lintian --fail-on error "$deb" 2>&1); then
    say_fail "lintian found errors:"; grep '^E:' <<<"$lint" | head -n 20
fi
echo "lintian: $(grep -c '^E:' <<<"$lint") errors, $(grep -c '^W:' <<<"$lint") warnings"

before=$(mpicc_means)
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { say_fail "dpkg -i:"; tail -n 5 "$work/dpkg.log"; exit 1; }
[ "$(mpicc_means)" = "$before" ] || say_fail "installing changed /usr/bin/mpicc to $(mpicc_means)"
update-alternatives --query mpi | grep -qx "Alternative: $target/bin/mpicc" ||
    say_fail "not in the mpi alternatives"

update-alternatives --set mpi "$target/bin/mpicc" >/dev/null &&
    update-alternatives --set mpirun "$target/bin/mpiexec" >/dev/null || say_fail "update-alternatives --set"
if /usr/bin/mpicc -O2 -o "$work/abi_probe" "$src/abi_probe.c"; then
    out=$(tagged_run 60 /usr/bin/mpiexec -n 2 "$work/abi_probe" 2>&1)
    grep -qx "library: $target/lib/libmpi.so.12" <<<"$out" ||
        say_fail "the program did not load the package's library: $(head -n 2 <<<"$out" | tr '\n' ' ')"
    out=$(tagged_run 60 /usr/bin/mpiexec -disable-auto-cleanup -n 4 "$work/abi_probe" kill 2>&1)
    rc=$?
    [ $rc = 0 ] && [ "$(grep -c '^rank [012]: survived with 3$' <<<"$out")" = 3 ] ||
        { say_fail "the ULFM program did not survive (exit $rc):"; head -n 6 <<<"$out"; }
else
    say_fail "/usr/bin/mpicc (the package's) cannot build a program"
fi
loaded=$(bash -c '. /usr/share/modules/init/bash && module load ft-mpich && command -v mpicc' 2>&1)
[ "$loaded" = "$target/bin/mpicc" ] || say_fail "module load ft-mpich: mpicc is '$loaded'"

update-alternatives --auto mpi >/dev/null && update-alternatives --auto mpirun >/dev/null
[ "$(mpicc_means)" = "$before" ] || say_fail "switched back, mpicc is $(mpicc_means), not $before"
dpkg --purge ft-mpich >"$work/dpkg.log" 2>&1 || { say_fail "dpkg --purge:"; tail -n 5 "$work/dpkg.log"; }
[ ! -e "$target" ] || say_fail "purged, $target is still there"
[ ! -e /usr/share/modules/modulefiles/ft-mpich ] || say_fail "purged, the modulefile is still there"
! update-alternatives --query mpi 2>/dev/null | grep -q ft-mpich || say_fail "purged, still in the mpi alternatives"
! update-alternatives --query mpirun 2>/dev/null | grep -q ft-mpich || say_fail "purged, still in the mpirun alternatives"
no_process_left || fail=1
[ $fail = 0 ] && echo "ok: packaged, installed beside Debian's MPICH, selected, used, purged"
exit $fail
