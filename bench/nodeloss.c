/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: how long the survivors take to learn of a lost node.
 *
 *   FTMPI_RECOVERY_MODE=ulfm mpiexec -hosts ... -ppn P -n N ./nodeloss EXPECT
 *
 * Run on simulated nodes (bench/run-nodeloss.sh). After a barrier every
 * process prints "READY"; the driver then kills, freezes or cuts off one
 * node and notes the time. Each process not on that node polls
 * MPIX_Comm_get_failed on MPI_COMM_WORLD (making progress) and prints when
 * it first learned of a failure and when it knew of EXPECT of them:
 *   LEARNED <rank> <first> <all>
 * (CLOCK_REALTIME: the simulated nodes share the machine's clock). It
 * gives up after 60 s ("LEARNED <rank> - -"). The lost node's processes
 * print nothing more. */
#include <mpi.h>
#include <mpi-ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int rank, flag, expect = argc > 1 ? atoi(argv[1]) : 1;
    double first = 0, start;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("READY\n");
        fflush(stdout);
    }
    start = now();
    for (;;) {
        MPI_Group failed;
        int n = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
        if (MPIX_Comm_get_failed(MPI_COMM_WORLD, &failed) == MPI_SUCCESS) {
            MPI_Group_size(failed, &n);
            MPI_Group_free(&failed);
        }
        double t = now();
        if (n > 0 && first == 0)
            first = t;
        if (n >= expect) {
            printf("LEARNED %d %.6f %.6f\n", rank, first, t);
            break;
        }
        if (t - start > 60) {
            printf("LEARNED %d - -\n", rank);
            break;
        }
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
