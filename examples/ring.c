/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH demo: a token travels around a ring of processes.
 *
 *   mpiexec -n 4 ./ring [laps]
 *
 * Each lap, every rank adds (rank + 1) * lap to the token it receives from
 * its left neighbour before passing it right. Rank 0 checks the final value
 * against the closed form and reports it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long laps = argc > 1 ? atol(argv[1]) : 1000;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    long token = 0;

    double t0 = MPI_Wtime();
    for (long lap = 1; lap <= laps; lap++) {
        if (rank != 0)
            MPI_Recv(&token, 1, MPI_LONG, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token += (rank + 1) * lap;
        MPI_Send(&token, 1, MPI_LONG, right, 0, MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Recv(&token, 1, MPI_LONG, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double t = MPI_Wtime() - t0;

    if (rank == 0) {
        long expect = (long) size * (size + 1) / 2 * (laps * (laps + 1) / 2);
        printf("ring of %d processes, %ld laps in %.3f s (%.2f us per hop)\n", size, laps, t,
               t / (laps * size) * 1e6);
        printf("token = %ld, expected %ld: %s\n", token, expect,
               token == expect ? "correct" : "WRONG");
        fflush(stdout);
        MPI_Finalize();
        return token == expect ? 0 : 1;
    }
    MPI_Finalize();
    return 0;
}
