#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Builds the Debian package of an FT-MPICH installation:
#
#   packaging/make-deb.sh INSTALLED VERSION OUT.deb
#
# INSTALLED is what make install wrote (./install); the package puts it
# under /usr/lib/<multiarch>/ft-mpich, beside Debian's MPIs, with the
# paths in its wrappers, pkg-config files and module rewritten there (the
# binaries hold no path of the installation: the wrappers give programs
# their run path, and mpiexec finds its proxy beside itself). Installing
# the package registers FT-MPICH in the mpi and mpirun alternatives at
# priority 10, below Debian's MPICH (40) and Open MPI (50), so that mpicc
# keeps its meaning until an administrator chooses FT-MPICH
# (update-alternatives --set mpi /usr/lib/<multiarch>/ft-mpich/bin/mpicc).
# Its modulefile (module load ft-mpich) goes where Environment Modules and
# Lmod look on Debian.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
[ $# = 3 ] || { echo "usage: make-deb.sh INSTALLED VERSION OUT.deb" >&2; exit 2; }
installed=$(cd "$1" && pwd) version=$2 out=$3
[ -x "$installed/bin/mpiexec" ] || { echo "make-deb.sh: no FT-MPICH installation in $installed" >&2; exit 2; }
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
target=/usr/lib/$multiarch/ft-mpich
priority=10

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dest=$root$target
mkdir -p "$dest" "$root/DEBIAN" "$root/usr/share/doc/ft-mpich" "$root/usr/share/modules/modulefiles"
cp -a "$installed/." "$dest/"
# libtool archives name the build's paths and nothing needs them at run time
find "$dest" -name '*.la' -delete
# as Debian ships binaries: stripped (debug symbols stay in the build),
# shared libraries not executable, no run path into the build (a program
# built by the wrappers names every library it needs, and its own run
# path finds them), scripts run by /bin/bash
mapfile -t elfs < <(find "$dest" -type f -exec sh -c 'head -c 4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
for f in "${elfs[@]}"; do
    case $f in
        *.so | *.so.*)
            strip --strip-unneeded --remove-section=.comment --remove-section=.note "$f"
            chmod 644 "$f" ;;
        *.o | *.a) ;;
        *) strip --strip-unneeded --remove-section=.comment --remove-section=.note "$f" ;;
    esac
    if readelf -d "$f" 2>/dev/null | grep -q 'R\(UN\)\?PATH'; then chrpath -d "$f" >/dev/null; fi
done
grep -rlZ '^#! */usr/bin/bash' "$dest/bin" | xargs -0 -r sed -i '1s|^#! */usr/bin/bash|#!/bin/bash|'
grep -rIl --null -- "$installed" "$dest" | xargs -0 -r sed -i "s|$installed|$target|g"
if grep -rIlq -- "$installed" "$dest"; then
    echo "make-deb.sh: a text file still names $installed" >&2
    exit 1
fi
sed -e "s|@PREFIX@|$target|g" -e "s|@VERSION@|$version|g" "$here/ft-mpich.modulefile" \
    >"$root/usr/share/modules/modulefiles/ft-mpich"
rm -f "$dest/share/modulefiles/ft-mpich"

doc=$root/usr/share/doc/ft-mpich
{
    echo "FT-MPICH, and the MPICH 4.0.2 it is built on."
    echo
    cat "$top/LICENSE"
    echo
    echo "MPICH's own licence (its COPYRIGHT file):"
    echo
    cat "$top/build/mpich-4.0.2/COPYRIGHT"
} >"$doc/copyright"
{
    echo "ft-mpich ($version) unstable; urgency=medium"
    echo
    echo "  * Built from commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)."
    echo "    What changed: docs/CHANGES.md of the source."
    echo
    echo " -- FT-MPICH developers <ftmpich@users.noreply.example>  $(date -R)"
} | gzip -9n >"$doc/changelog.gz"

# the shared libraries the package's programs and libraries need, as
# Debian's own packages compute them
mkdir -p "$root/shlibs/debian"
printf 'Source: ft-mpich\n\nPackage: ft-mpich\nArchitecture: any\n' >"$root/shlibs/debian/control"
depends=$(cd "$root/shlibs" && dpkg-shlibdeps -O -l"$dest/lib" --ignore-missing-info "${elfs[@]}" 2>/dev/null |
    sed -n 's/^shlibs:Depends=//p')
rm -rf "$root/shlibs"
[ -n "$depends" ] || { echo "make-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

cat >"$root/DEBIAN/control" <<CONTROL
Package: ft-mpich
Version: $version
Architecture: $arch
Maintainer: FT-MPICH developers <ftmpich@users.noreply.example>
Installed-Size: $(du -sk "$root/usr" | cut -f1)
Depends: $depends, gcc, g++, gfortran, python3
Section: devel
Priority: optional
Description: fault-tolerant MPI (FT-MPI modes and ULFM) on MPICH 4.0.2
 FT-MPICH runs MPI programs that survive the death of processes: the
 FT-MPI recovery modes (SHRINK, BLANK, REBUILD) and ULFM (MPIX_ functions).
 It installs beside Debian's MPICH and Open MPI, under its own prefix,
 and registers itself in the mpi and mpirun alternatives at a priority
 below theirs; select it with update-alternatives or module load
 ft-mpich.
CONTROL

cat >"$root/DEBIAN/postinst" <<POSTINST
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
    update-alternatives --install /usr/bin/mpicc mpi $target/bin/mpicc $priority \\
        --slave /usr/bin/mpiCC mpiCC $target/bin/mpicxx \\
        --slave /usr/bin/mpic++ mpic++ $target/bin/mpicxx \\
        --slave /usr/bin/mpicxx mpicxx $target/bin/mpicxx \\
        --slave /usr/bin/mpif77 mpif77 $target/bin/mpifort \\
        --slave /usr/bin/mpif90 mpif90 $target/bin/mpifort \\
        --slave /usr/bin/mpifort mpifort $target/bin/mpifort
    update-alternatives --install /usr/bin/mpirun mpirun $target/bin/mpiexec $priority \\
        --slave /usr/bin/mpiexec mpiexec $target/bin/mpiexec
fi
POSTINST
cat >"$root/DEBIAN/prerm" <<PRERM
#!/bin/sh
set -e
if [ "\$1" = remove ] || [ "\$1" = deconfigure ]; then
    update-alternatives --remove mpi $target/bin/mpicc
    update-alternatives --remove mpirun $target/bin/mpiexec
fi
PRERM
chmod 755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zgzip --build "$root" "$out" >/dev/null
echo "built $out (ft-mpich $version, $(du -k "$out" | cut -f1) KiB)"
