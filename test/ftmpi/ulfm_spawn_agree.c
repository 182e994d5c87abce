/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM's agreement and shrink over communicators that span a spawned
 * world, with no failure: the parents spawn CHILDREN processes, and
 * everyone agrees on the intercommunicator (each group gets the AND of the
 * other group's flags, ULFM's rule), shrinks it, merges it, agrees on the
 * merged communicator (the AND of everyone's flags) and shrinks that;
 * every shrink keeps every member.
 *
 *   ulfm_spawn_agree CHILDREN */
#include "ftmpi_test.h"
#include <mpi-ext.h>

static void agree(MPI_Comm comm, int mine, int want, const char *what)
{
    int flag = mine;
    CHECK_MPI(MPIX_Comm_agree(comm, &flag));
    CHECK(flag == want, "agreement on %s gave %#x to a %s, expected %#x", what, flag,
          mine == 0x5 ? "child" : "parent", want);
}

int main(int argc, char **argv)
{
    MPI_Comm parent, inter, merged, shrunk;
    int rank, size, children, remote, msize;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    children = argc > 1 ? atoi(argv[1]) : 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parent == MPI_COMM_NULL)
        CHECK_MPI(MPI_Comm_spawn(argv[0], &argv[1], children, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                                 &inter, MPI_ERRCODES_IGNORE));
    else
        inter = parent;
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_remote_size(inter, &remote);
    int is_child = parent != MPI_COMM_NULL;

    /* bits: parents clear bit 0, children bit 1, everyone keeps bit 2 */
    agree(inter, is_child ? 0x5 : 0x6, is_child ? 0x6 : 0x5, "the intercommunicator");
    CHECK_MPI(MPIX_Comm_shrink(inter, &shrunk));
    int s_local, s_remote;
    MPI_Comm_size(shrunk, &s_local);
    MPI_Comm_remote_size(shrunk, &s_remote);
    CHECK(s_local == size && s_remote == remote, "the shrunk intercommunicator has %d + %d "
          "members, expected %d + %d", s_local, s_remote, size, remote);
    MPI_Comm_free(&shrunk);

    CHECK_MPI(MPI_Intercomm_merge(inter, is_child, &merged));
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    MPI_Comm_size(merged, &msize);
    agree(merged, is_child ? 0x5 : 0x6, 0x4, "the merged communicator");
    CHECK_MPI(MPIX_Comm_shrink(merged, &shrunk));
    MPI_Comm_size(shrunk, &s_local);
    CHECK(s_local == msize, "the shrunk merged communicator has %d members, expected %d",
          s_local, msize);
    int mrank, srank;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_rank(shrunk, &srank);
    CHECK(mrank == srank, "rank %d in the merged communicator, %d in its shrink", mrank, srank);
    int sum = 0, one = 1;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, shrunk));
    CHECK(sum == msize, "allreduce over the shrunk communicator: %d, expected %d", sum, msize);
    MPI_Comm_free(&shrunk);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);

    /* each world reports on its own */
    if (test_errors == 0)
        printf(" rank %d%s: No Errors\n", rank, is_child ? " (spawned)" : "");
    else
        printf(" rank %d%s: Found %d errors\n", rank, is_child ? " (spawned)" : "", test_errors);
    fflush(stdout);
    MPI_Finalize();
    return test_errors != 0;
}
