/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Reduction operations need nothing from the transport.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"

int MPIDI_FTDEV_mpi_op_commit_hook(MPIR_Op * op_p)
{
    return MPI_SUCCESS;
}

int MPIDI_FTDEV_mpi_op_free_hook(MPIR_Op * op_p)
{
    return MPI_SUCCESS;
}
