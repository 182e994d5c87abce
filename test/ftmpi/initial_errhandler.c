/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* MPI-4's initial error handler: MPI_COMM_WORLD and MPI_COMM_SELF start with
 * the handler that mpiexec -initial-errhandler (MPIR_CVAR_INITIAL_ERRHANDLER)
 * names, and MPI_INFO_ENV's "mpi_initial_errhandler" says which.
 *
 *   initial_errhandler mpi_errors_are_fatal|mpi_errors_return
 *
 * With mpi_errors_return an erroneous call on either communicator returns
 * its error instead of ending the job. */
#include "ftmpi_test.h"
#include <strings.h>

int main(int argc, char **argv)
{
    int rank, size, flag = 0;
    char value[MPI_MAX_INFO_VAL + 1] = "";

    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: %s mpi_errors_are_fatal|mpi_errors_return\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *want = argv[1];
    MPI_Errhandler expected = !strcasecmp(want, "mpi_errors_return") ? MPI_ERRORS_RETURN :
        MPI_ERRORS_ARE_FATAL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "mpi_initial_errhandler", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcasecmp(value, want) == 0,
          "MPI_INFO_ENV's mpi_initial_errhandler is %s, expected %s", flag ? value : "missing", want);

    MPI_Comm comms[2] = { MPI_COMM_WORLD, MPI_COMM_SELF };
    for (int i = 0; i < 2; i++) {
        MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
        CHECK_MPI(MPI_Comm_get_errhandler(comms[i], &eh));
        CHECK(eh == expected, "%s starts with another error handler than %s",
              i ? "MPI_COMM_SELF" : "MPI_COMM_WORLD", want);
    }

    if (expected == MPI_ERRORS_RETURN) {
        int x = 0;
        int rc = MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
        CHECK(ft_class(rc) == MPI_ERR_RANK, "a send to rank %d returned class %d", size + 5,
              ft_class(rc));
        rc = MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_SELF);
        CHECK(ft_class(rc) == MPI_ERR_RANK, "a send to rank 1 of MPI_COMM_SELF returned class %d",
              ft_class(rc));
    }
    return test_finish();
}
