/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* SHRINK mode: a manager-worker task farm that loses no task and does none
 * twice.
 *
 *   FTMPI_COMM_MODE=shrink mpiexec -n 4 -inject-failure 2@1.0 ./farm_shrink [TASKS [TASK_MS]]
 *
 * Rank 0 of MPI_COMM_WORLD is the manager: it hands out TASKS tasks
 * (default 200) to the workers as they ask for work. A task t takes
 * TASK_MS milliseconds (default 40; the worker sleeps, standing in for
 * real work) and its result is t*t. A worker keeps every result it
 * computes and sends it to the manager with its next request.
 *
 * When a process dies, the survivors' calls fail; each recovers the FT-MPI
 * way (MANUAL: MPI_Comm_dup(MPI_COMM_WORLD, ...)) and MPI_COMM_WORLD
 * shrinks to the survivors in their old order. Its new rank 0 is the
 * manager, the old one or, if the manager died, the first worker. The
 * survivors then pool the results they hold (MPI_Allgatherv): a task is
 * done if a survivor holds its result. Every other task - those a dead
 * worker had finished and those in progress - is handed out again. The
 * manager's own knowledge is never needed, so it may die too.
 *
 * At the end the manager gathers every result and checks that each task
 * was done exactly once and that the results add up to the sum of t*t;
 * it prints "farm_shrink: check passed" or what went wrong.
 *
 * With RESTART_FILE=PREFIX (restart_file.h) the manager also writes the
 * results reported to it to a file every RESTART_FILE_EVERY results
 * (default 10), and a job started again hands out only the tasks whose
 * results are not in the file: what an application does without a
 * fault-tolerant MPI (the job ends with the failure), for comparison. */
#include <mpi.h>
#include "restart_file.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_REQUEST 1
#define TAG_TASK    2
#define NO_TASK     (-1)
#define STOP        (-2)

static long ntasks, task_ms;
static long long *held;         /* this process's results: task, result, task, result, ... */
static long num_held;
static char *done;              /* the manager's view: task finished */
static char *given;             /* the manager's view: task handed out since the last pooling */
static int recoveries;
static long long *reported;     /* the manager's view: the result of each finished task */
static long num_reported;
static restart_file_t files;    /* the manager's, with RESTART_FILE */

static long long compute(long t)
{
    struct timespec pause = { task_ms / 1000, (task_ms % 1000) * 1000000L };
    nanosleep(&pause, NULL);
    return (long long) t *t;
}

/* after a recovery: every survivor learns which tasks survivors hold */
static int pool_results(int size)
{
    int n = (int) (2 * num_held), *counts = malloc(size * sizeof(int)), *displs =
        malloc(size * sizeof(int)), rc, total = 0;
    long long *all = NULL;

    rc = MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) {
        for (int k = 0; k < size; k++) {
            displs[k] = total;
            total += counts[k];
        }
        all = malloc((total ? total : 1) * sizeof(long long));
        rc = MPI_Allgatherv(held, n, MPI_LONG_LONG, all, counts, displs, MPI_LONG_LONG,
                            MPI_COMM_WORLD);
    }
    if (rc == MPI_SUCCESS) {
        memset(done, 0, ntasks);
        memset(given, 0, ntasks);
        for (int k = 0; k < total; k += 2)
            done[all[k]] = 1;
    }
    free(all);
    free(counts);
    free(displs);
    return rc;
}

