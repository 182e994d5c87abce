/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: ULFM's respawn after a failure, timed step by step.
 *
 *   FTMPI_RECOVERY_MODE=ulfm mpiexec -n N ./respawn VICTIM
 *
 * After a barrier over a duplicate of MPI_COMM_WORLD, VICTIM prints
 * KILL <clock> and SIGKILLs itself while the others wait in MPI_Recv from
 * MPI_ANY_SOURCE. When that fails (MPIX_ERR_PROC_FAILED, or
 * MPIX_ERR_REVOKED where another survivor revoked first), each survivor
 * revokes the communicator, shrinks it, spawns as many processes as are
 * missing (this program with the argument "child", from the shrunk
 * communicator, root 0) and merges the intercommunicator (survivors
 * first); an allreduce over the merged communicator checks that it has N
 * processes. Each survivor prints
 *   DETECTED <rank> <clock> <ok|revoked|wrong-error>
 *   RESPAWN <rank> <revoke+shrink us> <spawn us> <merge us> <total us> <ok|broken>
 * (the steps from the moment its receive failed; total: until the merged
 * communicator's allreduce returned). Clocks are CLOCK_MONOTONIC of one
 * machine. The simple form of the pattern: no agreement on the
 * intercommunicator and no reordering of the ranks
 * (test/ftmpi/ulfm_respawn.c has the whole of it). The same source
 * builds with any MPI that has ULFM's MPIX_ functions (mpi-ext.h where
 * there is one). */
#include <mpi.h>
#include "bench_util.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A spawned replacement: joins the merge and the check. */
static int child(MPI_Comm parent)
{
    MPI_Comm merged;
    int one = 1, n = 0;
    MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    if (MPI_Intercomm_merge(parent, 1, &merged) == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
        MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, merged);
        MPI_Comm_free(&merged);
    }
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Comm parent, c, shrunk, inter = MPI_COMM_NULL, merged;
    int rank, size, rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        return child(parent);
    if (argc < 2) {
        fprintf(stderr, "usage: respawn VICTIM\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int victim = atoi(argv[1]) % size;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    double t0;
    bench_kill_and_detect(c, rank, victim, &t0);

    MPIX_Comm_revoke(c);
    rc = MPIX_Comm_shrink(c, &shrunk);
    double t1 = bench_now(), t2 = t1, t3 = t1;
    int ok = rc == MPI_SUCCESS, n = 0, one = 1;
    if (ok) {
        int nsurv;
        MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
        MPI_Comm_size(shrunk, &nsurv);
        char *args[] = { "child", NULL };
        ok = MPI_Comm_spawn(argv[0], args, size - nsurv, MPI_INFO_NULL, 0, shrunk, &inter,
                            MPI_ERRCODES_IGNORE) == MPI_SUCCESS;
        t2 = bench_now();
        if (ok) {
            MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
            ok = MPI_Intercomm_merge(inter, 0, &merged) == MPI_SUCCESS;
            t3 = bench_now();
        }
        if (ok) {
            MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
            ok = MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, merged) == MPI_SUCCESS && n == size;
            MPI_Comm_free(&merged);
        }
        double t4 = bench_now();
        printf("RESPAWN %d %.3f %.3f %.3f %.3f %s\n", rank, (t1 - t0) * 1e6, (t2 - t1) * 1e6,
               (t3 - t2) * 1e6, (t4 - t0) * 1e6, ok ? "ok" : "broken");
        fflush(stdout);
        if (inter != MPI_COMM_NULL)
            MPI_Comm_disconnect(&inter);
        MPI_Comm_free(&shrunk);
    } else {
        printf("RESPAWN %d - - - - broken\n", rank);
    }
    MPI_Comm_free(&c);
    MPI_Finalize();
    return 0;
}
