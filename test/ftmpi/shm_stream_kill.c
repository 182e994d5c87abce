/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A process dies in the middle of shared-memory traffic. The processes of
 * the node (all of the job) stream messages around a ring, each to the
 * next and from the previous, when the last one dies; the others must
 * learn of it, recover in their mode and stream again over the recovered
 * world with every byte right.
 *
 *   shm_stream_kill SIZE WHEN HOW
 *     SIZE  bytes per message: 4096 goes whole through UCX's queue,
 *           65536 and 1048576 in fragments
 *     WHEN  send    the victim dies as soon as its send of a message has
 *                   started (MPI_Isend and MPI_Irecv posted, not waited for)
 *           random  rank 0 kills it from outside, at a random moment 0.05
 *                   to 0.5 s into the stream (a thread of rank 0 that calls
 *                   no MPI)
 *     HOW   kill (SIGKILL) or exit (_exit)
 *
 * The mode comes from the environment as the library reads it: ULFM
 * (revoke, then MPIX_Comm_shrink), FT-MPI SHRINK or BLANK with MANUAL
 * recovery (MPI_Comm_dup of MPI_COMM_WORLD) or AUTO. A receive that
 * completes, before the failure or after, must hold the sender's bytes. */
#include "ftmpi_test.h"
#include <mpi-ext.h>
#include <pthread.h>
#include <limits.h>
#include <strings.h>

#define STREAM_SECONDS 10       /* the failure must be seen within them */
#define AFTER_ROUNDS 5

static int ulfm_mode, auto_mode, blank_mode;

typedef struct {
    int victim;
    const char *how;
    unsigned seed;
} killer_t;

static void *kill_later(void *arg)
{
    killer_t *k = arg;
    ft_sleep(0.05 + (rand_r(&k->seed) % 451) / 1000.0);
    ft_kill_pid(k->victim, k->how);
    return NULL;
}

/* the receive and the send a failure left pending (MPI_REQUEST_NULL when
 * none): in CONT mode those with live processes stay pending */
static MPI_Request left_over[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };

/* Streams messages with `tag` around the ring of comm until a call fails
 * (returns 1; the requests it left pending are kept in left_over), or
 * `rounds` rounds were made or `seconds` have passed (returns 0); the
 * victim dies in its 20th round when `die` is set. Every receive that
 * completed is checked. */
static int stream(MPI_Comm comm, int tag, size_t n, unsigned char *out, unsigned char *in,
                  int rounds, double seconds, int die, const char *how)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int next = (me + 1) % size, prev = (me + size - 1) % size;
    double start = ft_now();
    test_fill(out, n, me, next);
    for (int round = 0; round < rounds && ft_now() - start < seconds; round++) {
        MPI_Request req[2];
        MPI_Status st[2];
        memset(in, 0, n);
        int rc = MPI_Irecv(in, (int) n, MPI_BYTE, prev, tag, comm, &req[0]);
        if (rc != MPI_SUCCESS)
            return 1;
        rc = MPI_Isend(out, (int) n, MPI_BYTE, next, tag, comm, &req[1]);
        if (rc != MPI_SUCCESS) {
            left_over[0] = req[0];
            return 1;
        }
        if (die && round == 20)
            ft_die(how);
        rc = MPI_Waitall(2, req, st);
        int received = rc == MPI_SUCCESS ||
            (rc == MPI_ERR_IN_STATUS && st[0].MPI_ERROR == MPI_SUCCESS);
        if (received && st[0].MPI_SOURCE != MPI_PROC_NULL) {
            int wrong = test_first_wrong(in, n, prev, me);
            CHECK(wrong < 0, "round %d: byte %d of %zu from rank %d is wrong", round, wrong, n,
                  prev);
        }
        if (rc != MPI_SUCCESS) {
            memcpy(left_over, req, sizeof(req));
            return 1;
        }
    }
    return 0;
}

