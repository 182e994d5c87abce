/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: failure detection latency.
 *
 *   FTMPI_COMM_MODE=shrink mpiexec -n N ./detect SCENARIO VICTIM
 *
 * After a barrier the survivors block in SCENARIO: recv-victim (receive
 * from the victim), recv-live (receive from a live rank that never sends)
 * or coll (MPI_Allreduce over MPI_COMM_WORLD). 100 ms later the victim
 * prints its clock and SIGKILLs itself; each survivor prints its clock when
 * the blocked call returns, and whether it failed with MPI_ERR_OTHER:
 *   KILL <t>
 *   DETECT <rank> <t> <ok|wrong-error>
 * All processes run on one machine, so the clocks agree. */
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
    int rank, size, rc = MPI_SUCCESS, buf = 0, one = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (argc < 3)
        MPI_Abort(MPI_COMM_WORLD, 2);
    const char *scenario = argv[1];
    int victim = atoi(argv[2]) % size;

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim) {
        usleep(100 * 1000);
        printf("KILL %.6f\n", now());
        fflush(stdout);
        raise(SIGKILL);
    }
    int live = (rank + 1) % size == victim ? (rank + 2) % size : (rank + 1) % size;
    if (!strcmp(scenario, "recv-victim"))
        rc = MPI_Recv(&buf, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (!strcmp(scenario, "recv-live"))
        rc = MPI_Recv(&buf, 1, MPI_INT, live, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        rc = MPI_Allreduce(&one, &buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double t = now();
    int cls;
    MPI_Error_class(rc, &cls);
    printf("DETECT %d %.6f %s\n", rank, t, cls == MPI_ERR_OTHER ? "ok" : "wrong-error");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
