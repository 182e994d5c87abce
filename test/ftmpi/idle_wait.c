/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH test program: every rank but 0 waits in a barrier while rank 0
 * sleeps a second, so that they poll an idle network for a while
 * (yield_when_shared.sh counts whether they yield their cores meanwhile).
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        usleep(1000 * 1000);
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Barrier returned %d\n", rank, rc);
        return 1;
    }
    return 0;
}
