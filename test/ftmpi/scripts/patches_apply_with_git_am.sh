#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Every patch of mpich-patches/series is a git-format mail: the series
# applies in order with `git am` onto pristine MPICH 4.0.2, each patch
# becoming one commit with its own subject, and the result is the tree that
# `patch -p1` (what autogen.sh uses) makes of the same files.
#
# Only the files the patches name are unpacked (the MPICH tree holds 14,000
# files; committing them all takes longer than the whole check should):
# git am reads nothing else, and a patch that creates a file MPICH already
# has still fails because that file is unpacked too.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
patches=$top/mpich-patches

tarball=${MPICH_TARBALL:-$(cat "$top/build/.tarball" 2>/dev/null)}
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
    echo "skipped: no MPICH tarball (build/.tarball records none; run autogen.sh or set MPICH_TARBALL)"
    exit 0
fi
command -v git >/dev/null || { echo "git is not installed"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -f "$patches/series" ] || { echo "no $patches/series"; exit 1; }
series=()
while read -r p; do
    case "$p" in '' | '#'*) continue ;; esac
    [ -f "$patches/$p" ] || { echo "$p: listed in series, no such file"; exit 1; }
    series+=("$p")
done <"$patches/series"
[ ${#series[@]} -gt 0 ] || { echo "mpich-patches/series lists no patch"; exit 1; }

for p in "${series[@]}"; do
    head -n 1 "$patches/$p" | grep -Eq '^From [0-9a-f]{40} ' &&
        grep -q '^Subject: \[PATCH\] ' "$patches/$p" ||
        { echo "$p: no git-format header (From <sha1> line, Subject: [PATCH])"; exit 1; }
done

# Every path any patch reads, writes or creates, under the tarball's top folder.
for p in "${series[@]}"; do
    sed -nE 's#^diff --git a/([^ ]+) b/([^ ]+)$#\1\n\2#p; s#^--- a/([^\t ]+).*#\1#p; s#^\+\+\+ b/([^\t ]+).*#\1#p' "$patches/$p"
done | sort -u | sed 's#^#mpich-4.0.2/#' >"$tmp/paths"

mkdir "$tmp/am"
# Paths the patches create are not in the archive: tar names them and fails.
tar -xf "$tarball" -C "$tmp/am" --no-same-owner -T "$tmp/paths" 2>"$tmp/tar.err"
if grep -v -e 'Not found in archive' -e 'Exiting with failure status' "$tmp/tar.err" | grep -q .; then
    echo "cannot unpack $tarball:"; head -n 3 "$tmp/tar.err"; exit 1
fi
tree=$tmp/am/mpich-4.0.2
[ -d "$tree" ] || { echo "$tarball does not hold mpich-4.0.2/"; exit 1; }
cp -a "$tree" "$tmp/patched"

export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp GIT_COMMITTER_NAME=check GIT_COMMITTER_EMAIL=check@localhost
git_base() { GIT_AUTHOR_NAME=check GIT_AUTHOR_EMAIL=check@localhost git "$@"; }
git -C "$tree" init -q && git -C "$tree" add -A && git_base -C "$tree" commit -qm "MPICH 4.0.2" ||
    { echo "cannot make a git repository of the unpacked files"; exit 1; }

n=0
for p in "${series[@]}"; do
    if ! out=$(git -C "$tree" am --quiet "$patches/$p" 2>&1); then
        echo "$p does not apply with git am (patches before it in series: $n):"
        printf '%s\n' "$out" | grep -E '^(error|fatal|Patch format)' | head -n 6
        exit 1
    fi
    n=$((n + 1))
    subject=$(git -C "$tree" log -1 --format=%s)
    [ -n "$subject" ] || { echo "$p: git am made a commit with no subject"; exit 1; }
done
commits=$(git -C "$tree" rev-list --count HEAD)
[ "$commits" = $((n + 1)) ] || { echo "git am made $((commits - 1)) commits of $n patches"; exit 1; }

for p in "${series[@]}"; do
    patch -d "$tmp/patched" -p1 --batch --forward --quiet --no-backup-if-mismatch <"$patches/$p" >"$tmp/patch.log" 2>&1 ||
        { echo "$p does not apply with patch -p1:"; head -n 5 "$tmp/patch.log"; exit 1; }
done
if ! diff -r -q -x .git "$tree" "$tmp/patched" >"$tmp/diff"; then
    echo "git am and patch -p1 give different trees:"; head -n 5 "$tmp/diff"; exit 1
fi
echo "ok: $n patches apply in series order with git am, one commit each, same tree as patch -p1"
