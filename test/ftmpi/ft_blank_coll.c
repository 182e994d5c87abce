/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Collectives and communicator creation in a BLANK world (FT-MPI spec,
 * Appendix A, section 4.1), after a MANUAL recovery.
 *
 *   ft_blank_coll PLAN HOW
 *     PLAN  the ranks that die at the start, '+'-separated: "0", "1+2"
 *     HOW   kill (SIGKILL) or exit (_exit)
 *   FTMPI_COMM_MODE=blank FTMPI_RECOVERY_MODE=manual in mpiexec's environment
 *   (mpiexec reads the mode too)
 *
 * The victims die after a first barrier; the survivors call MPI_Barrier
 * until it fails with MPI_ERR_OTHER, recover with
 * MPI_Comm_dup(MPI_COMM_WORLD, &x) (MPI_SUCCESS, x == MPI_COMM_WORLD), and
 * then check, twice over, in blocking and nonblocking form:
 *   - every collective, with every rank as root where there is one: a blank
 *     root makes every caller return MPI_SUCCESS at once with its buffers
 *     untouched (and without calling a user op; "at once": while the first
 *     live rank calls 1 s late, the others must be done within 0.5 s);
 *     reductions, scans and reduce-scatters combine the data of live ranks
 *     only, in rank order
 *     (MPI_SUM, MIN, MAX, PROD, MAXLOC, MINLOC - never a blank location - and
 *     a non-commutative user op that fails if it ever sees a blank's data or
 *     combines out of order); gathers and all-to-alls leave the slots of
 *     blanks as they were (each receive buffer starts as SENT); MPI_IN_PLACE;
 *     a blank peer is MPI_PROC_NULL in point-to-point;
 *   - communicators made from the blank world: MPI_Comm_dup (same ranks and
 *     blanks), MPI_Comm_split (blanks count as MPI_UNDEFINED), groups of
 *     MPI_COMM_WORLD (full size), MPI_Comm_create with groups that hold
 *     blanks (the blanks stay blanks in the new communicator), MPI_Cart_create
 *     over the world (a blank neighbour is MPI_PROC_NULL); the collectives
 *     above are run on each of them.
 * Every failed check names the communicator, the iteration, the call, the
 * root (live or blank) and the data pattern. */
#include "ftmpi_test.h"
#include <stdarg.h>
#include <strings.h>

#define MAXP      30            /* ranks: the user op keeps a bit per rank */
#define BUFN      4096          /* ints in each small buffer */
#define BIGN      (1 << 16)     /* ints (256 KiB) of the large bcast and allreduce */
#define SENT      (-7)          /* what a receive buffer holds before the call */
#define PAD       4             /* ints after each receive region: must stay SENT */
#define ORD_MAGIC 0x5a000       /* first int of a user-op element: magic + index */

/* CHECK, but after many errors count them without printing (a library that
 * gets everything wrong would print thousands of lines) */
#define CHECKQ(cond, ...)                                                  \
    do {                                                                   \
        if (test_errors < 100)                                             \
            CHECK(cond, __VA_ARGS__);                                      \
        else if (!(cond))                                                  \
            test_errors++;                                                 \
    } while (0)

static int nproc, wme;          /* world size and this process's world rank */
static int alive[MAXP];         /* by world rank */

/* the communicator the checks run on now */
typedef struct {
    MPI_Comm comm;
    const char *name;
    int size, rank, it, nb, big;
    int live[MAXP];             /* by rank in comm */
    int nlive, first, last;     /* live ranks; the lowest and the highest */
} suite_t;
static suite_t *S;

static char where[320];         /* the call being checked, for messages */
static int coll_ok;             /* it returned MPI_SUCCESS */
static int *sbuf, *rbuf, *ebuf, *tbuf, *big, *bigexp;

static MPI_Datatype ord_type, pair_type;
static MPI_Op ord_op;
static int ord_calls, ord_bad;
/* Reduce-scatter: MPICH's recursive-doubling algorithm also combines, for
 * a non-commutative op on a communicator whose size is not a power of two,
 * the data of non-adjacent ranks in blocks it then discards (seen on a
 * communicator without blanks, which this layer does not touch); only the
 * block a rank keeps must be in rank order, which its result check shows. */
static int ord_any_order;
static char ord_msg[256];

enum { O_SUM, O_MIN, O_MAX, O_PROD, O_MAXLOC, O_MINLOC, O_ORD, NOPS };
static const char *op_names[NOPS] = { "MPI_SUM", "MPI_MIN", "MPI_MAX", "MPI_PROD",
    "MPI_MAXLOC", "MPI_MINLOC", "user op (ordered, non-commutative)"
};

/* ---- data --------------------------------------------------------------- */

/* what rank s puts in element k of the part meant for d */
static int V(int s, int d, int k)
{
    return 1 + k + 100 * d + 10000 * s;
}

static void fill(int *b, int n, int v)
{
    for (int i = 0; i < n; i++)
        b[i] = v;
}

static int cnt_of(int root)
{
    static const int c[3] = { 1, 17, 64 };
    return c[(root + S->it) % 3];
}

static int op_ints(int op)
{
    return op == O_ORD ? 4 : (op == O_MAXLOC || op == O_MINLOC) ? 2 : 1;
}

static MPI_Datatype op_type(int op)
{
    return op == O_ORD ? ord_type : (op == O_MAXLOC || op == O_MINLOC) ? MPI_2INT : MPI_INT;
}

static MPI_Op op_handle(int op)
{
    static const MPI_Op h[] = { MPI_SUM, MPI_MIN, MPI_MAX, MPI_PROD, MPI_MAXLOC, MPI_MINLOC };
    return op == O_ORD ? ord_op : h[op];
}

/* values for MAXLOC/MINLOC: ties everywhere, increasing, decreasing, mixed */
static int locval(int who, int k)
{
    switch (k % 4) {
        case 0:
            return 5;
        case 1:
            return who + 1;
        case 2:
            return S->size - who;
        default:
            return 1 + (who * 3 + k) % 4;
    }
}

/* c elements of rank who's input to a reduction with op. MIN inputs are
 * positive and MAX inputs negative, so a zeroed or SENT contribution of a
 * blank would show in the result. */
static void input(int op, int who, int c, int *buf)
{
    for (int k = 0; k < c; k++) {
        int *e = buf + k * op_ints(op);
        switch (op) {
            case O_SUM:
                e[0] = V(who, 0, k);
                break;
            case O_MIN:
                e[0] = 1 + (who * 7 + k * 3) % 11;
                break;
            case O_MAX:
                e[0] = -(1 + (who * 5 + k) % 13);
                break;
            case O_PROD:
                e[0] = 1 + (who + k) % 2;
                break;
            case O_MAXLOC:
                e[0] = -locval(who, k);
                e[1] = who;
                break;
            case O_MINLOC:
                e[0] = locval(who, k);
                e[1] = who;
                break;
            case O_ORD:
                e[0] = ORD_MAGIC + k;
                e[1] = 1 << who;
                e[2] = e[3] = who;
                break;
        }
    }
}

