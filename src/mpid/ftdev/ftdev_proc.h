/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Process locality and global process ids, straight from ch4's maps.
 */

#ifndef FTDEV_PROC_H_INCLUDED
#define FTDEV_PROC_H_INCLUDED

#include "ftdev_impl.h"

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_rank_is_local(int rank, MPIR_Comm * comm)
{
    return MPIDIU_rank_is_local(rank, comm);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_comm_get_gpid(MPIR_Comm * comm_ptr, int idx,
                                                    uint64_t * gpid_ptr, bool is_remote)
{
    int avtid = 0, lpid = 0;

    if (comm_ptr->comm_kind == MPIR_COMM_KIND__INTERCOMM && !is_remote)
        MPIDIU_comm_rank_to_pid_local(comm_ptr, idx, &lpid, &avtid);
    else
        MPIDIU_comm_rank_to_pid(comm_ptr, idx, &lpid, &avtid);
    *gpid_ptr = MPIDIU_GPID_CREATE(avtid, lpid);
    return MPI_SUCCESS;
}

#endif /* FTDEV_PROC_H_INCLUDED */
