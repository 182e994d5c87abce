/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* What a process sent before it died is delivered, even when the news of
 * its death comes first (the launcher's SIGUSR1, the node watch).
 *
 *   ft_last_words kill|exit
 *
 * In ULFM or IGNORE mode. Rank 0 posts a receive from every other rank;
 * each sends it one last message and dies at once. Rank 0 makes no MPI
 * call until they are all dead and its node knows it, so their messages
 * and the news of their deaths wait for it together, and the news is read
 * first (ch4's progress checks the launcher's notice before it polls the
 * network). Every receive must still complete with its message (a
 * synchronous send's acknowledgement, exit_after_init's case, takes the
 * same path), and only a later send to a victim fails. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank, size, rc;
    ft_init(&argc, &argv, 1, "kill|exit", &rank, &size);
    CHECK(size >= 2, "needs at least 2 processes");

    int *last = calloc(size, sizeof(int));
    MPI_Request *reqs = calloc(size, sizeof(MPI_Request));
    if (rank == 0)
        for (int victim = 1; victim < size; victim++)
            CHECK_MPI(MPI_Irecv(&last[victim], 1, MPI_INT, victim, 1, MPI_COMM_WORLD,
                                &reqs[victim]));

    /* connections are made first: UCX makes them when they are first
     * used, which needs progress at both ends */
    int hello = 0;
    for (int peer = 1; peer < size; peer++) {
        if (rank == 0)
            CHECK_MPI(MPI_Sendrecv_replace(&hello, 1, MPI_INT, peer, 0, peer, 0, MPI_COMM_WORLD,
                                           MPI_STATUS_IGNORE));
        else if (rank == peer)
            CHECK_MPI(MPI_Sendrecv_replace(&hello, 1, MPI_INT, 0, 0, 0, 0, MPI_COMM_WORLD,
                                           MPI_STATUS_IGNORE));
    }

    if (rank != 0) {
        last[rank] = 1000 + rank;
        CHECK_MPI(MPI_Send(&last[rank], 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        ft_die(argv[1]);
    }

    /* a killed process takes milliseconds to end; the watch and the
     * launcher see it within a few more */
    ft_sleep(0.5);
    for (int victim = 1; victim < size; victim++) {
        rc = MPI_Wait(&reqs[victim], MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS && last[victim] == 1000 + victim,
              "last message of rank %d: rc %d, value %d", victim, rc, last[victim]);
    }
    for (int victim = 1; victim < size; victim++) {
        double t0 = ft_now();
        do {
            rc = MPI_Send(&hello, 1, MPI_INT, victim, 2, MPI_COMM_WORLD);
        } while (rc == MPI_SUCCESS && ft_now() - t0 < 10);
        CHECK(rc != MPI_SUCCESS, "sends to dead rank %d succeed for 10 s", victim);
    }
    free(last);
    free(reqs);
    return ft_report();
}
