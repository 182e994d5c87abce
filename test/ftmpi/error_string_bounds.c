/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* MPI_Error_string stays inside the caller's MPI_MAX_ERROR_STRING bytes,
 * whatever error it is given.
 *
 *   error_string_bounds WHAT VICTIMS [HOW]
 *     WHAT     colls:   the victims die while the survivors are inside a
 *                       collective; then every collective and
 *                       communicator call fails until the recovery
 *              nested:  the victims die one after the other while the
 *                       survivors create communicators (collectives inside
 *                       collectives) and redo what failed
 *              waitall: ULFM: a survivor revokes while the others wait in
 *                       MPI_Waitall for the victims and each other
 *              wrapped: no failure; error codes whose ring entries were
 *                       overwritten by later errors
 *              local:   no failure; argument errors only (run with a small
 *                       MPIR_CVAR_CHOP_ERROR_STACK to make long stacks)
 *     VICTIMS  ranks that die, e.g. "2" or "0+3", or "none"
 *     HOW      kill (SIGKILL, the default) or exit (_exit)
 *
 * Every error code met on the way (and every code again at the end, after
 * later errors have pushed older ones out of MPICH's error ring) is turned
 * into text in a buffer of exactly MPI_MAX_ERROR_STRING bytes followed by
 * guard bytes: the guards must be intact, the text NUL-terminated and
 * resultlen its length. With ":expect-cut" in WHAT (e.g. local:expect-cut)
 * at least one text must have had lines left out. */
#include "ftmpi_test.h"
#include <mpi-ext.h>

#define GUARD_BYTES (64 * 1024)
#define GUARD 0x5a
#define MAX_CODES 4096

static int codes[MAX_CODES], ncodes;
static int texts_checked, texts_cut, longest;
static unsigned char *area;     /* MPI_MAX_ERROR_STRING bytes, then the guards */

static void check_text(int code, const char *what)
{
    int len = -1, rc;

    memset(area, GUARD, MPI_MAX_ERROR_STRING + GUARD_BYTES);
    rc = MPI_Error_string(code, (char *) area, &len);
    texts_checked++;
    CHECK(rc == MPI_SUCCESS, "%s: MPI_Error_string returned %d", what, rc);
    for (int i = GUARD_BYTES - 1; i >= 0; i--) {
        if (area[MPI_MAX_ERROR_STRING + i] != GUARD) {
            CHECK(0, "%s: MPI_Error_string of code %#x wrote %d bytes past its "
                  "MPI_MAX_ERROR_STRING bytes", what, code, i + 1);
            break;
        }
    }
    void *nul = memchr(area, 0, MPI_MAX_ERROR_STRING);
    CHECK(nul != NULL, "%s: the text of code %#x has no NUL in its buffer", what, code);
    if (!nul)
        return;
    CHECK(len == (int) strlen((char *) area), "%s: resultlen %d, text length %d", what, len,
          (int) strlen((char *) area));
    if (strstr((char *) area, "of the error stack left out"))
        texts_cut++;
    if (len > longest)
        longest = len;
}

/* checks the text of a failed call's code now, and keeps the code for the
 * check at the end */
static void met(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    check_text(rc, what);
    if (ncodes < MAX_CODES)
        codes[ncodes++] = rc;
}

/* every collective and communicator call of an FT-MPI mode over a
 * communicator that has lost a member, at sizes that take different
 * algorithms */
static void collectives(MPI_Comm comm, int rank, int size)
{
    static long long a[8192 * 8], b[8192 * 8];
    MPI_Comm c;
    for (int n = 1; n <= 8192; n *= 64) {
        met(MPI_Allreduce(a, b, n, MPI_LONG_LONG, MPI_SUM, comm), "allreduce");
        met(MPI_Bcast(a, n, MPI_LONG_LONG, 0, comm), "bcast");
        met(MPI_Alltoall(a, n / size + 1, MPI_LONG_LONG, b, n / size + 1, MPI_LONG_LONG, comm),
            "alltoall");
        met(MPI_Allgather(a, n / size + 1, MPI_LONG_LONG, b, n / size + 1, MPI_LONG_LONG, comm),
            "allgather");
        met(MPI_Reduce(a, b, n, MPI_LONG_LONG, MPI_MAX, size - 1, comm), "reduce");
    }
    met(MPI_Barrier(comm), "barrier");
    /* (IGNORE mode goes on with the live: a live partner would wait for a
     * process whose own receive from the dead failed) */
    int *recovery, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_RECOVERY_MODE, &recovery, &flag);
    if (!flag || *recovery != FTMPI_RECOVERY_MODE_IGNORE)
        met(MPI_Sendrecv(a, 1, MPI_LONG_LONG, (rank + 1) % size, 0, b, 1, MPI_LONG_LONG,
                         (rank + size - 1) % size, 0, comm, MPI_STATUS_IGNORE), "sendrecv");
    if (MPI_Comm_split(comm, rank % 2, rank, &c) == MPI_SUCCESS)
        MPI_Comm_free(&c);
    else
        met(MPI_Comm_split(comm, rank % 2, rank, &c), "comm_split");
}

