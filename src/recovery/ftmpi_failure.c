/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Failure intake and what the application can see of it: the process
 * state, the errors communication returns, and the FTMPI_NUM_FAILED_PROCS /
 * FTMPI_ERROR_FAILURE attributes. The device reports each failed process
 * once and keeps the one record of who failed (MPID_FT_proc_state,
 * MPID_FT_failure_log); this layer keeps only the state and what the
 * attributes show.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery_impl.h"

static const char *const state_names[] = {
    [MPIR_FTMPI_NO_FAILURES] = "NO_FAILURES",
    [MPIR_FTMPI_FAILURE_RECOGNIZED] = "FAILURE_RECOGNIZED",
    [MPIR_FTMPI_RECOVERING] = "RECOVERING",
};

static struct {
    MPIR_FTMPI_state_t state;
    int ever_failed;            /* a failure was learned of (replacements do not undo it) */
    /* FTMPI_ERROR_FAILURE: a code, and the MPI_COMM_WORLD ranks it lists */
    int failure_code;
    int *listed;
    int num_listed;
} ft = {.state = MPIR_FTMPI_NO_FAILURES,.failure_code = MPI_SUCCESS };

void MPIR_FTMPI_set_state(MPIR_FTMPI_state_t to, const char *why)
{
    if (to == ft.state)
        return;
    MPID_FT_TRACE("state: %s -> %s (%s)", state_names[ft.state], state_names[to], why);
    ft.state = to;
}

MPIR_FTMPI_state_t MPIR_FTMPI_state(void)
{
    return ft.state;
}

static void list_ranks(const int *ranks, int n, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < n && strlen(buf) + 16 < len; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", i ? ", " : "", ranks[i]);
}

void MPIR_FTMPI_set_last_failures(const int *ranks, int n)
{
    MPL_free(ft.listed);
    ft.listed = MPL_malloc((n ? n : 1) * sizeof(int), MPL_MEM_OTHER);
    /* (without memory the error lists no rank) */
    if (ft.listed)
        memcpy(ft.listed, ranks, n * sizeof(int));
    ft.num_listed = ft.listed ? n : 0;
    ft.failure_code = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                           MPI_ERR_OTHER, "**ftmpi_failed", 0);
}

void MPIR_FTMPI_record_failure(int pid, const char *how)
{
    if (MPIR_FTMPI_aborts_on_failure()) {
        char msg[256];
        snprintf(msg, sizeof(msg), "FT-MPICH: rank %d failed (%s); FTMPI_COMM_MODE=abort ends the job",
                 pid, how);
        MPID_Abort(NULL, MPI_SUCCESS, 1, msg);
    }

    MPID_FT_EVENT("failure pid=%d how=\"%s\"", pid, how);
    ft.ever_failed = 1;
    /* a failure during a recovery is handled by it or left pending */
    if (ft.state == MPIR_FTMPI_NO_FAILURES)
        MPIR_FTMPI_set_state(MPIR_FTMPI_FAILURE_RECOGNIZED, how);

    /* Without recovery (IGNORE) the attributes describe every failure so
     * far; otherwise the last recovery sets them. */
    if (!MPIR_FTMPI_halts_on_failure()) {
        const int *pids;
        int n = MPID_FT_failure_log(&pids);
        MPIR_FTMPI_set_last_failures(pids, n);
    }
}

int MPIR_FTMPI_failure_pending(void)
{
    return ft.state != MPIR_FTMPI_NO_FAILURES;
}

int MPIR_FTMPI_returns_failure(int errcode)
{
    /* ULFM keeps MPI's default, MPI_ERRORS_ARE_FATAL */
    return ft.ever_failed && !MPIR_FTMPI_aborts_on_failure() && !MPIR_FTMPI_ulfm() &&
        MPIR_ERR_GET_CLASS(errcode) == MPI_ERR_OTHER;
}

/* The ULFM calls on a communicator that its revocation does not end, by
 * the name MPICH's bindings give their functions (internalX_Comm_agree). */
static int ends_with_revocation(const char *fcname)
{
    static const char *const not_ended[] = {
        "X_Comm_agree", "X_Comm_iagree", "X_Comm_shrink", "X_Comm_ishrink",
        "X_Comm_failure_ack", "X_Comm_failure_get_acked", "X_Comm_get_failed",
        "X_Comm_ack_failed", "X_Comm_revoke", "X_Comm_is_revoked",
    };
    if (fcname == NULL)
        return 1;
    size_t len = strlen(fcname);
    for (size_t i = 0; i < sizeof(not_ended) / sizeof(not_ended[0]); i++) {
        size_t n = strlen(not_ended[i]);
        if (len >= n && strcmp(fcname + len - n, not_ended[i]) == 0)
            return 0;
    }
    return 1;
}

