#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH: prepare the MPICH 4.0.2 source tree that the build configures.
#
#   ./autogen.sh            get, verify, unpack, patch, overlay, regenerate
#
# The MPICH release comes from $MPICH_TARBALL if set, else Debian's source
# package (apt-get source), else the official release URL. The tree lands in
# build/mpich-4.0.2. A re-run is cheap: when the patches and our build files
# are unchanged it only copies changed sources into the tree, so that make
# rebuilds just what changed.
set -euo pipefail

top=$(cd "$(dirname "$0")" && pwd)
# FTMPICH_BUILD_DIR: another build folder (make check-asan's)
build=${FTMPICH_BUILD_DIR:-$top/build}
download=$build/download
tree=$build/mpich-4.0.2
version=4.0.2
official_url=https://www.mpich.org/static/downloads/$version/mpich-$version.tar.gz
# sha256 of Debian's mpich_4.0.2.orig.tar.xz and of the official .tar.gz
known_sums="b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860
5a42f1a889d4a2d996c26e48cbf9c595cbf4316c6814f7c181e3320d21dedd42"

die() { echo "autogen.sh: $*" >&2; exit 1; }
note() { echo "autogen.sh: $*" >&2; }

# Each folder of ours (repository path:its path in the MPICH tree).
overlay_map="src/include:src/include
src/mpid/ftdev:src/mpid/ch4/netmod/ftdev
src/ftmpi:src/ftmpi
src/recovery:src/ftmpi/recovery
src/coll_atomic:src/ftmpi/coll
src/ulfm:src/ftmpi/ulfm"

check_tools() {
    local t missing=
    for t in autoconf automake libtoolize python3 patch tar xz sha256sum; do
        command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
    done
    [ -z "$missing" ] || die "missing tools:$missing (Debian: apt-get install autoconf automake libtool python3 patch xz-utils)"
}

# ---- obtaining the tarball ---------------------------------------------

# The Debian mirror the machine already uses for "deb" entries (one-line or
# deb822 format), skipping the security archive.
debian_mirror() {
    {
        grep -hsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
            sed -E 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/'
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] || continue
            awk 'BEGIN{RS=""} /(^|\n)Types:[^\n]*deb([ \t]|\n|$)/ {
                     if (match($0, /(^|\n)URIs:[ \t]*[^ \t\n]+/)) {
                         s = substr($0, RSTART, RLENGTH); sub(/.*URIs:[ \t]*/, "", s); print s } }' "$f"
        done
    } | grep -v security | grep -i debian | head -n 1
}

has_deb_src() {
    grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list && return 0
    grep -qsE '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources
}

fetch_from_debian() {
    command -v apt-get >/dev/null 2>&1 || return 1
    if ! has_deb_src; then
        local mirror codename
        mirror=$(debian_mirror)
        codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
        [ -n "$mirror" ] && [ -n "$codename" ] || return 1
        if [ "$(id -u)" != 0 ]; then
            note "no deb-src entry; as root add 'deb-src $mirror $codename main' to /etc/apt/sources.list and run apt-get update"
            return 1
        fi
        note "adding deb-src entry for $mirror $codename"
        printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$mirror" "$codename" >/etc/apt/sources.list.d/ftmpich-deb-src.sources
        apt-get update -qq >/dev/null 2>&1 || return 1
    fi
    (cd "$download" && apt-get source --download-only -qq mpich="$version-*" >/dev/null 2>&1 ||
        apt-get source --download-only -qq mpich >/dev/null 2>&1) || return 1
    [ -f "$download/mpich_$version.orig.tar.xz" ]
}

fetch_official() {
    local out=$download/mpich-$version.tar.gz
    if command -v curl >/dev/null 2>&1; then
        curl -fsSL --connect-timeout 20 -o "$out.part" "$official_url" || return 1
    elif command -v wget >/dev/null 2>&1; then
        wget -q -T 20 -O "$out.part" "$official_url" || return 1
    else
        return 1
    fi
    mv "$out.part" "$out"
}

