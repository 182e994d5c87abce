/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A process that dies right after its MPI_Finalize (argv: its rank, and
 * how: "kill" SIGKILLs itself at once, "late" 50 ms later, when the others
 * may have ended; "exit" leaves with _exit(3), the program's own status).
 * Every process first checks an allreduce and reports. A death by a signal
 * after MPI_Finalize is one the job outlived: mpiexec exits 0 and prints
 * no termination banner, whichever of the process's PMI finalize and its
 * end its proxy saw first; an exit status the program chose still counts. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank, size, one = 1, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        fprintf(stderr, "usage: death_after_finalize RANK kill|late|exit\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size, "allreduce gave %d, not %d", sum, size);
    int victim = rank == atoi(argv[1]), errors = ft_report();
    if (victim) {
        if (strcmp(argv[2], "late") == 0)
            usleep(50000);
        ft_die(strcmp(argv[2], "exit") == 0 ? "exit" : "kill");
    }
    return errors;
}
