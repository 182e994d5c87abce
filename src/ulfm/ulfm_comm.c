/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * MPIX_Comm_agree and MPIX_Comm_shrink on the fault-tolerant agreement
 * (ulfm_agree.c), and the steps of a shrink that MPIX_Comm_ishrink
 * (ulfm_nonblocking.c) drives from progress.
 *
 * A shrink is one agreement. Besides its flag it ANDs the context ids
 * every member offers (free ids, reserved meanwhile), so its decision
 * gives every survivor the same members (those not absent) and the same
 * free ids: the lowest is the new intracommunicator's context id; an
 * intercommunicator's low group receives on the lowest, its high group on
 * the next. Each process keeps its own id and gives the rest back, and
 * builds the communicator without another message: nothing runs over the
 * old communicator, so a failure cannot leave the survivors with
 * different results, and the nonblocking form is the same steps driven by
 * progress. Should the offers have no id in common (processes that
 * created communicators in different orders), the next round offers
 * twice as many, up to every free id.
 */

#include "mpiimpl.h"
#include "mpid_ft.h"
#include "ulfm_impl.h"

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
        if (!MPID_FT_set_has(absent, first + r))
            ranks[n++] = r;
    return n;
}

/* The survivors' communicator: an intracommunicator of comm's ranks
 * `local` with context id recv_id (remote NULL), or an intercommunicator
 * of its local ranks `local` and remote ranks `remote` that receives on
 * recv_id and sends on send_id. */
static int build_comm(MPIR_Comm * comm, int *local, int nlocal, int *remote, int nremote,
                      MPIR_Context_id_t recv_id, MPIR_Context_id_t send_id,
                      MPIR_Comm ** newcomm)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *c = NULL;

    mpi_errno = MPIR_Comm_create(&c);
    if (mpi_errno != MPI_SUCCESS) {
        MPIR_Free_contextid(recv_id);
        MPIR_ERR_CHECK(mpi_errno);
    }
    c->recvcontext_id = recv_id;
    c->context_id = send_id;
    c->local_size = nlocal;
    c->rank = -1;
    for (int i = 0; i < nlocal; i++)
        if (local[i] == comm->rank)
            c->rank = i;
    c->tainted = comm->tainted;
    /* the parent's error handler goes on, as with MPI_Comm_dup: a program
     * that returns errors on comm must get them on its successor too */
    c->errhandler = comm->errhandler;
    if (comm->errhandler)
        MPIR_Errhandler_add_ref(comm->errhandler);
    if (remote) {
        c->comm_kind = MPIR_COMM_KIND__INTERCOMM;
        c->remote_size = nremote;
        c->is_low_group = comm->is_low_group;
        c->local_comm = NULL;
    } else {
        c->comm_kind = MPIR_COMM_KIND__INTRACOMM;
        c->remote_size = nlocal;
        nremote = 0;
    }
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

/* ---- shrink, in steps ---------------------------------------------------------- */

#define OFFER_IDS 64
#define OFFER_ROUNDS 6          /* 64, 128, ... 2048 ids: every one there is */

int MPII_ULFM_shrink_round(shrink_op_t * op)
{
    int offered = MPIR_Context_offer(op->offer, OFFER_IDS << op->rounds);
    MPID_FT_TRACE("shrink %#x: round %d, offers %d context ids", op->comm->context_id,
                  op->rounds, offered);
    int mpi_errno = MPIR_ULFM_agree_start(op->comm, 1, op->offer, MPIR_MAX_CONTEXT_MASK, &op->ag);
    if (mpi_errno != MPI_SUCCESS)
        MPIR_Context_return_offered(op->offer, 0);
    return mpi_errno;
}

/* The agreement decided: the new communicator, or another round when the
 * offers had too few ids in common. */
