/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH soak test: the workload that soak.py kills processes of.
 *
 *   soak_workload RUNDIR SECONDS
 *
 * The job's modes come from the FTMPI_* variables, as for any program.
 * Every process writes RUNDIR/pid.<first world rank>.<os pid> so that the
 * driver can pick its victims, and rank 0 prints "SOAK READY" once every
 * process is past MPI_Init (a death before that ends any job).
 *
 * Each iteration mixes what applications do: blocking and nonblocking
 * point-to-point around the ring of live ranks with sizes from 8 B (eager)
 * to 1 MiB (rendezvous), blocking and nonblocking collectives,
 * communicator creation and one-sided communication, each with checked
 * data. A call that fails sends the process to recovery (MANUAL: the
 * legacy MPI_Comm_dup(MPI_COMM_WORLD); AUTO: the library already
 * recovered), after which every process, replacements included, agrees on
 * where to go on (iteration, recovery generation, deadline). Tags carry the
 * generation, so that in CONT mode a message of an abandoned iteration can
 * never be taken for a new one.
 *
 * A check that fails prints "WRONG" with what it found; each process that
 * reaches the end prints " rank R: No Errors" (or "Found N errors"). In
 * IGNORE mode, which has no recovery, the ranks pass tokens around the
 * ring of those they believe alive and check that collectives over the
 * world either succeed (nobody failed yet) or fail, never hang. Under ULFM
 * (FTMPI_RECOVERY_MODE=ulfm) it runs on a communicator of its own: a process
 * whose call failed revokes it, every iteration ends with MPIX_Comm_agree
 * on whether everyone's succeeded (so all survivors take the same path),
 * and a failed one is followed by a shrink. */
#include <mpi.h>
#include <mpi-ext.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define MAXP 64
#define BIG (1 << 20)
#define TAG(gen, iter, step) ((((gen) & 0x1ff) << 11) | (((iter) & 0xff) << 3) | (step))

static int rank, size, pid0;    /* pid0: rank in the first world */
static int errors;
static int manual_mode, blank_mode, cont_mode, atomic_mode, ignore_mode, ulfm_mode;
/* what the workload runs on: MPI_COMM_WORLD, which FT-MPI recovers; under
 * ULFM a dup of it, replaced by its shrink after each failure */
static MPI_Comm work = MPI_COMM_WORLD;
static int live[MAXP], nlive;   /* live[r]: rank r of the world is not a blank */
static int gen;                 /* recoveries this job went through, as agreed */
static int iter;                /* iterations completed, as agreed at the last resync */
static double deadline;
static int recoveries;
static unsigned char *sbuf, *rbuf, *sbuf2, *rbuf2;

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

static void wrong(const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "WRONG pid0 %d rank %d gen %d iter %d: %s\n", pid0, rank, gen, iter, msg);
    fflush(stderr);
    errors++;
}

static int attr(int keyval)
{
    int *v, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &v, &flag);
    return flag ? *v : -1;
}

static unsigned char pattern(int sender, int step, size_t k)
{
    return (unsigned char) (k * 131 + sender * 7 + iter * 13 + gen * 17 + step * 29 + (k >> 9));
}

static void fill(unsigned char *buf, size_t len, int step)
{
    for (size_t k = 0; k < len; k++)
        buf[k] = pattern(rank, step, k);
}

/* Full check up to 64 KiB, then every 509th byte and the last one. */
static void check_from(const unsigned char *buf, size_t len, int sender, int step,
                       const char *what)
{
    size_t stride = len > 65536 ? 509 : 1;
    for (size_t k = 0; k < len; k += stride)
        if (buf[k] != pattern(sender, step, k)) {
            wrong("%s of %zu bytes from rank %d: byte %zu is %d, expected %d", what, len,
                  sender, k, buf[k], pattern(sender, step, k));
            return;
        }
    if (len && buf[len - 1] != pattern(sender, step, len - 1))
        wrong("%s of %zu bytes from rank %d: last byte wrong", what, len, sender);
}

static int next_live(int r)
{
    for (int i = 1; i <= size; i++)
        if (live[(r + i) % size])
            return (r + i) % size;
    return r;
}

