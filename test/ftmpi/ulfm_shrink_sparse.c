/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM: after a shrink, a sparse all-to-all over the shrunk communicator
 * never sees a failure, although the death that led to it may still be
 * reported late (as a replication library's single-failure test does).
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_shrink_sparse VICTIM exit|kill [ROUNDS]
 *
 * The victim dies after a barrier; the lowest survivor finds it dead and
 * revokes; every survivor shrinks and frees the old communicator, then runs ROUNDS
 * (default 20) rounds of a sparse all-to-all on the shrunk one: MPI_Issend
 * to the next two ranks, MPI_Iprobe(MPI_ANY_SOURCE) and MPI_Recv of what
 * comes, MPI_Testall of the sends, then MPI_Ibarrier completed with
 * MPI_Test. Every call on the shrunk communicator must succeed. */
#include "ftmpi_test.h"
#include <mpi-ext.h>

static void sparse_round(MPI_Comm comm, int round)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int nsend = size > 2 ? 2 : size - 1, out[2], expected = nsend, got = 0;
    MPI_Request sends[2], barrier;
    MPI_Status send_status[2];
    for (int i = 0; i < nsend; i++) {
        out[i] = round * 1000 + rank;
        CHECK_MPI(MPI_Issend(&out[i], 1, MPI_INT, (rank + 1 + i) % size, round, comm, &sends[i]));
    }
    int sends_done = 0;
    while (got < expected || !sends_done) {
        int flag = 0, in;
        MPI_Status st;
        if (got < expected) {
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, round, comm, &flag, &st));
            if (flag) {
                CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, st.MPI_SOURCE, round, comm,
                                   MPI_STATUS_IGNORE));
                CHECK(in == round * 1000 + st.MPI_SOURCE, "round %d: %d from %d", round, in,
                      st.MPI_SOURCE);
                got++;
            }
        }
        if (!sends_done) {
            int rc = MPI_Testall(nsend, sends, &sends_done, send_status);
            CHECK(rc == MPI_SUCCESS, "round %d: MPI_Testall of the sends: class %d", round,
                  ft_class(rc));
            if (rc != MPI_SUCCESS)
                return;
        }
        if (test_errors)
            return;
    }
    CHECK_MPI(MPI_Ibarrier(comm, &barrier));
    int done = 0, rc = MPI_SUCCESS;
    while (!done && rc == MPI_SUCCESS)
        rc = MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "round %d: MPI_Test of the MPI_Ibarrier: class %d", round,
          ft_class(rc));
}

int main(int argc, char **argv)
{
    int rank, size, rc = MPI_SUCCESS;
    MPI_Comm comm, shrunk;
    ft_init(&argc, &argv, 2, "VICTIM exit|kill [ROUNDS]", &rank, &size);
    int victim = atoi(argv[1]), rounds = argc > 3 ? atoi(argv[3]) : 20;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    /* the lowest survivor waits for a word from the victim, which dies
     * instead; it revokes, and the others, waiting for a word from it,
     * learn of the trouble from the revocation */
    int lowest = victim == 0 ? 1 : 0, x;
    MPI_Barrier(comm);
    if (rank == victim)
        ft_die(argv[2]);
    if (rank == lowest) {
        rc = MPI_Recv(&x, 1, MPI_INT, victim, 5, comm, MPI_STATUS_IGNORE);
        CHECK(ft_class(rc) == MPIX_ERR_PROC_FAILED, "the receive from the victim: class %d",
              ft_class(rc));
        MPIX_Comm_revoke(comm);
    } else {
        rc = MPI_Recv(&x, 1, MPI_INT, lowest, 5, comm, MPI_STATUS_IGNORE);
        CHECK(ft_class(rc) == MPIX_ERR_REVOKED || ft_class(rc) == MPIX_ERR_PROC_FAILED,
              "the wait for the lowest survivor: class %d", ft_class(rc));
    }
    CHECK_MPI(MPIX_Comm_shrink(comm, &shrunk));
    MPI_Comm_free(&comm);
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    for (int r = 0; r < rounds && test_errors == 0; r++)
        sparse_round(shrunk, r);
    MPI_Comm_free(&shrunk);
    return ft_report();
}
