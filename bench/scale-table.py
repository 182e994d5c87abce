#!/usr/bin/env python3
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
"""The table and plot of bench/run-scale.sh, from its raw file.

    scale-table.py RAW PNG CORES

RAW lines: "JOB N F PID PROTO SENT SENT_B RECV RECV_B ROUNDS" (a process's
counters), "JOB N F elapsed RANK SECONDS" and "JOB N F FAILED ...".
For each protocol (taken from the job that exercises it) and number of
victims: per process count, the messages each process sent (max, mean),
received (max), bytes sent (max), rounds, and max/log2(n); then the growth
that fits the series best (constant, log n or n, least squares on max sent
and on rounds)."""
import math
import subprocess
import sys
from collections import defaultdict

# protocol row -> (job that exercises it, counter it reads)
ROWS = [
    ("notify", "recover", "notify"),
    ("recovery", "recover", "recovery"),
    ("rebuild", "rebuild", "rebuild"),
    ("commit", "commit", "commit"),
    ("revoke", "revoke", "revoke"),
    ("agree", "revoke", "agree"),
    ("shrink", "shrink", "agree"),
    ("recovery@0", "recover@0", "recovery"),
    ("rebuild@0", "rebuild@0", "rebuild"),
    ("commit@0", "commit@0", "commit"),
    ("shrink@0", "shrink@0", "agree"),
]
MODELS = {"constant": lambda n: 1.0, "log n": lambda n: math.log2(n), "n": lambda n: float(n)}


def fit(points):
    """The model c*g(n) closest to the points in log space (the spread of
    log(y / g(n))), with c the geometric mean of y / g(n); zeros fit the
    constant 0."""
    if all(y == 0 for _, y in points):
        return ("constant", 0.0, 0.0)
    best = None
    for name, g in MODELS.items():
        logs = [math.log(max(y, 0.5) / g(n)) for n, y in points]
        mean = sum(logs) / len(logs)
        err = sum((l - mean) ** 2 for l in logs)
        if best is None or err < best[2] - 1e-9:
            best = (name, math.exp(mean), err)
    return best


def main():
    raw, png, cores = sys.argv[1], sys.argv[2], int(sys.argv[3])
    procs = defaultdict(lambda: defaultdict(dict))  # (job,n,f) -> pid -> proto -> counts
    elapsed = defaultdict(list)
    failed = set()
    for line in open(raw):
        w = line.split()
        if len(w) < 4:
            continue
        key = (w[0], int(w[1]), int(w[2]))
        if w[3] == "FAILED":
            failed.add(key)
        elif w[3] == "elapsed":
            elapsed[key].append(float(w[5]))
        elif len(w) == 10:
            procs[key][w[3]][w[4]] = [int(x) for x in w[5:]]

    print()
    print("%-10s %2s %5s %9s %9s %9s %10s %7s %12s" %
          ("protocol", "f", "procs", "sent max", "sent mean", "recv max", "bytes max", "rounds",
           "max/log2(n)"))
    series = defaultdict(list)
    for name, job, counter in ROWS:
        for f in (0, 1, 2):
            keys = sorted(k for k in set(procs) | failed if k[0] == job and k[2] == f)
            for key in keys:
                n = key[1]
                if key in failed:
                    print("%-10s %2d %5d  (run failed)" % (name, f, n))
                    continue
                rows = [p.get(counter, [0] * 5) for p in procs[key].values()]
                if not rows:
                    continue
                sent = [r[0] for r in rows]
                smax, smean = max(sent), sum(sent) / len(sent)
                rmax, bmax, rounds = max(r[2] for r in rows), max(r[1] for r in rows), \
                    max(r[4] for r in rows)
                print("%-10s %2d %5d %9d %9.1f %9d %10d %7d %12.2f%s" %
                      (name, f, n, smax, smean, rmax, bmax, rounds, smax / math.log2(n),
                       " *" if n > cores else ""))
                series[(name, f)].append((n, smax, rounds, smean))
    print("(* oversubscribed: no effect on counts; f = processes killed together"
          " (ranks n/2 and n-1; @0: rank 0 alone);"
          " rounds = longest chain of the protocol's messages)")

    print()
    print("growth that fits best (least squares of the logarithms, n >= 8)")
    print("%-10s %2s  %-18s %-18s %-18s" % ("protocol", "f", "msgs/process max", "msgs/process mean",
                                          "rounds"))
    for (name, f), pts in sorted(series.items()):
        pts = [p for p in pts if p[0] >= 8]
        if len(pts) < 3:
            continue
        m = fit([(n, s) for n, s, _, _ in pts])
        a = fit([(n, x) for n, _, _, x in pts])
        r = fit([(n, x) for n, _, x, _ in pts])
        print("%-10s %2d  %-18s %-18s %-18s" % (name, f, "%.2f * %s" % (m[1], m[0]),
                                              "%.2f * %s" % (a[1], a[0]), "%.2f * %s" % (r[1], r[0])))

    beats = []
    for key, pids in procs.items():
        if key[0] == "idle" and elapsed.get(key):
            secs = max(elapsed[key])
            if secs <= 0:
                continue
            counts = [p.get("heartbeat", [0] * 5)[0] for p in pids.values()]
            beats.append((key[1], max(counts) / secs, sum(counts) / len(counts) / secs))
    if beats:
        print()
        print("heartbeat in steady state (2 s idle jobs): datagrams sent per process per second")
        for n, mx, mean in sorted(beats):
            print("  n=%-4d max %.1f  mean %.1f" % (n, mx, mean))

    plot(series, png)


def plot(series, png):
    data = [(name, pts) for (name, f), pts in sorted(series.items()) if f == 1]
    if not data:
        return
    script = ["set terminal pngcairo size 1400,560 noenhanced font ',10'",
              "set output '%s'" % png,
              "set multiplot layout 1,2 title 'FT-MPICH protocols, one failure: counts (not timings)'",
              "set logscale x 2; set xlabel 'processes'; set grid; set key top left"]
    log2 = [(p[0], 0, 0, 0) for p in data[0][1]]
    for col, title in ((2, "messages sent per process (max)"), (3, "rounds")):
        script.append("set title '%s'" % title)
        parts = ["'-' using 1:%d with linespoints lw 2 title '%s'" % (col, name)
                 for name, _ in data]
        script.append("plot " + ", ".join(parts + ["'-' using 1:(log($1)/log(2)) with lines dt 2 title 'log2(n)'"]))
        for pts in [pts for _, pts in data] + [log2]:
            script.extend("%d %d %d" % (n, s, r) for n, s, r, _ in pts)
            script.append("e")
    script.append("unset multiplot")
    try:
        subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, check=True,
                       capture_output=True)
        print("plot: %s" % png)
    except (OSError, subprocess.CalledProcessError) as e:
        print("no plot (gnuplot: %s)" % (str(getattr(e, "stderr", "") or e).strip().splitlines() or ["?"])[0])


if __name__ == "__main__":
    main()
