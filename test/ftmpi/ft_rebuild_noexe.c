/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* REBUILD when the launcher cannot start a replacement (a pathological
 * failure in the FT-MPI specification's terms): the executable is gone
 * when rank 2 dies, so the replacement cannot start. The job must end with
 * a message and a nonzero exit status, not hang (the runner's timeout). */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank, rc;
    char exe[4096];
    rc = MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc == MPI_INIT_RESTARTED_NODE) {
        printf("a replacement started from a deleted executable\n");
        return 1;
    }
    if (rank == 1) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n > 0) {
            exe[n] = 0;
            unlink(exe);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2)
        ft_die("kill");
    rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        MPI_Comm x;
        MPI_Comm_dup(MPI_COMM_WORLD, &x);
    }
    printf(" rank %d: recovered without a replacement\n", rank);
    MPI_Finalize();
    return 0;
}
