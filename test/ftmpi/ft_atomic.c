/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ATOMIC collectives (FTMPI_COLL_MODE=atomic): when a process dies during
 * a collective, either every survivor gets MPI_SUCCESS and the right
 * results, or every survivor gets MPI_ERR_OTHER and no output buffer of
 * the call was modified.
 *
 *   ft_atomic none
 *       no failure: every collective below, on MPI_COMM_WORLD, on a dup and
 *       on a split whose ranks are reversed, several counts (0 included) and
 *       roots, must give the right results and leave inputs alone
 *   ft_atomic COLL[@ROOT] DEATH [HOW [EXPECT]]
 *     COLL    allreduce, allreduce-inplace, allreduce-strided (a vector
 *             datatype and a user-defined sum: gaps must stay), bcast,
 *             bcast-strided, reduce, reduce-inplace, allgather,
 *             allgather-inplace, gather, alltoall, scatter, barrier, scan,
 *             reduce_scatter_block; "i" in front (iallreduce, ibcast,
 *             ...) runs the nonblocking form and MPI_Wait; ROOT (process id)
 *             for the rooted ones, default 0
 *     DEATH   PID:POINT[:N]  the library's test hook: process PID kills
 *                 itself at POINT of its N-th ATOMIC collective (default 1);
 *                 the program sets FTMPI_TEST_POINT=PID:POINT:N
 *                 before MPI_Init and calls COLL N times (the first N-1
 *                 must succeed everywhere, they are the only collectives
 *                 before it). POINT: before-vote (its part done, no
 *                 vote sent), after-vote (its first round of votes sent),
 *                 before-decision (every vote heard), after-commit
 *             PIDS:before[:N]  the processes PIDS ('+'-separated) die just
 *                 before their N-th call of COLL: they never enter it
 *             PID:part-fails[:N]  nobody dies: the library counts the part of
 *                 process PID in its N-th ATOMIC collective as failed (as
 *                 a failure that broke only its part would), so the
 *                 others' votes, or for a shared output (allreduce,
 *                 bcast, allgather, barrier up to 4 KiB) the output that
 *                 PID fetches from them, decide; the survivors are all
 *             PIDS:timer:USEC  PIDS arm a timer USEC microseconds before
 *                 their first call of a loop of COLL on large buffers (4 MiB
 *                 per rank) and die when it goes off, usually inside the
 *                 collective, wherever the library is
 *     HOW     kill (SIGKILL, default) or exit (_exit); the hook always
 *             uses SIGKILL
 *     EXPECT  what every survivor must get from the call the victim died
 *             in: any (default; only that all agree), ok or fail
 *
 * Each survivor fills its output buffers with a sentinel before every call.
 * MPI_SUCCESS: the results must be those of all the processes of the
 * original MPI_COMM_WORLD (a call only succeeds if the victim contributed;
 * the hook points all come after the data moved into the temporary
 * buffer), strided datatypes' gaps untouched, inputs unchanged.
 * MPI_ERR_OTHER: every output buffer (all of it, sentinel and in-place
 * input alike) must be as before the call. Then the survivors call a
 * barrier (it must fail: a victim never reaches it), recover (MANUAL,
 * SHRINK: MPI_Comm_dup of MPI_COMM_WORLD), check the new world, allgather
 * their outcome (error class and the loop round it came at) and check that
 * all survivors had the same one, and repeat COLL on the new world, which
 * must succeed with the right results (data of the survivors, in their new
 * order). Run it with FTMPI_COLL_MODE=atomic (checked) and, when a process
 * dies, FTMPI_COMM_MODE=shrink and MANUAL recovery (checked; mpiexec itself
 * must see the mode to keep the survivors, so the program cannot set it). */
#include "ftmpi_test.h"
#include <signal.h>
#include <strings.h>
#include <sys/time.h>

#define MAXP 64
#define SMALL 1000              /* elements per rank block in the hook tests */
#define LARGE (1 << 20)         /* ints: 4 MiB, the timer tests */
#define TIMER_ROUNDS 100000     /* the loop of the timer tests, ended by the death */

