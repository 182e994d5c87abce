/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: REBUILD time.
 *
 *   FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=manual|auto \
 *       mpiexec -n N ./rebuild VICTIM
 *   mpiexec -n N ./rebuild -1 SETUP   (no victim: start-up, then SETUP
 *                                      seconds of application set-up)
 *
 * After MPI_Init (and SETUP seconds) and a barrier every process prints
 * READY <clock>. Then the victim prints KILL <clock> and SIGKILLs itself
 * while the others wait in a receive; that fails, the survivors recover
 * (MANUAL: MPI_Comm_dup of MPI_COMM_WORLD; AUTO: before the receive
 * returns), which launches a replacement, and each survivor prints
 * RECOVERED <clock> once back in NO_FAILURES. The replacement prints
 * RECOVERED <clock> when MPI_Init returns MPI_INIT_RESTARTED_NODE. An
 * allreduce over the rebuilt world then checks that it has every process
 * (ok / broken). All clocks are CLOCK_REALTIME of one machine. */
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
    int rank, size, buf, rc;
    const char *mode = getenv("FTMPI_RECOVERY_MODE");
    int manual = !(mode && !strcmp(mode, "auto"));
    double t;

    rc = MPI_Init(&argc, &argv);
    t = now();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int victim = argc > 1 ? atoi(argv[1]) : -1;
    double setup = argc > 2 ? atof(argv[2]) : 0;

    if (rc != MPI_INIT_RESTARTED_NODE) {
        if (setup > 0)
            usleep((useconds_t) (setup * 1e6));
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
        t = now();
    }

    int one = 1, n = 0, ok;
    ok = MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
        n == size;
    printf("RECOVERED %d %.6f %s\n", rank, t, ok ? "ok" : "broken");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
