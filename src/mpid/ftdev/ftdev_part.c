/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Partitioned communication is MPICH's generic implementation over ftdev's
 * active messages.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"

int MPIDI_FTDEV_mpi_psend_init(const void *buf, int partitions, MPI_Aint count,
                               MPI_Datatype datatype, int dest, int tag, MPIR_Comm * comm,
                               MPIR_Info * info, MPIDI_av_entry_t * av, MPIR_Request ** request)
{
    return MPIDIG_mpi_psend_init(buf, partitions, count, datatype, dest, tag, comm, info, request);
}

int MPIDI_FTDEV_mpi_precv_init(void *buf, int partitions, MPI_Aint count,
                               MPI_Datatype datatype, int source, int tag, MPIR_Comm * comm,
                               MPIR_Info * info, MPIDI_av_entry_t * av, MPIR_Request ** request)
{
    return MPIDIG_mpi_precv_init(buf, partitions, count, datatype, source, tag, comm, info,
                                 request);
}
