/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The entry points MPICH's dispatchers divert to, and running a described
 * collective in any form through MPICH's own dispatchers; the layer's
 * events, registered with the device before MPI_Init starts it.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "ftmpi_coll.h"

/* Nonzero while this layer runs a collective through MPICH: that one is
 * not diverted again. */
static int running_inner;

int MPIR_FTMPI_coll_diverts(MPIR_Comm * comm)
{
    if (running_inner || comm->comm_kind != MPIR_COMM_KIND__INTRACOMM)
        return 0;
    if (MPIR_FTMPI_modes.coll == FTMPI_COLL_MODE_ATOMIC)
        return 1;
    return MPIR_FTMPI_live_view(comm)->nlive < comm->local_size;
}

/* (registered as the library loads, as the layer's channels are) */
__attribute__ ((constructor))
static void register_events(void)
{
    MPID_FT_events_t events = {
        .coll_diverts = MPIR_FTMPI_coll_diverts,
        .comm_freed = MPIR_FTMPI_coll_comm_free,
    };

    MPID_FT_register_events(&events);
}

/* ---- entry points ----------------------------------------------------- */

#define MPIR_FTMPI_DEFINE_ENTRIES(Name, IName, params, fields)                           \
    int MPID_##Name##_diverted(MPIR_FTMPI_PARAMS params, MPIR_Errflag_t * errflag)       \
    {                                                                                    \
        MPIR_FTMPI_coll_t c = { MPIR_FTMPI_PARAMS fields, .comm = comm_ptr };            \
        MPIR_FTMPI_form_t form = { .form = MPIR_FTMPI_BLOCKING, .errflag = errflag };    \
        return MPIR_FTMPI_coll(&c, &form);                                               \
    }                                                                                    \
    int MPID_##IName##_diverted(MPIR_FTMPI_PARAMS params, MPIR_Request ** request)       \
    {                                                                                    \
        MPIR_FTMPI_coll_t c = { MPIR_FTMPI_PARAMS fields, .comm = comm_ptr };            \
        MPIR_FTMPI_form_t form = { .form = MPIR_FTMPI_NONBLOCKING, .request = request }; \
        return MPIR_FTMPI_coll(&c, &form);                                               \
    }                                                                                    \
    int MPID_##Name##_init_diverted(MPIR_FTMPI_PARAMS params, MPIR_Info * info_ptr,      \
                                    MPIR_Request ** request)                             \
    {                                                                                    \
        MPIR_FTMPI_coll_t c = { MPIR_FTMPI_PARAMS fields, .comm = comm_ptr };            \
        MPIR_FTMPI_form_t form = { .form = MPIR_FTMPI_PERSISTENT, .info = info_ptr,      \
            .request = request                                                           \
        };                                                                               \
        return MPIR_FTMPI_coll(&c, &form);                                               \
    }

MPIR_FTMPI_COLLS(MPIR_FTMPI_DEFINE_ENTRIES)

/* ---- running a described collective ------------------------------------ */

#define RUN_FORMS(Name, IName, ...)                                                      \
    switch (form->form) {                                                                \
        case MPIR_FTMPI_BLOCKING:                                                        \
            return MPIR_##Name(__VA_ARGS__, form->errflag);                              \
        case MPIR_FTMPI_NONBLOCKING:                                                     \
            return MPIR_##IName(__VA_ARGS__, form->request);                             \
        default:                                                                         \
            return MPIR_##Name##_init(__VA_ARGS__, form->info, form->request);           \
    }

