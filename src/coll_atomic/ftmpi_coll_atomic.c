/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * ATOMIC collective mode (FT-MPI spec Appendix A section 5.2): every
 * survivor returns MPI_SUCCESS with its results, or every survivor returns
 * MPI_ERR_OTHER with no output buffer modified. The collective writes into
 * a temporary buffer laid out like the user's (an MPI_IN_PLACE input is
 * read from the user's buffer as an ordinary send buffer); the
 * commit of ftmpi_commit.c decides; on commit each process copies exactly
 * the parts of the layout it owns into the user's buffer (never the gaps
 * between them, nor the slots of blanks).
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "ftmpi_coll.h"
#include "ftmpi_coll_output.h"

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

/* ---- test points ---------------------------------------------------------- */

static unsigned atomic_calls;   /* started by this process */

/* The test points of an atomic collective (mpid_ft.h), N counting this
 * process's atomic collectives: the process dies at "before-vote" (its
 * part is done), "after-vote" (it sent its first round of votes; with a
 * shared output, which sends none, it is about to decide),
 * "before-decision" (it heard every vote; these two are the commit's,
 * ftmpi_commit.c) or "after-commit" (it copied its results out), once
 * 20 ms of progress let out what it sent just before, so that the point
 * is where it died. At "part-fails" nobody dies: the process's part
 * counts as failed though it succeeded, as when a failure broke only its
 * part, once the others had 50 ms to end theirs. */
#ifdef HAVE_FT_TEST_POINTS
static void progress_for(double seconds)
{
    for (double until = MPI_Wtime() + seconds; MPI_Wtime() < until;)
        MPID_Progress_test(NULL);
}
#endif

/* ---- the atomic collective ------------------------------------------------ */

/* Communicators reuse context ids (a freed one's id goes to a later one,
 * and the children of a split share one), and each numbers its atomic
 * collectives from 1. The commit protocol tells their collectives apart by
 * an instance number, which the members agree on at the first atomic
 * collective of a communicator in an epoch: one above any this process
 * has seen for that context id, the largest among them. */
static uint32_t *next_instance;        /* per context id */