/* manager: until every worker was told to stop */
static int manage(int size)
{
    int stopped = 0, rc;
    long next = 0;
    long long msg[2], reply;
    MPI_Status status;

    while (stopped < size - 1) {
        rc = MPI_Recv(msg, 2, MPI_LONG_LONG, MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &status);
        if (rc != MPI_SUCCESS)
            return rc;
        if (msg[0] >= 0) {
            done[msg[0]] = 1;
            reported[msg[0]] = msg[1];
            if (++num_reported % files.every == 0 && files.nbufs)
                restart_file_write(&files, num_reported);
        }
        while (next < ntasks && (done[next] || given[next]))
            next++;
        if (next < ntasks) {
            reply = next;
            given[next] = 1;
        } else {
            reply = STOP;
            stopped++;
        }
        rc = MPI_Send(&reply, 1, MPI_LONG_LONG, status.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int work(void)
{
    long long msg[2] = { NO_TASK, 0 }, task;
    int rc;

    for (;;) {
        rc = MPI_Send(msg, 2, MPI_LONG_LONG, 0, TAG_REQUEST, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(&task, 1, MPI_LONG_LONG, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || task == STOP)
            return rc;
        /* kept before it is reported: if the report is lost, the pooling
         * after the recovery still finds it here */
        held[2 * num_held] = task;
        held[2 * num_held + 1] = compute(task);
        msg[0] = held[2 * num_held];
        msg[1] = held[2 * num_held + 1];
        num_held++;
    }
}

/* every result to the manager, which checks them */
static int finish(int rank, int size, int *ok)
{
    int n = (int) (2 * num_held), *counts = NULL, *displs = NULL, rc, total = 0;
    long long *all = NULL;

    if (rank == 0) {
        counts = malloc(size * sizeof(int));
        displs = malloc(size * sizeof(int));
    }
    rc = MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && rank == 0) {
        for (int k = 0; k < size; k++) {
            displs[k] = total;
            total += counts[k];
        }
        all = malloc((total ? total : 1) * sizeof(long long));
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Gatherv(held, n, MPI_LONG_LONG, all, counts, displs, MPI_LONG_LONG, 0,
                         MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && rank == 0) {
        int *times = calloc(ntasks, sizeof(int));
        long long sum = 0, expect = 0;
        for (int k = 0; k < total; k += 2) {
            times[all[k]]++;
            sum += all[k + 1];
        }
        for (long t = 0; t < ntasks; t++) {
            expect += (long long) t *t;
            if (times[t] != 1) {
                printf("farm_shrink: task %ld was done %d times\n", t, times[t]);
                *ok = 0;
            }
        }
        printf("farm_shrink: %ld tasks, %d survivors, %d recoveries; results held by the "
               "survivors:", ntasks, size, recoveries);
        for (int k = 0; k < size; k++)
            printf(" %d", counts[k] / 2);
        printf("\nfarm_shrink: sum of results %lld, expected %lld\n", sum, expect);
        if (sum != expect)
            *ok = 0;
        printf("farm_shrink: check %s\n", *ok ? "passed" : "FAILED");
        free(times);
    }
    free(all);
    free(counts);
    free(displs);
    return rc;
}

int main(int argc, char **argv)
{
    int rank, size, rc, ok = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ntasks = argc > 1 ? atol(argv[1]) : 200;
    task_ms = argc > 2 ? atol(argv[2]) : 40;
    if (ntasks < 1 || task_ms < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: farm_shrink [TASKS [TASK_MS]]\n");
        MPI_Finalize();
        return 2;
    }
    held = malloc(2 * ntasks * sizeof(long long));
    done = calloc(ntasks, 1);
    given = calloc(ntasks, 1);
    reported = calloc(ntasks, sizeof(long long));
    restart_file_init(&files, rank);
    if (rank == 0 && files.prefix) {
        /* a job started again: the results in the file are the manager's */
        restart_file_add(&files, done, ntasks);
        restart_file_add(&files, reported, ntasks * sizeof(long long));
        if ((num_reported = restart_file_read(&files, MPI_COMM_SELF)) < 0)
            num_reported = 0;
        for (long t = 0; t < ntasks; t++)
            if (done[t]) {
                held[2 * num_held] = t;
                held[2 * num_held++ + 1] = reported[t];
            }
    }

    for (;;) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (size == 1) {
            /* the last process alive does what is left itself */
            for (long t = 0; t < ntasks; t++)
                if (!done[t]) {
                    held[2 * num_held] = t;
                    held[2 * num_held++ + 1] = compute(t);
                }
            rc = MPI_SUCCESS;
        } else
            rc = rank == 0 ? manage(size) : work();
        if (rc == MPI_SUCCESS)
            rc = finish(rank, size, &ok);
        if (rc == MPI_SUCCESS)
            break;
        /* a failure: recover (MANUAL), then pool what the survivors hold
         * until that succeeds too */
        do {
            MPI_Comm world;
            recoveries++;
            MPI_Comm_dup(MPI_COMM_WORLD, &world);
            MPI_Comm_size(MPI_COMM_WORLD, &size);
        } while (pool_results(size) != MPI_SUCCESS);
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