static int prev_live(int r)
{
    for (int i = 1; i <= size; i++)
        if (live[(r - i + size) % size])
            return (r - i + size) % size;
    return r;
}

static int live_sum(int parity)       /* sum of rank+1 over live ranks (of a parity, or -1: all) */
{
    int s = 0;
    for (int r = 0; r < size; r++)
        if (live[r] && (parity < 0 || r % 2 == parity))
            s += r + 1;
    return s;
}

/* A multiple-completion call's error: the first failed request's. */
static int first_error(int rc, const MPI_Status * st, int n)
{
    int cls;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_IN_STATUS)
        return rc;
    for (int i = 0; i < n; i++)
        if (st[i].MPI_ERROR != MPI_SUCCESS && st[i].MPI_ERROR != MPI_ERR_PENDING)
            return st[i].MPI_ERROR;
    return rc;
}

static const size_t sizes[] = { 8, 1024, 65536, BIG, 200, 16384, 300000 };

#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* ---- one iteration: returns MPI_SUCCESS or the first error ------------- */

/* ULFM: every survivor leaves an iteration (or a resync) the same way. They
 * agree on whether everyone's part succeeded and whether time is up; a
 * failed part anywhere, or an agreement that reports an unacknowledged
 * failure, sends all of them to recovery. */
static int agree_outcome(int rc, int *done)
{
    int flags = (rc == MPI_SUCCESS ? 1 : 0) | (now() > deadline ? 0 : 2);
    int arc = MPIX_Comm_agree(work, &flags);
    if (arc != MPI_SUCCESS)
        return arc;
    if (!(flags & 1))
        return rc != MPI_SUCCESS ? rc : MPIX_ERR_PROC_FAILED;
    if (done)
        *done = !(flags & 2);
    return MPI_SUCCESS;
}

static void check_ulfm_error(int rc, const char *what)
{
    int cls, len;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc, &cls);
    if (cls != MPIX_ERR_PROC_FAILED && cls != MPIX_ERR_PROC_FAILED_PENDING &&
        cls != MPIX_ERR_REVOKED) {
        MPI_Error_string(rc, text, &len);
        for (char *c = text; *c; c++)
            if (*c == '\n')
                *c = ' ';
        wrong("%s failed with error class %d, expected a ULFM one: %s", what, cls, text);
    }
}

#define TRY(call) do { int rc_ = (call); if (rc_ != MPI_SUCCESS) return rc_; } while (0)

static int ring_blocking(void)
{
    size_t len = sizes[iter % NSIZES];
    int right = next_live(rank), left = prev_live(rank);
    MPI_Status st;
    fill(sbuf, len, 1);
    memset(rbuf, 0xee, len);
    TRY(MPI_Sendrecv(sbuf, (int) len, MPI_BYTE, right, TAG(gen, iter, 1), rbuf, (int) len,
                     MPI_BYTE, left, TAG(gen, iter, 1), work, &st));
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (st.MPI_SOURCE != left || count != (int) len)
        wrong("sendrecv status: source %d count %d, expected %d and %zu", st.MPI_SOURCE, count,
              left, len);
    else
        check_from(rbuf, len, left, 1, "sendrecv");
    return MPI_SUCCESS;
}

static int ring_nonblocking(MPI_Request * reqs)
{
    size_t len = sizes[(iter + 3) % NSIZES];
    int right = next_live(rank), left = prev_live(rank);
    MPI_Status st[2];
    fill(sbuf2, len, 2);
    memset(rbuf2, 0xee, len);
    TRY(MPI_Irecv(rbuf2, (int) len, MPI_BYTE, MPI_ANY_SOURCE, TAG(gen, iter, 2), work,
                  &reqs[0]));
    TRY(MPI_Isend(sbuf2, (int) len, MPI_BYTE, right, TAG(gen, iter, 2), work,
                  &reqs[1]));
    TRY(first_error(MPI_Waitall(2, reqs, st), st, 2));
    if (st[0].MPI_SOURCE != left)
        wrong("wildcard receive from rank %d, expected %d", st[0].MPI_SOURCE, left);
    else
        check_from(rbuf2, len, left, 2, "irecv");
    return MPI_SUCCESS;
}

