/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM, one failure at a known point.
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_basic VICTIMS kill|exit
 *
 * The victims die after a barrier. The survivors check that: failures are
 * returned as the bare class (rc == MPIX_ERR_PROC_FAILED) by operations
 * with a dead process and by collectives over MPI_COMM_WORLD; messages
 * between survivors keep flowing; MPIX_Comm_get_failed names exactly the
 * victims; a nonblocking wildcard receive reports
 * MPIX_ERR_PROC_FAILED_PENDING until the failures are acknowledged
 * (MPIX_Comm_ack_failed) and then completes; MPIX_Comm_failure_get_acked
 * agrees; MPIX_FT is set; and that after MPIX_Comm_revoke, operations on
 * MPI_COMM_WORLD fail with MPIX_ERR_REVOKED everywhere while
 * MPIX_Comm_shrink gives every survivor the same communicator of the
 * survivors, over which collectives, MPIX_Comm_agree and MPIX_Comm_iagree
 * work. */
#include "ftmpi_test.h"
#include <mpi-ext.h>

int main(int argc, char **argv)
{
    int rank, size, rc;
    ft_init(&argc, &argv, 2, "VICTIMS kill|exit", &rank, &size);
    const char *victims = argv[1], *how = argv[2];
    int nvictims = 0, first_victim = -1, first_survivor = -1, last_survivor = -1;
    for (int r = 0; r < size; r++) {
        if (ft_in_list(victims, r)) {
            nvictims++;
            if (first_victim < 0)
                first_victim = r;
        } else {
            if (first_survivor < 0)
                first_survivor = r;
            last_survivor = r;
        }
    }

    int *ft_flag, found;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_FT, &ft_flag, &found);
    CHECK(found && *ft_flag, "MPIX_FT attribute %s", found ? "false" : "missing");

    ft_meetings_open(rank, size);
    if (ft_in_list(victims, rank))
        ft_die_together(0, rank, victims, size, 0.05, how);

    /* a send to a dead process fails once its failure is known */
    char buf[64] = { 0 };
    ft_arrive(0);
    double t0 = ft_now();
    do {
        rc = MPI_Send(buf, sizeof(buf), MPI_CHAR, first_victim, 0, MPI_COMM_WORLD);
    } while (rc == MPI_SUCCESS && ft_now() - t0 < 10);
    CHECK(rc == MPIX_ERR_PROC_FAILED, "send to the dead: rc %d, expected MPIX_ERR_PROC_FAILED (%d)",
          rc, MPIX_ERR_PROC_FAILED);
    rc = MPI_Recv(buf, 1, MPI_CHAR, first_victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(rc == MPIX_ERR_PROC_FAILED, "receive from the dead: rc %d", rc);

    /* learn of every victim */
    MPI_Group failed;
    int nfailed = 0;
    t0 = ft_now();
    do {
        int f;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_SELF, &f, MPI_STATUS_IGNORE);
        CHECK_MPI(MPIX_Comm_get_failed(MPI_COMM_WORLD, &failed));
        MPI_Group_size(failed, &nfailed);
        if (nfailed < nvictims)
            MPI_Group_free(&failed);
    } while (nfailed < nvictims && ft_now() - t0 < 10);
    CHECK(nfailed == nvictims, "MPIX_Comm_get_failed: %d processes, expected %d", nfailed,
          nvictims);
    if (nfailed == nvictims) {
        MPI_Group world;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        for (int i = 0; i < nfailed; i++) {
            int r;
            MPI_Group_translate_ranks(failed, 1, &i, world, &r);
            CHECK(ft_in_list(victims, r), "MPIX_Comm_get_failed names rank %d, not a victim", r);
        }
        MPI_Group_free(&world);
        MPI_Group_free(&failed);
    }

    /* a collective over a communicator with a dead member fails */
    rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rc == MPIX_ERR_PROC_FAILED, "barrier over the dead: rc %d", rc);

    /* survivors still talk: a ring among them */
    int next = rank, prev = rank, token = -1;
    do next = (next + 1) % size; while (ft_in_list(victims, next));
    do prev = (prev + size - 1) % size; while (ft_in_list(victims, prev));
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, next, 1, &token, 1, MPI_INT, prev, 1,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(token == prev, "ring token %d, expected %d", token, prev);

    /* wildcard receive: pending until acknowledged, then it completes */
    if (rank == first_survivor) {
        MPI_Request req;
        int value = -1, num_acked = -1;
        CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &req));
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(rc == MPIX_ERR_PROC_FAILED_PENDING, "wildcard wait before ack: rc %d, expected "
              "MPIX_ERR_PROC_FAILED_PENDING (%d)", rc, MPIX_ERR_PROC_FAILED_PENDING);
        CHECK(req != MPI_REQUEST_NULL, "the pending request was freed");
        CHECK_MPI(MPIX_Comm_ack_failed(MPI_COMM_WORLD, size, &num_acked));
        CHECK(num_acked == nvictims, "MPIX_Comm_ack_failed: %d acknowledged", num_acked);
        MPI_Group acked;
        int nacked;
        CHECK_MPI(MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &acked));
        MPI_Group_size(acked, &nacked);
        CHECK(nacked == nvictims, "MPIX_Comm_failure_get_acked: %d", nacked);
        MPI_Group_free(&acked);
        CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, last_survivor, 3, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(value == last_survivor, "wildcard receive got %d, expected %d", value,
              last_survivor);
    } else if (rank == last_survivor) {
        int go;
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, first_survivor, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, first_survivor, 2, MPI_COMM_WORLD));
    }

    /* revoke: the last survivor revokes; everyone's pending receive on
     * the world ends with MPIX_ERR_REVOKED */
    if (rank == last_survivor) {
        CHECK_MPI(MPIX_Comm_revoke(MPI_COMM_WORLD));
    } else {
        rc = MPI_Recv(buf, 1, MPI_CHAR, last_survivor, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rc == MPIX_ERR_REVOKED, "receive on a revoked world: rc %d, expected "
              "MPIX_ERR_REVOKED (%d)", rc, MPIX_ERR_REVOKED);
    }
    rc = MPI_Send(buf, 1, MPI_CHAR, next, 5, MPI_COMM_WORLD);
    CHECK(rc == MPIX_ERR_REVOKED, "send on a revoked world: rc %d", rc);

    MPI_Comm shrunk;
    CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk));
    int ssize = -1, srank = -1, sum = 0, flag = 0x7;
    MPI_Comm_size(shrunk, &ssize);
    MPI_Comm_rank(shrunk, &srank);
    CHECK(ssize == size - nvictims, "shrunk size %d, expected %d", ssize, size - nvictims);
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk));
    int expect = 0;
    for (int r = 0; r < size; r++)
        expect += ft_in_list(victims, r) ? 0 : r;
    CHECK(sum == expect, "allreduce over the shrunk communicator: %d, expected %d", sum, expect);
    if (srank == 0)
        flag = 0x5;
    CHECK_MPI(MPIX_Comm_agree(shrunk, &flag));
    CHECK(flag == 0x5, "agree over the shrunk communicator: %#x, expected 0x5", flag);
    /* nonblocking: the request completes in the wait, whoever enters last */
    MPI_Request req;
    flag = srank == ssize - 1 ? 0x3 : 0x7;
    if (srank == 0)
        ft_sleep(0.1);
    CHECK_MPI(MPIX_Comm_iagree(shrunk, &flag, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(flag == 0x3, "iagree over the shrunk communicator: %#x, expected 0x3", flag);
    MPI_Comm_free(&shrunk);
    return ft_report();
}
