/*
 * FT-MPICH: the FT-MPI state machine (recovery layer).
 *
 * Failure intake. Every failure source ends here; for now the only
 * communicator mode is ABORT: the job ends, naming the failed rank.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"

static int finalizing;

void MPIR_FTMPI_begin_finalize(void)
{
    finalizing = 1;
}

void MPIR_FTMPI_peer_failed(int pid, const char *reason)
{
    char msg[256];

    if (finalizing)
        return;
    snprintf(msg, sizeof(msg), "FT-MPICH: rank %d failed (%s); aborting the job", pid, reason);
    MPID_Abort(NULL, MPI_SUCCESS, 1, msg);
}