/* A live rank, another at each iteration. */
static int rotating_root(void)
{
    int k = iter % nlive;
    for (int r = 0; r < size; r++)
        if (live[r] && k-- == 0)
            return r;
    return 0;
}

/* 64 KiB from a rotating root: a failed ATOMIC broadcast leaves every
 * buffer as it was (NONATOMIC promises nothing then). */
static int large_bcast(void)
{
    int root = rotating_root(), *bc = (int *) rbuf, n = 16384;
    for (int i = 0; i < n; i++)
        bc[i] = rank == root ? root * 1000 + i + iter : -7;
    int rc = MPI_Bcast(bc, n, MPI_INT, root, work);
    for (int i = 0; i < n; i++) {
        int expected = rc == MPI_SUCCESS || rank == root ? root * 1000 + i + iter : -7;
        if (bc[i] != expected && (rc == MPI_SUCCESS || atomic_mode)) {
            wrong("%s bcast from %d: element %d is %d, expected %d",
                  rc == MPI_SUCCESS ? "a" : "a failed", root, i, bc[i], expected);
            break;
        }
    }
    return rc;
}

static int collectives(void)
{
    int one = rank + 1, sum = -7;
    int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, work);
    if (rc != MPI_SUCCESS) {
        if (atomic_mode && sum != -7)
            wrong("a failed ATOMIC allreduce wrote %d into its output", sum);
        return rc;
    }
    if (sum != live_sum(-1))
        wrong("allreduce sum %d, expected %d", sum, live_sum(-1));

    /* 16 KiB vector */
    int *vin = (int *) sbuf, *vout = (int *) rbuf, n = 4096;
    for (int i = 0; i < n; i++) {
        vin[i] = rank + i;
        vout[i] = -7;
    }
    rc = MPI_Allreduce(vin, vout, n, MPI_INT, MPI_MAX, work);
    if (rc != MPI_SUCCESS) {
        if (atomic_mode)
            for (int i = 0; i < n; i++)
                if (vout[i] != -7) {
                    wrong("a failed ATOMIC allreduce wrote element %d", i);
                    break;
                }
        return rc;
    }
    int maxlive = prev_live(0);
    for (int i = 0; i < n; i++)
        if (vout[i] != maxlive + i) {
            wrong("allreduce max element %d is %d, expected %d", i, vout[i], maxlive + i);
            break;
        }
    return large_bcast();
}

static int nonblocking_collectives(MPI_Request * reqs)
{
    int root = rotating_root();
    int val = rank + 1, sum = -7;
    int *bc = (int *) sbuf2, n = 2048;
    for (int i = 0; i < n; i++)
        bc[i] = rank == root ? root * 1000 + i + iter : -7;
    TRY(MPI_Iallreduce(&val, &sum, 1, MPI_INT, MPI_SUM, work, &reqs[0]));
    TRY(MPI_Ibcast(bc, n, MPI_INT, root, work, &reqs[1]));
    MPI_Status st[2];
    TRY(first_error(MPI_Waitall(2, reqs, st), st, 2));
    if (sum != live_sum(-1))
        wrong("iallreduce sum %d, expected %d", sum, live_sum(-1));
    for (int i = 0; i < n; i++)
        if (bc[i] != root * 1000 + i + iter) {
            wrong("ibcast from %d: element %d is %d", root, i, bc[i]);
            break;
        }
    return MPI_SUCCESS;
}

static int sub_communicator(MPI_Comm * sub)
{
    TRY(MPI_Comm_split(work, rank % 2, rank, sub));
    MPI_Comm_set_errhandler(*sub, MPI_ERRORS_RETURN);
    if (ulfm_mode) {
        /* A split that a failure cuts short can succeed at some members
         * and fail at others (not uniform here: DESIGN 14); a member that
         * got it would then wait in it for one that did not, which has
         * left for the end-of-iteration agreement. */
        int n;
        MPI_Comm_size(*sub, &n);
        if (n != (size + 1 - rank % 2) / 2)
            wrong("the parity-%d communicator has %d members", rank % 2, n);
        return MPI_Comm_free(sub);
    }
    int one = rank + 1, sum = -7;
    TRY(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, *sub));
    if (sum != live_sum(rank % 2))
        wrong("allreduce over the parity-%d communicator: %d, expected %d", rank % 2, sum,
              live_sum(rank % 2));
    TRY(MPI_Comm_free(sub));
    return MPI_SUCCESS;
}

