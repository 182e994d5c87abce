#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# mpiexec -inject-failure (and MPIEXEC_INJECT_FAILURE): a bad specification
# is refused with one line before anything is launched; kills land at the
# times asked (counted from the end of every process's MPI_Init) with
# the signal asked, and each is printed; the random mode prints what it
# drew and draws the same kills again for the same seed (and a run replays
# from the printed list); a REBUILD replacement is not the target of a
# kill already made. The program (inject_target) has no kill logic of its
# own.
set -u
. "$(dirname "$0")/common.bash"
build inject_target || exit 1
fail=0
say() { echo "$*"; }
bad() { echo "FAIL: $*"; fail=1; }

# ---- refused specifications ----
for spec in "9@1" "x@1" "1@abc" "1@1:FOO" "1@1,1@2" "random:5@0-1:3" "random:2@2-1:3" \
            "random:2@0-1" "1@-2" ""; do
    start=$(date +%s%N)
    out=$(tagged_run 30 "$prefix/bin/mpiexec" -n 4 -inject-failure "$spec" "$bin/inject_target" 1 2>&1)
    rc=$?
    secs=$(( ($(date +%s%N) - start) / 1000000 ))
    lines=$(printf '%s\n' "$out" | grep -c .)
    if [ -z "$spec" ]; then
        # an empty specification injects nothing
        [ $rc = 0 ] && ! grep -q injected <<<"$out" || bad "empty spec: status $rc: $out"
        continue
    fi
    if [ $rc = 0 ] || [ "$lines" != 1 ] || ! grep -q "^mpiexec: -inject-failure '$spec'" <<<"$out"; then
        bad "spec '$spec': status $rc, $lines lines: $out"
    else
        say "spec '$spec' refused in ${secs} ms: $out"
    fi
done
out=$(MPIEXEC_INJECT_FAILURE=1@x tagged_run 30 "$prefix/bin/mpiexec" -n 2 "$bin/inject_target" 1 2>&1)
grep -q "^mpiexec: MPIEXEC_INJECT_FAILURE '1@x'" <<<"$out" || bad "the variable's bad value: $out"

# ---- kills at given times, with given signals (SHRINK) ----
out=$(FTMPI_COMM_MODE=shrink tagged_run 60 "$prefix/bin/mpiexec" -n 4 \
      -inject-failure 1@0.8,3@1.3:TERM "$bin/inject_target" 2.5 2>&1)
rc=$?
k1=$(grep -o "injected SIGKILL into rank 1 at [0-9.]* s" <<<"$out" | awk '{print $7}')
k3=$(grep -o "injected SIGTERM into rank 3 at [0-9.]* s" <<<"$out" | awk '{print $7}')
if [ $rc != 0 ] || [ "$(grep -c 'rank [0-9]: No Errors' <<<"$out")" != 2 ] ||
   [ -z "$k1" ] || [ -z "$k3" ] || [ "$(grep -c 'died before MPI_Finalize' <<<"$out")" != 2 ]; then
    bad "explicit kills: status $rc:"; echo "$out" | head -n 20
elif ! awk -v a="$k1" -v b="$k3" 'BEGIN { exit !(a >= 0.8 && a < 0.9 && b >= 1.3 && b < 1.4) }'; then
    bad "explicit kills at $k1 s and $k3 s, asked for 0.8 s and 1.3 s"
else
    say "explicit kills: SIGKILL into rank 1 at $k1 s, SIGTERM into rank 3 at $k3 s; 2 survivors"
fi

# ---- the random mode replays ----
plan() { grep -o "draws .*" <<<"$1"; }
kills() { grep -o "injected SIG[A-Z]* into rank [0-9]*" <<<"$1" | sort; }
run_random() {
    FTMPI_COMM_MODE=blank tagged_run 60 "$prefix/bin/mpiexec" -n 5 -inject-failure "$1" \
        "$bin/inject_target" 2.5 2>&1
}
a=$(run_random random:2@0.5-1.5:20261124)
b=$(run_random random:2@0.5-1.5:20261124)
c=$(run_random random:2@0.5-1.5:7)
drawn=$(plan "$a" | sed 's/^draws //')
d=$(run_random "$drawn")
if [ -z "$(plan "$a")" ] || [ "$(kills "$a" | wc -l)" != 2 ]; then
    bad "random: no plan or not 2 kills:"; echo "$a" | head -n 10
elif [ "$(plan "$a")" != "$(plan "$b")" ] || [ "$(kills "$a")" != "$(kills "$b")" ]; then
    bad "random: the same seed drew '$(plan "$a")' then '$(plan "$b")'"
elif [ "$(plan "$a")" = "$(plan "$c")" ]; then
    bad "random: seeds 20261124 and 7 drew the same '$(plan "$a")'"
elif [ "$(kills "$a")" != "$(kills "$d")" ]; then
    bad "random: the printed plan '$drawn' does not replay"
elif [ "$(grep -c 'rank [0-9]: No Errors' <<<"$a$b$c$d")" != 12 ]; then
    bad "random: expected 3 survivors in each of 4 runs:"; echo "$a" "$b" "$c" "$d" | grep -E 'No Errors|Found'
else
    say "random:2@0.5-1.5:20261124 $(plan "$a") twice (seed 7: $(plan "$c")); the plan replays as a list"
fi

# ---- REBUILD: the replacement of a killed rank is left alone ----
out=$(FTMPI_COMM_MODE=rebuild tagged_run 90 "$prefix/bin/mpiexec" -n 4 \
      -inject-failure 2@0.8 "$bin/inject_target" 2.5 2>&1)
rc=$?
if [ $rc != 0 ] || [ "$(grep -c 'injected' <<<"$out")" != 1 ] ||
   [ "$(grep -c 'rank [0-9]: No Errors' <<<"$out")" != 4 ] ||
   [ "$(grep -c 'died before MPI_Finalize' <<<"$out")" != 1 ]; then
    bad "rebuild: status $rc:"; echo "$out" | head -n 20
else
    say "rebuild: rank 2 killed once, its replacement finished with the others"
fi
no_process_left || fail=1
exit $fail
