/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What MPICH's core and the device ask of ULFM by name: the MPIX_FT
 * attribute, the texts of the MPIX_ERR_* classes, and ULFM's events,
 * registered with the device as the library loads (as its channels are).
 */

#include "mpiimpl.h"
#include "mpid_ft.h"
#include "mpi-ext.h"
#include "ulfm.h"

int MPIR_ULFM_get_attr(int keyval, int *value)
{
    if (keyval != MPIX_FT)
        return 0;
    *value = MPID_FT_policy()->ulfm;
    return 1;
}

/* ULFM's failures reach programs as bare classes, which MPICH's table of
 * class messages does not have; the classes have their text in every mode. */
int MPIR_ULFM_error_string(int code, char *msg, int len)
{
    switch (code) {
        case MPIX_ERR_PROC_FAILED:
            snprintf(msg, len, "Process failure (MPIX_ERR_PROC_FAILED): a process involved in "
                     "the operation failed");
            return 1;
        case MPIX_ERR_PROC_FAILED_PENDING:
            snprintf(msg, len, "Pending process failure (MPIX_ERR_PROC_FAILED_PENDING): "
                     "acknowledge it with MPIX_Comm_ack_failed to go on");
            return 1;
        case MPIX_ERR_REVOKED:
            snprintf(msg, len, "Communicator revoked (MPIX_ERR_REVOKED)");
            return 1;
        default:
            return 0;
    }
}

__attribute__ ((constructor))
static void register_events(void)
{
    MPID_FT_events_t events = {
        .context_released = MPIR_ULFM_context_released,
    };

    MPID_FT_register_events(&events);
}