/* out = in op out, element by element, in is from lower ranks */
static void combine(int op, const int *in, int *out, int c)
{
    for (int k = 0; k < c; k++) {
        const int *a = in + k * op_ints(op);
        int *b = out + k * op_ints(op);
        switch (op) {
            case O_SUM:
                b[0] += a[0];
                break;
            case O_MIN:
                b[0] = a[0] < b[0] ? a[0] : b[0];
                break;
            case O_MAX:
                b[0] = a[0] > b[0] ? a[0] : b[0];
                break;
            case O_PROD:
                b[0] *= a[0];
                break;
            case O_MAXLOC:
            case O_MINLOC:
                if ((op == O_MAXLOC ? a[0] > b[0] : a[0] < b[0]) ||
                    (a[0] == b[0] && a[1] < b[1])) {
                    b[0] = a[0];
                    b[1] = a[1];
                }
                break;
            case O_ORD:
                b[1] |= a[1];
                b[2] = a[2];
                break;
        }
    }
}

/* out = the reduction over the live ranks in [lo, hi] of their c-element
 * inputs; returns how many ranks took part */
static int reduction(int op, int c, int lo, int hi, int *out)
{
    int m = 0;
    for (int p = hi; p >= lo; p--) {    /* from the top: combine puts in before out */
        if (p < 0 || p >= S->size || !S->live[p])
            continue;
        if (m++ == 0) {
            input(op, p, c, out);
        } else {
            input(op, p, c, tbuf);
            combine(op, tbuf, out, c);
        }
    }
    return m;
}

/* the bits of the live ranks in [lo, hi] */
static unsigned live_mask(int lo, int hi)
{
    unsigned m = 0;
    for (int p = lo < 0 ? 0 : lo; p <= hi && p < S->size; p++)
        if (S->live[p])
            m |= 1u << p;
    return m;
}

/* ---- the non-commutative user op -----------------------------------------
 * An element stands for the reduction of a run of ranks: {ORD_MAGIC + index,
 * bits of the ranks, lowest, highest}. The op accepts only runs of
 * consecutive live ranks (no blank, none left out) and only in rank order.
 * It calls no MPI function; what it finds is reported after the call. */
static int ord_valid(const int *e)
{
    return e[0] >= ORD_MAGIC && e[0] < ORD_MAGIC + BUFN && e[2] >= 0 && e[2] <= e[3] &&
        e[3] < S->size && S->live[e[2]] && S->live[e[3]] &&
        (unsigned) e[1] == live_mask(e[2], e[3]);
}

static void ord_note(const char *fmt, const int *a, const int *b)
{
    if (ord_bad++ == 0)
        snprintf(ord_msg, sizeof(ord_msg), "%s: in {%#x, mask %#x, ranks %d..%d}, inout "
                 "{%#x, mask %#x, ranks %d..%d} (live mask %#x)", fmt, a[0], a[1], a[2], a[3],
                 b[0], b[1], b[2], b[3], live_mask(0, S->size - 1));
}

static void ord_fn(void *invec, void *inoutvec, int *len, MPI_Datatype * dt)
{
    const int *a = invec;
    int *b = inoutvec;
    ord_calls++;
    if (!S) {
        ord_bad++;
        snprintf(ord_msg, sizeof(ord_msg), "user op called outside a collective");
        return;
    }
    if (*dt != ord_type) {
        ord_bad++;
        snprintf(ord_msg, sizeof(ord_msg), "user op called with another datatype");
        return;
    }
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        if (!ord_valid(a) || !ord_valid(b)) {
            unsigned blanks = ~live_mask(0, S->size - 1);
            ord_note(((a[1] | b[1]) & blanks) ? "user op got the data of a blank rank" :
                     "user op got garbage, or a run of live ranks with a gap", a, b);
            b[0] = 0;   /* poisons the result */
        } else if (a[0] != b[0]) {
            ord_note("user op combined different elements", a, b);
            b[0] = 0;
        } else if (a[3] >= b[2] || live_mask(a[3] + 1, b[2] - 1) != 0) {
            if (!ord_any_order)
                ord_note("user op combined out of rank order or across a live rank", a, b);
            b[0] = 0;
        } else {
            b[1] |= a[1];
            b[2] = a[2];
        }
    }
}

/* ---- checking ------------------------------------------------------------- */

/* where = "<comm> it <i>: <call> root <r> (live|blank) <pattern>" */
static void at(const char *call, int root, const char *fmt, ...)
{
    int o = snprintf(where, sizeof(where), "%s, it %d: %.*s", S ? S->name : "?",
                     S ? S->it : -1, (int) strcspn(call, "("), call);
    if (root >= 0 && o < (int) sizeof(where))
        o += snprintf(where + o, sizeof(where) - o, " root %d (%s)", root,
                      S->live[root] ? "live" : "blank");
    if (fmt[0] && o + 1 < (int) sizeof(where)) {
        va_list ap;
        where[o++] = ' ';
        va_start(ap, fmt);
        vsnprintf(where + o, sizeof(where) - o, fmt, ap);
        va_end(ap);
    }
}

static void check_rc(int rc)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int l;
    coll_ok = rc == MPI_SUCCESS;
    if (!coll_ok)
        MPI_Error_string(rc, s, &l);
    CHECKQ(coll_ok, "%s returned %s (class %d)", where, s, ft_class(rc));
    CHECKQ(ord_bad == 0, "%s: %s", where, ord_msg);
    ord_bad = 0;
}

/* got[0..n) == exp[0..n)? one line for the first difference */
static void check_ints(const int *got, const int *exp, int n, const char *what)
{
    int bad = 0, first = -1;
    if (!coll_ok)
        return;
    for (int i = 0; i < n; i++)
        if (got[i] != exp[i] && bad++ == 0)
            first = i;
    CHECKQ(bad == 0, "%s: %s: %d of %d ints wrong, first [%d] = %d, expected %d", where, what,
           bad, n, first, first >= 0 ? got[first] : 0, first >= 0 ? exp[first] : 0);
}

/* a MAXLOC/MINLOC result never names a blank */
static void check_locs(int op, const int *res, int c)
{
    if (!coll_ok || (op != O_MAXLOC && op != O_MINLOC))
        return;
    for (int k = 0; k < c; k++) {
        int loc = res[2 * k + 1];
        if (loc < 0 || loc >= S->size || !S->live[loc]) {
            CHECKQ(0, "%s: element %d has location %d, %s", where, k, loc,
                   loc >= 0 && loc < S->size ? "a blank rank" : "not a rank");
            return;
        }
    }
}

/* a receive from a blank: buffer untouched, null status */
static void check_null_recv(int buf, MPI_Status * st)
{
    int count = -1;
    if (!coll_ok)
        return;
    MPI_Get_count(st, MPI_INT, &count);
    CHECKQ(buf == SENT && st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG &&
           count == 0, "%s: buffer %d (expected %d), status source %d tag %d count %d "
           "(expected MPI_PROC_NULL's null status)", where, buf, SENT, st->MPI_SOURCE,
           st->MPI_TAG, count);
}

/* Runs a collective in the current form (S->nb: the nonblocking call and
 * MPI_Wait) and checks its return code. nbcall uses &rq_ as its request. */