int MPIR_FTMPI_code_for_user(MPIR_Comm * comm, const char *fcname, int errcode)
{
    int class = MPIR_ERR_GET_CLASS(errcode);
    int failure = class == MPIX_ERR_PROC_FAILED || class == MPIX_ERR_PROC_FAILED_PENDING ||
        class == MPIX_ERR_REVOKED;

    if (!MPIR_FTMPI_ulfm() || errcode == MPI_SUCCESS)
        return errcode;
    /* MPICH's collectives report what ended them as MPI_ERR_OTHER */
    if (comm && comm->revoked && (failure || class == MPI_ERR_OTHER) &&
        ends_with_revocation(fcname))
        return MPIX_ERR_REVOKED;
    return failure ? class : errcode;
}

int MPIR_FTMPI_failure_error(int pid)
{
    /* ULFM's class; FT-MPI programs expect MPI_ERR_OTHER */
    int errclass = MPIR_FTMPI_ulfm() ? MPIX_ERR_PROC_FAILED : MPI_ERR_OTHER;
    if (pid >= 0)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    errclass, "**ftmpi_procfail", "**ftmpi_procfail %d", pid);
    char ranks[256];
    const int *pids;
    int n = MPID_FT_failure_log(&pids);
    list_ranks(pids, n, ranks, sizeof(ranks));
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPI_ERR_OTHER, "**ftmpi_halted", "**ftmpi_halted %s", ranks);
}

int MPIR_FTMPI_comm_failure(MPIR_Comm * comm)
{
    int errcode;

    /* destroyed by a recovery (AUTO mode recovers inside any call) */
    if (MPIR_Object_get_ref(comm) <= 0) {
        errcode = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                       MPI_ERR_OTHER, "**ftmpi_failed", NULL);
        return MPIR_FTMPI_code_for_user(NULL, NULL, errcode);
    }
    /* ULFM: revoked (MPI-IO revokes it on a failure inside an access) */
    if (comm->revoked) {
        errcode = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                       MPIX_ERR_REVOKED, "**revoked", NULL);
        return MPIR_FTMPI_code_for_user(comm, NULL, errcode);
    }
    for (int r = 0; r < comm->local_size; r++) {
        int pid = MPID_FT_comm_local_pid(comm, r);
        if (pid < 0)
            continue;
        MPID_FT_proc_state_t state = MPID_FT_proc_state(pid);
        if (state == MPID_FT_PROC_FAILED || state == MPID_FT_PROC_BLANK)
            return MPIR_FTMPI_code_for_user(comm, NULL, MPIR_FTMPI_failure_error(pid));
    }
    return MPI_SUCCESS;
}

int MPIR_FTMPI_get_attr(int keyval, int *value)
{
    switch (keyval) {
        case FTMPI_RECOVERY_MODE:
            *value = MPIR_FTMPI_modes.recovery;
            return 1;
        case FTMPI_COMM_MODE:
            *value = MPIR_FTMPI_modes.comm;
            return 1;
        case FTMPI_MSG_MODE:
            *value = MPIR_FTMPI_modes.msg;
            return 1;
        case FTMPI_COLL_MODE:
            *value = MPIR_FTMPI_modes.coll;
            return 1;
        case FTMPI_NUM_FAILED_PROCS:
            *value = ft.num_listed;
            return 1;
        case FTMPI_ERROR_FAILURE:
            *value = ft.failure_code;
            return 1;
        default:
            return 0;
    }
}

int MPIR_FTMPI_error_string(int code, char *msg, int len)
{
    char ranks[MPI_MAX_ERROR_STRING];

    if (code == MPI_SUCCESS || code != ft.failure_code)
        return 0;
    list_ranks(ft.listed, ft.num_listed, ranks, sizeof(ranks));
    snprintf(msg, len, "Process failure: %d process%s failed (MPI_COMM_WORLD rank%s %s)",
             ft.num_listed, ft.num_listed == 1 ? "" : "es", ft.num_listed == 1 ? "" : "s", ranks);
    return 1;
}
