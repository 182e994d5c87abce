/*
 * FT-MPICH: collectives under failure.
 *
 * ATOMIC collective mode (FT-MPI spec Appendix A section 5.2): every
 * survivor returns MPI_SUCCESS with its results, or every survivor returns
 * MPI_ERR_OTHER with no output buffer modified. The collective writes into
 * a temporary buffer laid out like the user's (an MPI_IN_PLACE input is
 * read from the user's buffer as an ordinary send buffer); the two-phase
 * commit of ftmpi_commit.c decides; on commit each process copies exactly
 * the parts of the layout it owns into the user's buffer (never the gaps
 * between them, nor the slots of blanks).
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "ftmpi_coll.h"
#include <signal.h>

/* One part of this process's output: count elements of dt at byte offset
 * `offset` from the receive buffer. */
typedef struct {
    MPI_Aint offset;
    MPI_Aint count;
    MPI_Datatype dt;
} piece_t;

typedef struct {
    int n;
    piece_t *pieces;
    piece_t one;
} output_t;

/* The temporary buffer is kept between collectives: allocating (and for
 * large sizes mapping and faulting in) a new one each time would cost more
 * than the collective. */
static void *tmp_buf;
static size_t tmp_len;

static void *temporary(size_t len)
{
    if (len > tmp_len) {
        MPL_free(tmp_buf);
        tmp_buf = MPL_malloc(len, MPL_MEM_COLL);
        tmp_len = tmp_buf ? len : 0;
    }
    return tmp_buf;
}

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

/* What this process's part of c writes, and c rewritten so that an
 * MPI_IN_PLACE input comes from the user's receive buffer as a send
 * buffer (the receive buffer is about to be replaced by a temporary). */
static int describe_output(MPIR_FTMPI_coll_t * c, output_t * out)
{
    int rank = c->comm->rank, size = c->comm->local_size;
    int in_place = c->sendbuf == MPI_IN_PLACE, is_root = rank == c->root;

    out->n = 0;
    out->pieces = NULL;
    switch (c->kind) {
        case MPIR_FTMPI_BARRIER:
            break;
        case MPIR_FTMPI_BCAST:
            if (!is_root)
                set_one(out, c->recvcount, c->recvtype);
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

/* The bytes the pieces span, relative to the receive buffer. */
static void span(const output_t * out, MPI_Aint * lo, MPI_Aint * hi)
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

static int copy_out(const output_t * out, const char *from, char *to)
{
    int mpi_errno = MPI_SUCCESS;
    for (int i = 0; i < out->n && mpi_errno == MPI_SUCCESS; i++) {
        const piece_t *p = &out->pieces[i];
        mpi_errno = MPIR_Localcopy(from + p->offset, p->count, p->dt,
                                   to + p->offset, p->count, p->dt);
    }
    return mpi_errno;
}

/* ---- test-only fault injection ------------------------------------------ */

static unsigned atomic_calls;

/* FTMPI_TEST_ATOMIC_DEATH=pid:point[:n] kills the process with process id
 * pid (its first MPI_COMM_WORLD rank) at `point` of its n-th atomic
 * collective (default the first): "before-vote", "after-vote",
 * "coordinator-before-decision", "coordinator-mid-decision",
 * "after-commit". Unset, it does nothing. What the process sent just
 * before is flushed first, so that the point is where it died. */
void MPIR_FTMPI_atomic_test_death(const char *point)
{
    static int parsed;
    static long pid = -1, nth = 1;
    static char where[64];

    if (!parsed) {
        const char *spec = getenv("FTMPI_TEST_ATOMIC_DEATH");
        char *end;
        parsed = 1;
        if (spec && (pid = strtol(spec, &end, 10), end != spec && *end == ':')) {
            MPL_strncpy(where, end + 1, sizeof(where));
            char *colon = strchr(where, ':');
            if (colon) {
                *colon = 0;
                nth = strtol(colon + 1, NULL, 10);
            }
        } else {
            pid = -1;
        }
    }
    if (pid != MPIR_Process.rank || atomic_calls != nth || strcmp(point, where) != 0)
        return;
    for (double until = MPI_Wtime() + 0.02; MPI_Wtime() < until;)
        MPID_Progress_test(NULL);
    fflush(stdout);
    raise(SIGKILL);
}

/* ---- the atomic collective ------------------------------------------------ */

static MPIR_FTMPI_coll_comm_t *sequence_of(MPIR_Comm * comm)
{
    MPIR_FTMPI_coll_comm_t *s = MPIDI_FTDEV_comm_coll(comm);
    uint32_t epoch = MPIDI_FTDEV_epoch();
    /* survivors may have counted differently before a recovery (a failure
     * refuses a collective on some processes before it starts) */
    if (s->seq_epoch != epoch) {
        s->seq_epoch = epoch;
        s->seq = 0;
    }
    return s;
}

int MPIR_FTMPI_atomic(const MPIR_FTMPI_coll_t * call, MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS, run_errno;
    MPIR_FTMPI_coll_t c = *call;
    MPIR_FTMPI_form_t blocking = {.form = MPIR_FTMPI_BLOCKING,.errflag = errflag };
    output_t out;
    MPI_Aint lo, hi;
    char *user_recvbuf = c.recvbuf, *tmp = NULL;
    uint32_t seq = ++sequence_of(c.comm)->seq;

    atomic_calls++;

    mpi_errno = describe_output(&c, &out);
    MPIR_ERR_CHECK(mpi_errno);
    if (out.n > 0) {
        span(&out, &lo, &hi);
        tmp = temporary(hi - lo + 1);
        MPIR_ERR_CHKANDJUMP(tmp == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
        c.recvbuf = tmp - lo;
    }

    run_errno = MPIR_FTMPI_coll_run(&c, &blocking, NULL);
    MPIR_FTMPI_atomic_test_death("before-vote");

    if (!MPIR_FTMPI_commit(c.comm, seq, run_errno == MPI_SUCCESS && *errflag == MPIR_ERR_NONE)) {
        mpi_errno = MPIR_ERR_GET_CLASS(run_errno) == MPI_ERR_OTHER ? run_errno :
            MPIR_FTMPI_failure_error(-1);
        goto fn_exit;
    }
    *errflag = MPIR_ERR_NONE;
    if (out.n > 0) {
        mpi_errno = copy_out(&out, tmp - lo, user_recvbuf);
        MPIR_ERR_CHECK(mpi_errno);
    }
    MPIR_FTMPI_atomic_test_death("after-commit");

  fn_exit:
    if (out.pieces != &out.one)
        MPL_free(out.pieces);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
