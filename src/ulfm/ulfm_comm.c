/*
 * FT-MPICH: ULFM on the device's fault-tolerance services (mpid_ft.h).
 *
 * MPIX_Comm_agree and MPIX_Comm_shrink on the fault-tolerant agreement
 * (ulfm_agree.c). Shrink agrees on who is gone, creates the communicator
 * of the others over the old one (revoked or not), and agrees on whether
 * that worked everywhere; a failure in between makes it start over
 * without the newly failed. Each round either succeeds or has one more
 * failure to leave out, so it ends.
 */

#include "mpiimpl.h"
#include "ulfm.h"
#include "mpid_ft.h"
#include "ftmpi_recovery.h"

int MPIR_ULFM_comm_agree(MPIR_Comm * comm, int *flag)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_ULFM_outcome_t outcome;

    mpi_errno = MPIR_ULFM_agree(comm, flag, &outcome);
    MPIR_ERR_CHECK(mpi_errno);
    if (outcome.raise)
        MPIR_ERR_SETANDJUMP(mpi_errno, MPIX_ERR_PROC_FAILED, "**ulfm_agree");

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The members of comm that are not in `absent`. */
static int survivors_group(MPIR_Comm * comm, const uint8_t * absent, MPIR_Group ** group)
{
    int mpi_errno = MPI_SUCCESS, n = 0;
    int *ranks = MPL_malloc(comm->local_size * sizeof(int), MPL_MEM_OTHER);
    MPIR_Group *all = NULL;

    MPIR_ERR_CHKANDJUMP(ranks == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    for (int r = 0; r < comm->local_size; r++)
        if (!((absent[r / 8] >> (r % 8)) & 1))
            ranks[n++] = r;
    mpi_errno = MPIR_Comm_group_impl(comm, &all);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Group_incl_impl(all, n, ranks, group);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    if (all)
        MPIR_Group_release(all);
    MPL_free(ranks);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

#define SHRINK_ROUNDS_PER_MEMBER 2
/* tags above MPICH's own internal ones, below the bits ch4 reserves */
#define SHRINK_TAG_STRIDE 64
#define SHRINK_TAGS 1024

int MPIR_ULFM_comm_shrink(MPIR_Comm * comm, MPIR_Comm ** newcomm)
{
    int mpi_errno = MPI_SUCCESS, rounds = 0;

    *newcomm = NULL;
    MPIR_ERR_CHKANDJUMP1(comm->comm_kind == MPIR_COMM_KIND__INTERCOMM, mpi_errno, MPI_ERR_COMM,
                         "**ulfm_intercomm", "**ulfm_intercomm %s", "shrink");
    /* from the first agreement on, which every member enters before any
     * can start creating the new communicator, to the end */
    MPID_FT_comm_shrinking(comm, 1);
    for (;;) {
        MPIR_ULFM_outcome_t outcome;
        MPIR_Group *group = NULL;
        int created = 1;

        mpi_errno = MPIR_ULFM_agree(comm, &created, &outcome);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = survivors_group(comm, outcome.absent, &group);
        MPIR_ERR_CHECK(mpi_errno);
        MPIR_FTMPI_TRACE("shrink %#x: round %d, %d of %d members", comm->context_id, rounds,
                         group->size, comm->local_size);

        /* a round of its own: what a failed round left in flight must not
         * be taken for this one's (its tag, as the agreement's number,
         * is the same at every member) */
        int tag = MPIR_SHRINK_TAG + SHRINK_TAG_STRIDE * (int) (outcome.seq % SHRINK_TAGS);
        int create_errno = MPIR_Comm_create_group_impl(comm, group, tag, newcomm);
        MPIR_Group_release(group);
        if (create_errno != MPI_SUCCESS)
            *newcomm = NULL;    /* released by MPIR_Comm_create_group_impl */
        created = *newcomm != NULL;

        mpi_errno = MPIR_ULFM_agree(comm, &created, &outcome);
        MPIR_ERR_CHECK(mpi_errno);
        if (created)
            break;
        if (*newcomm) {
            MPIR_Comm_release(*newcomm);
            *newcomm = NULL;
        }
        MPIR_ERR_CHKANDJUMP1(++rounds >= SHRINK_ROUNDS_PER_MEMBER * comm->local_size, mpi_errno,
                             MPIX_ERR_PROC_FAILED, "**ulfm_shrink", "**ulfm_shrink %d", rounds);
    }

  fn_exit:
    MPID_FT_comm_shrinking(comm, 0);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
