#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# ABORT mode (default): after a process dies the whole job ends within a
# second, with a nonzero exit status and a message naming the dead rank.
# Victims: rank 2 by SIGKILL, rank 0 by _exit, ranks 1 and 3 at once (the
# job ends at whichever death is seen first; that one is named, the other
# cannot be told apart from the processes the launcher then kills).
set -u
. "$(dirname "$0")/common.bash"
build ft_abort || exit 1
fail=0
for case in "2 kill" "0 exit" "1+3 kill"; do
    set -- $case
    out=$(timeout -k 5 60 "$prefix/bin/mpiexec" -n 4 "$bin/ft_abort" "$1" "$2" 2>&1 </dev/null)
    rc=$?
    end=$(date +%s.%N)
    kill=$(grep -m1 KILLTIME <<<"$out" | awk '{print $2}')
    took=$(awk -v a="$kill" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
    named=$(sed 's/+/|/g' <<<"$1")
    if [ $rc = 0 ] || [ $rc = 124 ]; then
        echo "victims $1 ($2): exit status $rc, expected the job to fail"; fail=1
    elif grep -q SURVIVED <<<"$out"; then
        echo "victims $1 ($2): a survivor outlived the failure"; fail=1
    elif [ -z "$kill" ] || awk -v t="$took" 'BEGIN { exit !(t > 1.0) }'; then
        echo "victims $1 ($2): job ended ${took}s after the death (limit 1 s)"; fail=1
    elif ! grep -Eq "rank ($named)[^0-9]" <<<"$out"; then
        echo "victims $1 ($2): no message names a dead rank:"; echo "$out" | head -n 5; fail=1
    else
        echo "victims $1 ($2): ended ${took}s after the death, status $rc"
    fi
done
exit $fail
