#!/usr/bin/env python3
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
"""FT-MPICH random-kill soak.

Runs soak_workload under mpiexec in every fault-tolerance mode (the FT-MPI
modes and ULFM) and kills its processes from outside at random moments:
SIGKILL, _exit (SIGUSR2, which the workload turns into _exit), SIGSTOP
followed by SIGKILL, or SIGSTOP alone (the heartbeat must find it),
sometimes a second kill while the survivors recover from the first. It
also holds live processes that must stay in the job: SIGSTOP followed by
SIGCONT within the heartbeat timeout ("pause"), and gdb attached for
longer than the timeout, then detached ("gdb"); and some runs go on under
extra CPU load (a busy process per core). Each run is classified:

  ok      every process that was not killed reported no errors, mpiexec
          exited 0, nothing was left behind
  hang    mpiexec did not finish within the time limit
  crash   a process that was not killed died, or the job ended
  wrong   a process found wrong data or a wrong error code
  orphan  a process of the job was alive 3 s after mpiexec returned
  healthy a process that was neither killed nor stopped for good was
          declared failed (every "declared failed" line is matched against
          the kills the soak made)
  warn    UCX printed a warning or error, or MPICH an internal error
  fenced  ok, except that a process that was not killed found that it
          received nothing any more (a shared-memory queue left blocked by a
          killed sender) and left the job as failed, as the library does
          instead of hanging; counted apart, as passed

Every run prints its seed; `--replay SEED` runs exactly that plan again.

With --nodes N the job runs on N simulated nodes of 2 processes each
(test/cluster/cluster.sh: namespaces, TCP between nodes; needs root) and
the events are whole-node ones as well: every process of a node killed at
once with its launcher proxy ("nodekill"), a node frozen ("nodefreeze")
or its link cut ("nodecut") for the rest of the run, besides single
processes killed. The frozen or cut node's processes must be declared
failed and must end once the node is back.

  soak.py --prefix install --kills 1000          # make soak (with a node soak)
  soak.py --prefix install --short               # the part make check runs
  soak.py --prefix install --nodes 3 --runs 20   # node-level events
"""

import argparse
import atexit
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
# the short soak's runs beyond one per mode: (mode, processes, events in
# order, under load)
SHORT_EXTRA = [
    (("blank", "manual", "cont", "nonatomic"), 6, "kill,kill", True),
    (("shrink", "auto", "cont", "nonatomic"), 6, "kill,stopkill", False),
    (("blank", "auto", "reset", "nonatomic"), 4, "pause,kill", False),
    (("shrink", "manual", "reset", "nonatomic"), 4, "gdb,kill", True),
]
# the library's default (MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT)
HEARTBEAT_TIMEOUT_S = 3.0
# methods after which the process must stay in the job and finish
HOLDS = ("pause", "gdb")
# whole-node events (--nodes)
NODE_METHODS = ("nodekill", "nodefreeze", "nodecut")
CLUSTER = os.path.join(HERE, "..", "cluster", "cluster.sh")
DECLARED_RE = re.compile(r"^FT-MPICH: process (\d+) \(os pid (\d+)\) (.* and is declared failed"
                         r"|was declared failed by the others)", re.M)


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

    def __init__(self, seed, modes, np_min, np_max, methods, duration, mode=None, load_share=0.0,
                 events=None, nodes=0):
        rng = random.Random(seed)
        self.seed = seed
        pick = rng.random()
        self.mode = mode or modes[int(pick * len(modes))]
        self.np = np_min + int(rng.random() * (np_max - np_min + 1))
        self.nodes = nodes
        if nodes:
            self.np = 2 * nodes
        self.load = rng.random() < load_share
        rebuild = self.mode[0] == "rebuild"
        max_kills = 3 if rebuild else max(1, min(3, self.np - 2))
        self.kills = []
        t = rng.uniform(0.2, duration * 0.5)
        count = rng.choice([1, 1, 2, 2, 3])
        for i in range(events or count):
            if (not events and i >= max_kills) or t > duration - 1.0:
                break
            # events: the methods in the order given
            method = methods[i % len(methods)] if events else methods[int(rng.random() * len(methods))]
            # a victim among the live processes, chosen when the kill is due;
            # how long a stopkill stops it, a pause pauses it (well within the
            # heartbeat timeout) or gdb holds it (past the timeout)
            hold = {"pause": rng.uniform(0.3, 1.5), "gdb": HEARTBEAT_TIMEOUT_S + rng.uniform(0.5, 2.0)}
            # one whole node at most: the job keeps a node besides the one
            # of the process it loses
            if method in NODE_METHODS and any(k[1] in NODE_METHODS for k in self.kills):
                method = "kill"
            self.kills.append((t, method, rng.random(), hold.get(method, rng.uniform(0.15, 0.6))))
            # the next one often lands during the recovery from this one
            t += rng.uniform(0.0, 0.03) if rng.random() < 0.4 else rng.uniform(0.2, 1.2)

    def describe(self):
        return "%s np %d%s%s" % (mode_name(self.mode), self.np,
                                 " on %d nodes" % self.nodes if self.nodes else "",
                                 " loaded" if self.load else "")


