#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# MPICH's test suite on ch4:ftdev and on stock ch4:ucx, one after the other,
# and the tests whose results differ.
#
#   test/mpich/compare-mpich-tests.sh FTDEV_PREFIX STOCK_PREFIX [dir...]
#   test/mpich/compare-mpich-tests.sh FTDEV_PREFIX --stock-results DIR [dir...]
#
# Results land in build/mpich-compare/{ftdev,stock}/DIR.results (TAP lines).
# --stock-results skips the stock run and compares against stock results
# kept from an earlier run (files DIR.results or stock-ch4-ucx.DIR.results):
# `make check-mpich` writes them to build/mpich-compare/stock/, which the
# next comparison overwrites, so keep a copy elsewhere and pass it as DIR
# (`make check-mpich-stored STOCK_RESULTS=DIR`).
# A test is named by its line in the directory's testlist: its program,
# process count and, for repeated entries, which occurrence it is.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
usage() { echo "usage: $0 FTDEV_PREFIX (STOCK_PREFIX | --stock-results DIR) [dir...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
ftdev=$1
out=$top/build/mpich-compare
if [ "$2" = --stock-results ]; then
    [ $# -ge 3 ] && [ -d "$3" ] || usage
    stored=$3
    shift 3
    mkdir -p "$out/stock"
    rm -f "$out"/stock/*.results
    for d in ${*:-attr coll comm datatype errhan group info init pt2pt topo}; do
        for f in "$stored/$d.results" "$stored/stock-ch4-ucx.$d.results"; do
            [ -f "$f" ] && cp "$f" "$out/stock/$d.results"
        done
        [ -f "$out/stock/$d.results" ] || { echo "no stored stock results for $d in $stored" >&2; exit 2; }
    done
else
    stock=$2
    shift 2
    MPI_PREFIX=$stock "$here/run-mpich-tests.sh" --full "$out/stock" "$@" || exit 2
fi
MPI_PREFIX=$ftdev "$here/run-mpich-tests.sh" --full "$out/ftdev" "$@" || exit 2

# "result name#occurrence" per line, for both builds
label() { awk '{ r = ($1 == "ok") ? "ok" : "fail"; sub(/^(not )?ok +- +/, ""); gsub(/ +/, " "); sub(/ $/, ""); n[$0]++; print r, $0 "#" n[$0] }' "$@"; }

regressions=0 improvements=0
for f in "$out"/stock/*.results; do
    d=$(basename "$f" .results)
    [ -f "$out/ftdev/$d.results" ] || { echo "$d: no ftdev results"; regressions=$((regressions + 1)); continue; }
    while IFS='|' read -r name s t; do
        if [ "$s" = ok ] && [ "$t" != ok ]; then
            echo "REGRESSION $d: $name (stock ok, ftdev ${t:-missing})"
            regressions=$((regressions + 1))
        elif [ "$s" != ok ] && [ "$t" = ok ]; then
            echo "better     $d: $name (stock ${s:-missing}, ftdev ok)"
            improvements=$((improvements + 1))
        fi
    done < <(join -t'|' -a1 -a2 -e missing -o 0,1.2,2.2 \
        <(label "$f" | awk '{ r = $1; $1 = ""; sub(/^ /, ""); print $0 "|" r }' | sort -t'|' -k1,1) \
        <(label "$out/ftdev/$d.results" | awk '{ r = $1; $1 = ""; sub(/^ /, ""); print $0 "|" r }' | sort -t'|' -k1,1))
    printf '%-9s stock %3d ok, ftdev %3d ok\n' "$d" "$(grep -c '^ok' "$f")" "$(grep -c '^ok' "$out/ftdev/$d.results")"
done
echo "$regressions tests pass with stock ch4:ucx but not with ch4:ftdev; $improvements the other way"
[ $regressions = 0 ]