enum {
    ALLREDUCE, ALLREDUCE_IP, ALLREDUCE_STRIDED, BCAST, BCAST_STRIDED, REDUCE, REDUCE_IP,
    ALLGATHER, ALLGATHER_IP, GATHER, ALLTOALL, SCATTER, BARRIER, SCAN, RSB, NCOLL
};
static const char *coll_name[NCOLL] = {
    "allreduce", "allreduce-inplace", "allreduce-strided", "bcast", "bcast-strided", "reduce",
    "reduce-inplace", "allgather", "allgather-inplace", "gather", "alltoall", "scatter",
    "barrier", "scan", "reduce_scatter_block"
};

static int is_rooted(int coll)
{
    return coll == BCAST || coll == BCAST_STRIDED || coll == REDUCE || coll == REDUCE_IP ||
        coll == GATHER || coll == SCATTER;
}

/* collectives whose buffers hold one block per rank */
static int is_blocked(int coll)
{
    return coll == ALLGATHER || coll == ALLGATHER_IP || coll == GATHER || coll == ALLTOALL ||
        coll == SCATTER || coll == RSB;
}

/* Data. Contributions are positive, keyed by process id (not rank, so that
 * a shrunken world's order is checked too) and by a round number (so that
 * a stale result of an earlier call is caught); a sentinel is negative. */
static inline int v1(int pid, size_t i, int t)
{
    return 1 + pid * 1000 + (int) ((i * 7 + (size_t) t * 13) % 997);
}

static inline int v2(int pid, int dst, size_t i, int t)
{
    return 1 + pid * 10000 + dst * 1000 + (int) ((i * 7 + (size_t) t * 13) % 997);
}

static inline int sentinel(size_t i)
{
    return -1 - (int) (i % 100003);
}

static inline int gap(size_t i)
{
    return -7000000 - (int) (i % 1000);
}

typedef struct {
    int coll;
    MPI_Comm comm;
    int n, me;                  /* size of comm, rank in it */
    const int *pid;             /* process id of each rank of comm */
    int root;                   /* rank in comm */
    size_t c;                   /* elements (per rank block for the blocked ones) */
    int t;                      /* round: varies the data */
    int *s, *s0, *r, *r0;       /* buffers and their contents before the call */
    size_t slen, rlen;          /* elements of s and r in use */
    MPI_Datatype vec;           /* the strided ones: c ints, stride 2 */
} op_t;