static int run_mpich(const MPIR_FTMPI_coll_t * c, const MPIR_FTMPI_form_t * form)
{
    switch (c->kind) {
        case MPIR_FTMPI_BARRIER:
            RUN_FORMS(Barrier, Ibarrier, c->comm);
        case MPIR_FTMPI_BCAST:
            RUN_FORMS(Bcast, Ibcast, c->recvbuf, c->recvcount, c->recvtype, c->root, c->comm);
        case MPIR_FTMPI_GATHER:
            RUN_FORMS(Gather, Igather, c->sendbuf, c->sendcount, c->sendtype, c->recvbuf,
                      c->recvcount, c->recvtype, c->root, c->comm);
        case MPIR_FTMPI_GATHERV:
            RUN_FORMS(Gatherv, Igatherv, c->sendbuf, c->sendcount, c->sendtype, c->recvbuf,
                      c->recvcounts, c->rdispls, c->recvtype, c->root, c->comm);
        case MPIR_FTMPI_SCATTER:
            RUN_FORMS(Scatter, Iscatter, c->sendbuf, c->sendcount, c->sendtype, c->recvbuf,
                      c->recvcount, c->recvtype, c->root, c->comm);
        case MPIR_FTMPI_SCATTERV:
            RUN_FORMS(Scatterv, Iscatterv, c->sendbuf, c->sendcounts, c->sdispls, c->sendtype,
                      c->recvbuf, c->recvcount, c->recvtype, c->root, c->comm);
        case MPIR_FTMPI_ALLGATHER:
            RUN_FORMS(Allgather, Iallgather, c->sendbuf, c->sendcount, c->sendtype, c->recvbuf,
                      c->recvcount, c->recvtype, c->comm);
        case MPIR_FTMPI_ALLGATHERV:
            RUN_FORMS(Allgatherv, Iallgatherv, c->sendbuf, c->sendcount, c->sendtype,
                      c->recvbuf, c->recvcounts, c->rdispls, c->recvtype, c->comm);
        case MPIR_FTMPI_ALLTOALL:
            RUN_FORMS(Alltoall, Ialltoall, c->sendbuf, c->sendcount, c->sendtype, c->recvbuf,
                      c->recvcount, c->recvtype, c->comm);
        case MPIR_FTMPI_ALLTOALLV:
            RUN_FORMS(Alltoallv, Ialltoallv, c->sendbuf, c->sendcounts, c->sdispls,
                      c->sendtype, c->recvbuf, c->recvcounts, c->rdispls, c->recvtype,
                      c->comm);
        case MPIR_FTMPI_ALLTOALLW:
            RUN_FORMS(Alltoallw, Ialltoallw, c->sendbuf, c->sendcounts, c->sdispls,
                      c->sendtypes, c->recvbuf, c->recvcounts, c->rdispls, c->recvtypes,
                      c->comm);
        case MPIR_FTMPI_REDUCE:
            RUN_FORMS(Reduce, Ireduce, c->sendbuf, c->recvbuf, c->recvcount, c->recvtype,
                      c->op, c->root, c->comm);
        case MPIR_FTMPI_ALLREDUCE:
            RUN_FORMS(Allreduce, Iallreduce, c->sendbuf, c->recvbuf, c->recvcount,
                      c->recvtype, c->op, c->comm);
        case MPIR_FTMPI_REDUCE_SCATTER:
            RUN_FORMS(Reduce_scatter, Ireduce_scatter, c->sendbuf, c->recvbuf,
                      c->recvcounts, c->recvtype, c->op, c->comm);
        case MPIR_FTMPI_REDUCE_SCATTER_BLOCK:
            RUN_FORMS(Reduce_scatter_block, Ireduce_scatter_block, c->sendbuf, c->recvbuf,
                      c->recvcount, c->recvtype, c->op, c->comm);
        case MPIR_FTMPI_SCAN:
            RUN_FORMS(Scan, Iscan, c->sendbuf, c->recvbuf, c->recvcount, c->recvtype, c->op,
                      c->comm);
        case MPIR_FTMPI_EXSCAN:
            RUN_FORMS(Exscan, Iexscan, c->sendbuf, c->recvbuf, c->recvcount, c->recvtype,
                      c->op, c->comm);
        default:
            MPIR_Assert(0);
            return MPI_ERR_INTERN;
    }
}

/* MPICH frees a nonblocking collective's host buffer when the request
 * completes (MPIR_Request_completion_processing), a persistent one's when
 * the request is freed: scratch memory rides along as that buffer. */
static void free_with_request(MPIR_Request * req, void *scratch, int persistent)
{
    MPII_Coll_req_t *coll;

    if (req == NULL || HANDLE_IS_BUILTIN(req->handle)) {
        MPL_free(scratch);
        return;
    }
    coll = persistent ? &req->u.persist_coll.coll : &req->u.nbc.coll;
    MPIR_Assert(coll->host_sendbuf == NULL);
    coll->host_sendbuf = scratch;
    coll->datatype = MPI_BYTE;
    coll->count = 0;
}

int MPIR_FTMPI_coll_run(const MPIR_FTMPI_coll_t * c, const MPIR_FTMPI_form_t * form,
                        void *scratch)
{
    int mpi_errno;

    running_inner++;
    mpi_errno = run_mpich(c, form);
    running_inner--;

    if (scratch) {
        if (form->form == MPIR_FTMPI_BLOCKING)
            MPL_free(scratch);
        else
            free_with_request(*form->request, scratch, form->form == MPIR_FTMPI_PERSISTENT);
    }
    return mpi_errno;
}

/* ---- the diverted collective -------------------------------------------- */

int MPIR_FTMPI_coll(const MPIR_FTMPI_coll_t * call, const MPIR_FTMPI_form_t * form)
{
    int mpi_errno = MPI_SUCCESS, skip = 0;
    MPIR_FTMPI_coll_t c = *call;
    void *scratch = NULL;

    if (MPIR_FTMPI_live_view(c.comm)->nlive < c.comm->local_size) {
        mpi_errno = MPIR_FTMPI_blank_translate(&c, &skip, &scratch);
        MPIR_ERR_CHECK(mpi_errno);
        if (skip) {
            /* a blank root: nothing moves; a request is done at once */
            if (form->form == MPIR_FTMPI_NONBLOCKING)
                *form->request = MPIR_Request_create_complete(MPIR_REQUEST_KIND__COLL);
            if (form->form != MPIR_FTMPI_PERSISTENT)
                goto fn_exit;
            /* persistent: a broadcast of nothing among the live ranks */
            c = (MPIR_FTMPI_coll_t) {
            .kind = MPIR_FTMPI_BCAST,.recvtype = MPI_BYTE,.comm = c.comm};
        }
    }

    if (MPIR_FTMPI_modes.coll == FTMPI_COLL_MODE_ATOMIC) {
        if (form->form == MPIR_FTMPI_BLOCKING) {
            mpi_errno = MPIR_FTMPI_atomic(&c, form->errflag);
            MPL_free(scratch);
            goto fn_exit;
        }
        if (form->form == MPIR_FTMPI_NONBLOCKING)
            return MPIR_FTMPI_atomic_start(&c, scratch, form->request);
        /* persistent collectives are not made atomic */
    }

    mpi_errno = MPIR_FTMPI_coll_run(&c, form, scratch);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
