#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Builds the fault-tolerant peer that bench/run-peer.sh compares against:
# Open MPI with ULFM, from the upstream tarball in Debian's source package
# (called by `make peer`, which installs the Debian packages it needs).
#
#   bench/build-peer.sh BUILD_DIR PREFIX JOBS
#
# Debian 12's apt lists know only bookworm, so the source package is
# fetched through a private apt configuration kept in BUILD_DIR/apt: its
# own sources list (one deb-src line for PEER_SUITE on the archive the
# machine already uses, read from its apt sources now, never written
# here), its own lists and cache. The system's apt state is not touched.
# Only the orig tarball is used; the bundled PMIx and PRRTE are built with
# it, hwloc and libevent come from Debian.
set -euo pipefail
trap 'echo "build-peer: the command at line $LINENO failed" >&2' ERR
build=$1 prefix=$2 jobs=${3:-2}
version=${PEER_VERSION:-5.0.7}
deb_version=${PEER_DEB_VERSION:-$version-1}
suite=${PEER_SUITE:-trixie}
tarball=openmpi_$version.orig.tar.xz

say() { echo "build-peer: $*"; }
die() { echo "build-peer: $*" >&2; exit 1; }

# The URI of the machine's main Debian archive (not the security one):
# deb822 .sources files first, then one-line .list files.
archive_uri() {
    {
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] || continue
            awk 'BEGIN { RS = "" }
                 /(^|\n)Types:[^\n]*deb/ && match($0, /(^|\n)URIs:[ \t]*[^ \t\n]+/) {
                     s = substr($0, RSTART, RLENGTH); sub(/.*URIs:[ \t]*/, "", s); print s }' "$f"
        done
        grep -hsE '^[[:space:]]*deb(-src)?[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
            sed -E 's/^[[:space:]]*deb(-src)?[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\3/' || true
    } | grep -v security | grep -i debian | head -n 1 || true
}

uri=$(archive_uri)
[ -n "$uri" ] || die "no Debian archive in /etc/apt/sources.list{,.d} to fetch the $suite source package from"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
apt_dir=$build/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$build/src"
# as root apt downloads as its own user, who must be able to write there
[ "$(id -u)" != 0 ] || ! id _apt >/dev/null 2>&1 || chown _apt "$build/src"
echo "deb-src [signed-by=$keyring] $uri $suite main" >"$apt_dir/sources.list"
apt=(apt-get -q -o Dir::Etc::sourcelist="$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
     -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache")

if [ ! -f "$build/src/$tarball" ]; then
    say "fetching openmpi $deb_version ($suite) through a private apt configuration ($apt_dir)"
    "${apt[@]}" update || die "apt-get update of the private $suite source list failed"
    # apt checks the .dsc against the signed Sources index and every file
    # the .dsc names against its checksums; the tarball's sha256 is checked
    # against the .dsc once more below
    (cd "$build/src" && "${apt[@]}" source --download-only "openmpi=$deb_version") ||
        die "apt-get source openmpi=$deb_version failed"
fi
dsc=$build/src/openmpi_$deb_version.dsc
[ -f "$dsc" ] && [ -f "$build/src/$tarball" ] || die "the source package lacks $tarball or its .dsc"
want=$(awk -v f="$tarball" '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 }
                            on && $3 == f { print $1 }' "$dsc")
have=$(sha256sum "$build/src/$tarball" | cut -d' ' -f1)
[ -n "$want" ] && [ "$want" = "$have" ] || die "$tarball: sha256 $have is not the .dsc's ${want:-(none)}"
say "$tarball sha256 $have matches $(basename "$dsc")"

rm -rf "$build/openmpi-$version"
tar -xf "$build/src/$tarball" -C "$build"
cd "$build/openmpi-$version"
say "configuring Open MPI $version with ULFM into $prefix"
./configure --prefix="$prefix" --with-ft=ulfm --with-pmix=internal --with-prrte=internal \
    --with-hwloc=external --with-libevent=external \
    --enable-mpi-fortran=no --disable-sphinx
say "building with $jobs jobs"
nice -n 10 make -j"$jobs"
make install
[ -x "$prefix/bin/mpirun" ] || die "no $prefix/bin/mpirun after make install"
say "Open MPI $version with ULFM installed in $prefix"
