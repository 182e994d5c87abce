/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Collectives over a communicator with blanks (FT-MPI BLANK mode, spec
 * Appendix A section 4.1). A collective runs MPICH's own algorithms on the
 * communicator of the live ranks, with its arguments rewritten: a blank
 * root makes everyone return at once; gathers become their "v" forms with
 * the live ranks' slots of the receive buffer, so that blank slots stay
 * untouched; reductions combine the live ranks' data only (no identity
 * values stand in for blanks, so every operation, user-defined ones
 * included, sees live data only and MAXLOC/MINLOC never name a blank);
 * nothing is sent to a blank. The live communicator is made, over
 * point-to-point among the live ranks only, at the first collective that
 * needs it after each recovery.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "ftmpi_coll.h"

/* ---- which ranks are live --------------------------------------------------- */

static void forget_live_ranks(MPIR_FTMPI_coll_comm_t * v)
{
    MPL_free(v->live_ranks);
    MPL_free(v->live_rank_of);
    v->live_ranks = v->live_rank_of = NULL;
}

MPIR_FTMPI_coll_comm_t *MPIR_FTMPI_coll_state(MPIR_Comm * comm)
{
    void **slot = MPID_FT_comm_coll_slot(comm);
    if (unlikely(*slot == NULL))
        *slot = MPL_calloc(1, sizeof(MPIR_FTMPI_coll_comm_t), MPL_MEM_COMM);
    return *slot;
}

/* The view of a communicator whose state could not be allocated: not
 * known, so MPIR_FTMPI_blank_translate fails with no memory. */
static MPIR_FTMPI_coll_comm_t unknown_view;

MPIR_FTMPI_coll_comm_t *MPIR_FTMPI_live_view(MPIR_Comm * comm)
{
    MPIR_FTMPI_coll_comm_t *v = MPIR_FTMPI_coll_state(comm);
    uint32_t epoch = MPID_FT_epoch();
    int n = comm->local_size, nlive = 0;

    if (unlikely(v == NULL))
        return &unknown_view;
    if (likely(v->known && v->epoch == epoch))
        return v;

    /* a recovery destroyed the live communicator of the last epoch */
    v->live = NULL;
    forget_live_ranks(v);
    v->known = 1;
    v->epoch = epoch;
    for (int r = 0; r < n; r++)
        nlive += !MPID_FT_proc_is_blank(MPID_FT_comm_local_pid(comm, r));
    v->nlive = nlive;
    if (nlive == n)
        return v;

    v->live_ranks = MPL_malloc(nlive * sizeof(int), MPL_MEM_COMM);
    v->live_rank_of = MPL_malloc(n * sizeof(int), MPL_MEM_COMM);
    if (v->live_ranks == NULL || v->live_rank_of == NULL) {
        /* tried again at the next call; MPIR_FTMPI_blank_translate fails */
        forget_live_ranks(v);
        v->known = 0;
        return v;
    }
    nlive = 0;
    for (int r = 0; r < n; r++) {
        if (MPID_FT_proc_is_blank(MPID_FT_comm_local_pid(comm, r))) {
            v->live_rank_of[r] = -1;
        } else {
            v->live_ranks[nlive] = r;
            v->live_rank_of[r] = nlive++;
        }
    }
    return v;
}

/* The communicator of the live ranks, made with a group-collective context
 * id among them (blanks take no part). */
static int make_live_comm(MPIR_Comm * comm, MPIR_FTMPI_coll_comm_t * v)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Group *group = NULL, *live_group = NULL;

    mpi_errno = MPIR_Comm_group_impl(comm, &group);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Group_incl_impl(group, v->nlive, v->live_ranks, &live_group);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Comm_create_group_impl(comm, live_group, MPIR_SHRINK_TAG, &v->live);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    if (live_group)
        MPIR_Group_release(live_group);
    if (group)
        MPIR_Group_release(group);
    return mpi_errno;
  fn_fail:
    v->live = NULL;
    goto fn_exit;
}

