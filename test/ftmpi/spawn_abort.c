/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* MPI_Abort in a spawned world ends the whole job, with its code.
 *
 *   spawn_abort CODE
 *
 * The parents spawn one child, which calls MPI_Abort(MPI_COMM_WORLD, CODE)
 * right after MPI_Init; every parent waits in MPI_Recv from it (errors
 * returned). mpiexec must exit with CODE and nothing of the job may run
 * on; a parent that comes back from its receive says so. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int rank, code = argc > 1 ? atoi(argv[1]) : 3;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        MPI_Abort(MPI_COMM_WORLD, code);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_MPI(MPI_Comm_spawn(argv[0], &argv[1], 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             MPI_ERRCODES_IGNORE));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int x;
    int rc = MPI_Recv(&x, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
    printf("SURVIVED: rank %d came back from its receive (rc %d) after the child's abort\n",
           rank, rc);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
