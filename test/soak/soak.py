#!/usr/bin/env python3
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
"""FT-MPICH random-kill soak.

Runs soak_workload under mpiexec in every fault-tolerance mode (the FT-MPI
modes and ULFM) and kills its processes from outside at random moments:
SIGKILL, _exit (SIGUSR2, which the workload turns into _exit), SIGSTOP
followed by SIGKILL, or SIGSTOP alone (the heartbeat must find it),
sometimes a second kill while the survivors recover from the first. Each
run is classified:

  ok      every process that was not killed reported no errors, mpiexec
          exited 0, nothing was left behind
  hang    mpiexec did not finish within the time limit
  crash   a process that was not killed died, or the job ended
  wrong   a process found wrong data or a wrong error code
  orphan  a process of the job was alive 3 s after mpiexec returned
  warn    UCX printed a warning or error, or MPICH an internal error
  fenced  ok, except that a process that was not killed found that it
          received nothing any more (a shared-memory queue left blocked by a
          killed sender) and left the job as failed, as the library does
          instead of hanging; counted apart, as passed

Every run prints its seed; `--replay SEED` runs exactly that plan again.

  soak.py --prefix install --kills 1000          # make soak
  soak.py --prefix install --short               # the part make check runs
"""

import argparse
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))

RECOVERING_MODES = [
    (comm, recovery, msg, coll)
    for comm in ("shrink", "blank", "rebuild")
    for recovery in ("manual", "auto")
    for msg in ("reset", "cont")
    for coll in ("nonatomic", "atomic")
]
IGNORE_MODES = [("blank", "ignore", "reset", "nonatomic"), ("shrink", "ignore", "cont", "nonatomic")]
# ULFM: the program revokes, agrees and shrinks; the job sets only
# FTMPI_RECOVERY_MODE (an FT-MPI mode variable besides it is refused)
ULFM_MODE = ("shrink", "ulfm", "reset", "nonatomic")
ALL_MODES = RECOVERING_MODES + IGNORE_MODES + [ULFM_MODE]


def mode_name(mode):
    return "/".join(m.upper() for m in mode)


def parse_mode(text):
    parts = tuple(p.lower() for p in text.split("/"))
    if parts not in ALL_MODES:
        raise argparse.ArgumentTypeError("unknown mode %s (e.g. SHRINK/MANUAL/RESET/NONATOMIC)" % text)
    return parts


class Plan:
    """What one run does, drawn from its seed alone (the same draws whatever
    the mode, so that a seed replays exactly with its mode given)."""

    def __init__(self, seed, modes, np_min, np_max, methods, duration, mode=None):
        rng = random.Random(seed)
        self.seed = seed
        pick = rng.random()
        self.mode = mode or modes[int(pick * len(modes))]
        self.np = np_min + int(rng.random() * (np_max - np_min + 1))
        rebuild = self.mode[0] == "rebuild"
        max_kills = 3 if rebuild else max(1, min(3, self.np - 2))
        self.kills = []
        t = rng.uniform(0.2, duration * 0.5)
        for i in range(rng.choice([1, 1, 2, 2, 3])):
            if i >= max_kills or t > duration - 1.0:
                break
            method = methods[int(rng.random() * len(methods))]
            # a victim among the live processes, chosen when the kill is due
            self.kills.append((t, method, rng.random(), rng.uniform(0.15, 0.6)))
            # the next one often lands during the recovery from this one
            t += rng.uniform(0.0, 0.03) if rng.random() < 0.4 else rng.uniform(0.2, 1.2)

    def describe(self):
        return "%s np %d" % (mode_name(self.mode), self.np)


