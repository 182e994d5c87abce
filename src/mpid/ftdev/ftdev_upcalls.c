/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The policy and events the layers above hand the device before MPI_Init
 * starts it (mpid_ft.h). Without them the device behaves as in ABORT mode:
 * the first failure ends the job. Also how a job whose settings are
 * refused leaves MPI_Init.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_upcalls.h"

void MPID_FT_set_policy(const MPID_FT_policy_t * policy)
{
    MPIDI_FTDEV_global.upper.policy = *policy;
    MPIDI_FTDEV_global.upper.policy.refused[sizeof(policy->refused) - 1] = 0;
}

const MPID_FT_policy_t *MPID_FT_policy(void)
{
    return &MPIDI_FTDEV_global.upper.policy;
}

#define TAKE_EVENT(name) \
    do { \
        if (events->name) \
            MPIDI_FTDEV_global.upper.events.name = events->name; \
    } while (0)

void MPID_FT_register_events(const MPID_FT_events_t * events)
{
    TAKE_EVENT(failed);
    TAKE_EVENT(joined);
    TAKE_EVENT(failure_pending);
    TAKE_EVENT(failure_error);
    TAKE_EVENT(modes_differ);
    TAKE_EVENT(coll_diverts);
    TAKE_EVENT(comm_freed);
    TAKE_EVENT(context_released);
}

int MPIDI_FTDEV_failure_error(int pid)
{
    if (MPIDI_FTDEV_global.upper.events.failure_error)
        return MPIDI_FTDEV_global.upper.events.failure_error(pid);
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPIX_ERR_PROC_FAILED, "**proc_failed", 0);
}

int MPIDI_FTDEV_halted(void)
{
    return MPIDI_FTDEV_global.upper.policy.halts_on_failure &&
        MPIDI_FTDEV_global.upper.events.failure_pending && MPIDI_FTDEV_global.upper.events.failure_pending();
}

int MPIDI_FTDEV_modes_differ(const int32_t * theirs, int pid, char *msg, size_t len)
{
    if (!memcmp(theirs, MPIDI_FTDEV_global.upper.policy.modes, sizeof(MPIDI_FTDEV_global.upper.policy.modes)))
        return 0;
    if (MPIDI_FTDEV_global.upper.events.modes_differ)
        MPIDI_FTDEV_global.upper.events.modes_differ(theirs, pid, msg, len);
    else
        snprintf(msg, len, "FT-MPICH: process %d runs with other fault-tolerance modes than "
                 "this one", pid);
    return 1;
}

/* Leaving PMI cleanly keeps the launcher from killing anyone: every
 * process of the refused job takes this way out. */
void MPIDI_FTDEV_exit_at_init(const char *msg)
{
    if (msg) {
        fprintf(stderr, "%s\n", msg);
        fflush(stderr);
    }
    MPIR_pmi_finalize();
    exit(1);
}
