/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A job that keeps every core busy: in each round one rank (in turn)
 * computes for 20 ms while the others wait for it in MPI_Allreduce, which
 * polls. It runs until rank 0 has run SECONDS seconds; every round's sum
 * is checked, and any error (a process declared failed ends the
 * allreduces) is reported by the survivors (" rank R: No Errors").
 *
 *   busy_wait SECONDS */
#include "ftmpi_test.h"

static void compute(double seconds)
{
    double until = ft_now() + seconds;
    volatile double x = 1;
    while (ft_now() < until)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
}

int main(int argc, char **argv)
{
    int rank, size, round = 0;
    ft_init(&argc, &argv, 1, "SECONDS", &rank, &size);
    double end = ft_now() + atof(argv[1]);

    for (;; round++) {
        if (rank == round % size)
            compute(0.02);
        int mine[2] = { 1, rank == 0 && ft_now() >= end }, sum[2] = { 0, 0 };
        int rc = MPI_Allreduce(mine, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "round %d: allreduce returned %d", round, rc);
        if (rc != MPI_SUCCESS)
            break;
        CHECK(sum[0] == size, "round %d: sum %d of %d processes", round, sum[0], size);
        if (sum[1] > 0)
            break;
    }
    return ft_report();
}
