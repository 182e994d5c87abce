#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# autogen.sh must refuse a corrupt or missing MPICH tarball with one clear
# line, before it touches the prepared tree.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

head -c 100000 /dev/urandom >"$tmp/mpich-4.0.2.tar.gz"
out=$(MPICH_TARBALL=$tmp/mpich-4.0.2.tar.gz "$top/autogen.sh" 2>&1)
rc=$?
[ $rc != 0 ] || { echo "corrupt tarball accepted"; exit 1; }
grep -q "checksum mismatch" <<<"$out" || { echo "no checksum message: $out"; exit 1; }
[ "$(wc -l <<<"$out")" = 1 ] || { echo "more than one line: $out"; exit 1; }

out=$(MPICH_TARBALL=$tmp/absent.tar.gz "$top/autogen.sh" 2>&1)
[ $? != 0 ] && grep -q "no such file" <<<"$out" || { echo "missing tarball not reported: $out"; exit 1; }
echo ok
