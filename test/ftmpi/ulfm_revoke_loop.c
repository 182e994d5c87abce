/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM: a revocation reaches processes that call a collective which
 * fails at its entry, again and again.
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_revoke_loop VICTIM kill|exit
 *
 * The victim dies once every process has arrived. Each survivor then
 * calls MPI_Barrier on a duplicate of MPI_COMM_WORLD until it returns
 * MPIX_ERR_REVOKED (at most 30 s); the lowest survivor revokes the
 * duplicate at its first error. Those that learned of the death first get
 * MPIX_ERR_PROC_FAILED at the barrier's entry, and must still hear the
 * revocation. Then, on the revoked communicator, MPI_Isend and MPI_Irecv
 * fail at their start and hand out MPI_REQUEST_NULL, which MPI_Wait takes
 * at once. Last, 1000 receives posted on a second duplicate before the
 * death end when it is revoked: each wait returns MPIX_ERR_REVOKED, after
 * MPIX_ERR_PROC_FAILED_PENDING while the failure is unacknowledged (and
 * nothing about invalid error codes is printed: the runner fails a test
 * whose output says so). */
#include "ftmpi_test.h"
#include <mpi-ext.h>

int main(int argc, char **argv)
{
    int rank, size, rc, first = 1;
    MPI_Comm comm;
    ft_init(&argc, &argv, 2, "VICTIM kill|exit", &rank, &size);
    int victim = atoi(argv[1]), lowest = victim == 0 ? 1 : 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm pending_comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &pending_comm);
    MPI_Comm_set_errhandler(pending_comm, MPI_ERRORS_RETURN);
    enum { NPENDING = 1000 };
    static MPI_Request pending[NPENDING];
    static int pending_buf[NPENDING];
    for (int i = 0; i < NPENDING; i++)
        MPI_Irecv(&pending_buf[i], 1, MPI_INT, MPI_ANY_SOURCE, 99, pending_comm, &pending[i]);
    ft_meetings_open(rank, size);
    if (rank == victim)
        ft_die_together(0, rank, argv[1], size, 0.05, argv[2]);
    ft_arrive(0);

    long calls = 0;
    double t0 = ft_now();
    do {
        rc = MPI_Barrier(comm);
        calls++;
        if (rc != MPI_SUCCESS && first && rank == lowest) {
            CHECK_MPI(MPIX_Comm_revoke(comm));
            first = 0;
        }
    } while (ft_class(rc) != MPIX_ERR_REVOKED && ft_now() - t0 < 30);
    CHECK(ft_class(rc) == MPIX_ERR_REVOKED, "after %ld barriers in %.0f s, class %d: the "
          "revocation never came", calls, ft_now() - t0, ft_class(rc));

    int buf = 0;
    MPI_Request req = (MPI_Request) 12345;
    rc = MPI_Isend(&buf, 1, MPI_INT, (rank + 1) % size, 0, comm, &req);
    CHECK(ft_class(rc) == MPIX_ERR_REVOKED, "MPI_Isend on the revoked communicator: class %d",
          ft_class(rc));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Isend that failed at its start left a request handle");
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    req = (MPI_Request) 12345;
    rc = MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm, &req);
    CHECK(ft_class(rc) == MPIX_ERR_REVOKED, "MPI_Irecv on the revoked communicator: class %d",
          ft_class(rc));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Irecv that failed at its start left a request handle");
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    if (rank == lowest)
        CHECK_MPI(MPIX_Comm_revoke(pending_comm));
    /* a wildcard receive may first report the unacknowledged failure
     * (MPIX_ERR_PROC_FAILED_PENDING) and stays pending: wait again */
    int revoked = 0;
    for (int i = 0; i < NPENDING; i++) {
        do
            rc = MPI_Wait(&pending[i], MPI_STATUS_IGNORE);
        while (ft_class(rc) == MPIX_ERR_PROC_FAILED_PENDING && pending[i] != MPI_REQUEST_NULL);
        revoked += ft_class(rc) == MPIX_ERR_REVOKED;
    }
    CHECK(revoked == NPENDING, "%d of %d pending receives ended revoked", revoked, NPENDING);
    MPI_Comm_free(&pending_comm);
    MPI_Comm_free(&comm);
    return ft_report();
}
