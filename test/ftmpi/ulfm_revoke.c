/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM revocation racing with collectives, no process failing.
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_revoke REVOKER ROUND|rand
 *
 * Every process runs allreduces (blocking and nonblocking) over a
 * communicator; at round ROUND (rand: 0-199) REVOKER revokes it, wherever
 * the others are. Every process must leave the loop with
 * MPIX_ERR_REVOKED (none hangs), each at a round no later than the
 * revoker's; later operations on the communicator fail the same way,
 * MPI_COMM_WORLD is untouched, and MPIX_Comm_shrink of the revoked
 * communicator gives everyone a working communicator of all processes. */
#include "ftmpi_test.h"
#include <mpi-ext.h>

int main(int argc, char **argv)
{
    int rank, size, rc = MPI_SUCCESS, round;
    ft_init(&argc, &argv, 2, "REVOKER ROUND|rand", &rank, &size);
    int revoker = atoi(argv[1]);
    int at = strcmp(argv[2], "rand") == 0 ? (int) ((long long) (ft_now() * 1e6) % 200) : atoi(argv[2]);
    MPI_Comm comm;

    CHECK_MPI(MPI_Bcast(&at, 1, MPI_INT, revoker, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    for (round = 0; round < 100000; round++) {
        int in = rank + round, out = 0;
        if (rank == revoker && round == at) {
            CHECK_MPI(MPIX_Comm_revoke(comm));
            rc = MPIX_ERR_REVOKED;
            break;
        }
        if (round % 2) {
            rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm);
        } else {
            MPI_Request req;
            rc = MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm, &req);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        if (rc != MPI_SUCCESS)
            break;
        CHECK(out == size * (size - 1) / 2 + size * round, "round %d: sum %d", round, out);
    }
    CHECK(rc == MPIX_ERR_REVOKED, "left the loop at round %d with rc %d, expected "
          "MPIX_ERR_REVOKED (%d)", round, rc, MPIX_ERR_REVOKED);
    CHECK(round <= at, "left the loop at round %d, after the revocation at round %d", round, at);
    rc = MPI_Barrier(comm);
    CHECK(rc == MPIX_ERR_REVOKED, "barrier on the revoked communicator: rc %d", rc);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    MPI_Comm shrunk;
    int ssize = -1, sum = -1;
    CHECK_MPI(MPIX_Comm_shrink(comm, &shrunk));
    MPI_Comm_size(shrunk, &ssize);
    CHECK(ssize == size, "shrunk size %d, expected %d", ssize, size);
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk));
    CHECK(sum == size * (size - 1) / 2, "allreduce over the shrunk communicator: %d", sum);
    MPI_Comm_free(&shrunk);
    MPI_Comm_free(&comm);
    return test_finish();
}