static void op_alloc(op_t * op, int maxn, size_t c)
{
    size_t len = (c ? c : 1) * (maxn > 2 ? maxn : 2);
    op->s = malloc(len * sizeof(int));
    op->s0 = malloc(len * sizeof(int));
    op->r = malloc(len * sizeof(int));
    op->r0 = malloc(len * sizeof(int));
    if (!op->s || !op->s0 || !op->r || !op->r0) {
        fprintf(stderr, "ft_atomic: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    op->vec = MPI_DATATYPE_NULL;
}

static void op_free(op_t * op)
{
    free(op->s);
    free(op->s0);
    free(op->r);
    free(op->r0);
}

/* Fills the buffers for round op->t and remembers them. */
static void op_fill(op_t * op)
{
    size_t c = op->c, i;
    int n = op->n, me = op->me, p = op->pid[me], *s = op->s, *r = op->r;
    op->slen = op->rlen = 0;
    switch (op->coll) {
    case ALLREDUCE: case REDUCE: case SCAN:
        for (i = 0; i < c; i++) {
            s[i] = v1(p, i, op->t);
            r[i] = sentinel(i);
        }
        op->slen = op->rlen = c;
        break;
    case ALLREDUCE_IP:
        for (i = 0; i < c; i++)
            r[i] = v1(p, i, op->t);
        op->rlen = c;
        break;
    case REDUCE_IP:
        for (i = 0; i < c; i++) {
            s[i] = v1(p, i, op->t);
            r[i] = me == op->root ? v1(p, i, op->t) : sentinel(i);
        }
        op->slen = op->rlen = c;
        break;
    case ALLREDUCE_STRIDED:
        for (i = 0; i < c; i++) {
            s[2 * i] = v1(p, i, op->t);
            s[2 * i + 1] = gap(i) - 1;
            r[2 * i] = sentinel(i);
            r[2 * i + 1] = gap(i);
        }
        op->slen = op->rlen = 2 * c;
        break;
    case BCAST:
        for (i = 0; i < c; i++)
            r[i] = me == op->root ? v1(p, i, op->t) : sentinel(i);
        op->rlen = c;
        break;
    case BCAST_STRIDED:
        for (i = 0; i < c; i++) {
            r[2 * i] = me == op->root ? v1(p, i, op->t) : sentinel(i);
            r[2 * i + 1] = gap(i);
        }
        op->rlen = 2 * c;
        break;
    case ALLGATHER: case GATHER:
        for (i = 0; i < c; i++)
            s[i] = v1(p, i, op->t);
        for (i = 0; i < n * c; i++)
            r[i] = sentinel(i);
        op->slen = c;
        op->rlen = n * c;
        break;
    case ALLGATHER_IP:
        for (i = 0; i < n * c; i++)
            r[i] = sentinel(i);
        for (i = 0; i < c; i++)
            r[me * c + i] = v1(p, i, op->t);
        op->rlen = n * c;
        break;
    case ALLTOALL: case RSB:
        for (int d = 0; d < n; d++)
            for (i = 0; i < c; i++)
                s[d * c + i] = v2(p, op->pid[d], i, op->t);
        for (i = 0; i < (op->coll == RSB ? c : n * c); i++)
            r[i] = sentinel(i);
        op->slen = n * c;
        op->rlen = op->coll == RSB ? c : n * c;
        break;
    case SCATTER:
        if (me == op->root) {
            for (int d = 0; d < n; d++)
                for (i = 0; i < c; i++)
                    s[d * c + i] = v2(p, op->pid[d], i, op->t);
            op->slen = n * c;
        }
        for (i = 0; i < c; i++)
            r[i] = sentinel(i);
        op->rlen = c;
        break;
    case BARRIER:
        break;
    }
    memcpy(op->s0, op->s, op->slen * sizeof(int));
    memcpy(op->r0, op->r, op->rlen * sizeof(int));
}

/* MPI_SUM for the strided collective (predefined operations take only
 * predefined datatypes): c ints at stride 2, per instance of the type */
static size_t strided_c;

static void strided_sum(void *in, void *inout, int *len, MPI_Datatype * dt)
{
    const int *a = in;
    int *b = inout;
    size_t ext = strided_c ? 2 * strided_c - 1 : 0;
    (void) dt;
    for (int k = 0; k < *len; k++)
        for (size_t i = 0; i < strided_c; i++)
            b[k * ext + 2 * i] += a[k * ext + 2 * i];
}

/* the nonblocking form of the call under test (COLL "i<coll>") */
static int nonblocking;
static MPI_Request nb_req;

static int has_nonblocking(int coll)
{
    return coll != ALLREDUCE_STRIDED && coll != BCAST_STRIDED && coll != REDUCE_IP &&
        coll != ALLGATHER_IP;
}

static int wait_for(int rc)
{
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&nb_req, MPI_STATUS_IGNORE);
}

#define BLOCKING_OR_NOT(call_, icall_) (nonblocking ? wait_for(icall_) : (call_))

static int op_call(op_t * op)
{
    int c = (int) op->c, rc;
    MPI_Comm comm = op->comm;
    switch (op->coll) {
    case ALLREDUCE:
        return BLOCKING_OR_NOT(MPI_Allreduce(op->s, op->r, c, MPI_INT, MPI_SUM, comm),
                               MPI_Iallreduce(op->s, op->r, c, MPI_INT, MPI_SUM, comm, &nb_req));
    case ALLREDUCE_IP:
        return BLOCKING_OR_NOT(MPI_Allreduce(MPI_IN_PLACE, op->r, c, MPI_INT, MPI_SUM, comm),
                               MPI_Iallreduce(MPI_IN_PLACE, op->r, c, MPI_INT, MPI_SUM, comm,
                                              &nb_req));
    case ALLREDUCE_STRIDED:
    case BCAST_STRIDED:
        MPI_Type_vector(c, 1, 2, MPI_INT, &op->vec);
        MPI_Type_commit(&op->vec);
        if (op->coll == ALLREDUCE_STRIDED) {
            MPI_Op sum;
            strided_c = op->c;
            MPI_Op_create(strided_sum, 1, &sum);
            rc = MPI_Allreduce(op->s, op->r, 1, op->vec, sum, comm);
            MPI_Op_free(&sum);
        } else {
            rc = MPI_Bcast(op->r, 1, op->vec, op->root, comm);
        }
        MPI_Type_free(&op->vec);
        return rc;
    case BCAST:
        return BLOCKING_OR_NOT(MPI_Bcast(op->r, c, MPI_INT, op->root, comm),
                               MPI_Ibcast(op->r, c, MPI_INT, op->root, comm, &nb_req));
    case REDUCE:
        return BLOCKING_OR_NOT(MPI_Reduce(op->s, op->r, c, MPI_INT, MPI_SUM, op->root, comm),
                               MPI_Ireduce(op->s, op->r, c, MPI_INT, MPI_SUM, op->root, comm,
                                           &nb_req));
    case REDUCE_IP:
        return MPI_Reduce(op->me == op->root ? MPI_IN_PLACE : op->s, op->r, c, MPI_INT, MPI_SUM,
                          op->root, comm);
    case ALLGATHER:
        return BLOCKING_OR_NOT(MPI_Allgather(op->s, c, MPI_INT, op->r, c, MPI_INT, comm),
                               MPI_Iallgather(op->s, c, MPI_INT, op->r, c, MPI_INT, comm, &nb_req));
    case ALLGATHER_IP:
        return MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, op->r, c, MPI_INT, comm);
    case GATHER:
        return BLOCKING_OR_NOT(MPI_Gather(op->s, c, MPI_INT, op->r, c, MPI_INT, op->root, comm),
                               MPI_Igather(op->s, c, MPI_INT, op->r, c, MPI_INT, op->root, comm,
                                           &nb_req));
    case ALLTOALL:
        return BLOCKING_OR_NOT(MPI_Alltoall(op->s, c, MPI_INT, op->r, c, MPI_INT, comm),
                               MPI_Ialltoall(op->s, c, MPI_INT, op->r, c, MPI_INT, comm, &nb_req));
    case SCATTER:
        return BLOCKING_OR_NOT(MPI_Scatter(op->s, c, MPI_INT, op->r, c, MPI_INT, op->root, comm),
                               MPI_Iscatter(op->s, c, MPI_INT, op->r, c, MPI_INT, op->root, comm,
                                            &nb_req));
    case BARRIER:
        return BLOCKING_OR_NOT(MPI_Barrier(comm), MPI_Ibarrier(comm, &nb_req));
    case SCAN:
        return BLOCKING_OR_NOT(MPI_Scan(op->s, op->r, c, MPI_INT, MPI_SUM, comm),
                               MPI_Iscan(op->s, op->r, c, MPI_INT, MPI_SUM, comm, &nb_req));
    case RSB:
        return BLOCKING_OR_NOT(MPI_Reduce_scatter_block(op->s, op->r, c, MPI_INT, MPI_SUM, comm),
                               MPI_Ireduce_scatter_block(op->s, op->r, c, MPI_INT, MPI_SUM, comm,
                                                         &nb_req));
    }
    return MPI_ERR_ARG;
}