#define COLL(root, bcall, nbcall, ...)                                     \
    do {                                                                   \
        MPI_Request rq_ = MPI_REQUEST_NULL;                                \
        int rc_;                                                           \
        at(S->nb ? #nbcall : #bcall, root, __VA_ARGS__);                   \
        if (S->nb) {                                                       \
            rc_ = (nbcall);                                                \
            if (rc_ == MPI_SUCCESS)                                        \
                rc_ = MPI_Wait(&rq_, MPI_STATUS_IGNORE);                   \
        } else {                                                           \
            rc_ = (bcall);                                                 \
        }                                                                  \
        check_rc(rc_);                                                     \
    } while (0)

/* ---- the checks on one communicator ------------------------------------------ */

/* membership and order: an allgather of world ranks */
static void t_members(const int *map)
{
    const int n = S->size;
    int w = wme;
    fill(rbuf, n + PAD, SENT);
    at("MPI_Allgather", -1, "of world ranks (membership and order)");
    check_rc(MPI_Allgather(&w, 1, MPI_INT, rbuf, 1, MPI_INT, S->comm));
    for (int p = 0; p < n + PAD; p++)
        ebuf[p] = p < n && S->live[p] ? map[p] : SENT;
    check_ints(rbuf, ebuf, n + PAD, "world rank of each rank (SENT for blanks)");
}

/* a blank is MPI_PROC_NULL in point-to-point */
static void t_p2p_blanks(void)
{
    const int n = S->size;
    for (int b = 0; b < n; b++) {
        if (S->live[b])
            continue;
        int x = 1000 + S->rank, buf, flag = 0;
        MPI_Status st;
        MPI_Request rq;
        at("MPI_Send", -1, "to blank rank %d", b);
        check_rc(MPI_Send(&x, 1, MPI_INT, b, 7, S->comm));
        buf = SENT;
        at("MPI_Recv", -1, "from blank rank %d", b);
        check_rc(MPI_Recv(&buf, 1, MPI_INT, b, 7, S->comm, &st));
        check_null_recv(buf, &st);
        buf = SENT;
        at("MPI_Irecv", -1, "from blank rank %d, MPI_Wait", b);
        int rc = MPI_Irecv(&buf, 1, MPI_INT, b, 7, S->comm, &rq);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&rq, &st);
        check_rc(rc);
        check_null_recv(buf, &st);
        buf = SENT;
        at("MPI_Sendrecv", -1, "with blank rank %d", b);
        check_rc(MPI_Sendrecv(&x, 1, MPI_INT, b, 7, &buf, 1, MPI_INT, b, 7, S->comm, &st));
        check_null_recv(buf, &st);
        at("MPI_Iprobe", -1, "of blank rank %d", b);
        check_rc(MPI_Iprobe(b, MPI_ANY_TAG, S->comm, &flag, &st));
        if (coll_ok)
            CHECKQ(flag && st.MPI_SOURCE == MPI_PROC_NULL, "%s: flag %d source %d, expected 1 "
                   "and MPI_PROC_NULL", where, flag, st.MPI_SOURCE);
    }
}

/* MPI_COMM_WORLD, blocking, first iteration: with a blank root, nobody waits
 * for anybody - the first live rank calls 1 s late, the others must be done
 * long before */
static void t_blank_root_at_once(void)
{
    int b = -1;
    for (int p = S->size - 1; p >= 0; p--)
        if (!S->live[p])
            b = p;
    if (b < 0 || S->nlive < 2)
        return;
    const int sleeper = S->first;
    const char *what[3] = { "MPI_Bcast", "MPI_Reduce", "MPI_Scatter" };
    for (int i = 0; i < 3; i++) {
        int buf[4] = { SENT, SENT, SENT, SENT }, in[4] = { 1, 2, 3, 4 }, rc;
        if (i == 0 && S->rank == sleeper)
            ft_sleep(1.0);
        at(what[i], b, "while rank %d calls 1 s late", sleeper);
        double t0 = ft_now();
        if (i == 0)
            rc = MPI_Bcast(buf, 4, MPI_INT, b, S->comm);
        else if (i == 1)
            rc = MPI_Reduce(in, buf, 4, MPI_INT, MPI_SUM, b, S->comm);
        else
            rc = MPI_Scatter(in, 4, MPI_INT, buf, 4, MPI_INT, b, S->comm);
        double dt = ft_now() - t0;
        check_rc(rc);
        fill(ebuf, 4, SENT);
        check_ints(buf, ebuf, 4, "buffer must be untouched");
        if (S->rank != sleeper)
            CHECKQ(dt < 0.5, "%s: took %.2f s; a blank root must return at once", where, dt);
    }
}

static void t_barrier(void)
{
    COLL(-1, MPI_Barrier(S->comm), MPI_Ibarrier(S->comm, &rq_), "");
}

static void t_bcast(void)
{
    const int n = S->size, me = S->rank;
    for (int root = 0; root < n; root++) {
        int c = cnt_of(root);
        for (int k = 0; k < c + PAD; k++) {
            sbuf[k] = me == root && k < c ? V(root, 0, k) : SENT - 100 * me - k;
            ebuf[k] = S->live[root] && k < c ? V(root, 0, k) : sbuf[k];
        }
        COLL(root, MPI_Bcast(sbuf, c, MPI_INT, root, S->comm),
             MPI_Ibcast(sbuf, c, MPI_INT, root, S->comm, &rq_), "count %d", c);
        check_ints(sbuf, ebuf, c + PAD, S->live[root] ? "the root's data" :
                   "buffer must be untouched");
        if (!S->big)
            continue;
        for (int k = 0; k < BIGN; k++) {
            big[k] = me == root ? root * 100000 + k : SENT - me;
            bigexp[k] = S->live[root] ? root * 100000 + k : big[k];
        }
        COLL(root, MPI_Bcast(big, BIGN, MPI_INT, root, S->comm),
             MPI_Ibcast(big, BIGN, MPI_INT, root, S->comm, &rq_), "count %d (large)", BIGN);
        check_ints(big, bigexp, BIGN, S->live[root] ? "the root's data" :
                   "buffer must be untouched");
    }
}

static void t_reduce(void)
{
    const int n = S->size, me = S->rank;
    for (int root = 0; root < n; root++) {
        for (int op = 0; op < NOPS; op++) {
            int c = cnt_of(root), e = op_ints(op), calls = ord_calls;
            input(op, me, c, sbuf);
            fill(rbuf, c * e + PAD, SENT);
            COLL(root, MPI_Reduce(sbuf, rbuf, c, op_type(op), op_handle(op), root, S->comm),
                 MPI_Ireduce(sbuf, rbuf, c, op_type(op), op_handle(op), root, S->comm, &rq_),
                 "%s count %d", op_names[op], c);
            if (!S->live[root]) {
                fill(ebuf, c * e + PAD, SENT);
                check_ints(rbuf, ebuf, c * e + PAD, "receive buffer must be untouched");
                if (coll_ok)
                    CHECKQ(ord_calls == calls, "%s: the user op ran %d times", where,
                           ord_calls - calls);
            } else if (me == root) {
                reduction(op, c, 0, n - 1, ebuf);
                fill(ebuf + c * e, PAD, SENT);
                check_ints(rbuf, ebuf, c * e + PAD, "reduction over the live ranks");
                check_locs(op, rbuf, c);
            }
        }
        if (!S->live[root])
            continue;
        /* MPI_IN_PLACE at the root */
        static const int ops[] = { O_SUM, O_MAXLOC, O_ORD };
        for (int i = 0; i < 3; i++) {
            int op = ops[i], c = cnt_of(root), e = op_ints(op);
            input(op, me, c, sbuf);
            fill(rbuf, c * e + PAD, SENT);
            if (me == root)
                input(op, me, c, rbuf);
            const void *in = me == root ? MPI_IN_PLACE : sbuf;
            COLL(root, MPI_Reduce(in, rbuf, c, op_type(op), op_handle(op), root, S->comm),
                 MPI_Ireduce(in, rbuf, c, op_type(op), op_handle(op), root, S->comm, &rq_),
                 "%s count %d MPI_IN_PLACE", op_names[op], c);
            if (me == root) {
                reduction(op, c, 0, n - 1, ebuf);
                fill(ebuf + c * e, PAD, SENT);
                check_ints(rbuf, ebuf, c * e + PAD, "reduction over the live ranks");
            }
        }
    }
}

