/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: one run of the fault-tolerance protocols, for
 * counting their messages and rounds (bench/run-scale.sh reads the
 * counters each process writes to its trace file at MPI_Finalize).
 *
 *   mpiexec -n N ./scale SCENARIO [VICTIM...]
 *
 * After MPI_Init and a barrier the victims SIGKILL themselves together,
 * and the survivors run the scenario:
 *   recover   a receive fails; MPI_Comm_dup(MPI_COMM_WORLD) recovers
 *             (FTMPI_COMM_MODE=shrink or rebuild, MANUAL)
 *   commit    one MPI_Allreduce (FTMPI_COLL_MODE=atomic), then recovery
 *             as above when it failed
 *   revoke    ULFM: a receive fails (with victims); rank 0 revokes
 *             MPI_COMM_WORLD; everyone runs MPIX_Comm_agree on it, whose
 *             outcome is the check (the revoked world allows no other)
 *   shrink    ULFM: a receive fails (with victims); MPIX_Comm_shrink
 *   idle      2 s without MPI calls (the heartbeat's steady state)
 * Otherwise each process then checks the result with an allreduce over the
 * recovered communicator and prints "DONE <rank> ok|broken <seconds since
 * MPI_Init returned>". A REBUILD replacement goes straight to the check. */
#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_victim(int rank, int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (atoi(argv[i]) == rank)
            return 1;
    return 0;
}

static void wait_for_failure(MPI_Comm comm)
{
    int buf;
    if (MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS) {
        fprintf(stderr, "scale: a receive nobody sends to succeeded\n");
        MPI_Abort(comm, 2);
    }
}

static MPI_Comm ftmpi_recover(void)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_free(&dup);
    return MPI_COMM_WORLD;
}

int main(int argc, char **argv)
{
    int rank, rc, victims = argc > 2, ok = -1;
    MPI_Comm result = MPI_COMM_WORLD;

    if (argc < 2) {
        fprintf(stderr, "usage: scale recover|commit|revoke|shrink|idle [VICTIM...]\n");
        return 2;
    }
    const char *scenario = argv[1];
    rc = MPI_Init(&argc, &argv);
    double start = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    if (rc != MPI_INIT_RESTARTED_NODE) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (is_victim(rank, argc, argv)) {
            usleep(50 * 1000);
            raise(SIGKILL);
        }
        if (!strcmp(scenario, "recover")) {
            wait_for_failure(MPI_COMM_WORLD);
            result = ftmpi_recover();
        } else if (!strcmp(scenario, "commit")) {
            int one = 1, sum = 0;
            if (victims)
                usleep(200 * 1000);     /* the victims are gone before it starts */
            if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
                result = ftmpi_recover();
        } else if (!strcmp(scenario, "revoke")) {
            int flag = 1;
            if (victims)
                wait_for_failure(MPI_COMM_WORLD);
            if (rank == 0)
                MPIX_Comm_revoke(MPI_COMM_WORLD);
            rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
            MPI_Error_class(rc, &rc);
            /* the error class (which failure it reports) is the tests'
             * business; here: it ended, and agreed */
            ok = (rc == MPI_SUCCESS || rc == MPIX_ERR_PROC_FAILED || rc == MPIX_ERR_REVOKED) &&
                flag == 1;
        } else if (!strcmp(scenario, "idle")) {
            sleep(2);
        } else if (!strcmp(scenario, "shrink")) {
            if (victims)
                wait_for_failure(MPI_COMM_WORLD);
            MPIX_Comm_shrink(MPI_COMM_WORLD, &result);
        } else {
            fprintf(stderr, "scale: no scenario '%s'\n", scenario);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }

    if (ok < 0) {
        int one = 1, sum = 0, size;
        MPI_Comm_size(result, &size);
        ok = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, result) == MPI_SUCCESS && sum == size;
    }
    printf("DONE %d %s %.3f\n", rank, ok ? "ok" : "broken", MPI_Wtime() - start);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
