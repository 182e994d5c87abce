/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* IGNORE recovery mode: no recovery ever, only what involves a dead
 * process fails.
 *
 *   FTMPI_RECOVERY_MODE=ignore ft_ignore VICTIMS HOW
 *
 * The survivors check that point-to-point with a dead rank, collectives and
 * communicator creation over MPI_COMM_WORLD fail with MPI_ERR_OTHER without
 * being executed; that point-to-point between survivors on MPI_COMM_WORLD,
 * a communicator of survivors made before the failure and MPI_COMM_SELF
 * keep working; that FTMPI_NUM_FAILED_PROCS and FTMPI_ERROR_FAILURE
 * describe every failure; and that MPI_Finalize works. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 2, "VICTIMS kill|exit", &rank, &size);
    const char *victims = argv[1], *how = argv[2];
    int nvictims = 0, first_victim = -1;
    for (int r = 0; r < size; r++)
        if (ft_in_list(victims, r)) {
            nvictims++;
            if (first_victim < 0)
                first_victim = r;
        }
    int is_victim = ft_in_list(victims, rank);

    MPI_Comm survivors;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, is_victim ? MPI_UNDEFINED : 0, rank, &survivors));
    ft_meetings_open(rank, size);
    if (is_victim)
        ft_die_together(0, rank, victims, size, 0.05, how);

    MPI_Comm_set_errhandler(survivors, MPI_ERRORS_RETURN);
    int nsurv, srank;
    MPI_Comm_size(survivors, &nsurv);
    MPI_Comm_rank(survivors, &srank);

    /* a collective over the world cannot complete; it fails once the
     * failures are known */
    ft_arrive(0);
    CHECK_FAILS(MPI_Barrier(MPI_COMM_WORLD));

    /* learn of every victim (progress through the survivors' communicator) */
    int *nfailed, flag;
    double t0 = ft_now();
    do {
        int f;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, survivors, &f, MPI_STATUS_IGNORE);
        MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &nfailed, &flag);
    } while (flag && *nfailed < nvictims && ft_now() - t0 < 10);
    CHECK(flag && *nfailed == nvictims, "FTMPI_NUM_FAILED_PROCS %d, expected %d",
          flag ? *nfailed : -1, nvictims);

    int *code;
    MPI_Comm_get_attr(MPI_COMM_SELF, FTMPI_ERROR_FAILURE, &code, &flag);
    CHECK(flag && ft_class(*code) == MPI_ERR_OTHER, "FTMPI_ERROR_FAILURE class %d",
          flag ? ft_class(*code) : -1);
    char str[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(*code, str, &len);
    for (int r = 0; r < size; r++) {
        char num[16];
        snprintf(num, sizeof(num), "%d", r);
        if (ft_in_list(victims, r))
            CHECK(strstr(str, num) != NULL, "error string '%s' lacks rank %d", str, r);
    }

    /* operations involving a dead process fail and are not executed */
    int one = 1, buf[4] = { 7, 7, 7, 7 };
    CHECK_FAILS(MPI_Send(&one, 1, MPI_INT, first_victim, 0, MPI_COMM_WORLD));
    CHECK_FAILS(MPI_Recv(buf, 1, MPI_INT, first_victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_FAILS(MPI_Allreduce(&one, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_FAILS(MPI_Bcast(buf, 4, MPI_INT, rank, MPI_COMM_WORLD));
    CHECK(buf[0] == 7 && buf[1] == 7, "refused collectives wrote %d %d", buf[0], buf[1]);
    MPI_Comm dup, split;
    CHECK_FAILS(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_FAILS(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &split));

    /* what does not involve a dead process keeps working */
    int sum = -1, expect = 0;
    for (int r = 0; r < size; r++)
        if (!ft_in_list(victims, r))
            expect += r;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, survivors));
    CHECK(sum == expect, "allreduce over survivors %d, expected %d", sum, expect);
    MPI_Comm sub;
    CHECK_MPI(MPI_Comm_dup(survivors, &sub));
    CHECK_MPI(MPI_Barrier(sub));
    MPI_Comm_free(&sub);

    /* a ring of survivors in MPI_COMM_WORLD ranks */
    int *world_of = malloc(nsurv * sizeof(int));
    CHECK_MPI(MPI_Allgather(&rank, 1, MPI_INT, world_of, 1, MPI_INT, survivors));
    int right = world_of[(srank + 1) % nsurv], left = world_of[(srank + nsurv - 1) % nsurv];
    int in = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, &in, 1, MPI_INT, left, 5, MPI_COMM_WORLD,
                           &st));
    CHECK(in == left && st.MPI_SOURCE == left, "world ring got %d from %d", in, st.MPI_SOURCE);
    in = -1;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 6, &in, 1, MPI_INT, MPI_ANY_SOURCE, 6,
                           MPI_COMM_WORLD, &st));
    CHECK(in == left, "world ring (any source) got %d", in);
    free(world_of);

    int self_sum = -1;
    CHECK_MPI(MPI_Allreduce(&one, &self_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF));
    CHECK(self_sum == 1, "MPI_COMM_SELF allreduce %d", self_sum);

    MPI_Comm_free(&survivors);
    return ft_report();
}
