/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What the collective layer (src/coll_atomic) needs from the
 * transport (mpid_ft.h): the epoch, process ids and blanks, its state in
 * each communicator.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_coll.h"

uint32_t MPID_FT_epoch(void)
{
    return MPIDI_FTDEV_global.epoch.current;
}

int MPID_FT_comm_local_pid(MPIR_Comm * comm, int rank)
{
    int lpid, avtid;
    /* an intracommunicator keeps its group in the remote map only */
    if (comm->comm_kind == MPIR_COMM_KIND__INTRACOMM)
        MPIDIU_comm_rank_to_pid(comm, rank, &lpid, &avtid);
    else
        MPIDIU_comm_rank_to_pid_local(comm, rank, &lpid, &avtid);
    return avtid == 0 ? lpid : -1;
}

int MPID_FT_proc_is_blank(int pid)
{
    return pid >= 0 && MPIDI_FTDEV_global.peers.state[pid] == MPIDI_FTDEV_PEER_BLANK;
}

void **MPID_FT_comm_coll_slot(MPIR_Comm * comm)
{
    return &MPIDI_FTDEV_COMM(comm).coll;
}

/* MPID_GROUP_TAKING_PART: the members of a group that are not blanks, or
 * NULL when all are (mpich-patches/coll-group-allreduce-taking-part.patch). */
int MPIDI_FTDEV_group_taking_part(MPIR_Group * group, MPIR_Group ** part)
{
    int mpi_errno = MPI_SUCCESS, n = 0;
    int *ranks = NULL;

    *part = NULL;
    if (!MPIDI_FTDEV_global.upper.coll_divert)
        goto fn_exit;
    ranks = MPL_malloc(group->size * sizeof(int), MPL_MEM_GROUP);
    MPIR_ERR_CHKANDJUMP(ranks == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    for (int i = 0; i < group->size; i++)
        if (!MPID_FT_proc_is_blank((int) group->lrank_to_lpid[i].lpid))
            ranks[n++] = i;
    if (n < group->size) {
        mpi_errno = MPIR_Group_incl_impl(group, n, ranks, part);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    MPL_free(ranks);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