static int one_sided(MPI_Win * win)
{
    int *slots = (int *) rbuf2;
    for (int i = 0; i < 4; i++)
        slots[i] = -7;
    TRY(MPI_Win_create(slots, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, work,
                       win));
    MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);
    TRY(MPI_Win_fence(0, *win));
    int mine = rank * 100 + (iter & 63);
    TRY(MPI_Put(&mine, 1, MPI_INT, next_live(rank), 1, 1, MPI_INT, *win));
    TRY(MPI_Win_fence(0, *win));
    int left = prev_live(rank);
    if (left != rank && slots[1] != left * 100 + (iter & 63))
        wrong("one-sided: slot holds %d, expected %d", slots[1], left * 100 + (iter & 63));
    /* passive target: lock the right neighbour, read what its left put */
    int got = -1, right = next_live(rank);
    TRY(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, *win));
    TRY(MPI_Get(&got, 1, MPI_INT, right, 1, 1, MPI_INT, *win));
    TRY(MPI_Win_unlock(right, *win));
    if (right != rank && got != rank * 100 + (iter & 63))
        wrong("one-sided get from %d: %d, expected %d", right, got, rank * 100 + (iter & 63));
    TRY(MPI_Win_fence(0, *win));
    TRY(MPI_Win_free(win));
    return MPI_SUCCESS;
}

static int iteration(int *done)
{
    MPI_Request reqs[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Win win = MPI_WIN_NULL;
    int rc;

    if ((rc = ring_blocking()) != MPI_SUCCESS)
        goto failed;
    if ((rc = ring_nonblocking(reqs)) != MPI_SUCCESS)
        goto failed;
    if ((rc = collectives()) != MPI_SUCCESS)
        goto failed;
    if (iter % 2 == 0 && (rc = nonblocking_collectives(reqs)) != MPI_SUCCESS)
        goto failed;
    if (iter % 4 == 1 && (rc = sub_communicator(&sub)) != MPI_SUCCESS)
        goto failed;
    if (iter % 8 == 3 && (rc = one_sided(&win)) != MPI_SUCCESS)
        goto failed;
    if ((rc = MPI_Barrier(work)) != MPI_SUCCESS)
        goto failed;
    if (ulfm_mode)
        return agree_outcome(MPI_SUCCESS, done);
    int late = now() > deadline;
    if ((rc = MPI_Allreduce(&late, done, 1, MPI_INT, MPI_MAX, work)) != MPI_SUCCESS)
        goto failed;
    return MPI_SUCCESS;

  failed:
    /* What a failed iteration leaves pending is abandoned: in RESET mode a
     * failure ended it (a wait returns at once); in CONT mode the
     * application's own requests stay pending, receives are cancelled and
     * sends let go. Nothing may hang here. Under ULFM the process revokes
     * the communicator, which ends what is pending on it here and makes
     * the others leave their iteration too. */
    if (ulfm_mode) {
        check_ulfm_error(rc, "an operation of the iteration");
        MPIX_Comm_revoke(work);
    }
    for (int i = 0; i < 2; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        if (cont_mode) {
            MPI_Cancel(&reqs[i]);
            MPI_Request_free(&reqs[i]);
        } else {
            MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        }
    }
    return ulfm_mode ? agree_outcome(rc, done) : rc;
}

/* ---- recovery and agreeing where to go on ---------------------------- */

static void recover(int rc)
{
    int cls;
    if (ulfm_mode) {
        MPI_Comm shrunk;
        MPIX_Comm_revoke(work);
        int src = MPIX_Comm_shrink(work, &shrunk);
        if (src != MPI_SUCCESS) {
            wrong("MPIX_Comm_shrink failed (%d)", src);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Comm_free(&work);
        work = shrunk;
        MPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);
        recoveries++;
        return;
    }
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_OTHER)
        wrong("a call failed with error class %d, expected MPI_ERR_OTHER", cls);
    if (manual_mode) {
        MPI_Comm c = FT_MPI_CHECK_RECOVER;
        /* another failure during the recovery makes it fail: try again */
        for (int tries = 0; MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS; tries++)
            if (tries == 1000) {
                wrong("MPI_Comm_dup(MPI_COMM_WORLD) keeps failing");
                break;
            }
        if (c != MPI_COMM_WORLD)
            wrong("recovery returned a communicator other than MPI_COMM_WORLD");
    }
    recoveries++;
}