def cluster(*words, check=True):
    """Runs test/cluster/cluster.sh with the soak's cluster name."""
    return subprocess.run([CLUSTER] + [str(w) for w in words], check=check, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout


def node_pids(node):
    return set(int(p) for p in cluster("pids", node).split())


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


def hold_under_gdb(pid, seconds):
    """Attach gdb to pid, keep it stopped for `seconds`, detach."""
    return subprocess.Popen(["gdb", "-p", str(pid), "-batch", "-ex", "shell sleep %.2f" % seconds],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)


# Process groups of the job and the load under way: a soak that is itself
# ended (Ctrl-C, SIGTERM, an error) ends them, and leaves nothing running.
live_groups = set()


def end_live_groups():
    for pgid in list(live_groups):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    live_groups.clear()


def start_load():
    """A busy process per core: the load a busy node puts on the job."""
    hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=True)
            for _ in range(os.cpu_count() or 1)]
    live_groups.update(h.pid for h in hogs)
    return hogs


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
    if plan.nodes:
        cmd = [CLUSTER, "run", cmd[0], "-hosts", args.hosts, "-ppn", "2"] + cmd[1:]
    logf = open(log_path, "w+")
    logf.write("# seed %d %s\n# %s\n" % (plan.seed, plan.describe(), " ".join(cmd)))
    logf.flush()
    hogs = start_load() if plan.load else []
    start = time.time()
    proc = subprocess.Popen(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    live_groups.add(proc.pid)

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
    held = set()        # paused or held under gdb: must finish as the others
    holders = []        # gdb processes still holding one
    stopped_node = None  # (node, how to bring it back) of a frozen or cut node
    if ready_at is not None:
        for (t, method, pick, stop_for) in plan.kills:
            while proc.poll() is None and time.time() < ready_at + t:
                time.sleep(0.002)
            if proc.poll() is not None:
                break
            candidates = sorted((p0, pid) for pid, p0 in started_ranks(rundir).items()
                                if pid not in killed and pid not in held and alive(pid, marker))
            if len(candidates) <= (0 if plan.mode[0] == "rebuild" else 1):
                break
            if method == "gdb" and not shutil.which("gdb"):
                continue
            pid0, pid = candidates[int(pick * len(candidates))]
            when = time.time() - ready_at
            if method in NODE_METHODS:
                # the node of the victim drawn; its processes count as killed
                node = next((n for n in range(1, plan.nodes + 1) if pid in node_pids(n)), None)
                if node is None:
                    continue
                on_node = set(p for p in started_ranks(rundir) if p in node_pids(node))
                verb = {"nodekill": "kill", "nodefreeze": "freeze", "nodecut": "cut"}[method]
                cluster(verb, node)
                if method != "nodekill":
                    stopped_node = (node, "thaw" if method == "nodefreeze" else "heal")
                killed |= on_node
                done_kills.append("%s %d@%.3fs" % (method, node, when))
                continue
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
                elif method == "pause":
                    os.kill(pid, signal.SIGSTOP)
                    time.sleep(stop_for)
                    os.kill(pid, signal.SIGCONT)
                elif method == "gdb":
                    holders.append(hold_under_gdb(pid, stop_for))
            except ProcessLookupError:
                continue
            (held if method in HOLDS else killed).add(pid)
            done_kills.append("%s %d@%.3fs" % (method, pid0, when))

    try:
        rc = proc.wait(timeout=max(1, limit - (time.time() - start)))
        hung = False
    except subprocess.TimeoutExpired:
        hung = True
        rc = None
    elapsed = time.time() - start
    if stopped_node:
        # what ran on the node ends once it is back
        cluster(stopped_node[1], stopped_node[0])
    for h in holders:
        try:
            h.wait(timeout=30)
        except subprocess.TimeoutExpired:
            h.kill()
            h.wait()
    for h in hogs:
        h.kill()
        h.wait()
        live_groups.discard(h.pid)

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
        deadline = time.time() + (10.0 if stopped_node else 3.0)
        while time.time() < deadline and job_processes(marker):
            time.sleep(0.05)
        orphans = job_processes(marker)
        for p in orphans:
            try:
                os.kill(p, signal.SIGCONT)
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
    live_groups.discard(proc.pid)

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
        problems.append(("orphan", "%d process(es) alive %d s after mpiexec returned" %
                         (len(orphans), 10 if stopped_node else 3)))
    # every "declared failed" must name a process the soak killed or
    # stopped for good
    healthy = sorted(set(int(m.group(2)) for m in DECLARED_RE.finditer(output)) - killed - fenced)
    if healthy:
        problems.append(("healthy", "process(es) with os pid %s declared failed but not killed" %
                         ",".join(map(str, healthy))))
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
    atexit.register(end_live_groups)
    # SIGTERM and SIGHUP end the soak as Ctrl-C does: through the cleanups
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
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
    ap.add_argument("--methods", default="kill,kill,kill,kill,exit,stopkill,pause,gdb",
                    help="methods to draw from: kill, exit, stopkill, stop (the process must be "
                    "declared failed), pause, gdb (it must stay in the job)")
    ap.add_argument("--events", type=int, default=0,
                    help="exactly this many events per run, the methods in the order given")
    ap.add_argument("--load-share", type=float, default=0.25,
                    help="share of the runs made under a busy process per core")
    ap.add_argument("--duration", type=float, default=4.0, help="seconds of workload per run")
    ap.add_argument("--grace", type=float, default=40.0, help="seconds past the workload before a run counts as hung")
    ap.add_argument("--logdir", default=None)
    ap.add_argument("--keep-logs", action="store_true")
    ap.add_argument("--backtrace", action="store_true", help="gdb backtraces of a hung run's processes")
    ap.add_argument("--machine-readable", action="store_true", help="one 'name result seconds detail' line per run")
    ap.add_argument("--nodes", type=int, default=0,
                    help="run on this many simulated nodes of 2 processes (needs root); the "
                    "methods then default to whole-node events and single kills")
    ap.add_argument("--without", action="append", default=[], metavar="WORD",
                    help="leave out the modes that contain WORD, e.g. rebuild (repeatable)")
    args = ap.parse_args()

    args.prefix = os.path.abspath(args.prefix)
    modes = [m for m in (args.mode or ALL_MODES) if not set(w.lower() for w in args.without) & set(m)]
    if not modes:
        print("soak.py: --mode/--without leave no mode to run", file=sys.stderr)
        return 2
    methods = args.methods.split(",")
    if args.nodes:
        if args.nodes < 2:
            print("soak.py: --nodes needs at least 2 nodes", file=sys.stderr)
            return 2
        if args.short:
            print("soak.py: --short and --nodes do not go together", file=sys.stderr)
            return 2
        if args.methods == ap.get_default("methods"):
            methods = ["nodekill", "nodekill", "nodefreeze", "nodecut", "kill"]
        for m in methods:
            if m in HOLDS:
                print("soak.py: --nodes runs no holds (%s)" % m, file=sys.stderr)
                return 2
    logdir = args.logdir or os.path.join(HERE, "logs")
    os.makedirs(logdir, exist_ok=True)
    args.workload = os.path.join(logdir, "soak_workload")
    mpicc = os.path.join(args.prefix, "bin", "mpicc")
    if subprocess.run([mpicc, "-O2", "-Wall", "-o", args.workload,
                       os.path.join(HERE, "soak_workload.c")]).returncode != 0:
        print("soak.py: cannot build soak_workload with %s" % mpicc, file=sys.stderr)
        return 2

    # the short soak: every mode once with kills only, then SHORT_EXTRA
    runs = []
    if args.short and not args.replay:
        runs = [dict(mode=m, methods=["kill", "kill", "kill", "exit", "stopkill"], load_share=0.0)
                for m in modes]
        runs += [dict(mode=m, np=n, methods=how.split(","), events=len(how.split(",")),
                      load_share=1.0 if loaded else 0.0)
                 for (m, n, how, loaded) in SHORT_EXTRA if m in modes]
        args.runs = len(runs)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**9)
    seeds = list(args.replay)

    if args.nodes:
        os.environ["FTMPI_CLUSTER"] = "sk%d" % os.getpid()
        probe = subprocess.run([CLUSTER, "check"], text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
        if probe.returncode != 0:
            print("soak.py: cannot make simulated nodes: %s" % probe.stdout.strip(), file=sys.stderr)
            return 77
        cluster("up", args.nodes)
        args.hosts = cluster("hosts").strip()
    try:
        return soak(args, modes, methods, runs, seed, seeds, logdir)
    finally:
        if args.nodes:
            cluster("down", check=False)


def soak(args, modes, methods, runs, seed, seeds, logdir):
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
        how = runs[index] if runs else dict(methods=methods, load_share=args.load_share,
                                            events=args.events)
        np_min, np_max = (how["np"], how["np"]) if "np" in how else (args.np_min, args.np_max)
        plan = Plan(s, modes, np_min, np_max, how["methods"], args.duration,
                    how.get("mode"), how["load_share"], how.get("events"), args.nodes)
        verdict, problems, events, elapsed, log_path = run_one(args, plan, index, logdir)
        index += 1
        kills = [e for e in events if not e.startswith(HOLDS)]
        total_kills += len(kills)
        st = stats.setdefault(mode_name(plan.mode), {"runs": 0, "kills": 0, "holds": 0, "loaded": 0})
        st["runs"] += 1
        st["kills"] += len(kills)
        st["holds"] += len(events) - len(kills)
        st["loaded"] += plan.load
        st[verdict] = st.get(verdict, 0) + 1
        name = "soak seed %d %s" % (plan.seed, plan.describe())
        detail = "[%s]" % ", ".join(events)
        passed = verdict in ("ok", "fenced")
        if not passed:
            failed += 1
        if verdict != "ok":
            detail += " " + "; ".join("%s: %s" % p for p in problems) + \
                " (log: %s; replay: soak.py --replay %d --mode %s --np-min %d --np-max %d" \
                " --methods %s --load-share %g%s%s)" % (
                    log_path, plan.seed, mode_name(plan.mode), np_min, np_max,
                    ",".join(how["methods"]), how["load_share"],
                    " --events %d" % how["events"] if how.get("events") else "",
                    " --nodes %d" % args.nodes if args.nodes else "")
        if args.machine_readable:
            print("%s %s %.1f %s" % (name.replace(" ", "_"), "ok" if passed else "FAIL",
                                     elapsed, verdict + " " + detail))
        else:
            print("%-7s %-64s %5.1fs %s" % (verdict, name, elapsed, detail))
        sys.stdout.flush()

    if not args.machine_readable:
        cols = ["runs", "loaded", "kills", "holds", "ok", "hang", "crash", "wrong", "orphan", "healthy",
                "warn", "fenced"]
        print()
        print("%-36s" % "mode" + "".join(" %7s" % c for c in cols))
        tot = {}
        for name in sorted(stats):
            st = stats[name]
            print("%-36s" % name + "".join(" %7d" % st.get(c, 0) for c in cols))
            for k, v in st.items():
                tot[k] = tot.get(k, 0) + v
        print("%-36s" % "total" + "".join(" %7d" % tot.get(c, 0) for c in cols))
        print("%d passed, %d failed" % (index - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
