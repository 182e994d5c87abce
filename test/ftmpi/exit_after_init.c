/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Processes leave with exit(EXIT_FAILURE), as MPICH's test/mpi/ft die and
 * multi_isendalive do (argv: the rank that exits right after its
 * MPI_Init; optionally one that exits once it received a message from
 * rank 0, after the first is gone). The first passed every barrier of
 * MPI_Init, so the others must go on and finish, whatever the order in
 * which the launcher learns of its exit and of their own MPI_Init; the
 * second is often the last process to end. scripts/exit_after_init.sh
 * runs it many times. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank, late = -1, token = 7;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        fprintf(stderr, "usage: exit_after_init RANK [LATE-RANK]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (argc > 2)
        late = atoi(argv[2]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == atoi(argv[1]))
        exit(EXIT_FAILURE);
    if (late >= 0 && rank == 0)
        CHECK_MPI(MPI_Ssend(&token, 1, MPI_INT, late, 0, MPI_COMM_WORLD));
    if (rank == late) {
        CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        exit(EXIT_FAILURE);
    }
    return ft_report();
}
