/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM: the multiple-completion calls hand the communicator's error
 * handler the failed request's own error, which a ULFM handler tests for
 * (it cannot look into the statuses with MPI_STATUSES_IGNORE); the call
 * itself returns MPI_ERR_IN_STATUS.
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_handler_class VICTIM kill|exit
 *
 * Before the death, each survivor posts three pairs of receives, one from
 * the victim (it never comes) and one from itself; it completes the first
 * pair with MPI_Waitall, the second with MPI_Testall (until it reports the
 * failure) and the third with MPI_Waitsome (until the failed request is
 * among those it returns). */
#include "ftmpi_test.h"
#include <mpi-ext.h>

static int handler_calls, handler_class;

static void handler(MPI_Comm * comm, int *code, ...)
{
    handler_calls++;
    handler_class = ft_class(*code);
}

static int post(MPI_Comm comm, int victim, int rank, MPI_Request req[2], int *from_victim,
                int *from_self)
{
    MPI_Irecv(from_victim, 1, MPI_INT, victim, 1, comm, &req[0]);
    MPI_Irecv(from_self, 1, MPI_INT, rank, 2, comm, &req[1]);
    return MPI_Send(&rank, 1, MPI_INT, rank, 2, comm);
}

static void expect(const char *call, int rc)
{
    CHECK(ft_class(rc) == MPI_ERR_IN_STATUS, "%s returned class %d, expected MPI_ERR_IN_STATUS",
          call, ft_class(rc));
    CHECK(handler_calls == 1, "%s called the handler %d times", call, handler_calls);
    CHECK(handler_class == MPIX_ERR_PROC_FAILED, "%s handed the handler class %d, expected "
          "MPIX_ERR_PROC_FAILED (%d)", call, handler_class, MPIX_ERR_PROC_FAILED);
    handler_calls = 0;
    handler_class = -1;
}

int main(int argc, char **argv)
{
    int rank, size, rc, a[3], b[3];
    MPI_Comm comm;
    MPI_Errhandler eh;
    MPI_Request req[3][2];
    ft_init(&argc, &argv, 2, "VICTIM kill|exit", &rank, &size);
    int victim = atoi(argv[1]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    /* MPI_COMM_WORLD's handler is never the one called */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    ft_meetings_open(rank, size);
    if (rank != victim)
        for (int i = 0; i < 3; i++)
            CHECK_MPI(post(comm, victim, rank, req[i], &a[i], &b[i]));
    if (rank == victim)
        ft_die_together(0, rank, argv[1], size, 0.05, argv[2]);
    ft_arrive(0);

    expect("MPI_Waitall", MPI_Waitall(2, req[0], MPI_STATUSES_IGNORE));

    int flag = 0;
    do
        rc = MPI_Testall(2, req[1], &flag, MPI_STATUSES_IGNORE);
    while (rc == MPI_SUCCESS && !flag);
    expect("MPI_Testall", rc);

    int done = 0, outcount, indices[2];
    rc = MPI_SUCCESS;
    while (done < 2 && rc == MPI_SUCCESS) {
        rc = MPI_Waitsome(2, req[2], &outcount, indices, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS && outcount != MPI_UNDEFINED)
            done += outcount;
    }
    expect("MPI_Waitsome", rc);

    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&comm);
    return ft_report();
}
