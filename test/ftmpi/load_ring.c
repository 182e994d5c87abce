/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 * A ring and collectives that processes are killed out of from outside,
 * at moments the program does not choose (test/ftmpi/scripts/load_soak.sh
 * runs it beside CPU hogs).
 *
 *   load_ring SECONDS [agree|atomic]
 *
 * FT-MPI modes from the FTMPI_* variables: SHRINK or BLANK, MANUAL
 * recovery, RESET or CONT messages. Each iteration passes a token around
 * the ring of MPI_COMM_WORLD (MPI_Sendrecv), counts the live processes and
 * decides whether to stop (two MPI_Allreduce) and ends with a barrier. A
 * call that fails sends every survivor to the recovery
 * (MPI_Comm_dup(MPI_COMM_WORLD)); then each one redoes the iteration it
 * was in. Tokens carry the recovery generation in their tag, so that in
 * CONT mode a token of an abandoned iteration is never taken for a new
 * one.
 *
 * Which iteration that is can differ between survivors: with NONATOMIC
 * collectives (the default) a collective that a failure cuts short may
 * have completed at some and failed at others, and the first would go on
 * one iteration ahead of the second for ever (ending first, while the
 * others wait for them). "agree" (the default) makes the survivors agree
 * on the iteration to go on from after each recovery; "atomic" relies on
 * FTMPI_COLL_MODE=atomic instead, under which the barrier that ends an
 * iteration succeeds everywhere or fails everywhere. Each process writes "LOAD READY <os pid>" once past
 * MPI_Init, and reports " rank R: No Errors" at the end. */
#include "ftmpi_test.h"

#define TAG(gen, iter) ((((gen) & 0xff) << 16) | ((iter) & 0xffff))

static int blank_mode, blanks;

/* live processes of MPI_COMM_WORLD as this process knows them */
static int live_count(void)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return blank_mode ? size - blanks : size;
}

/* one iteration; MPI_SUCCESS or the code of the call that failed */
static int iteration(int gen, int iter, int *stop, double deadline)
{
    int rank, size, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int token[3] = { gen, iter, rank }, got[3] = { -1, -1, -1 };
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st;

    rc = MPI_Sendrecv(token, 3, MPI_INT, right, TAG(gen, iter), got, 3, MPI_INT, left,
                      TAG(gen, iter), MPI_COMM_WORLD, &st);
    if (rc != MPI_SUCCESS)
        return rc;
    /* a blank neighbour is MPI_PROC_NULL: nothing arrives */
    if (st.MPI_SOURCE != MPI_PROC_NULL)
        CHECK(got[0] == gen && got[1] == iter && got[2] == left,
              "token (%d, %d, %d) from %d, expected (%d, %d, %d)", got[0], got[1], got[2], left,
              gen, iter, left);

    int one = 1, count = 0;
    rc = MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK(count == live_count(), "iteration %d: %d processes counted, %d alive", iter, count,
          live_count());

    int late = ft_now() > deadline;
    rc = MPI_Allreduce(&late, stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 1, "SECONDS [agree|atomic]", &rank, &size);
    int agree = argc < 3 || strcmp(argv[2], "atomic");
    int *coll, coll_flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_COLL_MODE, &coll, &coll_flag);
    CHECK(agree || (coll_flag && *coll == FTMPI_COLL_MODE_ATOMIC),
          "\"atomic\" needs FTMPI_COLL_MODE=atomic");
    int *mode, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_COMM_MODE, &mode, &flag);
    blank_mode = flag && *mode == FTMPI_COMM_MODE_BLANK;
    double deadline = ft_now() + atof(argv[1]);

    printf("LOAD READY %d\n", (int) getpid());
    fflush(stdout);

    int gen = 0, iter = 0, stop = 0, recoveries = 0;
    while (!stop) {
        int rc = iteration(gen, iter, &stop, deadline);
        if (rc == MPI_SUCCESS) {
            iter++;
            continue;
        }
        CHECK(ft_class(rc) == MPI_ERR_OTHER, "iteration %d failed with class %d", iter,
              ft_class(rc));
        /* recover, then agree where to go on; a failure during either is
         * recovered from the same way */
        for (;;) {
            MPI_Comm world = MPI_COMM_WORLD;
            rc = MPI_Comm_dup(MPI_COMM_WORLD, &world);
            CHECK(rc == MPI_SUCCESS, "recovery returned %d", rc);
            /* the processes this recovery found dead */
            int *failed, flag = 0;
            MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &failed, &flag);
            if (flag)
                blanks += *failed;
            gen++;
            recoveries++;
            int from = iter;
            if (!agree) {
                stop = 0;
                break;
            }
            if (MPI_Allreduce(&iter, &from, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS) {
                iter = from;
                stop = 0;
                break;
            }
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d: %d iterations, %d recoveries\n", rank, iter, recoveries);
    return ft_report();
}
