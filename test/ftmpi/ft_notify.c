/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Failure notification in AUTO/MANUAL recovery modes (no recovery yet).
 *
 *   ft_notify VICTIMS HOW WHERE
 *     VICTIMS  ranks that die, e.g. "2" or "0+3"
 *     HOW      kill (SIGKILL) or exit (_exit)
 *     WHERE    what the survivors are blocked in when the victims die:
 *              recv-victim, recv-live, anysource, wait, barrier, allreduce,
 *              bcast
 *
 * Each survivor's blocked call must return MPI_ERR_OTHER, and so must every
 * later communication call; MPI_COMM_SELF still works and MPI_Finalize
 * returns. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 3, "VICTIMS kill|exit WHERE", &rank, &size);
    const char *victims = argv[1], *how = argv[2], *where = argv[3];

    int first_victim = -1, live = -1;
    for (int r = 0; r < size; r++) {
        if (ft_in_list(victims, r) && first_victim < 0)
            first_victim = r;
        /* a live partner: the next survivor after this rank */
        int p = (rank + 1 + r) % size;
        if (live < 0 && p != rank && !ft_in_list(victims, p))
            live = p;
    }

    MPI_Comm sub;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &sub));
    MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
    ft_meetings_open(rank, size);
    /* the victims die together once every process is about to block */
    if (ft_in_list(victims, rank))
        ft_die_together(0, rank, victims, size, 0.1, how);

    int buf[1024] = { 0 }, one = 1;
    double t0 = ft_now();
    if (strcmp(where, "wait"))
        ft_arrive(0);
    if (!strcmp(where, "recv-victim")) {
        CHECK_FAILS(MPI_Recv(buf, 1, MPI_INT, first_victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (!strcmp(where, "recv-live")) {
        CHECK_FAILS(MPI_Recv(buf, 1, MPI_INT, live, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (!strcmp(where, "anysource")) {
        CHECK_FAILS(MPI_Recv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE));
    } else if (!strcmp(where, "wait")) {
        MPI_Request r[2];
        MPI_Status st[2];
        static char big[1 << 20];
        CHECK_MPI(MPI_Irecv(buf, 1, MPI_INT, live, 0, MPI_COMM_WORLD, &r[0]));
        CHECK_MPI(MPI_Isend(big, sizeof(big), MPI_BYTE, first_victim, 0, MPI_COMM_WORLD, &r[1]));
        ft_arrive(0);
        CHECK_FAILS(MPI_Wait(&r[0], &st[0]));
        int rc = MPI_Wait(&r[1], &st[1]);
        CHECK(rc == MPI_SUCCESS || ft_class(rc) == MPI_ERR_OTHER, "send wait class %d",
              ft_class(rc));
    } else if (!strcmp(where, "barrier")) {
        CHECK_FAILS(MPI_Barrier(MPI_COMM_WORLD));
    } else if (!strcmp(where, "allreduce")) {
        int sum = -1;
        CHECK_FAILS(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    } else if (!strcmp(where, "bcast")) {
        CHECK_FAILS(MPI_Bcast(buf, 1024, MPI_INT, first_victim, MPI_COMM_WORLD));
    } else {
        CHECK(0, "unknown WHERE %s", where);
    }
    double waited = ft_now() - t0;
    CHECK(waited < 10, "the blocked call took %.1f s to fail", waited);

    /* FAILURE_RECOGNIZED: every communication call fails until recovery */
    MPI_Request r;
    CHECK_FAILS(MPI_Send(&one, 1, MPI_INT, live, 1, MPI_COMM_WORLD));
    CHECK_FAILS(MPI_Isend(&one, 1, MPI_INT, live, 1, sub, &r));
    CHECK_FAILS(MPI_Irecv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &r));
    int flag;
    CHECK_FAILS(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK_FAILS(MPI_Barrier(sub));
    CHECK_FAILS(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_Comm dup2;
    CHECK_FAILS(MPI_Comm_dup(sub, &dup2));

    /* local operations still work */
    int self_in = -1;
    CHECK_MPI(MPI_Sendrecv(&one, 1, MPI_INT, 0, 3, &self_in, 1, MPI_INT, 0, 3, MPI_COMM_SELF,
                           MPI_STATUS_IGNORE));
    CHECK(self_in == 1, "MPI_COMM_SELF sendrecv got %d", self_in);

    return ft_report();
}
