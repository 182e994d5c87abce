/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A legacy FT-MPI program: it never installs an error handler, checks the
 * return code of every call and longjmps into its own recovery (MANUAL
 * mode: MPI_Comm_dup of MPI_COMM_WORLD), then rolls back to the last
 * iteration every process committed. Under MPICH's default handler
 * (MPI_ERRORS_ARE_FATAL) the first failure would end the job; FT-MPI
 * returns it to the caller.
 *
 *   ft_legacy VICTIM kill|exit
 *
 * VICTIM dies at the start of iteration DIE_AT. In REBUILD mode its
 * replacement starts again from main (MPI_Init returns
 * MPI_INIT_RESTARTED_NODE) and takes the committed state from a survivor.
 * Each iteration's allreduce must equal size * iteration. */
#include "ftmpi_test.h"
#include <limits.h>
#include <setjmp.h>

#define ITERATIONS 30
#define DIE_AT 6

static jmp_buf recovery_point;
static long history[ITERATIONS + 1];     /* total after each iteration */

#define OR_RECOVER(call)                                                   \
    do {                                                                   \
        if ((call) != MPI_SUCCESS)                                         \
            longjmp(recovery_point, 1);                                    \
    } while (0)

int main(int argc, char **argv)
{
    int restarted = MPI_Init(&argc, &argv) == MPI_INIT_RESTARTED_NODE;
    int rank, size;
    volatile int recoveries = 0;
    if (argc < 3) {
        fprintf(stderr, "usage: %s VICTIM kill|exit\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int victim = atoi(argv[1]);
    const char *how = argv[2];
    volatile int committed = 0;

    if (setjmp(recovery_point)) {
        MPI_Comm dup;
        int rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        CHECK(rc == MPI_SUCCESS, "recovery (MPI_Comm_dup) returned %d", rc);
        if (rc != MPI_SUCCESS)
            return ft_report();
        /* FT-MPI's recovery call hands MPI_COMM_WORLD back */
        CHECK(dup == MPI_COMM_WORLD, "MPI_Comm_dup's recovery did not return MPI_COMM_WORLD");
        recoveries++;
    }

    /* everyone restarts from the last iteration all processes committed;
     * a replacement has none and takes it from the lowest original rank */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = restarted ? INT_MAX : committed, start, donor_in = restarted ? INT_MAX : rank, donor;
    OR_RECOVER(MPI_Allreduce(&mine, &start, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    OR_RECOVER(MPI_Allreduce(&donor_in, &donor, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    long state = history[start];
    OR_RECOVER(MPI_Bcast(&state, 1, MPI_LONG, donor, MPI_COMM_WORLD));
    committed = start;
    history[start] = state;

    for (int i = committed + 1; i <= ITERATIONS; i++) {
        if (rank == victim && i == DIE_AT && !restarted && recoveries == 0)
            ft_die(how);
        int contribution = i, sum = -1;
        OR_RECOVER(MPI_Allreduce(&contribution, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(sum == size * i, "iteration %d: allreduce %d, expected %d", i, sum, size * i);
        int token = rank * 100 + i, got = -1;
        OR_RECOVER(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, i, &got, 1, MPI_INT,
                                (rank + size - 1) % size, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == ((rank + size - 1) % size) * 100 + i, "iteration %d: token %d", i, got);
        history[i] = history[i - 1] + sum;
        committed = i;
    }
    CHECK(restarted || recoveries == 1, "%d recoveries, expected 1", recoveries);
    long total = history[ITERATIONS], max_total;
    OR_RECOVER(MPI_Allreduce(&total, &max_total, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
    CHECK(total == max_total, "total %ld differs from another process's %ld", total, max_total);
    return ft_report();
}
