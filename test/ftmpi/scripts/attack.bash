# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# Sourced by the attack tests (attack_*.sh) after common.bash:
# an outsider, test/ftmpi/attacker.c run as uid nobody, against 4-process
# jobs of root's (test/ftmpi/attack_target.c). Every attacked job must end
# as if nothing had happened:
#   - mpiexec exits 0 and each of the 4 processes reports
#     " rank R: No Errors" (none reports errors);
#   - nothing on the job's output says a process was declared failed,
#     died, is dead, or that a proxy/node was lost or given up
#     ($ATTACK_DEATH_LINES);
#   - the secret in mpiexec's environment (FTMPI_TEST_SECRET) is nowhere
#     in what the attacker received or printed.
# The scripts add their own checks (the linked file untouched).
#
# attack_setup: skips (exit 77) unless root with setpriv and a user nobody;
# makes $tmp (removed at exit), the attacker's own folder $adir, the
# attacker program $attacker, and $secret.

ATTACK_DEATH_LINES='declared failed|died|dead|ended by signal|lost the proxy|ending the job|giving up|BAD TERMINATION|fence'
ATTACK_JOB_LIMIT=90

attack_setup() {
    [ "$(id -u)" = 0 ] || { echo "the attack tests run as root (the job's owner; the attacker is nobody)"; exit 77; }
    command -v setpriv >/dev/null || { echo "no setpriv (util-linux) to run the attacker as another user"; exit 77; }
    command -v gcc >/dev/null || { echo "no gcc to build the attacker"; exit 77; }
    attack_user=nobody
    attack_group=$(id -gn nobody 2>/dev/null) || { echo "no user nobody to attack as"; exit 77; }
    # anyone may read /proc/net/* and /proc/PID/comm: unless /proc hides them
    if mount | grep -E '^proc on /proc .*hidepid=([12]|invisible|noaccess)' >/dev/null; then
        echo "/proc is mounted with hidepid: the attacker cannot see the job"; exit 77
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftmpi-attack.XXXXXX") || exit 1
    chmod 0755 "$tmp"
    trap 'attack_cleanup' EXIT
    adir=$tmp/attacker
    mkdir "$adir"
    chown "$attack_user:$attack_group" "$adir"
    chmod 0700 "$adir"
    attacker=$tmp/attacker.bin
    gcc -O2 -Wall -o "$attacker" "$src/attacker.c" || { echo "FAIL: the attacker does not compile"; exit 1; }
    chmod 0755 "$attacker"
    as_attacker snapshot "$adir/probe" ||
        { echo "nobody cannot run the attacker from $tmp (mounted noexec? set TMPDIR)"; exit 77; }
    secret=ftmpi-secret-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    fail=0
    attack_jobs=0
    label=setup
}

attack_cleanup() {
    [ -n "${planter:-}" ] && kill "$planter" 2>/dev/null
    rm -rf "$tmp"
}

# bad MESSAGE: the case $label failed
failed_cases=()
bad() {
    echo "FAIL: $*"
    fail=1
    local c
    for c in "${failed_cases[@]}"; do [ "$c" = "$label" ] && return; done
    failed_cases+=("$label")
}

# attack_finish: nothing of the jobs may be left; the last line sums up
attack_finish() {
    no_process_left || { label="processes left behind"; bad "$label"; }
    if [ $fail = 0 ]; then
        echo "all $attack_jobs attacked jobs unharmed"
    else
        local list c
        list=$(for c in "${failed_cases[@]}"; do printf '%s; ' "$c"; done)
        echo "FAIL: ${#failed_cases[@]} of $attack_jobs case(s) failed: ${list%; }"
    fi
    exit $fail
}

# as_attacker ARGS...: the attacker program as nobody, in its own folder
# (with $attacker_nofile descriptors at most where that is set)
as_attacker() {
    local limit=${attacker_nofile:-}
    (cd "$adir" && ${limit:+prlimit --nofile=$limit:$limit --} \
        setpriv --reuid="$attack_user" --regid="$attack_group" --clear-groups -- "$attacker" "$@")
}

# as_group_member ARGS...: the attacker program as nobody with the job
# owner's primary group (root's) among its groups
as_group_member() {
    (cd "$adir" && setpriv --reuid="$attack_user" --regid="$attack_group" \
        --groups="$(id -g)" -- "$attacker" "$@")
}

# attack_snapshot: the attacker notes the sockets that exist before the job
# (into $adir/snapshot)
attack_snapshot() {
    as_attacker snapshot "$adir/snapshot" || bad "the attacker could not take its snapshot"
}