static const char *op_desc(op_t * op, char *buf, size_t len)
{
    char root[32] = "";
    if (is_rooted(op->coll))
        snprintf(root, sizeof(root), " root %d", op->root);
    snprintf(buf, len, "%s%s, %zu ints, %d ranks, round %d", coll_name[op->coll], root, op->c,
             op->n, op->t);
    return buf;
}

/* The value element i of r must hold after a successful call, or 0 when
 * it does not matter (a non-root's receive buffer). */
static int expected(op_t * op, size_t i)
{
    size_t c = op->c;
    int n = op->n, me = op->me, p = op->pid[me], t = op->t, sum = 0;
    switch (op->coll) {
    case ALLREDUCE: case ALLREDUCE_IP:
        for (int k = 0; k < n; k++)
            sum += v1(op->pid[k], i, t);
        return sum;
    case REDUCE: case REDUCE_IP:
        if (me != op->root)
            return 0;
        for (int k = 0; k < n; k++)
            sum += v1(op->pid[k], i, t);
        return sum;
    case ALLREDUCE_STRIDED:
        if (i % 2)
            return gap(i / 2);
        for (int k = 0; k < n; k++)
            sum += v1(op->pid[k], i / 2, t);
        return sum;
    case BCAST:
        return v1(op->pid[op->root], i, t);
    case BCAST_STRIDED:
        return i % 2 ? gap(i / 2) : v1(op->pid[op->root], i / 2, t);
    case ALLGATHER: case ALLGATHER_IP:
        return v1(op->pid[i / c], i % c, t);
    case GATHER:
        return me == op->root ? v1(op->pid[i / c], i % c, t) : 0;
    case ALLTOALL:
        return v2(op->pid[i / c], p, i % c, t);
    case SCATTER:
        return v2(op->pid[op->root], p, i, t);
    case SCAN:
        for (int k = 0; k <= me; k++)
            sum += v1(op->pid[k], i, t);
        return sum;
    case RSB:
        for (int k = 0; k < n; k++)
            sum += v2(op->pid[k], p, i, t);
        return sum;
    }
    return 0;
}