static void t_allreduce(void)
{
    const int n = S->size, me = S->rank;
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int op = 0; op < NOPS; op++) {
            int c = cnt_of(op), e = op_ints(op);
            input(op, me, c, sbuf);
            fill(rbuf, c * e + PAD, SENT);
            if (inplace)
                input(op, me, c, rbuf);
            const void *in = inplace ? MPI_IN_PLACE : sbuf;
            COLL(-1, MPI_Allreduce(in, rbuf, c, op_type(op), op_handle(op), S->comm),
                 MPI_Iallreduce(in, rbuf, c, op_type(op), op_handle(op), S->comm, &rq_),
                 "%s count %d%s", op_names[op], c, inplace ? " MPI_IN_PLACE" : "");
            reduction(op, c, 0, n - 1, ebuf);
            fill(ebuf + c * e, PAD, SENT);
            check_ints(rbuf, ebuf, c * e + PAD, "reduction over the live ranks");
            check_locs(op, rbuf, c);
        }
    }
    if (!S->big)
        return;
    for (int k = 0; k < BIGN; k++) {
        big[k] = 1 + 3 * me + k % 5;
        bigexp[k] = 0;
        for (int p = 0; p < n; p++)
            bigexp[k] += S->live[p] ? 1 + 3 * p + k % 5 : 0;
    }
    COLL(-1, MPI_Allreduce(MPI_IN_PLACE, big, BIGN, MPI_INT, MPI_SUM, S->comm),
         MPI_Iallreduce(MPI_IN_PLACE, big, BIGN, MPI_INT, MPI_SUM, S->comm, &rq_),
         "MPI_SUM count %d (large) MPI_IN_PLACE", BIGN);
    check_ints(big, bigexp, BIGN, "sum over the live ranks");
}

/* expected receive buffer of a gather to root: slot p (at displs[p], counts[p]
 * ints) holds V(p, root, k) if p is live, SENT if not; gaps and tail SENT */
static void gather_exp(int root, const int *counts, const int *displs, int len)
{
    fill(ebuf, len, SENT);
    for (int p = 0; p < S->size; p++)
        if (S->live[p])
            for (int k = 0; k < counts[p]; k++)
                ebuf[displs[p] + k] = V(p, root, k);
}

static void t_gather(void)
{
    const int n = S->size, me = S->rank;
    int counts[MAXP], displs[MAXP];
    for (int root = 0; root < n; root++) {
        int c = cnt_of(root), len = n * c + PAD;
        for (int p = 0; p < n; p++) {
            counts[p] = c;
            displs[p] = p * c;
        }
        for (int inplace = 0; inplace < 1 + S->live[root]; inplace++) {
            for (int k = 0; k < c; k++)
                sbuf[k] = V(me, root, k);
            fill(rbuf, len, SENT);
            if (inplace && me == root)
                memcpy(rbuf + me * c, sbuf, c * sizeof(int));
            const void *in = inplace && me == root ? MPI_IN_PLACE : sbuf;
            COLL(root, MPI_Gather(in, c, MPI_INT, rbuf, c, MPI_INT, root, S->comm),
                 MPI_Igather(in, c, MPI_INT, rbuf, c, MPI_INT, root, S->comm, &rq_),
                 "count %d%s", c, inplace ? " MPI_IN_PLACE" : "");
            if (!S->live[root]) {
                fill(ebuf, len, SENT);
                check_ints(rbuf, ebuf, len, "receive buffer must be untouched");
            } else if (me == root) {
                gather_exp(root, counts, displs, len);
                check_ints(rbuf, ebuf, len, "live slots hold their data, blank slots SENT");
            }
        }
    }
}

static void t_gatherv(void)
{
    const int n = S->size, me = S->rank;
    int counts[MAXP], displs[MAXP], len = 6 * n + PAD;
    for (int root = 0; root < n; root++) {
        for (int p = 0; p < n; p++) {
            counts[p] = 1 + (p + root + S->it) % 4;
            displs[p] = (n - 1 - p) * 6;        /* backwards, with gaps */
        }
        for (int k = 0; k < counts[me]; k++)
            sbuf[k] = V(me, root, k);
        fill(rbuf, len, SENT);
        COLL(root, MPI_Gatherv(sbuf, counts[me], MPI_INT, rbuf, counts, displs, MPI_INT, root,
                               S->comm),
             MPI_Igatherv(sbuf, counts[me], MPI_INT, rbuf, counts, displs, MPI_INT, root,
                          S->comm, &rq_), "counts 1..4, displacements backwards with gaps");
        if (!S->live[root]) {
            fill(ebuf, len, SENT);
            check_ints(rbuf, ebuf, len, "receive buffer must be untouched");
        } else if (me == root) {
            gather_exp(root, counts, displs, len);
            check_ints(rbuf, ebuf, len, "live slots hold their data, blank slots and gaps SENT");
        }
    }
}

static void t_scatter(void)
{
    const int n = S->size, me = S->rank;
    for (int root = 0; root < n; root++) {
        int c = cnt_of(root);
        for (int p = 0; p < n; p++)
            for (int k = 0; k < c; k++)
                sbuf[p * c + k] = me == root ? V(root, p, k) : SENT - 1;
        fill(rbuf, c + PAD, SENT);
        COLL(root, MPI_Scatter(sbuf, c, MPI_INT, rbuf, c, MPI_INT, root, S->comm),
             MPI_Iscatter(sbuf, c, MPI_INT, rbuf, c, MPI_INT, root, S->comm, &rq_),
             "count %d", c);
        fill(ebuf, c + PAD, SENT);
        if (S->live[root])
            for (int k = 0; k < c; k++)
                ebuf[k] = V(root, me, k);
        check_ints(rbuf, ebuf, c + PAD, S->live[root] ? "this rank's part" :
                   "receive buffer must be untouched");
    }
}

static void t_scatterv(void)
{
    const int n = S->size, me = S->rank;
    int counts[MAXP], displs[MAXP];
    for (int root = 0; root < n; root++) {
        fill(sbuf, 6 * n, SENT - 1);
        for (int p = 0; p < n; p++) {
            counts[p] = 1 + (p + root + S->it) % 4;
            displs[p] = (n - 1 - p) * 6;
            for (int k = 0; k < counts[p] && me == root; k++)
                sbuf[displs[p] + k] = V(root, p, k);
        }
        fill(rbuf, 4 + PAD, SENT);
        COLL(root, MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, counts[me], MPI_INT, root,
                                S->comm),
             MPI_Iscatterv(sbuf, counts, displs, MPI_INT, rbuf, counts[me], MPI_INT, root,
                           S->comm, &rq_), "counts 1..4, displacements backwards with gaps");
        fill(ebuf, 4 + PAD, SENT);
        if (S->live[root])
            for (int k = 0; k < counts[me]; k++)
                ebuf[k] = V(root, me, k);
        check_ints(rbuf, ebuf, 4 + PAD, S->live[root] ? "this rank's part" :
                   "receive buffer must be untouched");
    }
}