static int shrink_decided(shrink_op_t * op, const MPIR_ULFM_outcome_t * outcome)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm = op->comm;
    int inter = comm->comm_kind == MPIR_COMM_KIND__INTERCOMM;
    int local_first = MPIR_ULFM_first_member(comm, 0);
    int remote_first = MPIR_ULFM_first_member(comm, 1);
    MPIR_Context_id_t ids[2] = { MPIR_Context_agreed_id(outcome->and_mask, 0),
        MPIR_Context_agreed_id(outcome->and_mask, 1)
    };
    int *local = NULL, *remote = NULL;

    if (ids[0] == 0 || (inter && ids[1] == 0)) {
        MPIR_Context_return_offered(op->offer, 0);
        MPIR_ERR_CHKANDJUMP(++op->rounds >= OFFER_ROUNDS, mpi_errno, MPI_ERR_OTHER, "**ulfm_cid");
        return MPII_ULFM_shrink_round(op);
    }
    op->done = 1;
    local = MPL_malloc(comm->local_size * sizeof(int), MPL_MEM_OTHER);
    remote = MPL_malloc((inter ? comm->remote_size : 1) * sizeof(int), MPL_MEM_OTHER);
    if (local == NULL || remote == NULL)
        MPIR_Context_return_offered(op->offer, 0);
    MPIR_ERR_CHKANDJUMP(local == NULL || remote == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    int nlocal = survivors(outcome->absent, local_first, comm->local_size, local);
    int nremote = inter ? survivors(outcome->absent, remote_first, comm->remote_size, remote) : 0;
    /* an intercommunicator's groups: the low one receives on ids[0] */
    MPIR_Context_id_t own = inter ? ids[!comm->is_low_group] : ids[0];
    MPIR_Context_id_t other = inter ? ids[comm->is_low_group] : ids[0];
    int left_out = MPID_FT_set_has(outcome->absent, local_first + comm->rank);
    /* no survivor in the other group: MPI_COMM_NULL, as MPI_Comm_create gives */
    if (left_out || (inter && nremote == 0))
        own = 0;
    MPID_FT_TRACE("shrink %#x: decided, %d + %d of %d + %d members, context id %#x",
                  comm->context_id, nlocal, nremote, comm->local_size,
                  inter ? comm->remote_size : 0, (unsigned) own);
    int kept = MPIR_Context_return_offered(op->offer, own);
    /* a survivor's offer holds every id of the AND; one that finds its
     * own missing was left out, as was one absent itself */
    if (left_out || (own != 0 && !kept)) {
        MPID_FT_TRACE("shrink %#x: %s", comm->context_id, left_out ?
                      "this process was left out as failed" :
                      "the agreed context id is not among this process's offers");
        MPIR_ERR_SETANDJUMP(mpi_errno, MPIX_ERR_PROC_FAILED, "**ulfm_shrink");
    }
    if (own == 0)
        goto fn_exit;
    mpi_errno = build_comm(comm, local, nlocal, inter ? remote : NULL, nremote, own, other,
                           &op->newcomm);
    if (mpi_errno != MPI_SUCCESS)
        MPID_FT_TRACE("shrink %#x: building the new communicator failed", comm->context_id);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPL_free(local);
    MPL_free(remote);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Moves op on with what progress delivered; 1 once it ended (op->mpi_errno,
 * op->newcomm). */
int MPII_ULFM_shrink_step(shrink_op_t * op)
{
    MPIR_ULFM_outcome_t outcome;
    int flag;

    if (!op->done && MPIR_ULFM_agree_step(&op->ag, &flag, &outcome)) {
        op->mpi_errno = op->ag.mpi_errno != MPI_SUCCESS ? op->ag.mpi_errno :
            shrink_decided(op, &outcome);
        if (op->mpi_errno != MPI_SUCCESS)
            op->done = 1;
    }
    return op->done;
}

static int shrink_wait_step(void *op)
{
    return MPII_ULFM_shrink_step(op);
}

int MPIR_ULFM_comm_shrink(MPIR_Comm * comm, MPIR_Comm ** newcomm)
{
    shrink_op_t op;

    memset(&op, 0, sizeof(op));
    op.comm = comm;
    op.mpi_errno = MPII_ULFM_shrink_round(&op);
    if (op.mpi_errno == MPI_SUCCESS) {
        int mpi_errno = MPID_FT_wait(shrink_wait_step, &op, "a shrink");
        if (mpi_errno != MPI_SUCCESS)
            return mpi_errno;
    }
    *newcomm = op.newcomm;
    return op.mpi_errno;
}
