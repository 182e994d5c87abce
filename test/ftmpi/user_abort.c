/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* MPI_Abort ends the whole job, in every mode: rank ABORTER calls it while
 * the others wait in a barrier (or, with "busy", keep communicating). The
 * runner checks the exit status, the message, and that no process of the
 * job is left behind.
 *
 *   user_abort ABORTER wait|busy */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) {
        fprintf(stderr, "usage: %s ABORTER wait|busy\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == atoi(argv[1])) {
        ft_sleep(0.2);
        MPI_Abort(MPI_COMM_WORLD, 7);
    }
    if (strcmp(argv[2], "busy") == 0) {
        double t0 = ft_now();
        int x = 0;
        while (ft_now() - t0 < 30)
            MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf(" rank %d: not aborted\n", rank);
    MPI_Finalize();
    return 0;
}