static void t_allgather(void)
{
    const int n = S->size, me = S->rank;
    int c = S->it ? 64 : 3, len = n * c + PAD, counts[MAXP], displs[MAXP];
    for (int p = 0; p < n; p++) {
        counts[p] = c;
        displs[p] = p * c;
    }
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int k = 0; k < c; k++)
            sbuf[k] = V(me, 0, k);
        fill(rbuf, len, SENT);
        if (inplace)
            memcpy(rbuf + me * c, sbuf, c * sizeof(int));
        const void *in = inplace ? MPI_IN_PLACE : sbuf;
        COLL(-1, MPI_Allgather(in, c, MPI_INT, rbuf, c, MPI_INT, S->comm),
             MPI_Iallgather(in, c, MPI_INT, rbuf, c, MPI_INT, S->comm, &rq_),
             "count %d%s", c, inplace ? " MPI_IN_PLACE" : "");
        gather_exp(0, counts, displs, len);
        check_ints(rbuf, ebuf, len, "live slots hold their data, blank slots SENT");
    }
}

static void t_allgatherv(void)
{
    const int n = S->size, me = S->rank;
    int counts[MAXP], displs[MAXP], len = 6 * n + PAD;
    for (int p = 0; p < n; p++) {
        counts[p] = 1 + (p + S->it) % 4;
        displs[p] = (n - 1 - p) * 6;
    }
    for (int k = 0; k < counts[me]; k++)
        sbuf[k] = V(me, 0, k);
    fill(rbuf, len, SENT);
    COLL(-1, MPI_Allgatherv(sbuf, counts[me], MPI_INT, rbuf, counts, displs, MPI_INT, S->comm),
         MPI_Iallgatherv(sbuf, counts[me], MPI_INT, rbuf, counts, displs, MPI_INT, S->comm,
                         &rq_), "counts 1..4, displacements backwards with gaps");
    gather_exp(0, counts, displs, len);
    check_ints(rbuf, ebuf, len, "live slots hold their data, blank slots and gaps SENT");
}

static void t_alltoall(void)
{
    const int n = S->size, me = S->rank;
    int c = S->it ? 5 : 1, len = n * c + PAD;
    for (int d = 0; d < n; d++)
        for (int k = 0; k < c; k++)
            sbuf[d * c + k] = V(me, d, k);
    fill(rbuf, len, SENT);
    COLL(-1, MPI_Alltoall(sbuf, c, MPI_INT, rbuf, c, MPI_INT, S->comm),
         MPI_Ialltoall(sbuf, c, MPI_INT, rbuf, c, MPI_INT, S->comm, &rq_), "count %d", c);
    fill(ebuf, len, SENT);
    for (int s = 0; s < n; s++)
        for (int k = 0; k < c && S->live[s]; k++)
            ebuf[s * c + k] = V(s, me, k);
    check_ints(rbuf, ebuf, len, "slots of live senders hold their data, blank slots SENT");
}

/* ints from s to d in alltoallv/w: 1..3, the same seen from both ends */
static int a2a_count(int s, int d)
{
    return 1 + (s + d + S->it) % 3;
}

static void t_alltoallv(void)
{
    const int n = S->size, me = S->rank;
    int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP], len = 4 * n + PAD;
    for (int p = 0; p < n; p++) {
        sc[p] = a2a_count(me, p);
        sd[p] = p * 4;
        rc[p] = a2a_count(p, me);
        rd[p] = (n - 1 - p) * 4;        /* backwards, with gaps */
        for (int k = 0; k < sc[p]; k++)
            sbuf[sd[p] + k] = V(me, p, k);
    }
    fill(rbuf, len, SENT);
    COLL(-1, MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, S->comm),
         MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, S->comm, &rq_),
         "counts 1..3, receive displacements backwards with gaps");
    fill(ebuf, len, SENT);
    for (int s = 0; s < n; s++)
        for (int k = 0; k < rc[s] && S->live[s]; k++)
            ebuf[rd[s] + k] = V(s, me, k);
    check_ints(rbuf, ebuf, len, "slots of live senders hold their data, blank slots SENT");
}

static void t_alltoallw(void)
{
    const int n = S->size, me = S->rank;
    int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP], len = 8 * n + PAD;
    MPI_Datatype st[MAXP], rt[MAXP];
    fill(sbuf, 8 * n, SENT - 1);
    for (int p = 0; p < n; p++) {
        /* pairs of ints between ranks of different parity, ints otherwise */
        st[p] = rt[p] = (me + p) % 2 ? pair_type : MPI_INT;
        sc[p] = a2a_count(me, p);
        rc[p] = a2a_count(p, me);
        sd[p] = p * 8 * (int) sizeof(int);
        rd[p] = (n - 1 - p) * 8 * (int) sizeof(int);
        for (int k = 0; k < sc[p] * ((me + p) % 2 + 1); k++)
            sbuf[p * 8 + k] = V(me, p, k);
    }
    fill(rbuf, len, SENT);
    COLL(-1, MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, S->comm),
         MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, S->comm, &rq_),
         "MPI_INT and 2-int types, byte displacements, receive backwards");
    fill(ebuf, len, SENT);
    for (int s = 0; s < n; s++)
        for (int k = 0; k < rc[s] * ((me + s) % 2 + 1) && S->live[s]; k++)
            ebuf[(n - 1 - s) * 8 + k] = V(s, me, k);
    check_ints(rbuf, ebuf, len, "slots of live senders hold their data, blank slots SENT");
}

static void t_reduce_scatter(void)
{
    ord_any_order = 1;
    static const int ops[] = { O_SUM, O_MAXLOC, O_ORD };
    const int n = S->size, me = S->rank;
    int counts[MAXP], off = 0, total = 0;
    for (int p = 0; p < n; p++) {
        counts[p] = 1 + (p + S->it) % 3;
        off += p < me ? counts[p] : 0;
        total += counts[p];
    }
    for (int i = 0; i < 3; i++) {
        int op = ops[i], e = op_ints(op), c = counts[me];
        input(op, me, total, sbuf);
        fill(rbuf, c * e + PAD, SENT);
        COLL(-1, MPI_Reduce_scatter(sbuf, rbuf, counts, op_type(op), op_handle(op), S->comm),
             MPI_Ireduce_scatter(sbuf, rbuf, counts, op_type(op), op_handle(op), S->comm,
                                 &rq_), "%s counts 1..3", op_names[op]);
        reduction(op, total, 0, n - 1, ebuf);
        memmove(ebuf, ebuf + off * e, c * e * sizeof(int));
        fill(ebuf + c * e, PAD, SENT);
        check_ints(rbuf, ebuf, c * e + PAD, "this rank's block, reduced over the live ranks");
        check_locs(op, rbuf, c);
    }
    ord_any_order = 0;
}

static void t_reduce_scatter_block(void)
{
    ord_any_order = 1;
    static const int ops[] = { O_SUM, O_PROD, O_MINLOC, O_ORD };
    const int n = S->size, me = S->rank;
    int c = S->it ? 3 : 1;
    for (int i = 0; i < 4; i++) {
        int op = ops[i], e = op_ints(op);
        input(op, me, n * c, sbuf);
        fill(rbuf, c * e + PAD, SENT);
        COLL(-1, MPI_Reduce_scatter_block(sbuf, rbuf, c, op_type(op), op_handle(op), S->comm),
             MPI_Ireduce_scatter_block(sbuf, rbuf, c, op_type(op), op_handle(op), S->comm,
                                       &rq_), "%s count %d", op_names[op], c);
        reduction(op, n * c, 0, n - 1, ebuf);
        memmove(ebuf, ebuf + me * c * e, c * e * sizeof(int));
        fill(ebuf + c * e, PAD, SENT);
        check_ints(rbuf, ebuf, c * e + PAD, "this rank's block, reduced over the live ranks");
        check_locs(op, rbuf, c);
    }
    ord_any_order = 0;
}