/* Checks the buffers after a call that returned rc; returns 1 if they
 * are as they must be. */
static int op_check(op_t * op, int rc)
{
    char d[160];
    int ok = 1;
    if (op->slen && memcmp(op->s, op->s0, op->slen * sizeof(int))) {
        CHECK(0, "%s: the call changed its send buffer", op_desc(op, d, sizeof(d)));
        ok = 0;
    }
    if (rc != MPI_SUCCESS) {
        if (op->rlen && memcmp(op->r, op->r0, op->rlen * sizeof(int))) {
            size_t i = 0, changed = 0;
            while (op->r[i] == op->r0[i])
                i++;
            for (size_t k = i; k < op->rlen; k++)
                changed += op->r[k] != op->r0[k];
            CHECK(0, "%s: the call failed (class %d) but changed its output buffer: "
                  "element %zu is %d, was %d (%zu of %zu elements changed)",
                  op_desc(op, d, sizeof(d)), ft_class(rc), i, op->r[i], op->r0[i], changed,
                  op->rlen);
            ok = 0;
        }
        return ok;
    }
    for (size_t i = 0; i < op->rlen; i++) {
        int e = expected(op, i);
        if (e != 0 && op->r[i] != e) {
            CHECK(0, "%s: the call succeeded but element %zu is %d, expected %d%s",
                  op_desc(op, d, sizeof(d)), i, op->r[i], e,
                  op->r[i] == op->r0[i] ? " (untouched)" : "");
            return 0;
        }
    }
    return ok;
}

static int mode_attr(int keyval)
{
    int *v, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &v, &flag);
    return flag ? *v : -1;
}

/* ---- no failure ---------------------------------------------------------- */

static void sanity(int rank, int size)
{
    int world_pid[MAXP], split_pid[MAXP], nsplit = 0;
    for (int p = 0; p < size; p++)
        world_pid[p] = p;
    /* same parity, reversed: rank k of the split is the k-th largest pid */
    for (int p = size - 1; p >= 0; p--)
        if (p % 2 == rank % 2)
            split_pid[nsplit++] = p;
    MPI_Comm dup, split;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split));
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
    struct {
        MPI_Comm comm;
        const int *pid;
    } comms[3] = { {MPI_COMM_WORLD, world_pid}, {dup, world_pid}, {split, split_pid} };
    static const size_t counts[] = { 0, 1, SMALL, 1 << 17 };
    op_t op;
    op_alloc(&op, size, 1 << 17);
    int t = 0;
    for (int k = 0; k < 3; k++) {
        op.comm = comms[k].comm;
        op.pid = comms[k].pid;
        MPI_Comm_size(op.comm, &op.n);
        MPI_Comm_rank(op.comm, &op.me);
        for (int coll = 0; coll < NCOLL; coll++)
            for (int ci = 0; ci < 4; ci++)
                for (int ri = 0; ri < (is_rooted(coll) && op.n > 1 ? 2 : 1); ri++)
                    for (nonblocking = 0; nonblocking < 1 + has_nonblocking(coll);
                         nonblocking++) {
                    char d[160];
                    /* MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at
                     * a nonzero root above 2 KiB (its reduce_scatter_gather
                     * algorithm; pmodels/mpich#6540); ATOMIC mode, which
                     * reduces into a temporary, must not */
                    if (coll == REDUCE_IP && ri && counts[ci] * sizeof(int) > 2048 &&
                        mode_attr(FTMPI_COLL_MODE) != FTMPI_COLL_MODE_ATOMIC)
                        continue;
                    op.coll = coll;
                    op.root = ri ? op.n - 1 : 0;        /* roots 0 and n-1 */
                    op.c = counts[ci];
                    if (is_blocked(coll) && op.c > 1)
                        op.c /= op.n;
                    op.t = t++;
                    op_fill(&op);
                    int rc = op_call(&op);
                    CHECK(rc == MPI_SUCCESS, "%s%s on %s returned class %d",
                          nonblocking ? "(nonblocking) " : "", op_desc(&op, d, sizeof(d)),
                          k == 0 ? "MPI_COMM_WORLD" : k == 1 ? "a dup" : "a split",
                          ft_class(rc));
                    op_check(&op, rc);
                }
    }
    nonblocking = 0;
    op_free(&op);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
}