static int agree_instance(MPIR_Comm * comm, MPIR_FTMPI_coll_comm_t * s)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    unsigned mine, agreed;

    if (next_instance == NULL) {
        next_instance = MPL_calloc((size_t) 1 << (8 * sizeof(MPIR_Context_id_t)),
                                   sizeof(uint32_t), MPL_MEM_COLL);
        MPIR_ERR_CHKANDJUMP(next_instance == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    }
    mine = next_instance[comm->context_id];
    MPIR_FTMPI_coll_t c = {.kind = MPIR_FTMPI_ALLREDUCE,.sendbuf = &mine,.recvbuf = &agreed,
        .recvcount = 1,.recvtype = MPI_UNSIGNED,.op = MPI_MAX,.comm = comm
    };
    MPIR_FTMPI_form_t blocking = {.form = MPIR_FTMPI_BLOCKING,.errflag = &errflag };
    mpi_errno = MPIR_FTMPI_coll_run(&c, &blocking, NULL);
    MPIR_ERR_CHECK(mpi_errno);
    if (errflag != MPIR_ERR_NONE) {
        mpi_errno = MPIR_FTMPI_failure_error(-1);
        goto fn_fail;
    }
    s->instance = agreed;
    s->instance_known = 1;
    next_instance[comm->context_id] = agreed + 1;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int sequence_of(MPIR_Comm * comm, MPIR_FTMPI_coll_comm_t ** seq)
{
    MPIR_FTMPI_coll_comm_t *s = MPIR_FTMPI_coll_state(comm);
    uint32_t epoch = MPID_FT_epoch();

    if (s == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", 0);
    /* survivors may have counted differently before a recovery (a failure
     * refuses a collective on some processes before it starts) */
    if (s->seq_epoch != epoch) {
        s->seq_epoch = epoch;
        s->instance_known = 0;
        s->seq = 0;
    }
    *seq = s;
    return s->instance_known ? MPI_SUCCESS : agree_instance(comm, s);
}

/* An atomic collective: the call rewritten to write into the temporary
 * buffer, and what it takes to copy its results out. */
typedef struct {
    MPIR_FTMPI_coll_t c;
    output_t out;
    char *user_recvbuf;
    char *tmp;                  /* the temporary buffer, as the receive buffer's origin */
    void *own_tmp;              /* a nonblocking collective's own temporary buffer */
    uint32_t instance, seq;
    unsigned number;            /* of this process's atomic collectives */
    int is_shared;              /* every member's output is the same: `shared` */
    int binomial_bcast;         /* runs MPICH's binomial broadcast itself: the root
                                 * works in its own buffer */
    MPIR_FTMPI_shared_output_t shared;
    int part_ok;                /* this process's part succeeded: its vote */
    /* nonblocking form */
    MPIR_Request *inner, *greq;
    MPIR_FTMPI_vote_t *vote;
    int mpi_errno;
} atomic_op_t;

/* Whether every member of the call ends with the same output, small
 * enough to be kept and sent in the termination protocol; *len: its packed
 * size. */
static int output_is_shared(const atomic_op_t * op, size_t * len)
{
    MPI_Aint size = 0;

    switch (op->c.kind) {
        case MPIR_FTMPI_BARRIER:
        case MPIR_FTMPI_ALLREDUCE:
        case MPIR_FTMPI_BCAST:
        case MPIR_FTMPI_ALLGATHER:
            break;
        default:
            return 0;
    }
    if (op->out.n > 1)
        return 0;
    if (op->out.n == 1)
        MPIR_Datatype_get_size_macro(op->out.one.dt, size);
    *len = (size_t) (size * op->out.one.count);
    return *len <= MPIR_FTMPI_SHARED_OUTPUT_MAX;
}

/* The shared output, packed, from the temporary buffer (after this
 * member's part succeeded) or into the user's (fetched from another). */
static int pack_shared(atomic_op_t * op)
{
    const piece_t *p = &op->out.one;
    if (op->out.n == 0)
        return MPI_SUCCESS;
    return MPIR_Localcopy(op->tmp + p->offset, p->count, p->dt, op->shared.packed,
                          op->shared.len, MPI_BYTE);
}

static int unpack_shared(atomic_op_t * op)
{
    const piece_t *p = &op->out.one;
    if (op->out.n == 0)
        return MPI_SUCCESS;
    return MPIR_Localcopy(op->shared.packed, op->shared.len, MPI_BYTE,
                          op->user_recvbuf + p->offset, p->count, p->dt);
}

/* This process's part has ended (ok: it succeeded): its vote, the
 * test-only points there, and a shared output packed for the others. */
static int part_done(atomic_op_t * op, int ok)
{
    op->part_ok = ok;
#ifdef HAVE_FT_TEST_POINTS
    if (MPID_FT_test_point("part-fails", op->number)) {
        /* the others finish their parts first: otherwise the query of the
         * termination protocol may seal one whose part is still running
         * (as in a real failure), and ABORT, which is also atomic, would
         * skip the fetch of the output that "part-fails" is there to test */
        progress_for(0.05);
        op->part_ok = 0;
    }
#endif
    MPID_FT_test_death("before-vote", op->number, 0.02);
    return op->is_shared && op->part_ok ? pack_shared(op) : MPI_SUCCESS;
}

/* The binomial tree is the one broadcast in which the root never
 * receives, so its buffer can serve as its temporary (a scatter-allgather
 * root receives what others forward, which after a failure may be
 * anything). MPICH picks that tree itself below 8 members, where a blocking
 * ATOMIC broadcast calls it directly, at every member alike, unless the
 * user chose an algorithm: the root's copy of a large buffer that its peer
 * had just read cost more than the broadcast (2 processes, 1 MiB: 115-188
 * us against 51-66 us for the whole NONATOMIC broadcast). */
static int runs_binomial_bcast(const MPIR_FTMPI_coll_t * c, int blocking)
{
    return blocking && c->kind == MPIR_FTMPI_BCAST && c->comm->local_size < 8 &&
        MPIR_CVAR_BCAST_INTRA_ALGORITHM == MPIR_CVAR_BCAST_INTRA_ALGORITHM_auto;
}

static int prepare(atomic_op_t * op, const MPIR_FTMPI_coll_t * call, int own_buffer)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint lo, hi;
    MPIR_FTMPI_coll_comm_t *s;

    op->c = *call;
    op->user_recvbuf = call->recvbuf;
    mpi_errno = sequence_of(call->comm, &s);
    MPIR_ERR_CHECK(mpi_errno);
    op->instance = s->instance;
    op->seq = ++s->seq;
    op->number = ++atomic_calls;
    mpi_errno = MPII_FTMPI_output_describe(&op->c, &op->out);
    MPIR_ERR_CHECK(mpi_errno);
    op->is_shared = output_is_shared(op, &op->shared.len);
    op->binomial_bcast = runs_binomial_bcast(&op->c, !own_buffer);
    if (op->out.n > 0) {
        /* the packed shared output follows the temporary buffer; each
         * starts at the offset within a cache line of what it is copied
         * from and to (MPIR_FTMPI_co_aligned) */
        int in_place = op->out.input && op->binomial_bcast;
        MPII_FTMPI_output_span(&op->out, &lo, &hi);
        size_t tmp_len = in_place ? 0 : hi - lo;
        size_t len = tmp_len + (op->is_shared ? op->shared.len : 0) + 2 * MPIR_FTMPI_COPY_ALIGN;
        if (own_buffer)
            op->own_tmp = MPL_malloc(len, MPL_MEM_COLL);
        char *buf = own_buffer ? op->own_tmp : temporary(len);
        MPIR_ERR_CHKANDJUMP(buf == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
        char *region = in_place ? op->user_recvbuf + lo :
            MPIR_FTMPI_co_aligned(buf, op->user_recvbuf + lo);
        op->tmp = region - lo;
        op->c.recvbuf = op->tmp;
        op->shared.packed = MPIR_FTMPI_co_aligned(in_place ? buf : region + tmp_len,
                                                  op->tmp + (op->is_shared ? op->out.one.offset : 0));
        if (op->out.input && !in_place) {
            mpi_errno = MPII_FTMPI_output_copy(&op->out, op->user_recvbuf, op->tmp);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* After the decision: the results go out on commit; on abort the error is
 * the failure's. */
static int conclude(atomic_op_t * op, int commit)
{
    int mpi_errno = MPI_SUCCESS;

    if (!commit) {
        /* a fresh code: the part's own may be stale by now (MPICH keeps
         * the text of the last 128 codes made, and a termination protocol
         * during a failure outlasts that; the RMA fence that used one
         * printed "INTERNAL ERROR: invalid error code ... Ring ids do not
         * match") */
        mpi_errno = MPIR_FTMPI_failure_error(-1);
    } else if (op->out.n > 0 && !op->out.input) {
        /* a member whose part failed has the output another one kept */
        mpi_errno = op->part_ok ?
            MPII_FTMPI_output_copy(&op->out, op->tmp, op->user_recvbuf) : unpack_shared(op);
    }
    if (op->out.pieces != &op->out.one)
        MPL_free(op->out.pieces);
    op->out.pieces = NULL;
    if (commit)
        MPID_FT_test_death("after-commit", op->number, 0.02);
    return mpi_errno;
}

int MPIR_FTMPI_atomic(const MPIR_FTMPI_coll_t * call, MPIR_Errflag_t * errflag)
{
    int mpi_errno, expected = 0;
    atomic_op_t op = { 0 };
    MPIR_FTMPI_form_t blocking = {.form = MPIR_FTMPI_BLOCKING,.errflag = errflag };

    mpi_errno = prepare(&op, call, 0);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_FTMPI_commit_expect(op.c.comm, op.instance, op.seq);
    expected = 1;
    int rc = op.binomial_bcast ?
        MPIR_Bcast_intra_binomial(op.c.recvbuf, op.c.recvcount, op.c.recvtype, op.c.root,
                                  op.c.comm, errflag) :
        MPIR_FTMPI_coll_run(&op.c, &blocking, NULL);
    mpi_errno = part_done(&op, rc == MPI_SUCCESS && *errflag == MPIR_ERR_NONE);
    MPIR_ERR_CHECK(mpi_errno);

    int commit = 0;
    expected = 0;               /* the commit ends the expectation itself */
    mpi_errno = MPIR_FTMPI_commit(op.c.comm, op.instance, op.seq, op.number, op.part_ok,
                                  op.is_shared ? &op.shared : NULL, &commit);
    MPIR_ERR_CHECK(mpi_errno);
    if (commit)
        *errflag = MPIR_ERR_NONE;
    mpi_errno = conclude(&op, commit);

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (expected)
        MPIR_FTMPI_commit_unexpect(op.c.comm, op.instance, op.seq);
    if (op.out.pieces != &op.out.one)
        MPL_free(op.out.pieces);
    goto fn_exit;
}

/* ---- the nonblocking form: a generalized request that MPI_Wait/MPI_Test
 * poll ---------------------------------------------------------------------- */

static int atomic_poll(void *state, MPI_Status * status)
{
    atomic_op_t *op = state;
    int done, commit, mpi_errno;

    if (op->greq == NULL || MPIR_Request_is_complete(op->greq))
        return MPI_SUCCESS;
    MPID_Progress_test(NULL);
    if (op->vote == NULL) {
        if (op->inner) {
            if (!MPIR_Request_is_complete(op->inner))
                return MPI_SUCCESS;
            op->part_ok = MPIR_Request_completion_processing(op->inner, MPI_STATUS_IGNORE) ==
                MPI_SUCCESS;
            MPIR_Request_free(op->inner);
            op->inner = NULL;
        }
        mpi_errno = part_done(op, op->part_ok);
        if (mpi_errno != MPI_SUCCESS)
            goto failed;
        mpi_errno = MPIR_FTMPI_commit_start(op->c.comm, op->instance, op->seq, op->number,
                                            op->part_ok, op->is_shared ? &op->shared : NULL,
                                            &op->vote);
        if (mpi_errno != MPI_SUCCESS)
            goto failed;
    }
    mpi_errno = MPIR_FTMPI_commit_test(op->vote, &done, &commit);
    if (mpi_errno != MPI_SUCCESS)
        goto failed;
    if (done) {
        op->vote = NULL;
        op->mpi_errno = conclude(op, commit);
        MPIR_Grequest_complete_impl(op->greq);
    }
    return MPI_SUCCESS;

  failed:
    /* no decision (out of memory): the request ends with that error */
    op->vote = NULL;
    op->mpi_errno = mpi_errno;
    MPIR_Grequest_complete_impl(op->greq);
    return MPI_SUCCESS;
}

/* MPI_Waitall completes a generalized request through its wait function
 * (it polls none): drive the same steps until the request is complete. */
static int atomic_wait(int count, void **states, double timeout, MPI_Status * status)
{
    for (int i = 0; i < count; i++) {
        atomic_op_t *op = states[i];
        while (op->greq && !MPIR_Request_is_complete(op->greq))
            atomic_poll(op, status);
    }
    return MPI_SUCCESS;
}

static int atomic_query(void *state, MPI_Status * status)
{
    atomic_op_t *op = state;
    MPIR_STATUS_SET_COUNT(*status, 0);
    MPIR_STATUS_SET_CANCEL_BIT(*status, FALSE);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = op->mpi_errno;
    return op->mpi_errno;
}

static int atomic_free(void *state)
{
    atomic_op_t *op = state;
    MPL_free(op->own_tmp);
    MPL_free(op);
    return MPI_SUCCESS;
}

static int atomic_cancel(void *state, int complete)
{
    return MPI_SUCCESS;
}

int MPIR_FTMPI_atomic_start(const MPIR_FTMPI_coll_t * call, void *scratch,
                            MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    atomic_op_t *op = MPL_calloc(1, sizeof(*op), MPL_MEM_COLL);
    MPIR_FTMPI_form_t nonblocking = {.form = MPIR_FTMPI_NONBLOCKING };

    MPIR_ERR_CHKANDJUMP(op == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = prepare(op, call, 1);
    MPIR_ERR_CHECK(mpi_errno);

    nonblocking.request = &op->inner;
    /* until the request completes: whether the start succeeded */
    op->part_ok = MPIR_FTMPI_coll_run(&op->c, &nonblocking, scratch) == MPI_SUCCESS;
    scratch = NULL;
    if (!op->part_ok && op->inner) {
        MPIR_Request_completion_processing(op->inner, MPI_STATUS_IGNORE);
        MPIR_Request_free(op->inner);
        op->inner = NULL;
    }

    mpi_errno = MPIR_Grequest_start_impl(atomic_query, atomic_free, atomic_cancel, op, &op->greq);
    MPIR_ERR_CHECK(mpi_errno);
    op->greq->u.ureq.greq_fns->poll_fn = atomic_poll;
    op->greq->u.ureq.greq_fns->wait_fn = atomic_wait;
    *request = op->greq;

  fn_exit:
    return mpi_errno;
  fn_fail:
    MPL_free(scratch);
    if (op) {
        if (op->out.pieces != &op->out.one)
            MPL_free(op->out.pieces);
        MPL_free(op->own_tmp);
        MPL_free(op);
    }
    goto fn_exit;
}
