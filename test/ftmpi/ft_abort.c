/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ABORT mode (the default): a failure ends the whole job.
 *
 *   ft_abort VICTIMS HOW
 *
 * After a barrier the victims print the time and die; the survivors keep
 * communicating for up to 20 s. The script that runs this (scripts/
 * abort_mode.sh) checks that the job ended within a second of the death,
 * with a nonzero status and a message naming the dead rank. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (ft_in_list(argv[1], rank)) {
        printf("KILLTIME %.6f\n", ft_now());
        ft_die(argv[2]);
    }
    double t0 = ft_now();
    while (ft_now() - t0 < 20)
        MPI_Barrier(MPI_COMM_WORLD);
    printf("SURVIVED rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
