/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Mode selection from the environment (read in MPI_Init by every process;
 * mpiexec forwards the environment), and the refusal of a bad or
 * inconsistent configuration.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery_impl.h"
#include <strings.h>

MPIR_FTMPI_modes_t MPIR_FTMPI_modes = {
    .recovery = FTMPI_RECOVERY_MODE_MANUAL,
    .comm = FTMPI_COMM_MODE_ABORT,
    .msg = FTMPI_MSG_MODE_RESET,
    .coll = FTMPI_COLL_MODE_NONATOMIC,
};

typedef struct {
    const char *name;
    int value;
} mode_value_t;

typedef struct {
    const char *variable;
    size_t offset;              /* of the field in MPIR_FTMPI_modes_t */
    const mode_value_t *values; /* the first is the default */
} mode_var_t;

static const mode_value_t recovery_values[] = {
    {"manual", FTMPI_RECOVERY_MODE_MANUAL}, {"auto", FTMPI_RECOVERY_MODE_AUTO},
    {"ignore", FTMPI_RECOVERY_MODE_IGNORE}, {"ulfm", FTMPI_RECOVERY_MODE_ULFM}, {NULL, 0}
};
static const mode_value_t comm_values[] = {
    {"abort", FTMPI_COMM_MODE_ABORT}, {"rebuild", FTMPI_COMM_MODE_REBUILD},
    {"blank", FTMPI_COMM_MODE_BLANK}, {"shrink", FTMPI_COMM_MODE_SHRINK}, {NULL, 0}
};
static const mode_value_t msg_values[] = {
    {"reset", FTMPI_MSG_MODE_RESET}, {"cont", FTMPI_MSG_MODE_CONT}, {NULL, 0}
};
static const mode_value_t coll_values[] = {
    {"nonatomic", FTMPI_COLL_MODE_NONATOMIC}, {"atomic", FTMPI_COLL_MODE_ATOMIC}, {NULL, 0}
};

static const mode_var_t mode_vars[] = {
    {"FTMPI_RECOVERY_MODE", offsetof(MPIR_FTMPI_modes_t, recovery), recovery_values},
    {"FTMPI_COMM_MODE", offsetof(MPIR_FTMPI_modes_t, comm), comm_values},
    {"FTMPI_MSG_MODE", offsetof(MPIR_FTMPI_modes_t, msg), msg_values},
    {"FTMPI_COLL_MODE", offsetof(MPIR_FTMPI_modes_t, coll), coll_values},
};

#define N_MODE_VARS (sizeof(mode_vars) / sizeof(mode_vars[0]))

static int *field(MPIR_FTMPI_modes_t * m, const mode_var_t * v)
{
    return (int *) ((char *) m + v->offset);
}

static const char *value_name(const mode_var_t * v, int value)
{
    for (const mode_value_t * mv = v->values; mv->name; mv++)
        if (mv->value == value)
            return mv->name;
    return "?";
}

/* "abort, rebuild, blank, shrink" */
static void allowed_values(const mode_var_t * v, char *buf, size_t len)
{
    buf[0] = 0;
    for (const mode_value_t * mv = v->values; mv->name; mv++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", mv == v->values ? "" : ", ",
                 mv->name);
}

/* ULFM is asked for with FTMPI_RECOVERY_MODE=ulfm or with MPICH's
 * MPIR_CVAR_ENABLE_FT=1. Its rules leave no room for FT-MPI's: no
 * communicator modes, no CONT, no ATOMIC. */
static int ulfm_combination(char *msg, size_t len)
{
    const char *recovery = getenv("FTMPI_RECOVERY_MODE");

    if (MPIR_CVAR_ENABLE_FT) {
        if (recovery && *recovery && MPIR_FTMPI_modes.recovery != FTMPI_RECOVERY_MODE_ULFM) {
            snprintf(msg, len, "FT-MPICH: MPIR_CVAR_ENABLE_FT=1 asks for ULFM, but "
                     "FTMPI_RECOVERY_MODE=%s asks for FT-MPI; unset one of them", recovery);
            return 1;
        }
        MPIR_FTMPI_modes.recovery = FTMPI_RECOVERY_MODE_ULFM;
    }
    if (MPIR_FTMPI_modes.recovery != FTMPI_RECOVERY_MODE_ULFM)
        return 0;
    for (size_t i = 1; i < N_MODE_VARS; i++) {
        const mode_var_t *v = &mode_vars[i];
        if (*field(&MPIR_FTMPI_modes, v) != v->values[0].value) {
            snprintf(msg, len, "FT-MPICH: %s=%s does not apply to ULFM (FTMPI_RECOVERY_MODE=ulfm "
                     "or MPIR_CVAR_ENABLE_FT=1); unset it", v->variable, getenv(v->variable));
            return 1;
        }
    }
    /* MPICH's waits apply the wildcard-receive rules only with this set */
    MPIR_CVAR_ENABLE_FT = 1;
    return 0;
}