# start_job MODE PROGRAM ARGS...: a 4-process job in MODE (shrink: SHRINK
# with MANUAL recovery; ulfm: ULFM) in the background with the secret in
# mpiexec's environment; sets $job (its pid), $out (its output file), $ready
# and $stop (the target's files). Extra variables for the job: $job_env;
# extra options of mpiexec: $mpiexec_args; what runs mpiexec (the
# simulated cluster's `run`): $job_runner.
start_job() {
    local mode=$1
    shift
    attack_jobs=$((attack_jobs + 1))
    out=$tmp/job$attack_jobs.out
    ready=$tmp/job$attack_jobs.ready
    stop=$tmp/job$attack_jobs.stop
    # (exported, never on a command line: every user sees those)
    (
        export FTMPI_TEST_SECRET=$secret ATTACK_READY_FILE=$ready ATTACK_STOP_FILE=$stop
        case $mode in
            shrink) export FTMPI_COMM_MODE=shrink ;;
            ulfm) export FTMPI_RECOVERY_MODE=ulfm ;;
        esac
        for kv in ${job_env:-}; do export "$kv"; done
        tagged_run $ATTACK_JOB_LIMIT ${job_runner:-} "$prefix/bin/mpiexec" ${mpiexec_args:-} -n 4 "$@"
    ) >"$out" 2>&1 &
    job=$!
}

# wait_ready: 0 once the job's processes are all running (60 s at most),
# 1 (and says so) if the job ended or hung before
wait_ready() {
    local i
    for ((i = 0; i < 600; i++)); do
        [ -e "$ready" ] && return 0
        kill -0 "$job" 2>/dev/null || break
        sleep 0.1
    done
    bad "$label: the job never got going (status of the job: $(kill -0 "$job" 2>/dev/null && echo running || echo ended)):"
    sed 's/^/      /' "$out" | head -n 15
    return 1
}

# finish_job: lets the job end (the target stops once $stop exists) and
# sets $rc to mpiexec's exit status
finish_job() {
    touch "$stop"
    wait "$job"
    rc=$?
}

# judge ATTACKER_FILES...: the common verdict on the job just finished
# ($label, $rc, $out) and on what the attacker got (the files named)
judge() {
    local n found deaths leaked= f ok=1
    n=$(grep -Eao "^ rank [0-3]: No Errors" "$out" | sort -u | wc -l)
    found=$(grep -Eac "rank [0-9]+: Found|check failed" "$out")
    deaths=$(grep -Eai "$ATTACK_DEATH_LINES" "$out" | head -n 5)
    for f in "$@"; do
        [ -f "$f" ] && grep -aqF "$secret" "$f" && leaked="$leaked $(basename "$f")"
    done
    if [ "$rc" != 0 ]; then ok=0; echo "  mpiexec exited with status $rc"; fi
    if [ "$n" != 4 ] || [ "$found" != 0 ]; then
        ok=0; echo "  $n of 4 processes reported No Errors, $found error line(s)"
    fi
    if [ -n "$deaths" ]; then ok=0; echo "  failures declared:"; printf '%s\n' "$deaths" | sed 's/^/      /'; fi
    if [ -n "$leaked" ]; then ok=0; echo "  mpiexec's environment (the secret) reached the attacker:$leaked"; fi
    if [ $ok = 1 ]; then
        echo "$label: the job is unharmed (4 processes correct, status 0, nothing declared failed, nothing leaked)"
    else
        bad "$label"
        echo "  the job's output (last lines):"
        grep -av "^attack_target: rank" "$out" | tail -n 12 | sed 's/^/      | /'
    fi
}

# end_flooded_job GO FLOODER: lets the job go on (creates GO), waits for it
# and for the flooder (whose output, $adir/flood.out, is shown); sets rc
# (mpiexec's status), reported (processes that reported No Errors) and
# found (error lines of the job's output)
end_flooded_job() {
    touch "$1"
    wait "$job"
    rc=$?
    wait "$2"
    sed 's/^/  /' "$adir/flood.out"
    reported=$(grep -Eao "^ rank [0-3]: No Errors" "$out" | sort -u | wc -l)
    found=$(grep -Eac "rank [0-9]+: Found|check failed" "$out")
}

# flood_and_go COMMAND...: the flooding COMMAND in the background (its
# output in $adir/flood.out); $GO_AFTER seconds later the job goes on
# ($go), and both are waited for (end_flooded_job)
flood_and_go() {
    "$@" >"$adir/flood.out" 2>&1 &
    local flooder=$!
    sleep "$GO_AFTER"
    end_flooded_job "$go" "$flooder"
}

# job_ended_right: whether mpiexec exited 0 and the 4 processes reported
# No Errors and no error (says what was wrong otherwise)
job_ended_right() {
    local right=0
    [ "$rc" = 0 ] || { right=1; echo "  mpiexec exited with status $rc"; }
    [ "$reported" = 4 ] && [ "$found" = 0 ] ||
        { right=1; echo "  $reported of 4 processes reported No Errors, $found error line(s)"; }
    return $right
}

# bad_job: the case $label failed; shows the end of the job's output
bad_job() {
    bad "$label"
    echo "  the job's output (last lines):"
    tail -n 12 "$out" | sed 's/^/      | /'
}
