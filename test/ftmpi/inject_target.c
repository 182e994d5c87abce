/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A program that knows nothing of the failures the launcher injects
 * (mpiexec -inject-failure): for SECONDS seconds it adds up numbers with
 * MPI_Allreduce every 10 ms, recovering the FT-MPI way after a failure
 * (MANUAL: MPI_Comm_dup; a REBUILD replacement joins from MPI_Init), and
 * checks each sum. The processes stop together once one of those started
 * with the job has run SECONDS seconds. Each survivor reports
 * " rank R: No Errors". With FTMPI_TEST_IGNORE_SIGTERM set, it ignores
 * SIGTERM (a program its launcher must kill).
 *
 *   inject_target SECONDS */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank, size, recoveries = 0;
    if (getenv("FTMPI_TEST_IGNORE_SIGTERM"))
        signal(SIGTERM, SIG_IGN);
    int rc = MPI_Init(&argc, &argv);
    double end;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        fprintf(stderr, "usage: inject_target SECONDS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* a replacement goes on until the others stop */
    end = rc == MPI_INIT_RESTARTED_NODE ? 1e300 : ft_now() + atof(argv[1]);
    for (;;) {
        int one = 1, sum[2], live = 0, *live_flags, mine[2] = { 1, ft_now() >= end };
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        /* a blank of a BLANK world leaves its entry as it was */
        live_flags = calloc(size, sizeof(int));
        rc = MPI_Allgather(&one, 1, MPI_INT, live_flags, 1, MPI_INT, MPI_COMM_WORLD);
        for (int k = 0; k < size; k++)
            live += live_flags[k];
        free(live_flags);
        if (rc == MPI_SUCCESS)
            rc = MPI_Allreduce(mine, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) {
            MPI_Comm world;
            recoveries++;
            CHECK(recoveries < 10, "more than 10 recoveries");
            if (recoveries >= 10)
                break;
            MPI_Comm_dup(MPI_COMM_WORLD, &world);
            continue;
        }
        CHECK(sum[0] == live, "sum %d of %d live processes", sum[0], live);
        if (sum[1] > 0)
            break;
        usleep(10000);
    }
    return ft_report();
}
