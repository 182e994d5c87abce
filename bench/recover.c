/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: recovery time.
 *
 *   FTMPI_COMM_MODE=shrink|blank FTMPI_RECOVERY_MODE=manual|auto \
 *       mpiexec -n N ./recover VICTIM
 *   mpiexec -n N ./recover -1        (no victim: start-up time only)
 *
 * After MPI_Init and a barrier every process prints READY <clock>. Then
 * the victim prints KILL <clock> and SIGKILLs itself while the others wait
 * in a receive; that fails, the survivors recover (MANUAL: MPI_Comm_dup of
 * MPI_COMM_WORLD; AUTO: before the receive returns) and each prints
 * RECOVERED <clock> once back in NO_FAILURES. An allreduce then checks that
 * the new world works (ok / broken). All clocks are CLOCK_REALTIME of one
 * machine. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int rank, size, buf;
    const char *mode = getenv("FTMPI_RECOVERY_MODE");
    int manual = !(mode && !strcmp(mode, "auto"));

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int victim = argc > 1 ? atoi(argv[1]) : -1;
    MPI_Barrier(MPI_COMM_WORLD);
    printf("READY %d %.6f\n", rank, now());
    fflush(stdout);
    if (victim < 0) {
        MPI_Finalize();
        return 0;
    }
    if (rank == victim) {
        usleep(50 * 1000);
        printf("KILL %.6f\n", now());
        fflush(stdout);
        raise(SIGKILL);
    }
    MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (manual) {
        MPI_Comm w;
        MPI_Comm_dup(MPI_COMM_WORLD, &w);
    }
    double t = now();

    /* is the new world usable? (BLANK keeps the victim's rank as a blank,
     * and collectives over blanks come later: a ring around it instead) */
    const char *cm = getenv("FTMPI_COMM_MODE");
    int ok, one = 1, n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (cm && !strcmp(cm, "blank")) {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size, in = -1;
        if (next == victim)
            next = (next + 1) % size;
        if (prev == victim)
            prev = (prev + size - 1) % size;
        ok = MPI_Sendrecv(&rank, 1, MPI_INT, next, 1, &in, 1, MPI_INT, prev, 1, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE) == MPI_SUCCESS && in == prev;
    } else {
        ok = MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
            n == size;
    }
    printf("RECOVERED %d %.6f %s\n", rank, t, ok ? "ok" : "broken");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
