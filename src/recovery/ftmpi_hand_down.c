/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What the recovery layer hands the device: before MPI_Init starts it,
 * the job's policy, read from its modes; as the library loads (as the
 * layers' channels), the events through which the device tells it of
 * failures and replacements (mpid_ft.h). The device calls nothing of it
 * by name; the collectives and ULFM register their own events.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery_impl.h"

static void modes_differ(const int32_t * theirs, int pid, char *msg, size_t len)
{
    MPIR_FTMPI_modes_t m = {
        .recovery = theirs[0],
        .comm = theirs[1],
        .msg = theirs[2],
        .coll = theirs[3],
    };
    if (!MPIR_FTMPI_compare_modes(&m, pid, msg, len))
        snprintf(msg, len, "FT-MPICH: process %d runs with other fault-tolerance modes", pid);
}

static MPID_FT_policy_t policy_of_modes(void)
{
    MPID_FT_policy_t p;

    memset(&p, 0, sizeof(p));
    if (!MPIR_FTMPI_read_modes(p.refused, sizeof(p.refused)))
        p.refused[0] = 0;
    p.ulfm = MPIR_FTMPI_ulfm();
    p.aborts_on_failure = MPIR_FTMPI_aborts_on_failure();
    p.halts_on_failure = MPIR_FTMPI_halts_on_failure();
    p.keeps_messages = MPIR_FTMPI_modes.msg == FTMPI_MSG_MODE_CONT;
    p.atomic_collectives = MPIR_FTMPI_modes.coll == FTMPI_COLL_MODE_ATOMIC;
    p.rebuilds = MPIR_FTMPI_modes.comm == FTMPI_COMM_MODE_REBUILD;
    p.modes[0] = MPIR_FTMPI_modes.recovery;
    p.modes[1] = MPIR_FTMPI_modes.comm;
    p.modes[2] = MPIR_FTMPI_modes.msg;
    p.modes[3] = MPIR_FTMPI_modes.coll;
    return p;
}

void MPIR_FTMPI_hand_down(void)
{
    MPID_FT_policy_t policy = policy_of_modes();
    MPID_FT_set_policy(&policy);
}

__attribute__ ((constructor))
static void register_events(void)
{
    MPID_FT_events_t events = {
        .failed = MPIR_FTMPI_record_failure,
        .joined = MPIR_FTMPI_joined,
        .failure_pending = MPIR_FTMPI_failure_pending,
        .failure_error = MPIR_FTMPI_failure_error,
        .modes_differ = modes_differ,
    };

    MPID_FT_register_events(&events);
}
