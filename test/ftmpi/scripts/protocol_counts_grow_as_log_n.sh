#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# The fault-tolerance protocols that gather at one process (the FT-MPI
# recovery agreement, REBUILD, the ATOMIC commit's termination, the ULFM
# agreement behind a shrink) stay within 6 log2(n) messages sent, received
# and rounds at their busiest process, at 64 processes with one and with
# two processes killed (ranks 32 and 63) and with rank 0 killed alone:
# counts from bench/run-scale.sh (exact, oversubscribed or not). A
# coordinator that every process answers would send or receive 63.
# test-timeout: 600
set -u
. "$(dirname "$0")/common.bash"
top=$(cd "$src/../.." && pwd)
n=64
limit=36    # 6 log2(64)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 64 processes of about 60 MiB each
need=$((n * 60 * 1024))
have=$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)
if [ "$have" -lt "$need" ]; then
    echo "only $((have / 1024)) MiB of memory available, $((need / 1024)) needed for $n processes"
    exit 77
fi

FTDEV_PREFIX=$prefix BENCH_RAW_DIR=$work BENCH_SCALE_MAX_NP=$n \
    BENCH_SCALE_JOBS="recover rebuild commit shrink recover@0 rebuild@0 commit@0 shrink@0" \
    bash "$top/bench/run-scale.sh" >"$work/log" 2>&1
rc=$?
raw=$(ls "$work"/scale-*.raw 2>/dev/null | head -n 1)
if [ $rc != 0 ] || [ -z "$raw" ]; then
    echo "FAIL: bench/run-scale.sh ended with status $rc:"
    tail -n 5 "$work/log"
    exit 1
fi

# raw lines: JOB N F PID PROTO SENT SENT_B RECV RECV_B ROUNDS, or JOB N F FAILED ...
python3 - "$raw" "$n" "$limit" <<'EOF'
import sys
from collections import defaultdict

raw, n, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
protocol = {"recover": "recovery", "rebuild": "rebuild", "commit": "commit", "shrink": "agree"}
worst = defaultdict(lambda: [0, 0, 0])
failed = []
for line in open(raw):
    w = line.split()
    if len(w) < 4 or w[1] != n:
        continue
    if w[3] == "FAILED":
        failed.append(" ".join(w[:3]))
    elif len(w) == 10 and w[4] == protocol.get(w[0].split("@")[0]):
        key = (w[0], w[2])
        for i, v in enumerate((int(w[5]), int(w[7]), int(w[9]))):
            worst[key][i] = max(worst[key][i], v)
bad = 0
for name in failed:
    print("FAIL: job %s did not complete" % name)
    bad = 1
expected = [(j, f) for j in ("recover", "rebuild", "commit", "shrink") for f in ("1", "2")] + \
    [(j, "1") for j in ("recover@0", "rebuild@0", "commit@0", "shrink@0")]
for key in expected:
    if key not in worst:
        if not any(name.startswith("%s %s %s" % (key[0], n, key[1])) for name in failed):
            print("FAIL: no counts for %s with %s killed" % key)
            bad = 1
        continue
    sent, received, rounds = worst[key]
    over = max(sent, received, rounds) > limit
    print("%s%-10s f=%s at n=%s: sent %d, received %d, rounds %d (limit %d)" %
          ("FAIL: " if over else "", key[0], key[1], n, sent, received, rounds, limit))
    bad |= over
sys.exit(bad)
EOF