/* scan: live ranks 0..me; exscan: live ranks below me (the first live
 * rank's result is undefined: only the tail is checked there) */
static void t_scans(int ex)
{
    const int me = S->rank;
    for (int op = 0; op < NOPS; op++) {
        int c = cnt_of(op + ex), e = op_ints(op);
        input(op, me, c, sbuf);
        fill(rbuf, c * e + PAD, SENT);
        if (ex)
            COLL(-1, MPI_Exscan(sbuf, rbuf, c, op_type(op), op_handle(op), S->comm),
                 MPI_Iexscan(sbuf, rbuf, c, op_type(op), op_handle(op), S->comm, &rq_),
                 "%s count %d", op_names[op], c);
        else
            COLL(-1, MPI_Scan(sbuf, rbuf, c, op_type(op), op_handle(op), S->comm),
                 MPI_Iscan(sbuf, rbuf, c, op_type(op), op_handle(op), S->comm, &rq_),
                 "%s count %d", op_names[op], c);
        if (reduction(op, c, 0, ex ? me - 1 : me, ebuf) == 0) {
            fill(ebuf, c * e + PAD, SENT);
            check_ints(rbuf + c * e, ebuf, PAD, "(first live rank) nothing after the result");
            continue;
        }
        fill(ebuf + c * e, PAD, SENT);
        check_ints(rbuf, ebuf, c * e + PAD, ex ? "reduction over the live ranks below" :
                   "reduction over the live ranks up to this one");
        check_locs(op, rbuf, c);
    }
}

/* several nonblocking collectives outstanding at once, one with a blank
 * root, completed by one MPI_Waitall */