static void recover(void)
{
    MPI_Comm world = MPI_COMM_WORLD;
    met(MPI_Comm_dup(MPI_COMM_WORLD, &world), "recovery");
    int *code, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_ERROR_FAILURE, &code, &flag);
    if (flag)
        check_text(*code, "FTMPI_ERROR_FAILURE");
}

/* survivors meet the failure inside collectives, then in everything */
static void run_colls(int rank, int size, const char *victims, const char *how)
{
    long long one = 1, sum;
    ft_meetings_open(rank, size);
    if (ft_in_list(victims, rank))
        ft_die_together(0, rank, victims, size, 0.05, how);
    ft_arrive(0);
    for (int i = 0; i < 200; i++) {
        int rc = MPI_Allreduce(&one, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        met(rc, "allreduce in flight");
        if (rc != MPI_SUCCESS)
            break;
    }
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    collectives(MPI_COMM_WORLD, rank, size);
    recover();
}

/* victims die one after the other while communicators are made */
static void run_nested(int rank, int size, const char *victims, const char *how)
{
    int pid = rank, deaths = 0, size0 = size;
    ft_meetings_open(rank, size);
    for (int round = 0; round < size && deaths < 3; round++) {
        MPI_Comm c1, c2;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        /* the round's victim: the first listed process still alive */
        int victim = -1;
        for (int p = 0, seen = 0; p < FT_MAX_PROCS && victim < 0; p++)
            if (ft_in_list(victims, p) && seen++ == deaths)
                victim = p;
        if (victim == pid) {
            char me[16];
            snprintf(me, sizeof(me), "%d", pid);
            ft_die_together(round + 1, pid, me, size0 - deaths, 0.02, how);
        }
        ft_arrive(round + 1);
        int rc = MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &c1);
        met(rc, "comm_split");
        if (rc == MPI_SUCCESS) {
            rc = MPI_Comm_dup(c1, &c2);
            met(rc, "comm_dup of a split");
            if (rc == MPI_SUCCESS) {
                met(MPI_Comm_create_group(c2, MPI_GROUP_EMPTY, 7, &c1), "create_group");
                MPI_Comm_free(&c2);
            }
        }
        if (victim >= 0) {
            deaths++;
            collectives(MPI_COMM_WORLD, rank, size);
            recover();
        }
    }
}

/* ULFM: the first survivor revokes once the victims are dead, while the
 * others wait in MPI_Waitall for receives that only the revocation ends */