/* After start-up and after each recovery: every process (a replacement
 * included) agrees on the generation, the iteration and the deadline, and
 * learns which ranks are live. Returns nonzero when it failed (another
 * failure): recover and call again. A replacement knows nothing to agree
 * with until its first resync succeeded. */
static int in_sync;

static int resync_once(void)
{
    int restarted = !in_sync;
    MPI_Comm_rank(work, &rank);
    MPI_Comm_size(work, &size);
    if (size > MAXP) {
        wrong("world size %d", size);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* blanks keep the -1 of their slots */
    int all[MAXP];
    for (int r = 0; r < size; r++)
        all[r] = -1;
    int rc = MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, work);
    if (rc != MPI_SUCCESS)
        return rc;
    nlive = 0;
    for (int r = 0; r < size; r++) {
        live[r] = all[r] == r;
        nlive += live[r];
        if (all[r] != r && all[r] != -1)
            wrong("allgather slot %d holds %d", r, all[r]);
        if (!blank_mode && all[r] != r)
            wrong("rank %d has no process after the recovery", r);
    }
    if (!live[rank])
        wrong("this process is not live in its own world");

    double mine[3] = { restarted ? -1 : iter, restarted ? -1 : gen, restarted ? 0 : deadline };
    double agreed[3];
    rc = MPI_Allreduce(mine, agreed, 3, MPI_DOUBLE, MPI_MAX, work);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!restarted && (agreed[0] > iter + 1 || agreed[0] < iter))
        wrong("survivors disagree on the iteration: here %d, the most advanced %d", iter,
              (int) agreed[0]);
    iter = (int) agreed[0];
    gen = (int) agreed[1] + 1;
    deadline = agreed[2];
    in_sync = 1;
    return MPI_SUCCESS;
}

static int resync(void)
{
    int rc = resync_once();
    return ulfm_mode ? agree_outcome(rc, NULL) : rc;
}

/* ---- IGNORE mode ---------------------------------------------------- */

static int known_dead[MAXP];

static void learn_dead(void)
{
    int n = attr(FTMPI_NUM_FAILED_PROCS), code = attr(FTMPI_ERROR_FAILURE);
    char s[MPI_MAX_ERROR_STRING], *p;
    int len;
    if (n <= 0)
        return;
    MPI_Error_string(code, s, &len);
    p = strstr(s, "rank");
    while (p && *p && !(*p >= '0' && *p <= '9'))
        p++;
    while (p && *p) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p)
            break;
        if (r >= 0 && r < size)
            known_dead[r] = 1;
        p = end;
        while (*p == ',' || *p == ' ' || *p == ')')
            p++;
    }
    for (int r = 0; r < size; r++)
        live[r] = !known_dead[r];
}

