/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What an atomic collective's call writes at this process: the pieces of
 * its receive buffer that its part owns (API: ftmpi_coll_output.h).
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "ftmpi_coll.h"
#include "ftmpi_coll_output.h"

static MPI_Aint extent_of(MPI_Datatype dt)
{
    MPI_Aint extent;
    MPIR_Datatype_get_extent_macro(dt, extent);
    return extent;
}

static void set_one(output_t * out, MPI_Aint count, MPI_Datatype dt)
{
    out->one = (piece_t) {.offset = 0,.count = count,.dt = dt };
    out->pieces = &out->one;
    out->n = count > 0;
}

/* One piece per rank: counts[i] elements at displs[i] (in elements of
 * dt; with types, in bytes and of types[i]). */
static int set_per_rank(output_t * out, int size, const MPI_Aint * counts,
                        const MPI_Aint * displs, MPI_Datatype dt, const MPI_Datatype * types)
{
    int mpi_errno = MPI_SUCCESS;

    out->pieces = MPL_malloc(size * sizeof(piece_t), MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP(out->pieces == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    out->n = 0;
    for (int i = 0; i < size; i++) {
        MPI_Datatype t = types ? types[i] : dt;
        if (counts[i] == 0)
            continue;
        out->pieces[out->n++] = (piece_t) {
        .offset = types ? displs[i] : displs[i] * extent_of(t),.count = counts[i],.dt = t};
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPII_FTMPI_output_describe(MPIR_FTMPI_coll_t * c, output_t * out)
{
    int rank = c->comm->rank, size = c->comm->local_size;
    int in_place = c->sendbuf == MPI_IN_PLACE, is_root = rank == c->root;

    out->n = 0;
    out->pieces = NULL;
    out->input = 0;
    switch (c->kind) {
        case MPIR_FTMPI_BARRIER:
            break;
        case MPIR_FTMPI_BCAST:
            /* the root's buffer is input, but MPICH's algorithms write
             * into it too (scatter then allgather), and after a failure
             * with what others forward */
            set_one(out, c->recvcount, c->recvtype);
            out->input = is_root;
            break;
        case MPIR_FTMPI_REDUCE:
            if (!is_root)
                break;
            /* fallthrough */
        case MPIR_FTMPI_ALLREDUCE:
        case MPIR_FTMPI_SCAN:
        case MPIR_FTMPI_EXSCAN:
        case MPIR_FTMPI_REDUCE_SCATTER_BLOCK:
        case MPIR_FTMPI_REDUCE_SCATTER:
            if (in_place)
                c->sendbuf = c->recvbuf;
            set_one(out, c->recvcounts ? c->recvcounts[rank] : c->recvcount, c->recvtype);
            break;
        case MPIR_FTMPI_GATHER:
            if (!is_root)
                break;
            /* fallthrough */
        case MPIR_FTMPI_ALLGATHER:
            if (in_place) {
                c->sendbuf = (char *) c->recvbuf + rank * c->recvcount * extent_of(c->recvtype);
                c->sendcount = c->recvcount;
                c->sendtype = c->recvtype;
            }
            set_one(out, size * c->recvcount, c->recvtype);
            break;
        case MPIR_FTMPI_GATHERV:
            if (!is_root)
                break;
            /* fallthrough */
        case MPIR_FTMPI_ALLGATHERV:
            if (in_place) {
                c->sendbuf = (char *) c->recvbuf + c->rdispls[rank] * extent_of(c->recvtype);
                c->sendcount = c->recvcounts[rank];
                c->sendtype = c->recvtype;
            }
            return set_per_rank(out, size, c->recvcounts, c->rdispls, c->recvtype, NULL);
        case MPIR_FTMPI_SCATTER:
        case MPIR_FTMPI_SCATTERV:
            /* an MPI_IN_PLACE root keeps its part where it is */
            if (!(is_root && c->recvbuf == MPI_IN_PLACE))
                set_one(out, c->recvcount, c->recvtype);
            break;
        case MPIR_FTMPI_ALLTOALL:
            if (in_place) {
                c->sendbuf = c->recvbuf;
                c->sendcount = c->recvcount;
                c->sendtype = c->recvtype;
            }
            set_one(out, size * c->recvcount, c->recvtype);
            break;
        case MPIR_FTMPI_ALLTOALLV:
        case MPIR_FTMPI_ALLTOALLW:
            if (in_place) {
                c->sendbuf = c->recvbuf;
                c->sendcounts = c->recvcounts;
                c->sdispls = c->rdispls;
                c->sendtype = c->recvtype;
                c->sendtypes = c->recvtypes;
            }
            return set_per_rank(out, size, c->recvcounts, c->rdispls, c->recvtype,
                                c->kind == MPIR_FTMPI_ALLTOALLW ? c->recvtypes : NULL);
    }
    return MPI_SUCCESS;
}

void MPII_FTMPI_output_span(const output_t * out, MPI_Aint * lo, MPI_Aint * hi)
{
    *lo = *hi = 0;
    for (int i = 0; i < out->n; i++) {
        const piece_t *p = &out->pieces[i];
        MPI_Aint extent = extent_of(p->dt), true_lb, true_extent;
        MPIR_Type_get_true_extent_impl(p->dt, &true_lb, &true_extent);
        MPI_Aint first = p->offset + true_lb + MPL_MIN(0, (p->count - 1) * extent);
        MPI_Aint last = p->offset + true_lb + true_extent + MPL_MAX(0, (p->count - 1) * extent);
        if (i == 0 || first < *lo)
            *lo = first;
        if (i == 0 || last > *hi)
            *hi = last;
    }
}

int MPII_FTMPI_output_copy(const output_t * out, const char *from, char *to)
{
    int mpi_errno = MPI_SUCCESS;
    for (int i = 0; i < out->n && mpi_errno == MPI_SUCCESS; i++) {
        const piece_t *p = &out->pieces[i];
        mpi_errno = MPIR_Localcopy(from + p->offset, p->count, p->dt,
                                   to + p->offset, p->count, p->dt);
    }
    return mpi_errno;
}
