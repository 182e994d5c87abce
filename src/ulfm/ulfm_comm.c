/*
 * FT-MPICH: ULFM on the device's fault-tolerance services (mpid_ft.h).
 *
 * MPIX_Comm_agree and MPIX_Comm_shrink on the fault-tolerant agreement
 * (ulfm_agree.c). Shrink agrees on who is gone, creates the communicator
 * of the others over the old one (revoked or not), and agrees on whether
 * that worked everywhere; a failure in between makes it start over
 * without the newly failed. Each round either succeeds or has one more
 * failure to leave out, so it ends.
 *
 * An intercommunicator shrinks the same way, with its agreement over both
 * groups: each group allocates the new receive context id among its
 * survivors over its local communicator, and the second agreement, whose
 * flag each group gets from the other, carries those ids across (every
 * survivor of a group contributes the same id, or 0 where allocation
 * failed), so no leader has to exchange anything.
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

/* The ranks r in [0, size) whose member first + r is not in `absent`
 * (an intercommunicator's agreement numbers both groups, the low group
 * first); their count. */
static int survivors(const uint8_t * absent, int first, int size, int *ranks)
{
    int n = 0;
    for (int r = 0; r < size; r++)
        if (!((absent[(first + r) / 8] >> ((first + r) % 8)) & 1))
            ranks[n++] = r;
    return n;
}

/* The members of intracommunicator comm that are not in `absent`. */
static int survivors_group(MPIR_Comm * comm, const uint8_t * absent, MPIR_Group ** group)
{
    int mpi_errno = MPI_SUCCESS;
    int *ranks = MPL_malloc(comm->local_size * sizeof(int), MPL_MEM_OTHER);
    MPIR_Group *all = NULL;

    MPIR_ERR_CHKANDJUMP(ranks == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    int n = survivors(absent, 0, comm->local_size, ranks);
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

/* An intercommunicator of the survivors, from the ids both groups
 * allocated: `local` and `remote` are the survivors' ranks in comm's
 * groups. */
static int build_intercomm(MPIR_Comm * comm, int *local, int nlocal, int *remote, int nremote,
                           MPIR_Context_id_t recv_id, MPIR_Context_id_t send_id,
                           MPIR_Comm ** newcomm)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *c = NULL;

    mpi_errno = MPIR_Comm_create(&c);
    MPIR_ERR_CHECK(mpi_errno);
    c->comm_kind = MPIR_COMM_KIND__INTERCOMM;
    c->recvcontext_id = recv_id;
    c->context_id = send_id;
    c->local_size = nlocal;
    c->remote_size = nremote;
    c->rank = -1;
    for (int i = 0; i < nlocal; i++)
        if (local[i] == comm->rank)
            c->rank = i;
    c->is_low_group = comm->is_low_group;
    c->local_comm = NULL;
    c->tainted = comm->tainted;
    mpi_errno = MPII_Comm_create_map(nlocal, nremote, local, remote, comm, c);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Comm_commit(c);
    MPIR_ERR_CHECK(mpi_errno);
    *newcomm = c;

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (c)
        MPIR_Comm_release(c);
    goto fn_exit;
}

static int shrink_intercomm(MPIR_Comm * comm, MPIR_Comm ** newcomm)
{
    int mpi_errno = MPI_SUCCESS, rounds = 0;
    int *local = MPL_malloc(comm->local_size * sizeof(int), MPL_MEM_OTHER);
    int *remote = MPL_malloc(comm->remote_size * sizeof(int), MPL_MEM_OTHER);
    MPIR_Group *all = NULL;

    MPIR_ERR_CHKANDJUMP(local == NULL || remote == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    if (comm->local_comm == NULL) {
        mpi_errno = MPII_Setup_intercomm_localcomm(comm);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = MPIR_Comm_group_impl(comm->local_comm, &all);
    MPIR_ERR_CHECK(mpi_errno);
    MPID_FT_comm_shrinking(comm->local_comm, 1);
    int local_first = MPIR_ULFM_first_member(comm, 0);
    int remote_first = MPIR_ULFM_first_member(comm, 1);
    for (;;) {
        MPIR_ULFM_outcome_t outcome;
        MPIR_Group *group = NULL;
        MPIR_Context_id_t id = 0;
        int flag = 1;

        mpi_errno = MPIR_ULFM_agree(comm, &flag, &outcome);
        MPIR_ERR_CHECK(mpi_errno);
        int nlocal = survivors(outcome.absent, local_first, comm->local_size, local);
        int nremote = survivors(outcome.absent, remote_first, comm->remote_size, remote);
        MPIR_FTMPI_TRACE("shrink %#x: round %d, %d + %d of %d + %d members", comm->context_id,
                         rounds, nlocal, nremote, comm->local_size, comm->remote_size);

        int tag = MPIR_SHRINK_TAG + SHRINK_TAG_STRIDE * (int) (outcome.seq % SHRINK_TAGS);
        mpi_errno = MPIR_Group_incl_impl(all, nlocal, local, &group);
        MPIR_ERR_CHECK(mpi_errno);
        if (MPIR_Get_contextid_sparse_group(comm->local_comm, group, tag, &id, 0) != MPI_SUCCESS)
            id = 0;
        MPIR_Group_release(group);

        flag = id;
        mpi_errno = MPIR_ULFM_agree(comm, &flag, &outcome);
        MPIR_ERR_CHECK(mpi_errno);
        int32_t own = outcome.group_and[outcome.own_group];
        int32_t other = outcome.group_and[!outcome.own_group];
        if (own != 0 && other != 0 && own == id) {
            /* no survivor in the other group: MPI_COMM_NULL, as MPI_Comm_create gives */
            if (nremote == 0) {
                MPIR_Free_contextid(id);
                break;
            }
            mpi_errno = build_intercomm(comm, local, nlocal, remote, nremote, id,
                                        (MPIR_Context_id_t) other, newcomm);
            MPIR_ERR_CHECK(mpi_errno);
            break;
        }
        if (id != 0)
            MPIR_Free_contextid(id);
        MPIR_ERR_CHKANDJUMP1(++rounds >= SHRINK_ROUNDS_PER_MEMBER * (comm->local_size +
                                                                    comm->remote_size),
                             mpi_errno, MPIX_ERR_PROC_FAILED, "**ulfm_shrink", "**ulfm_shrink %d",
                             rounds);
    }

  fn_exit:
    if (comm->local_comm)
        MPID_FT_comm_shrinking(comm->local_comm, 0);
    if (all)
        MPIR_Group_release(all);
    MPL_free(local);
    MPL_free(remote);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIR_ULFM_comm_shrink(MPIR_Comm * comm, MPIR_Comm ** newcomm)
{
    int mpi_errno = MPI_SUCCESS, rounds = 0;

    *newcomm = NULL;
    /* from the first agreement on, which every member enters before any
     * can start creating the new communicator, to the end */
    MPID_FT_comm_shrinking(comm, 1);
    if (comm->comm_kind == MPIR_COMM_KIND__INTERCOMM) {
        mpi_errno = shrink_intercomm(comm, newcomm);
        goto fn_exit;
    }
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