find_tarball() {
    if [ -n "${MPICH_TARBALL:-}" ]; then
        [ -f "$MPICH_TARBALL" ] || die "MPICH_TARBALL=$MPICH_TARBALL: no such file"
        echo "$MPICH_TARBALL"
        return
    fi
    mkdir -p "$download"
    local f
    for f in "$download/mpich_$version.orig.tar.xz" "$download/mpich-$version.tar.gz"; do
        [ -f "$f" ] && { echo "$f"; return; }
    done
    if fetch_from_debian; then
        echo "$download/mpich_$version.orig.tar.xz"
    elif fetch_official; then
        echo "$download/mpich-$version.tar.gz"
    else
        die "could not obtain MPICH $version (no Debian source package and no network access to $official_url); set MPICH_TARBALL=/path/to/mpich-$version tarball"
    fi
}

verify() {
    local sum
    sum=$(sha256sum "$1" | cut -d' ' -f1)
    grep -qx "$sum" <<<"$known_sums" ||
        die "checksum mismatch for $1 (sha256 $sum is not a known MPICH $version release); remove it or point MPICH_TARBALL at a good copy"
}

# ---- the tree -------------------------------------------------------------

# Everything that, when changed, needs a fresh tree and regenerated build
# files: the tarball, the patches and our build-system files.
tree_stamp() {
    {
        echo "$1"
        cat "$top/mpich-patches/series"
        local p
        while read -r p; do
            case "$p" in ''|'#'*) ;; *) cat "$top/mpich-patches/$p" ;; esac
        done <"$top/mpich-patches/series"
        local m
        for m in $overlay_map; do
            (cd "$top/${m%%:*}" && find . -type f | LC_ALL=C sort &&
                find . -type f \( -name Makefile.mk -o -name subconfigure.m4 -o -name errnames.txt \) |
                LC_ALL=C sort | xargs -r cat &&
                # CVAR blocks feed MPICH's generated mpir_cvars.c
                find . -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort |
                xargs -r sed -n '/BEGIN_MPI_T_CVAR_INFO_BLOCK/,/END_MPI_T_CVAR_INFO_BLOCK/p')
        done
    } | sha256sum | cut -d' ' -f1
}

apply_patches() {
    local p
    while read -r p; do
        case "$p" in ''|'#'*) continue ;; esac
        [ -f "$top/mpich-patches/$p" ] || die "patch $p listed in mpich-patches/series does not exist"
        patch -d "$tree" -p1 --batch --forward --quiet <"$top/mpich-patches/$p" >"$build/patch.log" 2>&1 ||
            die "patch $p does not apply (see $build/patch.log)"
    done <"$top/mpich-patches/series"
}

# Copies our sources into the tree, touching only files whose content
# changed so that make rebuilds no more than it must.
sync_overlay() {
    local m src dst f
    for m in $overlay_map; do
        src=$top/${m%%:*}
        dst=$tree/${m#*:}
        mkdir -p "$dst"
        (cd "$src" && find . -type f) | while read -r f; do
            mkdir -p "$dst/$(dirname "$f")"
            cmp -s "$src/$f" "$dst/$f" || cp "$src/$f" "$dst/$f"
        done
    done
}

regenerate() {
    note "regenerating MPICH build files (takes about a minute)"
    (cd "$tree" && ./autogen.sh -quick -without-test >"$build/mpich-autogen.log" 2>&1) ||
        die "MPICH's autogen.sh failed (see $build/mpich-autogen.log)"
}

check_tools
tarball=$(find_tarball)
verify "$tarball"
mkdir -p "$build"
echo "$tarball" >"$build/.tarball"
stamp=$(tree_stamp "$(sha256sum "$tarball" | cut -d' ' -f1)")

if [ -f "$build/.tree-stamp" ] && [ "$(cat "$build/.tree-stamp")" = "$stamp" ] && [ -d "$tree" ]; then
    sync_overlay
    exit 0
fi

note "unpacking $(basename "$tarball")"
rm -rf "$tree" "$build/.tree-stamp" "$build/.configured"
mkdir -p "$build"
tar -xf "$tarball" -C "$build" || die "cannot unpack $tarball"
[ -d "$tree" ] || die "$tarball does not contain mpich-$version/"
apply_patches
sync_overlay
regenerate
echo "$stamp" >"$build/.tree-stamp"
note "MPICH tree ready in ${tree#$top/}"
