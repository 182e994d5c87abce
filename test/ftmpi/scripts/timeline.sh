#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# The recovery timeline: examples/cg_rebuild in REBUILD mode with rank 2
# killed by the launcher and MPIR_CVAR_FTMPI_TRACE_FILE set. Every process
# writes its trace; ftmpi-timeline tabulates and draws it. Checks: one
# trace per process (the replacement too); each survivor learned of the
# failure after the kill, recovered and resumed in that order, then
# restored its checkpoint; the replacement joined and restored; the PNG
# was written. TIMELINE_PNG=path keeps the picture there (README's
# docs/recovery-timeline.png is made that way).
set -u
. "$(dirname "$0")/common.bash"
build cg_rebuild || exit 1
png=${TIMELINE_PNG:-$bin/recovery-timeline.png}
trace=$bin/timeline-trace
rm -f "$trace".* "$png"
out=$(MPIR_CVAR_FTMPI_TRACE_FILE=$trace FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=auto \
      tagged_run 120 "$prefix/bin/mpiexec" -n 4 -inject-failure 2@1.0 "$bin/cg_rebuild" 160 300 20 5000 2>&1)
rc=$?
printf '%s\n' "$out" >"$bin/timeline-launcher.log"
if [ $rc != 0 ] || ! grep -q "injected SIGKILL into rank 2" <<<"$out"; then
    echo "FAIL: the traced run: status $rc"; echo "$out" | tail -n 10; exit 1
fi
fail=0
if command -v gnuplot >/dev/null; then
    table=$("$prefix/bin/ftmpi-timeline" "$trace" --launcher-log "$bin/timeline-launcher.log" \
            --title "cg_rebuild, 4 processes, REBUILD/AUTO: rank 2 killed (SIGKILL) by mpiexec -inject-failure" \
            -o "$png" 2>&1)
    rc=$?
    echo "$table"
    [ $rc = 0 ] && [ -s "$png" ] && [ "$(head -c 4 "$png" | tail -c 3)" = PNG ] ||
        { echo "FAIL: no PNG (status $rc)"; fail=1; }
else
    # the picture needs gnuplot (make bench-deps installs it); the table
    # and the checks below do not
    "$prefix/bin/ftmpi-timeline" "$trace" --launcher-log "$bin/timeline-launcher.log" --text
    echo "timeline: no gnuplot here: the PNG is not drawn (apt-get install gnuplot-nox)"
    png=
fi
[ "$(ls "$trace".* | wc -l)" = 5 ] || { echo "FAIL: $(ls "$trace".* | wc -l) traces, expected 5"; fail=1; }
# by the numbers (milliseconds after the kill): the killed process; each
# survivor learned of the failure after it, recovered, resumed, restored,
# in that order; the replacement joined and restored
"$prefix/bin/ftmpi-timeline" "$trace" --launcher-log "$bin/timeline-launcher.log" --tsv |
    awk -F'\t' 'NR == 1 { next }
        $3 == 1 { repl++; if ($8 == "" || $9 == "" || $10 < $9) { print "FAIL: replacement: " $0; bad = 1 }; next }
        $4 != "" { killed++; next }
        { if (!($5 > 0 && $6 >= $5 - 1 && $7 >= $6 && $8 >= $7 && $9 >= $8 && $10 >= $9)) {
              print "FAIL: survivor out of order: " $0; bad = 1 }
          survivors++ }
        END { if (killed != 1 || repl != 1 || survivors != 3) {
                  print "FAIL: killed " killed ", replacements " repl ", survivors " survivors; bad = 1 }
              exit bad }' || fail=1
no_process_left || fail=1
[ $fail = 0 ] && [ -n "$png" ] && echo "timeline: $png"
exit $fail
