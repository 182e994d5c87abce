#!/usr/bin/env bash
# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# A bad FTMPI_* value, or processes that disagree on a mode, make MPI_Init
# fail on every process: one line naming the variable, the value and the
# allowed values (or the ULFM setting it clashes with); nonzero exit
# status; no hang. So does a PMIx launcher's environment without PMI-1 or
# PMI-2 (test/slurm runs srun --mpi=pmix itself); with mpiexec's PMI
# beside it, the job runs.
set -u
. "$(dirname "$0")/common.bash"
build init_finalize || exit 1
fail=0

check() { # label expected-regex command...
    local label=$1 want=$2
    shift 2
    local out rc
    out=$(timeout -k 5 60 "$@" 2>&1 </dev/null)
    rc=$?
    if [ $rc = 0 ] || [ $rc = 124 ]; then
        echo "$label: exit status $rc"; fail=1
    elif [ "$(printf '%s\n' "$out" | grep -c .)" != 1 ]; then
        echo "$label: expected one line, got:"; printf '%s\n' "$out" | head -n 8; fail=1
    elif ! grep -Eq -- "$want" <<<"$out"; then
        echo "$label: message '$out' lacks /$want/"; fail=1
    else
        echo "$label: ok ($out)"
    fi
}

check "bad FTMPI_COMM_MODE" "FTMPI_COMM_MODE=bogus .*abort, rebuild, blank, shrink" \
    env FTMPI_COMM_MODE=bogus "$prefix/bin/mpiexec" -n 4 "$bin/init_finalize"
check "bad FTMPI_RECOVERY_MODE" "FTMPI_RECOVERY_MODE=sometimes .*manual, auto, ignore" \
    env FTMPI_RECOVERY_MODE=sometimes "$prefix/bin/mpiexec" -n 3 "$bin/init_finalize"
check "bad FTMPI_MSG_MODE" "FTMPI_MSG_MODE=keep .*reset, cont" \
    env FTMPI_MSG_MODE=keep "$prefix/bin/mpiexec" -n 2 "$bin/init_finalize"
check "bad FTMPI_COLL_MODE" "FTMPI_COLL_MODE=x .*nonatomic, atomic" \
    env FTMPI_COLL_MODE=x "$prefix/bin/mpiexec" -n 2 "$bin/init_finalize"
check "bad value on one process only" "FTMPI_COLL_MODE=twice" \
    "$prefix/bin/mpiexec" -n 2 "$bin/init_finalize" : -n 1 -env FTMPI_COLL_MODE twice "$bin/init_finalize"
check "processes disagree" "disagree on FTMPI_COMM_MODE \\(rank 0: shrink, rank 2: blank\\)" \
    "$prefix/bin/mpiexec" -n 2 -env FTMPI_COMM_MODE shrink "$bin/init_finalize" : \
    -n 2 -env FTMPI_COMM_MODE blank "$bin/init_finalize"
check "FT-MPI mode with ULFM" "FTMPI_COMM_MODE=shrink does not apply to ULFM" \
    env FTMPI_RECOVERY_MODE=ulfm FTMPI_COMM_MODE=shrink "$prefix/bin/mpiexec" -n 2 "$bin/init_finalize"
check "ULFM and FT-MPI asked for at once" "MPIR_CVAR_ENABLE_FT=1 asks for ULFM, but FTMPI_RECOVERY_MODE=manual" \
    env MPIR_CVAR_ENABLE_FT=1 FTMPI_RECOVERY_MODE=manual "$prefix/bin/mpiexec" -n 2 "$bin/init_finalize"
check "PMIx launcher's environment alone" \
    "^FT-MPICH: started by a PMIx launcher \\(PMIX_NAMESPACE is set\\).*srun --mpi=pmi2" \
    env PMIX_NAMESPACE=slurm.pmix.7.0 PMIX_RANK=0 "$bin/init_finalize"
check "PMIx rank alone" "^FT-MPICH: started by a PMIx launcher \\(PMIX_RANK is set\\)" \
    env PMIX_RANK=1 "$bin/init_finalize"
if ! out=$(tagged_run 60 env PMIX_NAMESPACE=prterun-7 PMIX_RANK=0 "$prefix/bin/mpiexec" -n 2 \
    "$bin/init_finalize" 2>&1); then
    echo "mpiexec inside a PMIx environment: the job failed:"; echo "$out" | head -n 4; fail=1
fi
no_process_left || fail=1
exit $fail
