/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM: what is pending on a communicator ends when it is revoked, also
 * when the other side has gone on.
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_revoke_pending BYTES
 *
 * Over a dup of MPI_COMM_WORLD rank 0 starts a send of BYTES to rank 1
 * (1 MiB: a rendezvous, which completes only once the receiver takes it)
 * and every rank from 2 on posts a receive from rank 0 that no send
 * matches. Rank 1 never receives: it revokes the communicator and enters
 * MPIX_Comm_agree over it, as a ULFM program does after a failure. Every
 * pending request must end with MPIX_ERR_REVOKED, so that its process
 * reaches the agreement too; nobody may hang. */
#include "ftmpi_test.h"
#include <mpi-ext.h>

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 1, "BYTES", &rank, &size);
    int bytes = atoi(argv[1]);
    char *buf = calloc(bytes > 0 ? bytes : 1, 1);
    MPI_Comm comm;
    MPI_Request req = MPI_REQUEST_NULL;

    CHECK(size >= 2 && bytes > 0, "needs 2 processes or more and BYTES > 0");
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (rank == 0)
        CHECK_MPI(MPI_Isend(buf, bytes, MPI_BYTE, 1, 5, comm, &req));
    else if (rank >= 2)
        CHECK_MPI(MPI_Irecv(buf, bytes, MPI_BYTE, 0, 6, comm, &req));
    /* everyone's request is posted before the revocation */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    if (rank == 1) {
        CHECK_MPI(MPIX_Comm_revoke(comm));
    } else {
        int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        /* an eager send may have completed before the revocation */
        int small_send = rank == 0 && rc == MPI_SUCCESS && bytes <= 1024;
        CHECK(rc == MPIX_ERR_REVOKED || small_send,
              "the pending %s ended with %d, expected MPIX_ERR_REVOKED",
              rank == 0 ? "send" : "receive", rc);
    }
    int flag = 1;
    CHECK_MPI(MPIX_Comm_agree(comm, &flag));
    CHECK(flag == 1, "agreement: %d", flag);
    CHECK(MPI_Barrier(comm) == MPIX_ERR_REVOKED, "a barrier over the revoked communicator");
    CHECK_MPI(MPI_Comm_free(&comm));
    free(buf);
    return test_finish();
}
