/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A send to a rank that does not exist, under the default error handler:
 * MPICH must report the usual "Invalid rank" error and end the job with a
 * nonzero status (the runner checks both). */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int size, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Send(&v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    printf(" No Errors\n");  /* unreachable: the send must abort */
    MPI_Finalize();
    return 0;
}
