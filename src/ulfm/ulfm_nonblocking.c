/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * ULFM's nonblocking operations, MPIX_Comm_iagree and MPIX_Comm_ishrink:
 * the steps of an agreement (ulfm_agree.c) or of a shrink (ulfm_comm.c),
 * which one progress hook moves on until they end; then the request
 * completes.
 */

#include "mpiimpl.h"
#include "ulfm_impl.h"

/* A nonblocking ULFM operation (iagree, ishrink), placed first in the
 * operation's own allocation: progress calls step until it returns 1,
 * having set the user's outputs and the request's status; then the
 * request completes and the allocation is freed. Started once the
 * operation's first step was taken; holds a reference to comm. */
typedef struct MPIR_ULFM_nbop {
    struct MPIR_ULFM_nbop *next;
    struct MPIR_Request *req;
    struct MPIR_Comm *comm;
    int (*step) (struct MPIR_ULFM_nbop * op);
} MPIR_ULFM_nbop_t;

static MPIR_ULFM_nbop_t *nbops;
static int nbop_hook = -1;

static int nbop_progress(int *made_progress)
{
    static int running;
    MPIR_ULFM_nbop_t **p = &nbops;

    /* (the steps must not run twice at once should anything they call
     * run progress, hence this hook) */
    if (running)
        return MPI_SUCCESS;
    running = 1;
    while (*p) {
        MPIR_ULFM_nbop_t *op = *p;
        if (!op->step(op)) {
            p = &op->next;
            continue;
        }
        MPIR_Comm_release(op->comm);
        MPIR_cc_set(&op->req->cc, 0);
        MPIR_Request_free(op->req);
        *p = op->next;
        MPL_free(op);
        *made_progress = 1;
    }
    if (nbops == NULL)
        MPIR_Progress_hook_deactivate(nbop_hook);
    running = 0;
    return MPI_SUCCESS;
}

static int nbop_start(MPIR_ULFM_nbop_t * op, MPIR_Comm * comm,
                      int (*step) (MPIR_ULFM_nbop_t * op), MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;

    *request = NULL;
    if (nbop_hook < 0) {
        mpi_errno = MPIR_Progress_hook_register(nbop_progress, &nbop_hook);
        MPIR_ERR_CHECK(mpi_errno);
    }
    op->req = MPIR_Request_create(MPIR_REQUEST_KIND__COLL);
    MPIR_ERR_CHKANDJUMP(op->req == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    /* one reference for the user, one for the operation */
    MPIR_Request_add_ref(op->req);
    op->comm = comm;
    op->step = step;
    MPIR_Comm_add_ref(comm);
    op->next = nbops;
    nbops = op;
    MPIR_Progress_hook_activate(nbop_hook);
    *request = op->req;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- MPIX_Comm_iagree ------------------------------------------------------------ */

typedef struct {
    MPIR_ULFM_nbop_t nb;
    MPIR_ULFM_agreement_t ag;
    int *user_flag;
} iagree_t;

static int iagree_step(MPIR_ULFM_nbop_t * nb)
{
    iagree_t *op = (iagree_t *) nb;
    MPIR_ULFM_outcome_t outcome;
    int flag;

    if (!MPIR_ULFM_agree_step(&op->ag, &flag, &outcome))
        return 0;
    if (op->ag.mpi_errno != MPI_SUCCESS) {
        nb->req->status.MPI_ERROR = op->ag.mpi_errno;
        return 1;
    }
    *op->user_flag = flag;
    if (outcome.raise)
        MPIR_ERR_SET(nb->req->status.MPI_ERROR, MPIX_ERR_PROC_FAILED, "**ulfm_agree");
    return 1;
}

int MPIR_ULFM_iagree(MPIR_Comm * comm, int *flag, MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    iagree_t *op = MPL_calloc(1, sizeof(*op), MPL_MEM_OTHER);

    *request = NULL;
    MPIR_ERR_CHKANDJUMP(op == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = MPIR_ULFM_agree_start(comm, *flag, NULL, 0, &op->ag);
    MPIR_ERR_CHECK(mpi_errno);
    op->user_flag = flag;
    mpi_errno = nbop_start(&op->nb, comm, iagree_step, request);
    MPIR_ERR_CHECK(mpi_errno);
    op = NULL;

  fn_exit:
    MPL_free(op);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- MPIX_Comm_ishrink ----------------------------------------------------------- */

typedef struct {
    MPIR_ULFM_nbop_t nb;
    shrink_op_t shrink;
    MPI_Comm *user_newcomm;
} ishrink_t;

static int ishrink_step(MPIR_ULFM_nbop_t * nb)
{
    ishrink_t *op = (ishrink_t *) nb;

    if (!MPII_ULFM_shrink_step(&op->shrink))
        return 0;
    *op->user_newcomm = op->shrink.newcomm ? op->shrink.newcomm->handle : MPI_COMM_NULL;
    /* (made the ULFM class on the way out of MPI_Wait/MPI_Test) */
    nb->req->status.MPI_ERROR = op->shrink.mpi_errno;
    return 1;
}

int MPIR_ULFM_comm_ishrink(MPIR_Comm * comm, MPI_Comm * newcomm, MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    ishrink_t *op = MPL_calloc(1, sizeof(*op), MPL_MEM_OTHER);

    *request = NULL;
    MPIR_ERR_CHKANDJUMP(op == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    op->shrink.comm = comm;
    mpi_errno = MPII_ULFM_shrink_round(&op->shrink);
    MPIR_ERR_CHECK(mpi_errno);
    op->user_newcomm = newcomm;
    mpi_errno = nbop_start(&op->nb, comm, ishrink_step, request);
    if (mpi_errno != MPI_SUCCESS)
        MPIR_Context_return_offered(op->shrink.offer, 0);
    MPIR_ERR_CHECK(mpi_errno);
    op = NULL;

  fn_exit:
    MPL_free(op);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
