#!/usr/bin/env python3
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
"""FT-MPICH: where recovery time goes, step by step.

Runs bench/recover.c (SIGKILL of one rank, the survivors recover) with the
protocol trace on (MPIR_CVAR_FTMPI_TRACE=1) and puts each run's trace lines
on one time line from the SIGKILL. Per run, each milestone is the time at
which the LAST survivor passed it (the first for "coordinator decides");
the table shows the median over runs, and the step between milestones:

  first survivor learns  the first trace line naming the victim, anywhere
  failure learned      the survivor's first trace line naming the victim
  recovery starts      "recover: starts" (or its JOIN, on builds without it)
  JOIN sent            it sent its JOIN to the coordinator
  coordinator decides  the agreement's decision
  DECIDE applied       the survivor has the decision (coordinator: at once)
  epoch begins         the device moved to the new epoch (drains, endpoints)
  objects destroyed    communicators, groups, windows of the old world
  world shrunk/rebuilt MPI_COMM_WORLD rebuilt for the new world
  recovery done        "recover: done"
  call returns         the program's clock when MPI_Comm_dup (MANUAL) or the
                       failed call (AUTO) returned

  bench/profile-recover.py [--prefix install] [--np 4,8] [--runs 7]
                           [--mode shrink/manual] [--keep DIR]

All processes run on one machine, so their clocks agree; every mpiexec
runs under a time-out; more processes than cores are labelled
oversubscribed.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = re.compile(r"^\[ftmpi (\d+) (\d+)\.(\d+)\] (.*)$")

MILESTONES = [
    ("first survivor learns", "first"),
    ("failure learned", "last"),
    ("recovery starts", "last"),
    ("JOIN sent", "last"),
    ("coordinator decides", "first"),
    ("DECIDE applied", "last"),
    ("objects destroyed", "last"),
    ("epoch begins", "last"),
    ("world shrunk/rebuilt", "last"),
    ("recovery done", "last"),
    ("call returns", "last"),
]


def classify(text, victim):
    if re.match(r"failure: process %d \(" % victim, text):
        return "failure learned"
    if text.startswith("recover: starts"):
        return "recovery starts"
    if re.match(r"agree: join (coordinator|parent) ", text):
        return "JOIN sent"
    if text.startswith("agree: decides"):
        return "coordinator decides"
    if re.match(r"agree: decide epoch", text):
        return "DECIDE applied"
    if text.startswith("recover: objects destroyed"):
        return "objects destroyed"
    if re.match(r"epoch: \d+ begins", text):
        return "epoch begins"
    if text.startswith("recover: world"):
        return "world shrunk/rebuilt"
    if text.startswith("recover: done"):
        return "recovery done"
    return None


def one_run(args, n, victim, exe, env):
    try:
        p = subprocess.run(["timeout", "-k", "5", "30", os.path.join(args.prefix, "bin", "mpiexec"),
                            "-n", str(n), exe, str(victim)],
                           env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    if p.returncode in (124, 137):
        return None, "timed out"
    kill = None
    seen = {}          # milestone -> {pid: first time}
    survivors = 0
    for line in p.stdout.splitlines():
        f = line.split()
        if f[:1] == ["KILL"]:
            kill = float(f[1]) % 1000
        elif f[:1] == ["RECOVERED"]:
            survivors += 1
            seen.setdefault("call returns", {})[int(f[1])] = float(f[2]) % 1000
            if f[3] != "ok":
                return None, "broken world"
    for line in p.stderr.splitlines():
        m = TRACE.match(line)
        if not m:
            continue
        pid, t = int(m.group(1)), int(m.group(2)) + int(m.group(3)) / 1e6
        what = classify(m.group(4), victim)
        if what == "DECIDE applied" or what == "coordinator decides":
            seen.setdefault("DECIDE applied", {}).setdefault(pid, t)
        if what:
            seen.setdefault(what, {}).setdefault(pid, t)
        if what == "failure learned":
            seen.setdefault("first survivor learns", {}).setdefault(pid, t)
    if kill is None or survivors != n - 1:
        return None, "%d of %d survivors reported" % (survivors, n - 1)
    out = {}
    for name, which in MILESTONES:
        times = seen.get(name)
        if times:
            out[name] = ((max if which == "last" else min)(times.values()) - kill) * 1000
    # builds without "recover: starts": the JOIN is the start
    out.setdefault("recovery starts", out.get("JOIN sent"))
    return out, None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prefix", default=os.path.join(HERE, "..", "install"))
    ap.add_argument("--np", default="4,8")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--mode", default="shrink/manual", help="COMM/RECOVERY, e.g. blank/auto")
    args = ap.parse_args()
    args.prefix = os.path.abspath(args.prefix)
    comm, rec = args.mode.lower().split("/")
    cores = os.cpu_count() or 1
    exe = os.path.join(tempfile.mkdtemp(prefix="ftmpi-profile-"), "recover")
    if subprocess.run([os.path.join(args.prefix, "bin", "mpicc"), "-O2", "-o", exe,
                       os.path.join(HERE, "recover.c")]).returncode != 0:
        sys.exit("profile-recover.py: cannot build bench/recover.c")
    env = dict(os.environ, FTMPI_COMM_MODE=comm, FTMPI_RECOVERY_MODE=rec, MPIR_CVAR_FTMPI_TRACE="1")
    env["LD_LIBRARY_PATH"] = os.path.join(args.prefix, "lib") + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    print("where recovery time goes: %s/%s, ms after the SIGKILL (median of runs; each milestone when the "
          "last survivor passed it)" % (comm.upper(), rec.upper()))
    for n in [int(x) for x in args.np.split(",")]:
        results, failures = [], []
        for i in range(args.runs):
            r, why = one_run(args, n, (i * 3 + 1) % n, exe, env)
            (results.append(r) if r else failures.append(why))
        print("\n%d processes%s: %d runs%s" % (n, " (oversubscribed)" if n > cores else "", len(results),
                                               "; failed: " + ", ".join(failures) if failures else ""))
        print("%-22s %10s %10s" % ("milestone", "at ms", "step ms"))
        prev = 0.0
        for name, _ in MILESTONES:
            vals = [r[name] for r in results if r.get(name) is not None]
            if not vals:
                continue
            med = statistics.median(vals)
            print("%-22s %10.2f %10.2f" % (name, med, med - prev))
            prev = med


if __name__ == "__main__":
    main()