static int ignore_workload(int iterations)
{
    /* pairs, not a ring: partners are symmetric, so nobody waits for a
     * message that went to a process that died in between */
    int bits = 0;
    while ((1 << bits) < size)
        bits++;
    for (iter = 0; iter < iterations; iter++) {
        size_t len = sizes[iter % NSIZES];
        int partner = bits ? rank ^ (1 << (iter % bits)) : size;
        learn_dead();
        if (partner < size && live[partner]) {
            MPI_Status st;
            fill(sbuf, len, 1);
            int rc = MPI_Sendrecv(sbuf, (int) len, MPI_BYTE, partner, TAG(0, iter, 1), rbuf,
                                  (int) len, MPI_BYTE, partner, TAG(0, iter, 1), MPI_COMM_WORLD,
                                  &st);
            int cls;
            MPI_Error_class(rc, &cls);
            if (rc == MPI_SUCCESS)
                check_from(rbuf, len, partner, 1, "ignore-mode exchange");
            else if (cls != MPI_ERR_OTHER)
                wrong("exchange with %d failed with class %d", partner, cls);
        }
        if (iter % 4 == 0) {
            /* succeeds while nobody failed; must fail, not hang, after */
            int rc = MPI_Barrier(MPI_COMM_WORLD), cls;
            MPI_Error_class(rc, &cls);
            if (rc != MPI_SUCCESS && cls != MPI_ERR_OTHER)
                wrong("barrier failed with class %d", cls);
            if (rc != MPI_SUCCESS && attr(FTMPI_NUM_FAILED_PROCS) <= 0)
                wrong("barrier failed while no failure is known");
        }
        usleep(4000);
    }
    return MPI_SUCCESS;
}

/* ---- main ------------------------------------------------------------- */

static void exit_on_usr2(int sig)
{
    _exit(9);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s RUNDIR SECONDS\n", argv[0]);
        return 2;
    }
    signal(SIGUSR2, exit_on_usr2);      /* the driver's way to make a process _exit */
    int init_rc = MPI_Init(&argc, &argv);
    int restarted = init_rc == MPI_INIT_RESTARTED_NODE;
    if (init_rc != MPI_SUCCESS && !restarted) {
        fprintf(stderr, "MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pid0 = rank;

    char path[4096];
    snprintf(path, sizeof(path), "%s/pid.%d.%d", argv[1], pid0, (int) getpid());
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd >= 0)
        close(fd);

    manual_mode = attr(FTMPI_RECOVERY_MODE) == FTMPI_RECOVERY_MODE_MANUAL;
    ignore_mode = attr(FTMPI_RECOVERY_MODE) == FTMPI_RECOVERY_MODE_IGNORE;
    blank_mode = attr(FTMPI_COMM_MODE) == FTMPI_COMM_MODE_BLANK;
    cont_mode = attr(FTMPI_MSG_MODE) == FTMPI_MSG_MODE_CONT;
    atomic_mode = attr(FTMPI_COLL_MODE) == FTMPI_COLL_MODE_ATOMIC;
    ulfm_mode = attr(FTMPI_RECOVERY_MODE) == FTMPI_RECOVERY_MODE_ULFM;
    if (ulfm_mode) {
        MPI_Comm_dup(MPI_COMM_WORLD, &work);
        MPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);
    }
    sbuf = malloc(BIG);
    rbuf = malloc(BIG);
    sbuf2 = malloc(BIG);
    rbuf2 = malloc(BIG);
    for (int r = 0; r < MAXP; r++)
        live[r] = r < size;
    nlive = size;

    double seconds = atof(argv[2]);
    if (!restarted) {
        deadline = now() + seconds;
        MPI_Bcast(&deadline, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS && rank == 0) {
            printf("SOAK READY\n");
            fflush(stdout);
        }
    }

    if (ignore_mode) {
        ignore_workload((int) (seconds * 220));
    } else {
        in_sync = !restarted;
        int rc = restarted ? resync() : MPI_SUCCESS;
        int done = 0;
        while (!done) {
            if (rc == MPI_SUCCESS)
                rc = iteration(&done);
            if (rc == MPI_SUCCESS) {
                iter++;
                continue;
            }
            recover(rc);
            rc = resync();
            done = 0;
        }
    }

    MPI_Comm_rank(work, &rank);
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    printf("soak-end ospid %d pid0 %d rank %d errors %d: %d iterations, %d recoveries, "
           "generation %d%s on %s\n", (int) getpid(), pid0, rank, errors, iter, recoveries, gen,
           restarted ? " (replacement)" : "", host);
    fflush(stdout);
    MPI_Finalize();
    return errors != 0;
}