/* REBUILD starts replacements through the launcher's spawn. Under srun
 * --mpi=pmi2 (Slurm's PMI serves the job, not Hydra, which gives every
 * process MPI_LOCALRANKID) a replacement is a job step of its own, which
 * Slurm holds back while the job's step has every CPU unless steps may
 * overlap; the coordinator would wait inside the spawn for ever. */
static int launcher_combination(char *msg, size_t len)
{
    const char *overlap = getenv("SLURM_OVERLAP");

    if (MPIR_FTMPI_modes.comm != FTMPI_COMM_MODE_REBUILD || getenv("SLURM_STEP_ID") == NULL ||
        getenv("MPI_LOCALRANKID") != NULL || (overlap && *overlap && strcmp(overlap, "0")))
        return 0;
    snprintf(msg, len, "FT-MPICH: FTMPI_COMM_MODE=rebuild under srun needs SLURM_OVERLAP=1 "
             "in srun's environment (replacements are job steps of their own), or launch "
             "with salloc ... mpiexec -bootstrap slurm");
    return 1;
}

int MPIR_FTMPI_read_modes(char *msg, size_t len)
{
    for (size_t i = 0; i < N_MODE_VARS; i++) {
        const mode_var_t *v = &mode_vars[i];
        const char *env = getenv(v->variable);
        const mode_value_t *mv;

        *field(&MPIR_FTMPI_modes, v) = v->values[0].value;
        if (env == NULL || *env == 0)
            continue;
        for (mv = v->values; mv->name && strcasecmp(mv->name, env); mv++);
        if (mv->name == NULL) {
            char allowed[128];
            allowed_values(v, allowed, sizeof(allowed));
            snprintf(msg, len, "FT-MPICH: %s=%s is not a valid mode; use one of: %s",
                     v->variable, env, allowed);
            return 1;
        }
        *field(&MPIR_FTMPI_modes, v) = mv->value;
    }
    return ulfm_combination(msg, len) || launcher_combination(msg, len);
}

int MPIR_FTMPI_describe(char *buf, size_t len)
{
    int n = snprintf(buf, len, "fault-tolerant MPICH (FT-MPI modes and ULFM on ch4:ftdev); modes:");
    for (size_t i = 0; i < N_MODE_VARS && n > 0 && (size_t) n < len; i++) {
        n += snprintf(buf + n, len - n, " %s=", mode_vars[i].variable);
        for (const mode_value_t * mv = mode_vars[i].values; mv->name && (size_t) n < len; mv++)
            n += snprintf(buf + n, len - n, "%s%s", mv == mode_vars[i].values ? "" : "|",
                          mv->name);
    }
    if (n > 0 && (size_t) n < len)
        n += snprintf(buf + n, len - n, " (the first is the default)");
    return n;
}

int MPIR_FTMPI_compare_modes(const MPIR_FTMPI_modes_t * theirs, int pid, char *msg, size_t len)
{
    for (size_t i = 0; i < N_MODE_VARS; i++) {
        const mode_var_t *v = &mode_vars[i];
        int mine = *field(&MPIR_FTMPI_modes, v);
        int other = *field((MPIR_FTMPI_modes_t *) theirs, v);
        if (mine != other) {
            snprintf(msg, len, "FT-MPICH: processes disagree on %s (rank %d: %s, rank %d: %s); "
                     "set it alike for every process", v->variable, MPIR_Process.rank,
                     value_name(v, mine), pid, value_name(v, other));
            return 1;
        }
    }
    return 0;
}

int MPIR_FTMPI_ulfm(void)
{
    return MPIR_FTMPI_modes.recovery == FTMPI_RECOVERY_MODE_ULFM;
}

int MPIR_FTMPI_aborts_on_failure(void)
{
    return MPIR_FTMPI_modes.comm == FTMPI_COMM_MODE_ABORT && MPIR_FTMPI_halts_on_failure();
}

int MPIR_FTMPI_halts_on_failure(void)
{
    return MPIR_FTMPI_modes.recovery != FTMPI_RECOVERY_MODE_IGNORE && !MPIR_FTMPI_ulfm();
}