static void run_waitall(int rank, int size, const char *victims, const char *how)
{
    MPI_Comm comm;
    MPI_Request req[3];
    MPI_Status st[3];
    int in[3], out = rank, revoker = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    ft_meetings_open(rank, size);
    while (ft_in_list(victims, revoker))
        revoker++;
    if (ft_in_list(victims, rank))
        ft_die_together(0, rank, victims, size, 0.05, how);
    MPI_Irecv(&in[0], 1, MPI_INT, (rank + size - 1) % size, 0, comm, &req[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, MPI_ANY_SOURCE, 1, comm, &req[1]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 0, comm, &req[2]);
    ft_arrive(0);
    if (rank == revoker) {
        ft_wait_for(&ft_shared->killed[0], 1, "waiting for the victims to die");
        ft_sleep(0.1);
        met(MPIX_Comm_revoke(comm), "revoke");
    }
    int rc = MPI_Waitall(3, req, st);
    met(rc, "waitall");
    CHECK(rc != MPI_SUCCESS, "MPI_Waitall succeeded on a revoked communicator");
    if (rc == MPI_ERR_IN_STATUS)
        for (int i = 0; i < 3; i++)
            met(st[i].MPI_ERROR == MPI_ERR_PENDING ? MPI_SUCCESS : st[i].MPI_ERROR,
                "waitall status");
    met(MPI_Barrier(comm), "barrier on revoked");
    met(MPI_Allreduce(&out, &in[0], 1, MPI_INT, MPI_SUM, comm), "allreduce on revoked");
    for (int i = 0; i < 3; i++)
        if (req[i] != MPI_REQUEST_NULL)
            MPI_Request_free(&req[i]);
    MPI_Comm shrunk;
    if (MPIX_Comm_shrink(comm, &shrunk) == MPI_SUCCESS)
        MPI_Comm_free(&shrunk);
    MPI_Comm_free(&comm);
}

/* argument errors, enough to go round MPICH's error ring several times;
 * a file name that does not exist makes a long stack line (ROMIO names it) */
static void run_local(int rank, int size, int errors)
{
    int x[2] = { 0, 0 };
    char path[240];
    MPI_File fh;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    memset(path, 'p', sizeof(path) - 1);
    path[sizeof(path) - 1] = 0;
    memcpy(path, "/nonexistent/", strlen("/nonexistent/"));
    for (int i = 0; i < errors; i++) {
        met(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
            "open of a file that does not exist");
        met(MPI_Send(x, 1, MPI_INT, size + i, 0, MPI_COMM_WORLD), "send to a bad rank");
        met(MPI_Recv(x, -1 - i, MPI_INT, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE),
            "receive of a negative count");
        met(MPI_Bcast(x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), "bcast of a null type");
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 2, "colls|nested|waitall|wrapped|local[:expect-cut] VICTIMS [kill|exit]",
            &rank, &size);
    const char *what = argv[1], *victims = argv[2], *how = argc > 3 ? argv[3] : "kill";
    area = malloc(MPI_MAX_ERROR_STRING + GUARD_BYTES);

    if (!strncmp(what, "colls", 5))
        run_colls(rank, size, victims, how);
    else if (!strncmp(what, "nested", 6))
        run_nested(rank, size, victims, how);
    else if (!strncmp(what, "waitall", 7))
        run_waitall(rank, size, victims, how);
    else if (!strncmp(what, "wrapped", 7))
        run_local(rank, size, 200);
    else if (!strncmp(what, "local", 5))
        run_local(rank, size, 3);
    else
        CHECK(0, "unknown WHAT %s", what);

    /* again, once later errors have taken the ring entries of the early ones */
    run_local(rank, size, 100);
    for (int i = 0; i < ncodes; i++)
        check_text(codes[i], "a code kept since");

    CHECK(texts_checked > 0, "no error text was checked");
    if (strstr(what, "expect-cut"))
        CHECK(texts_cut > 0, "no text had to leave lines out (longest %d)", longest);
    printf("rank %d: %d error texts checked, longest %d bytes, %d cut\n", rank, texts_checked,
           longest, texts_cut);
    free(area);
    if (!strcmp(victims, "none"))
        return test_finish();
    return ft_report();
}