void MPIR_FTMPI_coll_comm_free(MPIR_Comm * comm)
{
    void **slot = MPID_FT_comm_coll_slot(comm);
    MPIR_FTMPI_coll_comm_t *v = *slot;

    if (v == NULL)
        return;
    /* a recovery destroys live communicators on its own (reference count
     * zero) */
    if (v->live && v->epoch == MPID_FT_epoch() && MPIR_Object_get_ref(v->live) > 0)
        MPIR_Comm_release(v->live);
    forget_live_ranks(v);
    MPL_free(v);
    *slot = NULL;
}

/* ---- rewriting a call -------------------------------------------------------- */

/* Points *counts and *displs (over all ranks; NULL: `count` each, at
 * rank * count) at the live ranks' counts and displacements, written into
 * space (2 * nlive); displs may be NULL when only counts matter. */
static void live_layout(const MPIR_FTMPI_coll_comm_t * v, const MPI_Aint ** counts,
                        const MPI_Aint ** displs, MPI_Aint count, MPI_Aint * space)
{
    MPI_Aint *live_counts = space, *live_displs = space + v->nlive;
    for (int i = 0; i < v->nlive; i++) {
        int r = v->live_ranks[i];
        live_counts[i] = *counts ? (*counts)[r] : count;
        live_displs[i] = displs && *displs ? (*displs)[r] : r * count;
    }
    *counts = live_counts;
    if (displs)
        *displs = live_displs;
}

/* Reduce-scatter: the live ranks' blocks of the input, packed in live
 * order into tmp (blocks[r] elements for rank r, or `block` each). */