static void t_overlap(void)
{
    const int n = S->size, me = S->rank;
    int b = S->first, g = S->last;
    for (int p = n - 1; p >= 0; p--)
        if (!S->live[p])
            b = p;
    int x[3], one = 1, sum = SENT, v = V(me, g, 0);
    MPI_Request rq[4] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
        MPI_REQUEST_NULL
    };
    MPI_Status sts[4];           /* (MPI_STATUSES_IGNORE makes gcc warn) */
    for (int k = 0; k < 3; k++)
        x[k] = me == b ? V(b, 0, k) : SENT;
    fill(rbuf, n + PAD, SENT);
    at("MPI_Ibcast", b, "outstanding with MPI_Iallreduce, MPI_Igather (root %d) and "
       "MPI_Ibarrier, then MPI_Waitall", g);
    int rc = MPI_Ibcast(x, 3, MPI_INT, b, S->comm, &rq[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, S->comm, &rq[1]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Igather(&v, 1, MPI_INT, rbuf, 1, MPI_INT, g, S->comm, &rq[2]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Ibarrier(S->comm, &rq[3]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(4, rq, sts);
    check_rc(rc);
    for (int k = 0; k < 3; k++)
        ebuf[k] = S->live[b] || me == b ? V(b, 0, k) : SENT;
    check_ints(x, ebuf, 3, S->live[b] ? "the bcast" : "the bcast buffer must be untouched");
    CHECKQ(!coll_ok || sum == S->nlive, "%s: allreduce of ones gave %d, expected %d", where,
           sum, S->nlive);
    if (me == g) {
        int counts[MAXP], displs[MAXP];
        for (int p = 0; p < n; p++) {
            counts[p] = 1;
            displs[p] = p;
        }
        gather_exp(g, counts, displs, n + PAD);
        check_ints(rbuf, ebuf, n + PAD, "the gather: live slots hold their data, blank SENT");
    }
}

/* Runs the checks on comm, whose rank r is world rank map[r] (n ranks). */
static void run_suite(MPI_Comm comm, const char *name, const int *map, int n, int it, int big)
{
    suite_t s;
    memset(&s, 0, sizeof(s));
    s.comm = comm;
    s.name = name;
    s.it = it;
    s.big = big;
    s.first = -1;
    int expect_rank = -1, size = -1, rank = -1;
    for (int r = 0; r < n; r++) {
        s.live[r] = alive[map[r]];
        s.nlive += s.live[r];
        if (s.live[r]) {
            if (s.first < 0)
                s.first = r;
            s.last = r;
        }
        if (map[r] == wme)
            expect_rank = r;
    }
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    CHECK(size == n && rank == expect_rank, "%s, it %d: size %d rank %d, expected %d and %d",
          name, it, size, rank, n, expect_rank);
    if (size != n || rank != expect_rank)
        return;
    s.size = n;
    s.rank = rank;
    S = &s;
    t_members(map);
    for (s.nb = 0; s.nb < 2; s.nb++) {
        if (!s.nb) {
            t_p2p_blanks();
            if (comm == MPI_COMM_WORLD && it == 0)
                t_blank_root_at_once();
        }
        t_barrier();
        t_bcast();
        t_reduce();
        t_allreduce();
        t_gather();
        t_gatherv();
        t_scatter();
        t_scatterv();
        t_allgather();
        t_allgatherv();
        t_alltoall();
        t_alltoallv();
        t_alltoallw();
        t_reduce_scatter();
        t_reduce_scatter_block();
        t_scans(0);
        t_scans(1);
        if (s.nb)
            t_overlap();
        t_barrier();
    }
    S = NULL;
}

static void free_comm(MPI_Comm * c, const char *name)
{
    if (*c == MPI_COMM_NULL || *c == MPI_COMM_WORLD)
        return;
    int rc = MPI_Comm_free(c);
    CHECK(rc == MPI_SUCCESS, "freeing %s gave class %d", name, ft_class(rc));
}

/* ---- communicators made from the blank world ---------------------------------- */

static void creation_checks(int it)
{
    const int n = nproc, me = wme;
    int ident[MAXP], rev[MAXP], livel[MAXP], blankl[MAXP], nlive = 0, nblank = 0, cmp, rc;
    for (int p = 0; p < n; p++) {
        ident[p] = p;
        rev[p] = n - 1 - p;
        if (alive[p])
            livel[nlive++] = p;
        else
            blankl[nblank++] = p;
    }
    /* MPI_Comm_dup: a normal dup now, with the same ranks and blanks */
    MPI_Comm dup = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(dup != MPI_COMM_NULL && dup != MPI_COMM_WORLD, "it %d: MPI_Comm_dup after the "
          "recovery gave %s", it, dup == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_NULL");
    if (dup != MPI_COMM_NULL && dup != MPI_COMM_WORLD) {
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        CHECK_MPI(MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp));
        CHECK(cmp == MPI_CONGRUENT, "it %d: dup of MPI_COMM_WORLD compares as %d, expected "
              "MPI_CONGRUENT", it, cmp);
        run_suite(dup, "dup of MPI_COMM_WORLD", ident, n, it, 1);
        free_comm(&dup, "the dup of MPI_COMM_WORLD");
    }

    /* MPI_Comm_split: blanks count as MPI_UNDEFINED; key reverses the order */
    MPI_Comm half = MPI_COMM_NULL;
    int hmap[MAXP], hn = 0;
    for (int p = n - 1; p >= 0; p--)
        if (alive[p] && p % 2 == me % 2)
            hmap[hn++] = p;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &half));
    CHECK(half != MPI_COMM_NULL, "it %d: MPI_Comm_split(color rank%%2) gave MPI_COMM_NULL", it);
    if (half != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
        run_suite(half, "MPI_Comm_split(world, rank%2, size-rank)", hmap, hn, it, 0);
        free_comm(&half, "the split communicator");
    }

    /* MPI_Comm_split where the lowest live rank passes MPI_UNDEFINED */
    MPI_Comm some = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me == livel[0] ? MPI_UNDEFINED : 3, me, &some));
    if (me == livel[0]) {
        CHECK(some == MPI_COMM_NULL, "it %d: MPI_Comm_split with MPI_UNDEFINED gave a "
              "communicator", it);
    } else if (some != MPI_COMM_NULL && some != MPI_COMM_WORLD) {
        MPI_Comm_set_errhandler(some, MPI_ERRORS_RETURN);
        int sz = -1, rk = -1, sum = -1, expect = 0;
        MPI_Comm_size(some, &sz);
        MPI_Comm_rank(some, &rk);
        for (int i = 1; i < nlive; i++)
            expect += livel[i];
        CHECK_MPI(MPI_Allreduce(&wme, &sum, 1, MPI_INT, MPI_SUM, some));
        int idx = 0;
        while (livel[idx] != me)
            idx++;
        CHECK(sz == nlive - 1 && rk == idx - 1 && sum == expect, "it %d: MPI_Comm_split with "
              "the lowest live rank MPI_UNDEFINED: size %d rank %d sum %d, expected %d %d %d",
              it, sz, rk, sum, nlive - 1, idx - 1, expect);
        free_comm(&some, "the split communicator without the lowest live rank");
    } else {
        CHECK(0, "it %d: MPI_Comm_split (lowest live rank MPI_UNDEFINED) gave no "
              "communicator", it);
    }

    /* the group of MPI_COMM_WORLD keeps its size; blanks are in it */
    MPI_Group g = MPI_GROUP_NULL, gl = MPI_GROUP_NULL, ge = MPI_GROUP_NULL,
        gr = MPI_GROUP_NULL, gb = MPI_GROUP_NULL, gd = MPI_GROUP_NULL, gs_ = MPI_GROUP_NULL;
    int gs = -1, gk = -1, tr[MAXP];
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &g));
    MPI_Group_size(g, &gs);
    MPI_Group_rank(g, &gk);
    CHECK(gs == n && gk == me, "it %d: group of MPI_COMM_WORLD: size %d rank %d, expected "
          "%d %d", it, gs, gk, n, me);
    CHECK_MPI(MPI_Group_incl(g, nlive, livel, &gl));
    CHECK_MPI(MPI_Group_excl(g, nblank, blankl, &ge));
    CHECK_MPI(MPI_Group_incl(g, n, rev, &gr));
    CHECK_MPI(MPI_Group_incl(g, 1, blankl, &gb));
    MPI_Group_size(gl, &gs);
    CHECK(gs == nlive, "it %d: MPI_Group_incl of the live ranks: size %d, expected %d", it, gs,
          nlive);
    MPI_Group_size(gb, &gs);
    MPI_Group_rank(gb, &gk);
    CHECK(gs == 1 && gk == MPI_UNDEFINED, "it %d: MPI_Group_incl of blank %d: size %d, rank "
          "%d", it, blankl[0], gs, gk);
    CHECK_MPI(MPI_Group_compare(gl, ge, &cmp));
    CHECK(cmp == MPI_IDENT, "it %d: incl(live) vs excl(blanks): %d, expected MPI_IDENT", it,
          cmp);
    CHECK_MPI(MPI_Group_compare(g, ge, &cmp));
    CHECK(cmp == MPI_UNEQUAL, "it %d: world group vs excl(blanks): %d, expected MPI_UNEQUAL",
          it, cmp);
    CHECK_MPI(MPI_Group_compare(g, gr, &cmp));
    CHECK(cmp == MPI_SIMILAR, "it %d: world group vs reversed: %d, expected MPI_SIMILAR", it,
          cmp);
    CHECK_MPI(MPI_Group_translate_ranks(g, n, ident, ge, tr));
    for (int p = 0, li = 0; p < n; p++) {
        int want = alive[p] ? li++ : MPI_UNDEFINED;
        CHECK(tr[p] == want, "it %d: world rank %d in excl(blanks) is %d, expected %d", it, p,
              tr[p], want);
    }
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &gd));
    CHECK_MPI(MPI_Group_compare(g, gd, &cmp));
    CHECK(cmp == MPI_IDENT, "it %d: two groups of MPI_COMM_WORLD compare as %d", it, cmp);

    /* MPI_Comm_create with the reversed world group: all blanks included,
     * they stay blanks */
    MPI_Comm rc_comm = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, gr, &rc_comm));
    if (rc_comm != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(rc_comm, MPI_ERRORS_RETURN);
        CHECK_MPI(MPI_Comm_compare(rc_comm, MPI_COMM_WORLD, &cmp));
        CHECK(cmp == MPI_SIMILAR, "it %d: MPI_Comm_create(reversed world group) compares "
              "with MPI_COMM_WORLD as %d, expected MPI_SIMILAR", it, cmp);
        run_suite(rc_comm, "MPI_Comm_create(world, reversed world group)", rev, n, it, 0);
        free_comm(&rc_comm, "MPI_Comm_create(reversed world group)");
    } else {
        CHECK(0, "it %d: MPI_Comm_create(reversed world group) gave MPI_COMM_NULL", it);
    }

    /* MPI_Comm_create_group with the same group: its context id is agreed
     * among the group's live members only */
    MPI_Comm cg_comm = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, gr, 5, &cg_comm));
    if (cg_comm != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(cg_comm, MPI_ERRORS_RETURN);
        CHECK_MPI(MPI_Comm_compare(cg_comm, MPI_COMM_WORLD, &cmp));
        CHECK(cmp == MPI_SIMILAR, "it %d: MPI_Comm_create_group(reversed world group) "
              "compares with MPI_COMM_WORLD as %d, expected MPI_SIMILAR", it, cmp);
        run_suite(cg_comm, "MPI_Comm_create_group(world, reversed world group)", rev, n, it, 0);
        free_comm(&cg_comm, "MPI_Comm_create_group(reversed world group)");
    } else {
        CHECK(0, "it %d: MPI_Comm_create_group(reversed world group) gave MPI_COMM_NULL", it);
    }

    /* MPI_Comm_create with the live ranks only: no blanks */
    MPI_Comm lc = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, ge, &lc));
    if (lc != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(lc, MPI_ERRORS_RETURN);
        run_suite(lc, "MPI_Comm_create(world, excl(blanks))", livel, nlive, it, 0);
        free_comm(&lc, "MPI_Comm_create(excl(blanks))");
    } else {
        CHECK(0, "it %d: MPI_Comm_create(excl(blanks)) gave MPI_COMM_NULL", it);
    }

    /* MPI_Comm_create with a subset whose rank 0 is a blank; the highest
     * live rank is left out (when there are two or more) */
    int smap[MAXP], sn = 0;
    smap[sn++] = blankl[0];
    for (int i = 0; i < (nlive > 1 ? nlive - 1 : 1); i++)
        smap[sn++] = livel[i];
    CHECK_MPI(MPI_Group_incl(g, sn, smap, &gs_));
    MPI_Comm sc = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, gs_, &sc));
    if (nlive > 1 && me == livel[nlive - 1]) {
        CHECK(sc == MPI_COMM_NULL, "it %d: MPI_Comm_create gave a communicator to a rank not "
              "in the group", it);
    } else if (sc != MPI_COMM_NULL && sc != MPI_COMM_WORLD) {
        MPI_Comm_set_errhandler(sc, MPI_ERRORS_RETURN);
        run_suite(sc, "MPI_Comm_create(world, {first blank, live ranks but the last})", smap,
                  sn, it, 0);
        free_comm(&sc, "MPI_Comm_create({first blank, ...})");
    } else {
        CHECK(0, "it %d: MPI_Comm_create({first blank, ...}) gave no communicator", it);
    }

    /* MPI_Cart_create over the world, periodic 1-D: blank neighbours are
     * MPI_PROC_NULL */
    int dims[1] = { n }, periods[1] = { 1 };
    MPI_Comm cart = MPI_COMM_NULL;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    if (cart != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
        static const int disps[3] = { 1, -1, 2 };
        for (int i = 0; i < 3; i++) {
            int src = -2, dst = -2, x = 1000 + me, buf = SENT;
            int want_src = ((me - disps[i]) % n + n) % n, want_dst = ((me + disps[i]) % n + n) % n;
            MPI_Status st;
            CHECK_MPI(MPI_Cart_shift(cart, 0, disps[i], &src, &dst));
            CHECK(src == want_src && dst == want_dst, "it %d: MPI_Cart_shift by %d: source %d "
                  "dest %d, expected %d %d", it, disps[i], src, dst, want_src, want_dst);
            rc = MPI_Sendrecv(&x, 1, MPI_INT, dst, 11, &buf, 1, MPI_INT, src, 11, cart, &st);
            CHECK(rc == MPI_SUCCESS, "it %d: cart MPI_Sendrecv shift %d (to %s %d, from %s "
                  "%d) gave class %d", it, disps[i], alive[want_dst] ? "live" : "blank",
                  want_dst, alive[want_src] ? "live" : "blank", want_src, ft_class(rc));
            if (rc != MPI_SUCCESS)
                continue;
            if (alive[want_src]) {
                CHECK(buf == 1000 + want_src && st.MPI_SOURCE == want_src, "it %d: cart "
                      "MPI_Sendrecv shift %d from live %d: got %d from %d", it, disps[i],
                      want_src, buf, st.MPI_SOURCE);
            } else {
                int count = -1;
                MPI_Get_count(&st, MPI_INT, &count);
                CHECK(buf == SENT && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG
                      && count == 0, "it %d: cart MPI_Sendrecv shift %d from blank neighbour "
                      "%d: buffer %d source %d tag %d count %d, expected MPI_PROC_NULL's", it,
                      disps[i], want_src, buf, st.MPI_SOURCE, st.MPI_TAG, count);
            }
        }
        run_suite(cart, "MPI_Cart_create(world, periodic 1-D)", ident, n, it, 0);
        free_comm(&cart, "the cartesian communicator");
    } else {
        CHECK(0, "it %d: MPI_Cart_create over the world gave MPI_COMM_NULL", it);
    }

    MPI_Group *groups[7] = { &g, &gl, &ge, &gr, &gb, &gd, &gs_ };
    for (int i = 0; i < 7; i++)
        if (*groups[i] != MPI_GROUP_NULL)
            CHECK_MPI(MPI_Group_free(groups[i]));
}

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 2, "PLAN kill|exit", &rank, &size);
    const char *plan = argv[1], *how = argv[2];
    nproc = size;
    wme = rank;
    int nvictims = 0;
    for (int p = 0; p < size && p < MAXP; p++) {
        alive[p] = !ft_in_list(plan, p);
        nvictims += !alive[p];
    }
    if (size > MAXP || nvictims == 0 || nvictims == size ||
        !test_env_is("FTMPI_COMM_MODE", "blank") ||
        (getenv("FTMPI_RECOVERY_MODE") && !test_env_is("FTMPI_RECOVERY_MODE", "manual"))) {
        if (rank == 0)
            fprintf(stderr, "ft_blank_coll: needs at most %d processes, a PLAN that kills some "
                    "but not all, FTMPI_COMM_MODE=blank and FTMPI_RECOVERY_MODE=manual\n",
                    MAXP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    sbuf = malloc(BUFN * sizeof(int));
    rbuf = malloc(BUFN * sizeof(int));
    ebuf = malloc(BUFN * sizeof(int));
    tbuf = malloc(BUFN * sizeof(int));
    big = malloc(BIGN * sizeof(int));
    bigexp = malloc(BIGN * sizeof(int));

    /* made before the failure: types and ops survive recovery */
    MPI_Type_contiguous(4, MPI_INT, &ord_type);
    MPI_Type_commit(&ord_type);
    MPI_Type_contiguous(2, MPI_INT, &pair_type);
    MPI_Type_commit(&pair_type);
    MPI_Op_create(ord_fn, 0, &ord_op);

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (!alive[rank]) {
        ft_sleep(0.2);
        ft_die(how);
    }

    /* the survivors notice the failure */
    double t0 = ft_now();
    int rc;
    do
        rc = MPI_Barrier(MPI_COMM_WORLD);
    while (rc == MPI_SUCCESS && ft_now() - t0 < 20);
    CHECK(ft_class(rc) == MPI_ERR_OTHER, "the barrier after the failure gave class %d after "
          "%.1f s, expected MPI_ERR_OTHER", ft_class(rc), ft_now() - t0);
    if (rc == MPI_SUCCESS)
        return ft_report();

    /* MANUAL recovery */
    MPI_Comm x = MPI_COMM_NULL;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &x);
    CHECK(rc == MPI_SUCCESS && x == MPI_COMM_WORLD, "recovery: MPI_Comm_dup gave class %d, "
          "%s", ft_class(rc), x == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "not MPI_COMM_WORLD");
    if (rc != MPI_SUCCESS)
        return ft_report();
    int new_size = -1, new_rank = -1, flag = 0, *attr;
    MPI_Comm_size(MPI_COMM_WORLD, &new_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &new_rank);
    CHECK(new_size == size && new_rank == rank, "BLANK world: size %d rank %d, expected %d %d",
          new_size, new_rank, size, rank);
    MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_COMM_MODE, &attr, &flag);
    CHECK(flag && *attr == FTMPI_COMM_MODE_BLANK, "FTMPI_COMM_MODE attribute %d",
          flag ? *attr : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &attr, &flag);
    CHECK(flag && *attr == nvictims, "FTMPI_NUM_FAILED_PROCS %d, expected %d", flag ? *attr : -1,
          nvictims);

    int ident[MAXP];
    for (int p = 0; p < size; p++)
        ident[p] = p;
    for (int it = 0; it < 2; it++) {
        run_suite(MPI_COMM_WORLD, "MPI_COMM_WORLD", ident, size, it, 1);
        creation_checks(it);
    }

    if (test_errors >= 100)
        fprintf(stderr, "[rank %d] %d errors in all, only the first 100 shown\n", rank,
                test_errors);
    MPI_Op_free(&ord_op);
    MPI_Type_free(&ord_type);
    MPI_Type_free(&pair_type);
    free(sbuf);
    free(rbuf);
    free(ebuf);
    free(tbuf);
    free(big);
    free(bigexp);
    return ft_report();
}
