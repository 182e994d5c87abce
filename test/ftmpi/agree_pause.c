/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM agreements, one after the other, while the test script holds one
 * process stopped for longer than a protocol wait's first trace (10 s):
 * the others wait in MPIX_Comm_agree for it, and go on once it runs
 * again. Rank 0 prints "READY" once every process is in the loop; the
 * loop ends when the processes agree that SECONDS have passed.
 *
 *   FTMPI_RECOVERY_MODE=ulfm agree_pause SECONDS */
#include "ftmpi_test.h"
#include <mpi-ext.h>

int main(int argc, char **argv)
{
    int rank, size, rounds = 0;
    double seconds = argc > 1 ? atof(argv[1]) : 15;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double start = MPI_Wtime();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("READY\n");
        fflush(stdout);
    }
    for (int more = 1; more; rounds++) {
        more = MPI_Wtime() - start < seconds;
        CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &more));
    }
    CHECK(rounds > 1, "only %d agreement(s)", rounds);
    return ft_report();
}
