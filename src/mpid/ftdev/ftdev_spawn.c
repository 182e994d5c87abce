/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: ch4 netmod "ftdev".
 *
 * Dynamic processes (MPI_Comm_spawn, connect/accept). Not implemented yet:
 * each entry fails with a clear error instead of misbehaving.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"

static int not_supported(void)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_ERR_SET(mpi_errno, MPI_ERR_SPAWN, "**ftdev_nodynamic");
    return mpi_errno;
}

int MPIDI_FTDEV_dynamic_send(uint64_t remote_gpid, int tag, const void *buf, int size, int timeout)
{
    return not_supported();
}

int MPIDI_FTDEV_dynamic_recv(int tag, void *buf, int size, int timeout)
{
    return not_supported();
}

int MPIDI_FTDEV_get_local_upids(MPIR_Comm * comm, int **local_upid_size, char **local_upids)
{
    return not_supported();
}

int MPIDI_FTDEV_upids_to_gpids(int size, int *remote_upid_size, char *remote_upids,
                               uint64_t * remote_gpids)
{
    return not_supported();
}