/* ---- failures ------------------------------------------------------------ */

static volatile sig_atomic_t timer_exit;

static void on_timer(int sig)
{
    (void) sig;
    if (timer_exit)
        _exit(3);
    raise(SIGKILL);
}

static void arm_timer(long usec, int use_exit)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_timer;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    timer_exit = use_exit;
    struct itimerval it;
    memset(&it, 0, sizeof(it));
    it.it_value.tv_sec = usec / 1000000;
    it.it_value.tv_usec = usec % 1000000;
    setitimer(ITIMER_REAL, &it, NULL);
}

static void usage(const char *why)
{
    fprintf(stderr, "ft_atomic: %s\nusage: ft_atomic none | COLL[@ROOT] "
            "PID:POINT[:N]|PID:part-fails[:N]|PIDS:before[:N]|PIDS:timer:USEC "
            "[kill|exit [any|ok|fail]]\n", why);
    exit(2);
}

int main(int argc, char **argv)
{
    int rank, size;
    static const char *points[] = { "before-vote", "after-vote", "before-decision",
        "after-commit"
    };
    const int npoints = sizeof(points) / sizeof(points[0]);

    /* the arguments, before MPI_Init: the hook is read from the environment */
    if (argc < 2)
        usage("no arguments");
    if (strcmp(argv[1], "none") == 0) {
        ft_init(&argc, &argv, 1, "none", &rank, &size);
        CHECK(mode_attr(FTMPI_COLL_MODE) == FTMPI_COLL_MODE_ATOMIC, "FTMPI_COLL_MODE is not "
              "ATOMIC");
        if (size > MAXP)
            usage("too many processes");
        sanity(rank, size);
        return test_finish();
    }
    if (argc < 3)
        usage("no DEATH");

    char collbuf[64];
    snprintf(collbuf, sizeof(collbuf), "%s", argv[1]);
    int root_pid = 0, coll = -1;
    char *at = strchr(collbuf, '@');
    if (at) {
        *at = 0;
        root_pid = atoi(at + 1);
    }
    for (int k = 0; k < NCOLL; k++) {
        if (strcmp(collbuf, coll_name[k]) == 0)
            coll = k;
        /* "i<coll>": the nonblocking form, completed with MPI_Wait */
        if (collbuf[0] == 'i' && strcmp(collbuf + 1, coll_name[k]) == 0 && has_nonblocking(k)) {
            coll = k;
            nonblocking = 1;
        }
    }
    if (coll < 0)
        usage("unknown COLL");
    if (at && !is_rooted(coll))
        usage("@ROOT for a collective without a root");

    /* DEATH */
    char victims[64], kind[64] = "", spec[128];
    long nth = 1, usec = 0;
    int hook = 0, timer = 0, before = 0, part_fails = 0, hook_victim = -1;
    if (sscanf(argv[2], "%63[^:]:%63[^:]:%ld", victims, kind, &nth) < 2)
        usage("bad DEATH");
    if (strcmp(kind, "timer") == 0) {
        timer = 1;
        usec = nth;
        nth = 1;
        if (usec < 1)
            usage("timer needs USEC >= 1");
    } else if (strcmp(kind, "before") == 0) {
        before = 1;
    } else {
        part_fails = strcmp(kind, "part-fails") == 0;
        hook = part_fails;
        for (int k = 0; k < npoints; k++)
            hook |= strcmp(kind, points[k]) == 0;
        if (!hook)
            usage("unknown POINT");
        if (strpbrk(victims, "+,"))
            usage("the hook kills one process");
        hook_victim = atoi(victims);
        snprintf(spec, sizeof(spec), "%d:%s:%ld", hook_victim, kind, nth);
        setenv("FTMPI_TEST_POINT", spec, 1);
    }
    if (nth < 1)
        usage("N counts from 1");
    const char *how = argc > 3 ? argv[3] : "kill";
    const char *expect = argc > 4 ? argv[4] : "any";
    if (strcmp(how, "kill") && strcmp(how, "exit"))
        usage("HOW is kill or exit");
    if (strcmp(expect, "any") && strcmp(expect, "ok") && strcmp(expect, "fail"))
        usage("EXPECT is any, ok or fail");

    ft_init(&argc, &argv, 2, "COLL DEATH [HOW [EXPECT]]", &rank, &size);
    if (size > MAXP || size < 2 || root_pid >= size)
        usage("needs 2 to 64 processes and ROOT below their number");
    const int me = rank;        /* process id */
    int alive[MAXP], nalive = 0, alive_pid[MAXP];
    for (int p = 0; p < size; p++) {
        alive[p] = part_fails || !ft_in_list(victims, p);
        if (alive[p])
            alive_pid[nalive++] = p;
    }
    if (nalive == size && !part_fails)
        usage("no victim among the processes");
    if (part_fails && (atoi(victims) < 0 || atoi(victims) >= size))
        usage("the process whose part fails is not among the processes");
    const int victim = !alive[me];

    /* before any collective: the hook counts this process's calls */
    CHECK(mode_attr(FTMPI_COLL_MODE) == FTMPI_COLL_MODE_ATOMIC, "FTMPI_COLL_MODE is not ATOMIC");
    CHECK(mode_attr(FTMPI_COMM_MODE) == FTMPI_COMM_MODE_SHRINK &&
          mode_attr(FTMPI_RECOVERY_MODE) == FTMPI_RECOVERY_MODE_MANUAL,
          "this test needs FTMPI_COMM_MODE=shrink and FTMPI_RECOVERY_MODE=manual");

    int world_pid[MAXP];
    for (int p = 0; p < size; p++)
        world_pid[p] = p;
    op_t op;
    op.coll = coll;
    op.comm = MPI_COMM_WORLD;
    op.n = size;
    op.me = me;
    op.pid = world_pid;
    op.root = root_pid;
    op.c = timer ? (is_blocked(coll) ? LARGE / size : LARGE) : SMALL;
    op_alloc(&op, size, op.c);

    /* rounds: the call the victim dies in is round nth-1; the timer ones
     * loop until the death ends them */
    long rounds = timer ? TIMER_ROUNDS : nth;
    long fail_round = -1;
    int rc = MPI_SUCCESS;
    for (long t = 0; t < rounds; t++) {
        if (before && victim && t == nth - 1) {
            ft_sleep(0.300);    /* the others are in the collective by now */
            ft_die(how);
        }
        if (timer && victim && t == 0)
            arm_timer(usec, strcmp(how, "exit") == 0);
        op.t = (int) t;
        op_fill(&op);
        rc = op_call(&op);
        if (!(timer && victim))
            op_check(&op, rc);
        if (rc != MPI_SUCCESS) {
            fail_round = t;
            break;
        }
    }
    if (victim) {
        if (timer)
            ft_sleep(30);       /* the timer kills it */
        CHECK(0, "process %d is still alive after %s (the %s did not kill it)", me,
              hook ? "its collective" : "its rounds", hook ? "test hook" : "timer");
    }
    if (rc != MPI_SUCCESS)
        CHECK(ft_class(rc) == MPI_ERR_OTHER, "round %ld: %s failed with class %d, expected "
              "MPI_ERR_OTHER", fail_round, coll_name[coll], ft_class(rc));
    /* a round before the one the victim dies in has no failure to report */
    if (!timer && fail_round >= 0)
        CHECK(fail_round == nth - 1, "round %ld of %ld failed (class %d), before any death",
              fail_round, nth, ft_class(rc));
    if (strcmp(expect, "ok") == 0)
        CHECK(rc == MPI_SUCCESS, "the collective the victim died in returned class %d, "
              "expected MPI_SUCCESS", ft_class(rc));
    if (strcmp(expect, "fail") == 0)
        CHECK(rc != MPI_SUCCESS, "the collective the victim died in returned MPI_SUCCESS, "
              "expected MPI_ERR_OTHER");

    int new_size = size, new_rank = rank;
    if (!part_fails) {
        /* recovery: the victims never reach this barrier, so it fails (or,
         * after a failed collective, MANUAL mode fails it at once) */
        int brc = MPI_Barrier(MPI_COMM_WORLD);
        CHECK(ft_class(brc) == MPI_ERR_OTHER, "the barrier after the death returned class %d",
              ft_class(brc));
        MPI_Comm x = FT_MPI_CHECK_RECOVER;
        int drc = MPI_Comm_dup(MPI_COMM_WORLD, &x);
        CHECK(drc == MPI_SUCCESS && x == MPI_COMM_WORLD, "recovery returned class %d",
              ft_class(drc));

        int expect_rank = 0;
        while (expect_rank < nalive && alive_pid[expect_rank] != me)
            expect_rank++;
        MPI_Comm_size(MPI_COMM_WORLD, &new_size);
        MPI_Comm_rank(MPI_COMM_WORLD, &new_rank);
        CHECK(new_size == nalive && new_rank == expect_rank,
              "after recovery: rank %d of %d, expected %d of %d", new_rank, new_size, expect_rank,
              nalive);
        CHECK(mode_attr(FTMPI_NUM_FAILED_PROCS) == size - nalive, "FTMPI_NUM_FAILED_PROCS is %d",
              mode_attr(FTMPI_NUM_FAILED_PROCS));
    }

    /* the atomicity check: every survivor had the same outcome, at the
     * same round */
    if (new_size == nalive) {
        int mine[3] = { ft_class(rc), (int) fail_round, me };
        int *all = malloc(3 * nalive * sizeof(int));
        CHECK_MPI(MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, MPI_COMM_WORLD));
        for (int k = 0; k < nalive; k++) {
            CHECK(all[3 * k + 2] == alive_pid[k], "rank %d of the new world is process %d, "
                  "expected %d", k, all[3 * k + 2], alive_pid[k]);
            CHECK(all[3 * k] == mine[0] && all[3 * k + 1] == mine[1],
                  "NOT ATOMIC: process %d got class %d at round %d, process %d class %d at "
                  "round %d", me, mine[0], mine[1], all[3 * k + 2], all[3 * k],
                  all[3 * k + 1]);
        }
        if (new_rank == 0) {
            printf("ft_atomic %s %s: %d survivors got %s%s\n", argv[1], argv[2], nalive,
                   rc == MPI_SUCCESS ? "MPI_SUCCESS" : "MPI_ERR_OTHER",
                   timer ? (rc == MPI_SUCCESS ? " in every round" : "") : "");
            if (timer && rc != MPI_SUCCESS)
                printf("ft_atomic: (at round %ld of the timer loop)\n", fail_round);
            fflush(stdout);
        }
        free(all);
    }

    /* the same collective on the new world, twice: it must work, with the
     * survivors' data in their new order (no stale message of the failed
     * commit may match) */
    op.n = new_size;
    op.me = new_rank;
    op.pid = alive_pid;
    op.root = 0;                /* a dead root's role goes to rank 0 */
    for (int k = 0; k < nalive; k++)
        if (alive_pid[k] == root_pid)
            op.root = k;
    if (new_size == nalive)
        for (int t = 0; t < 2; t++) {
            op.t = 1000 + t;
            op_fill(&op);
            int rc2 = op_call(&op);
            char d[160];
            CHECK(rc2 == MPI_SUCCESS, "after recovery: %s returned class %d",
                  op_desc(&op, d, sizeof(d)), ft_class(rc2));
            op_check(&op, rc2);
        }
    op_free(&op);
    return ft_report();
}
