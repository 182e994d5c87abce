/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A spawn onto a host that cannot be reached fails at once.
 *
 *   spawn_badhost HOST
 *
 * Rank 0 spawns one process with info host=HOST (errors returned); the
 * spawn must fail with MPI_ERR_SPAWN within 2 s, and the job goes on to
 * its end. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    MPI_Comm inter;
    MPI_Info info;
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (rank == 0) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "host", argc > 1 ? argv[1] : "nonexistent.invalid");
        double t0 = ft_now();
        int rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, info, 0, MPI_COMM_SELF, &inter,
                                MPI_ERRCODES_IGNORE);
        double took = ft_now() - t0;
        printf("spawn onto %s: class %d after %.2f s\n", argc > 1 ? argv[1] : "?", ft_class(rc),
               took);
        CHECK(ft_class(rc) == MPI_ERR_SPAWN, "the spawn returned class %d, expected "
              "MPI_ERR_SPAWN (%d)", ft_class(rc), MPI_ERR_SPAWN);
        CHECK(took < 2.0, "the spawn took %.2f s to fail", took);
        MPI_Info_free(&info);
    }
    return test_finish();
}