/* The world (or the communicator ULFM's shrink gives) after the victim's
 * death, in which every call succeeds again. */
static MPI_Comm recover(int size)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    if (ulfm_mode) {
        MPIX_Comm_revoke(MPI_COMM_WORLD);
        CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &comm));
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        return comm;
    }
    int expected = blank_mode ? size : size - 1, world_size = 0, rc;
    double start = ft_now();
    for (;;) {
        rc = MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_size(MPI_COMM_WORLD, &world_size);
        if (rc == MPI_SUCCESS && world_size == expected)
            break;
        if (ft_now() - start > 60) {
            CHECK(0, "a world of %d processes after 60 s, expected %d", world_size, expected);
            break;
        }
        if (rc != MPI_SUCCESS && !auto_mode) {
            MPI_Comm x = FT_MPI_CHECK_RECOVER;
            MPI_Comm_dup(MPI_COMM_WORLD, &x);
        }
    }
    return comm;
}

/* After the recovery, the requests the failure left pending end: they
 * complete, or a receive no one will match is cancelled; a send still
 * pending after a while is freed (its buffer is never reused). */
static void end_left_over(void)
{
    double start = ft_now();
    int done = 0;
    MPI_Status st[2];
    while (!done && ft_now() - start < 2) {
        MPI_Testall(2, left_over, &done, st);
        if (!done)
            usleep(1000);
    }
    if (left_over[0] != MPI_REQUEST_NULL) {
        MPI_Cancel(&left_over[0]);
        MPI_Wait(&left_over[0], MPI_STATUS_IGNORE);
    }
    if (left_over[1] != MPI_REQUEST_NULL)
        MPI_Request_free(&left_over[1]);
}

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 3, "SIZE send|random kill|exit", &rank, &size);
    size_t n = (size_t) atol(argv[1]);
    const char *when = argv[2], *how = argv[3];
    if (n == 0 || n > (1 << 24) || (strcmp(when, "send") && strcmp(when, "random")) || size < 3) {
        fprintf(stderr, "shm_stream_kill: SIZE of 1 B to 16 MiB, send or random, 3 or more "
                "processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ulfm_mode = test_env_is("FTMPI_RECOVERY_MODE", "ulfm");
    auto_mode = test_env_is("FTMPI_RECOVERY_MODE", "auto");
    blank_mode = test_env_is("FTMPI_COMM_MODE", "blank");
    int victim = size - 1;
    unsigned char *out = malloc(n), *in = malloc(n);
    ft_meetings_open(rank, size);

    pthread_t killer;
    killer_t k = {.victim = victim,.how = how,.seed = (unsigned) (ft_now() * 1e6) };
    int random_kill = !strcmp(when, "random") && rank == 0;
    if (random_kill)
        pthread_create(&killer, NULL, kill_later, &k);
    int failed = stream(MPI_COMM_WORLD, 1, n, out, in, INT_MAX, STREAM_SECONDS,
                        rank == victim && !strcmp(when, "send"), how);
    if (rank == victim) {
        /* killed from outside while streaming, or the stream ended */
        ft_die(how);
    }
    if (random_kill)
        pthread_join(killer, NULL);
    CHECK(failed, "no call failed in %d s of streaming after the victim's death",
          STREAM_SECONDS);

    MPI_Comm comm = recover(size);
    end_left_over();
    int me, members;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &members);
    CHECK(me == rank, "rank %d after recovery, expected %d", me, rank);
    CHECK(members == (blank_mode ? size : size - 1), "%d members after recovery", members);
    /* a tag and buffers of its own: the requests freed when the failure
     * came may still be under way (in CONT mode they are kept) */
    unsigned char *out2 = malloc(n), *in2 = malloc(n);
    CHECK(!stream(comm, 2, n, out2, in2, AFTER_ROUNDS, STREAM_SECONDS, 0, how),
          "a call failed while streaming over the recovered world");
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
    return ft_report();
}