static int pack_live_blocks(const MPIR_FTMPI_coll_comm_t * v, const void *in,
                            const MPI_Aint * blocks, MPI_Aint block, MPI_Datatype dt, void *tmp)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint extent, in_off = 0, out_off = 0;

    MPIR_Datatype_get_extent_macro(dt, extent);
    for (int r = 0, i = 0; i < v->nlive; r++) {
        MPI_Aint n = blocks ? blocks[r] : block;
        if (v->live_rank_of[r] >= 0) {
            mpi_errno = MPIR_Localcopy((const char *) in + in_off * extent, n, dt,
                                       (char *) tmp + out_off * extent, n, dt);
            MPIR_ERR_CHECK(mpi_errno);
            out_off += n;
            i++;
        }
        in_off += n;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int is_rooted(int kind)
{
    switch (kind) {
        case MPIR_FTMPI_BCAST:
        case MPIR_FTMPI_REDUCE:
        case MPIR_FTMPI_GATHER:
        case MPIR_FTMPI_GATHERV:
        case MPIR_FTMPI_SCATTER:
        case MPIR_FTMPI_SCATTERV:
            return 1;
        default:
            return 0;
    }
}

/* Whether the call names per-rank parts that must be rewritten. */
static int needs_layout(int kind)
{
    switch (kind) {
        case MPIR_FTMPI_BARRIER:
        case MPIR_FTMPI_BCAST:
        case MPIR_FTMPI_REDUCE:
        case MPIR_FTMPI_ALLREDUCE:
        case MPIR_FTMPI_SCAN:
        case MPIR_FTMPI_EXSCAN:
            return 0;
        default:
            return 1;
    }
}

int MPIR_FTMPI_blank_translate(MPIR_FTMPI_coll_t * c, int *skip, void **scratch)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FTMPI_coll_comm_t *v = MPIR_FTMPI_live_view(c->comm);
    int m = v->nlive, is_root = c->comm->rank == c->root;
    MPI_Aint *a = NULL;         /* four arrays of m counts or displacements */
    MPI_Datatype *types = NULL; /* alltoallw: two arrays of m types */
    void *data = NULL;          /* reduce-scatter: the packed input */
    MPI_Aint data_len = 0, extent = 0, true_lb = 0, true_extent = 0, total = 0;

    *skip = 0;
    *scratch = NULL;
    MPIR_ERR_CHKANDJUMP(m < c->comm->local_size && v->live_rank_of == NULL, mpi_errno,
                        MPI_ERR_OTHER, "**nomem");
    if (v->live == NULL) {
        mpi_errno = make_live_comm(c->comm, v);
        MPIR_ERR_CHECK(mpi_errno);
    }

    if (is_rooted(c->kind)) {
        if (v->live_rank_of[c->root] < 0) {
            *skip = 1;
            c->comm = v->live;
            goto fn_exit;
        }
        c->root = v->live_rank_of[c->root];
    }

    if (c->kind == MPIR_FTMPI_REDUCE_SCATTER || c->kind == MPIR_FTMPI_REDUCE_SCATTER_BLOCK) {
        for (int i = 0; i < m; i++)
            total += c->recvcounts ? c->recvcounts[v->live_ranks[i]] : c->recvcount;
        MPIR_Datatype_get_extent_macro(c->recvtype, extent);
        MPIR_Type_get_true_extent_impl(c->recvtype, &true_lb, &true_extent);
        data_len = total * MPL_MAX(extent, true_extent);
    }
    if (!needs_layout(c->kind)) {
        /* barrier, bcast, reduce, allreduce, scan, exscan: the live
         * communicator and the root are all that change */
        c->comm = v->live;
        goto fn_exit;
    }
    /* one block: the arrays, then the types, then the data */
    size_t arrays_len = 4 * m * sizeof(MPI_Aint), types_len = 2 * m * sizeof(MPI_Datatype);
    *scratch = MPL_malloc(arrays_len + types_len + data_len + 1, MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(*scratch == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    a = *scratch;
    types = (MPI_Datatype *) ((char *) *scratch + arrays_len);
    data = (char *) *scratch + arrays_len + types_len;

    switch (c->kind) {
        case MPIR_FTMPI_GATHER:
        case MPIR_FTMPI_GATHERV:
            if (is_root)
                live_layout(v, &c->recvcounts, &c->rdispls, c->recvcount, a);
            c->kind = MPIR_FTMPI_GATHERV;
            break;
        case MPIR_FTMPI_SCATTER:
        case MPIR_FTMPI_SCATTERV:
            if (is_root)
                live_layout(v, &c->sendcounts, &c->sdispls, c->sendcount, a);
            c->kind = MPIR_FTMPI_SCATTERV;
            break;
        case MPIR_FTMPI_ALLGATHER:
        case MPIR_FTMPI_ALLGATHERV:
            live_layout(v, &c->recvcounts, &c->rdispls, c->recvcount, a);
            c->kind = MPIR_FTMPI_ALLGATHERV;
            break;
        case MPIR_FTMPI_ALLTOALLW:
            for (int i = 0; i < m; i++) {
                if (c->sendbuf != MPI_IN_PLACE)
                    types[i] = c->sendtypes[v->live_ranks[i]];
                types[m + i] = c->recvtypes[v->live_ranks[i]];
            }
            c->sendtypes = types;
            c->recvtypes = types + m;
            /* fallthrough */
        case MPIR_FTMPI_ALLTOALL:
        case MPIR_FTMPI_ALLTOALLV:
            if (c->sendbuf != MPI_IN_PLACE)
                live_layout(v, &c->sendcounts, &c->sdispls, c->sendcount, a);
            live_layout(v, &c->recvcounts, &c->rdispls, c->recvcount, a + 2 * m);
            if (c->kind == MPIR_FTMPI_ALLTOALL)
                c->kind = MPIR_FTMPI_ALLTOALLV;
            break;
        case MPIR_FTMPI_REDUCE_SCATTER:
        case MPIR_FTMPI_REDUCE_SCATTER_BLOCK:
            {
                void *packed = (char *) data - true_lb;
                const void *in = c->sendbuf == MPI_IN_PLACE ? c->recvbuf : c->sendbuf;
                mpi_errno = pack_live_blocks(v, in, c->recvcounts, c->recvcount, c->recvtype,
                                             packed);
                MPIR_ERR_CHECK(mpi_errno);
                c->sendbuf = packed;
                if (c->recvcounts)
                    live_layout(v, &c->recvcounts, NULL, 0, a);
                break;
            }
        default:
            MPIR_Assert(0);
    }
    c->comm = v->live;

  fn_exit:
    return mpi_errno;
  fn_fail:
    MPL_free(*scratch);
    *scratch = NULL;
    goto fn_exit;
}