def job_processes(marker):
    """OS pids of the processes whose environment holds the run's marker."""
    found = []
    key = ("FTMPI_SOAK_RUN=" + marker).encode()
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/environ", "rb") as f:
                env = f.read()
            with open(d + "/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if key in env.split(b"\0") and state != "Z":
            found.append(int(d[6:]))
    return found


def alive(pid, marker):
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            env = f.read()
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z" and ("FTMPI_SOAK_RUN=" + marker).encode() in env.split(b"\0")


def started_ranks(rundir):
    """{os pid: first world rank} of the workload processes past MPI_Init."""
    ranks = {}
    for path in glob.glob(os.path.join(rundir, "pid.*.*")):
        _, pid0, ospid = os.path.basename(path).split(".")
        ranks[int(ospid)] = int(pid0)
    return ranks


def backtraces(pids, out):
    if not shutil.which("gdb"):
        return
    # every process is stopped first: one held by gdb would otherwise miss
    # its heartbeats, be declared failed and killed, and change what the
    # others are doing before their turn comes
    for pid in pids:
        try:
            os.kill(pid, signal.SIGSTOP)
        except OSError:
            pass
    for pid in pids:
        out.write("\n==== backtrace of %d ====\n" % pid)
        out.flush()
        subprocess.run(["gdb", "-p", str(pid), "-batch", "-x", os.path.join(HERE, "state.gdb")],
                       stdout=out, stderr=subprocess.STDOUT, timeout=60)


def run_one(args, plan, index, logdir):
    marker = uuid.uuid4().hex
    rundir = tempfile.mkdtemp(prefix="soak.", dir=logdir)
    log_path = os.path.join(logdir, "run-%04d-seed-%d.log" % (index, plan.seed))
    env = dict(os.environ)
    env["FTMPI_SOAK_RUN"] = marker
    for var in ("FTMPI_COMM_MODE", "FTMPI_RECOVERY_MODE", "FTMPI_MSG_MODE", "FTMPI_COLL_MODE"):
        env.pop(var, None)
    if plan.mode == ULFM_MODE:
        env["FTMPI_RECOVERY_MODE"] = "ulfm"
    else:
        env.update({
            "FTMPI_COMM_MODE": plan.mode[0],
            "FTMPI_RECOVERY_MODE": plan.mode[1],
            "FTMPI_MSG_MODE": plan.mode[2],
            "FTMPI_COLL_MODE": plan.mode[3],
        })
    limit = args.duration + args.grace
    cmd = [os.path.join(args.prefix, "bin", "mpiexec"), "-n", str(plan.np), args.workload, rundir,
           str(args.duration)]
    logf = open(log_path, "w+")
    logf.write("# seed %d %s\n# %s\n" % (plan.seed, plan.describe(), " ".join(cmd)))
    logf.flush()
    start = time.time()
    proc = subprocess.Popen(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)

    # wait until every process is past MPI_Init
    ready_at = None
    while proc.poll() is None and time.time() - start < limit:
        with open(log_path) as f:
            if "SOAK READY" in f.read():
                ready_at = time.time()
                break
        time.sleep(0.01)

    done_kills = []
    killed = set()
    if ready_at is not None:
        for (t, method, pick, stop_for) in plan.kills:
            while proc.poll() is None and time.time() < ready_at + t:
                time.sleep(0.002)
            if proc.poll() is not None:
                break
            candidates = sorted((p0, pid) for pid, p0 in started_ranks(rundir).items()
                                if pid not in killed and alive(pid, marker))
            if len(candidates) <= (0 if plan.mode[0] == "rebuild" else 1):
                break
            pid0, pid = candidates[int(pick * len(candidates))]
            when = time.time() - ready_at
            try:
                if method == "kill":
                    os.kill(pid, signal.SIGKILL)
                elif method == "exit":
                    os.kill(pid, signal.SIGUSR2)
                elif method == "stopkill":
                    os.kill(pid, signal.SIGSTOP)
                    time.sleep(stop_for)
                    os.kill(pid, signal.SIGKILL)
                elif method == "stop":
                    os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                continue
            killed.add(pid)
            done_kills.append("%s %d@%.3fs" % (method, pid0, when))

    try:
        rc = proc.wait(timeout=max(1, limit - (time.time() - start)))
        hung = False
    except subprocess.TimeoutExpired:
        hung = True
        rc = None
    elapsed = time.time() - start

    orphans = []
    if hung:
        left = [p for p in job_processes(marker) if p != proc.pid]
        if args.backtrace:
            backtraces(left, logf)
        os.killpg(proc.pid, signal.SIGKILL)
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        proc.wait()
    else:
        deadline = time.time() + 3.0
        while time.time() < deadline and job_processes(marker):
            time.sleep(0.05)
        orphans = job_processes(marker)
        for p in orphans:
            try:
                os.kill(p, signal.SIGCONT)
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass

    logf.flush()
    logf.seek(0)
    output = logf.read()
    logf.close()

    started = started_ranks(rundir)
    deaf = set(int(d) for d in re.findall(r"^FT-MPICH: process (\d+) receives nothing", output, re.M))
    fenced = set(p for p, p0 in started.items() if p0 in deaf)
    expected = set(started) - killed - fenced
    ended = {}
    for m in re.finditer(r"^soak-end ospid (\d+) pid0 (\d+) rank (\d+) errors (\d+)", output, re.M):
        ended[int(m.group(1))] = int(m.group(4))
    problems = []
    if ready_at is None and not hung:
        problems.append(("crash", "the job ended before every process was ready (status %s)" % rc))
    if hung:
        problems.append(("hang", "mpiexec still running after %ds" % limit))
    if "WRONG" in output or any(e for e in ended.values()):
        problems.append(("wrong", "; ".join(re.findall(r"^WRONG.*$", output, re.M)[:3])))
    missing = [p for p in expected if p not in ended]
    if missing and not hung:
        problems.append(("crash", "process(es) %s that were not killed did not finish" %
                         ",".join(map(str, sorted(missing)))))
    # under ULFM mpiexec's status includes the killed processes', as stock
    # MPICH's does
    if not hung and rc != 0 and not missing and not (plan.mode == ULFM_MODE and killed):
        problems.append(("crash", "mpiexec exit status %s" % rc))
    if orphans:
        problems.append(("orphan", "%d process(es) alive 3 s after mpiexec returned" % len(orphans)))
    warning = re.search(r"^.*(UCX +(WARN|ERROR)|INTERNAL ERROR).*$", output, re.M)
    if warning:
        problems.append(("warn", warning.group(0)[:160]))

    if fenced and not problems:
        problems.append(("fenced", "process(es) %s received nothing and left the job" %
                         ",".join(map(str, sorted(deaf)))))
    verdict = problems[0][0] if problems else "ok"
    if verdict in ("ok", "fenced") and not args.keep_logs:
        os.unlink(log_path)
    shutil.rmtree(rundir, ignore_errors=True)
    return verdict, problems, done_kills, elapsed, log_path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prefix", default=os.path.join(HERE, "..", "..", "install"))
    ap.add_argument("--kills", type=int, default=0, help="run until this many kills were made")
    ap.add_argument("--runs", type=int, default=0, help="number of runs")
    ap.add_argument("--short", action="store_true", help="the short soak of make check")
    ap.add_argument("--seed", type=int, default=None, help="seed of the first run (then +1 each)")
    ap.add_argument("--replay", type=int, action="append", default=[], help="run this seed again")
    ap.add_argument("--mode", type=parse_mode, action="append", default=[],
                    help="restrict to a mode, e.g. BLANK/MANUAL/CONT/ATOMIC (repeatable)")
    ap.add_argument("--np-min", type=int, default=4)
    ap.add_argument("--np-max", type=int, default=8)
    ap.add_argument("--methods", default="kill,kill,kill,exit,stopkill",
                    help="kill methods to draw from: kill, exit, stopkill, stop")
    ap.add_argument("--duration", type=float, default=4.0, help="seconds of workload per run")
    ap.add_argument("--grace", type=float, default=40.0, help="seconds past the workload before a run counts as hung")
    ap.add_argument("--logdir", default=None)
    ap.add_argument("--keep-logs", action="store_true")
    ap.add_argument("--backtrace", action="store_true", help="gdb backtraces of a hung run's processes")
    ap.add_argument("--machine-readable", action="store_true", help="one 'name result seconds detail' line per run")
    ap.add_argument("--without", action="append", default=[], metavar="WORD",
                    help="leave out the modes that contain WORD, e.g. rebuild (repeatable)")
    args = ap.parse_args()

    args.prefix = os.path.abspath(args.prefix)
    modes = [m for m in (args.mode or ALL_MODES) if not set(w.lower() for w in args.without) & set(m)]
    if not modes:
        print("soak.py: --mode/--without leave no mode to run", file=sys.stderr)
        return 2
    methods = args.methods.split(",")
    logdir = args.logdir or os.path.join(HERE, "logs")
    os.makedirs(logdir, exist_ok=True)
    args.workload = os.path.join(logdir, "soak_workload")
    mpicc = os.path.join(args.prefix, "bin", "mpicc")
    if subprocess.run([mpicc, "-O2", "-Wall", "-o", args.workload,
                       os.path.join(HERE, "soak_workload.c")]).returncode != 0:
        print("soak.py: cannot build soak_workload with %s" % mpicc, file=sys.stderr)
        return 2

    if args.short:
        # every mode once, a few kills each: about five minutes on 2 cores
        args.runs = args.runs or len(modes)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**9)
    seeds = list(args.replay)

    stats = {}
    total_kills = 0
    failed = 0
    index = 0
    while True:
        if seeds:
            s = seeds.pop(0)
        elif args.replay:
            break
        elif (args.runs and index >= args.runs) or (args.kills and total_kills >= args.kills) or \
                (not args.runs and not args.kills and index >= 1):
            break
        else:
            s = seed + index
        # the short soak runs every mode once, in order, each with its own seed
        forced = modes[index % len(modes)] if args.short and not args.replay else None
        plan = Plan(s, modes, args.np_min, args.np_max, methods, args.duration, forced)
        verdict, problems, kills, elapsed, log_path = run_one(args, plan, index, logdir)
        index += 1
        total_kills += len(kills)
        st = stats.setdefault(mode_name(plan.mode), {"runs": 0, "kills": 0})
        st["runs"] += 1
        st["kills"] += len(kills)
        st[verdict] = st.get(verdict, 0) + 1
        name = "soak seed %d %s" % (plan.seed, plan.describe())
        detail = "[%s]" % ", ".join(kills)
        passed = verdict in ("ok", "fenced")
        if not passed:
            failed += 1
        if verdict != "ok":
            detail += " " + "; ".join("%s: %s" % p for p in problems) + \
                " (log: %s; replay: soak.py --replay %d --mode %s --np-min %d --np-max %d)" % (
                    log_path, plan.seed, mode_name(plan.mode), args.np_min, args.np_max)
        if args.machine_readable:
            print("%s %s %.1f %s" % (name.replace(" ", "_"), "ok" if passed else "FAIL",
                                     elapsed, verdict + " " + detail))
        else:
            print("%-6s %-58s %5.1fs %s" % (verdict, name, elapsed, detail))
        sys.stdout.flush()

    if not args.machine_readable:
        print()
        print("%-36s %5s %5s %5s %5s %5s %5s %6s %5s %6s" % ("mode", "runs", "kills", "ok", "hang",
                                                            "crash", "wrong", "orphan", "warn",
                                                            "fenced"))
        tot = {}
        for name in sorted(stats):
            st = stats[name]
            print("%-36s %5d %5d %5d %5d %5d %5d %6d %5d %6d" % (
                name, st["runs"], st["kills"], st.get("ok", 0), st.get("hang", 0), st.get("crash", 0),
                st.get("wrong", 0), st.get("orphan", 0), st.get("warn", 0), st.get("fenced", 0)))
            for k, v in st.items():
                tot[k] = tot.get(k, 0) + v
        print("%-36s %5d %5d %5d %5d %5d %5d %6d %5d %6d" % (
            "total", tot.get("runs", 0), tot.get("kills", 0), tot.get("ok", 0), tot.get("hang", 0),
            tot.get("crash", 0), tot.get("wrong", 0), tot.get("orphan", 0), tot.get("warn", 0),
            tot.get("fenced", 0)))
        print("%d passed, %d failed" % (index - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
