/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Open MPI 5's ULFM class names come with <mpi.h> alone: code that
 * includes nothing else (a resilience library, a PMPI library) compiles,
 * and the names are the MPIX_ classes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    errors += MPI_ERR_PROC_FAILED != MPIX_ERR_PROC_FAILED;
    errors += MPI_ERR_PROC_FAILED_PENDING != MPIX_ERR_PROC_FAILED_PENDING;
    errors += MPI_ERR_REVOKED != MPIX_ERR_REVOKED;
    switch (MPIX_ERR_REVOKED) {
        case MPI_ERR_PROC_FAILED:
        case MPI_ERR_PROC_FAILED_PENDING:
            errors++;
            break;
        case MPI_ERR_REVOKED:
            break;
    }
    if (errors)
        printf(" rank %d: Found %d errors\n", rank, errors);
    else if (rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errors != 0;
}
