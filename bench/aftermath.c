/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: does a job run slower after it survived a failure or
 * a revocation? Under ULFM, processes 0..n-2 time a ring of 8-byte
 * MPI_Sendrecv over a communicator of theirs (ITERS iterations, ROUNDS
 * times, median per iteration) while process n-1 sits outside it; then
 * the event happens and they time the same ring again:
 *   kill    process n-1 is killed (SIGKILL) and every survivor has seen
 *           its failure (a failed receive from it);
 *   revoke  a duplicate of MPI_COMM_WORLD is revoked (and kept);
 *   unmatched  as kill, but what is timed is rank 0's MPI_Ssend to rank 1
 *           while rank 1 sends rank 0, before each, 1000 messages that rank
 *           0 never receives (they wait unmatched: 1000 more per
 *           iteration), the pattern whose queue a survivor's drains of
 *           stale traffic used to walk over and over.
 * Rank 0 prints "before US", "after US" and "ratio R" (microseconds per
 * iteration, medians). While the ring runs, process n-1 waits in a
 * nonblocking barrier that it tests once a millisecond: it takes no core
 * from the ring, also where there are fewer cores than processes.
 *
 *   FTMPI_RECOVERY_MODE=ulfm mpiexec -n N aftermath kill|revoke|unmatched ITERS ROUNDS */
#include "bench_util.h"
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static double ring_us(MPI_Comm ring, int iters, int rounds)
{
    int rank, size;
    MPI_Comm_rank(ring, &rank);
    MPI_Comm_size(ring, &size);
    double *t = malloc(rounds * sizeof(double));
    char out[8] = { 0 }, in[8];
    for (int r = 0; r < rounds; r++) {
        MPI_Barrier(ring);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            MPI_Sendrecv(out, 8, MPI_BYTE, (rank + 1) % size, 1, in, 8, MPI_BYTE,
                         (rank + size - 1) % size, 1, ring, MPI_STATUS_IGNORE);
        double mine = (MPI_Wtime() - t0) / iters * 1e6, slowest;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, ring);
        t[r] = slowest;
    }
    double m = bench_median(t, rounds);
    free(t);
    return m;
}

#define UNMATCHED_PER_ITERATION 1000

static double unmatched_us(MPI_Comm ring, int iters, int rounds)
{
    int rank, x = 0;
    MPI_Comm_rank(ring, &rank);
    double *t = malloc(rounds * sizeof(double)), m = 0;
    for (int r = 0; r < rounds; r++) {
        MPI_Barrier(ring);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Ssend(&x, 1, MPI_INT, 1, 1, ring);
            } else if (rank == 1) {
                for (int k = 0; k < UNMATCHED_PER_ITERATION; k++)
                    MPI_Send(&x, 1, MPI_INT, 0, 77, ring);
                MPI_Recv(&x, 1, MPI_INT, 0, 1, ring, MPI_STATUS_IGNORE);
            }
        }
        t[r] = (MPI_Wtime() - t0) / iters * 1e6;
    }
    m = bench_median(t, rounds);
    free(t);
    return m;
}

/* a barrier over MPI_COMM_WORLD in which the outsider sleeps */
static int world_barrier(int outsider)
{
    MPI_Request req;
    int rc = MPI_Ibarrier(MPI_COMM_WORLD, &req), done = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    if (!outsider)
        return MPI_Wait(&req, MPI_STATUS_IGNORE);
    while (!done && (rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS)
        if (!done)
            usleep(1000);
    return rc;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (argc < 4 || size < 3 ||
        (strcmp(argv[1], "kill") && strcmp(argv[1], "revoke") && strcmp(argv[1], "unmatched"))) {
        if (rank == 0)
            fprintf(stderr, "usage: aftermath kill|revoke|unmatched ITERS ROUNDS (3 processes "
                    "or more)\n");
        MPI_Finalize();
        return 2;
    }
    int unmatched = strcmp(argv[1], "unmatched") == 0;
    int kill_it = unmatched || strcmp(argv[1], "kill") == 0;
    int iters = atoi(argv[2]), rounds = atoi(argv[3]);
    double (*timed) (MPI_Comm, int, int) = unmatched ? unmatched_us : ring_us;
    int outsider = size - 1;
    MPI_Comm ring, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank == outsider ? MPI_UNDEFINED : 0, rank, &ring);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);

    double before = 0, after = 0;
    if (rank != outsider)
        before = timed(ring, iters, rounds);
    world_barrier(rank == outsider);

    if (kill_it) {
        if (rank == outsider)
            raise(SIGKILL);
        int x;
        /* every survivor has learned of the failure */
        while (MPI_Recv(&x, 1, MPI_INT, outsider, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
               MPI_SUCCESS);
    } else {
        if (rank == 0)
            MPIX_Comm_revoke(dup);
        int flag = 0;
        /* every process has heard of the revocation */
        while (MPI_Barrier(dup) == MPI_SUCCESS);
        MPIX_Comm_is_revoked(dup, &flag);
        if (!flag)
            fprintf(stderr, "aftermath: rank %d: dup is not revoked\n", rank);
    }

    if (rank != outsider) {
        after = timed(ring, iters, rounds);
        if (rank == 0)
            printf("before %.3f\nafter %.3f\nratio %.3f\n", before, after, after / before);
        MPI_Comm_free(&ring);
    }
    if (!kill_it)
        world_barrier(rank == outsider);
    MPI_Finalize();
    return 0;
}
