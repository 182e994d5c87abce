/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * A ULFM application: a 1-D Jacobi heat solver that survives the death of
 * processes by shrinking, restoring from in-memory buddy checkpoints.
 *
 *   FTMPI_RECOVERY_MODE=ulfm mpiexec -n 4 ulfm_jacobi [VICTIM ITERATION]
 *
 * ULFM_JACOBI_ITERATIONS sets the number of iterations (default 2000). At
 * the end rank 0 also prints the time per iteration, from a barrier after
 * the set-up to the last iteration (recoveries and iterations done again
 * included; the slowest process's): bench/run-peer.sh times the solver
 * with it on every MPI with ULFM's functions.
 *
 * The rod of N points is split in blocks among the processes. Every
 * CKPT_EVERY iterations each process keeps a copy of its block and sends
 * one to its buddy (the next rank), keeping two generations. When any call
 * reports a failure (MPIX_ERR_PROC_FAILED) or a revocation, the process
 * revokes the communicator so that every other one stops too, shrinks it
 * to the survivors, agrees with them on the newest checkpoint all of them
 * hold, rebuilds the whole rod from the blocks and buddy copies, splits
 * it again among the survivors and goes on from there. VICTIM kills
 * itself (SIGKILL) at ITERATION, to show it.
 *
 * Jacobi's arithmetic does not depend on how the rod is split, so the
 * result must equal, bit for bit, that of a run without failure, which
 * rank 0 computes alone at the end to check.
 */
#include <mpi.h>
/* Open MPI declares ULFM's functions there; MPICH in mpi.h */
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#else
#include <mpi-ext.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 2400
static int ITERATIONS = 2000;
#define CKPT_EVERY 100
#define NONE (-1.0e300)

typedef struct {
    int iteration;              /* -1: none */
    int owner;                  /* block of which rank of the communicator */
    int first, count;           /* its points */
    double data[N];
} checkpoint_t;

typedef struct {
    MPI_Comm comm;
    int rank, size;
    int first, count;           /* this process's points */
    double *u, *next;           /* count + 2 (halo cells) */
    checkpoint_t own[2], buddy[2];
} solver_t;

static void split(solver_t * s)
{
    s->first = (int) ((long) N * s->rank / s->size);
    s->count = (int) ((long) N * (s->rank + 1) / s->size) - s->first;
}

static double initial(int i)
{
    return (i == 0 || i == N - 1) ? 100.0 : 0.0;
}

/* One Jacobi sweep over [1, count]; the ends of the rod stay fixed. */
static void sweep(const double *u, double *next, int first, int count)
{
    for (int i = 1; i <= count; i++) {
        int g = first + i - 1;
        next[i] = (g == 0 || g == N - 1) ? u[i] : 0.5 * (u[i - 1] + u[i + 1]);
    }
}

static int exchange_halo(solver_t * s)
{
    int left = s->rank - 1, right = s->rank + 1, rc;
    rc = MPI_Sendrecv(&s->u[1], 1, MPI_DOUBLE, left >= 0 ? left : MPI_PROC_NULL, 0,
                      &s->u[s->count + 1], 1, MPI_DOUBLE,
                      right < s->size ? right : MPI_PROC_NULL, 0, s->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Sendrecv(&s->u[s->count], 1, MPI_DOUBLE, right < s->size ? right : MPI_PROC_NULL,
                        1, &s->u[0], 1, MPI_DOUBLE, left >= 0 ? left : MPI_PROC_NULL, 1,
                        s->comm, MPI_STATUS_IGNORE);
}

static int checkpoint(solver_t * s, int iteration)
{
    int gen = (iteration / CKPT_EVERY) % 2;
    checkpoint_t *mine = &s->own[gen], *theirs = &s->buddy[gen];
    int buddy = (s->rank + 1) % s->size, from = (s->rank + s->size - 1) % s->size;
    int header[4] = { iteration, s->rank, s->first, s->count }, got[4];
    int rc;

    mine->iteration = iteration;
    mine->owner = s->rank;
    mine->first = s->first;
    mine->count = s->count;
    memcpy(mine->data, &s->u[1], s->count * sizeof(double));
    if (s->size == 1)
        return MPI_SUCCESS;
    theirs->iteration = -1;
    rc = MPI_Sendrecv(header, 4, MPI_INT, buddy, 2, got, 4, MPI_INT, from, 2, s->comm,
                      MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Sendrecv(mine->data, s->count, MPI_DOUBLE, buddy, 3, theirs->data, N, MPI_DOUBLE,
                      from, 3, s->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    theirs->iteration = got[0];
    theirs->owner = got[1];
    theirs->first = got[2];
    theirs->count = got[3];
    return MPI_SUCCESS;
}

static int newest_complete(const solver_t * s)
{
    int best = -1;
    for (int gen = 0; gen < 2; gen++) {
        int t = s->own[gen].iteration;
        if (t > best && (s->size == 1 || s->buddy[gen].iteration == t))
            best = t;
    }
    return best;
}

static void place(double *rod, const checkpoint_t * c, int iteration)
{
    if (c->iteration == iteration)
        memcpy(&rod[c->first], c->data, c->count * sizeof(double));
}

static void start_block(solver_t * s, const double *rod)
{
    split(s);
    free(s->u);
    free(s->next);
    s->u = calloc(s->count + 2, sizeof(double));
    s->next = calloc(s->count + 2, sizeof(double));
    memcpy(&s->u[1], &rod[s->first], s->count * sizeof(double));
}

/* After a failure: the survivors' communicator, the checkpoint they all
 * have, the rod rebuilt from it. Returns the iteration to go on from. */
static int recover(solver_t * s)
{
    MPI_Comm survivors;
    int old_rank = s->rank, t, rc;
    static double rod[N], whole[N];

    /* the newest checkpoint complete in the old communicator: with its
     * size, before the shrink (a lone survivor would take its own block
     * of a checkpoint its buddy never finished) */
    int mine = newest_complete(s);
    MPIX_Comm_revoke(s->comm);
    rc = MPIX_Comm_shrink(s->comm, &survivors);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ulfm_jacobi: MPIX_Comm_shrink failed (%d)\n", rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_free(&s->comm);
    s->comm = survivors;
    MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(s->comm, &s->rank);
    MPI_Comm_size(s->comm, &s->size);

    rc = MPI_Allreduce(&mine, &t, 1, MPI_INT, MPI_MIN, s->comm);
    if (rc != MPI_SUCCESS)
        return -2;      /* another failure: again */
    for (int i = 0; i < N; i++)
        rod[i] = t < 0 ? initial(i) : NONE;     /* before the first checkpoint: from the start */
    if (t < 0)
        t = 0;
    for (int gen = 0; gen < 2; gen++) {
        place(rod, &s->own[gen], t);
        place(rod, &s->buddy[gen], t);
    }
    rc = MPI_Allreduce(rod, whole, N, MPI_DOUBLE, MPI_MAX, s->comm);
    if (rc != MPI_SUCCESS)
        return -2;
    for (int i = 0; i < N; i++)
        if (whole[i] == NONE) {
            if (s->rank == 0)
                fprintf(stderr, "ulfm_jacobi: point %d is lost (a process and its buddy "
                        "died together)\n", i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    if (s->rank == 0)
        printf("ulfm_jacobi: rank %d of %d went on as rank %d of %d from iteration %d\n",
               old_rank, s->size + 1, s->rank, s->size, t);
    start_block(s, whole);
    /* the checkpoint taken now has the new split */
    for (int gen = 0; gen < 2; gen++)
        s->own[gen].iteration = s->buddy[gen].iteration = -1;
    return t;
}

int main(int argc, char **argv)
{
    solver_t s = { 0 };
    int victim = -1, kill_at = -1, world_rank;
    static double rod[N], reference[N], tmp[N], result[N];

    MPI_Init(&argc, &argv);
    const char *iterations = getenv("ULFM_JACOBI_ITERATIONS");
    if (iterations && atoi(iterations) > 0)
        ITERATIONS = atoi(iterations);
    if (argc == 3) {
        victim = atoi(argv[1]);
        kill_at = atoi(argv[2]);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.comm);
    MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(s.comm, &s.rank);
    MPI_Comm_size(s.comm, &s.size);
    for (int i = 0; i < N; i++)
        rod[i] = initial(i);
    start_block(&s, rod);
    for (int gen = 0; gen < 2; gen++)
        s.own[gen].iteration = s.buddy[gen].iteration = -1;

    MPI_Barrier(s.comm);
    double start = MPI_Wtime();
    int it = 0;
    while (it < ITERATIONS) {
        int rc = MPI_SUCCESS;
        if (world_rank == victim && it == kill_at) {
            fflush(stdout);
            raise(SIGKILL);
        }
        if (it % CKPT_EVERY == 0 && newest_complete(&s) != it)
            rc = checkpoint(&s, it);
        if (rc == MPI_SUCCESS)
            rc = exchange_halo(&s);
        if (rc == MPI_SUCCESS) {
            sweep(s.u, s.next, s.first, s.count);
            double *t = s.u;
            s.u = s.next;
            s.next = t;
            it++;
        }
        if (rc == MPI_SUCCESS && it % 10 == 0) {
            double local = 0, total;
            for (int i = 1; i <= s.count; i++)
                local += s.u[i];
            rc = MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, s.comm);
        }
        if (rc != MPI_SUCCESS) {
            int t;
            do
                t = recover(&s);
            while (t == -2);
            it = t;
        }
    }

    double mine = MPI_Wtime() - start, slowest = mine;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, s.comm);

    /* the whole rod, at every survivor, checked against a lone run */
    for (int i = 0; i < N; i++)
        tmp[i] = NONE;
    memcpy(&tmp[s.first], &s.u[1], s.count * sizeof(double));
    int rc = MPI_Allreduce(tmp, result, N, MPI_DOUBLE, MPI_MAX, s.comm);
    if (s.rank == 0) {
        for (int i = 0; i < N; i++)
            reference[i] = initial(i);
        for (int k = 0; k < ITERATIONS; k++) {
            for (int i = 0; i < N; i++)
                tmp[i] = (i == 0 || i == N - 1) ? reference[i] :
                    0.5 * (reference[i - 1] + reference[i + 1]);
            memcpy(reference, tmp, sizeof(reference));
        }
        int differ = rc != MPI_SUCCESS;
        for (int i = 0; i < N && !differ; i++)
            differ = result[i] != reference[i];
        printf("ulfm_jacobi: %d process(es) finished %d iterations; the result %s that of a "
               "run without failure\n", s.size, ITERATIONS, differ ? "DIFFERS from" :
               "is identical to");
        printf("ulfm_jacobi: %.3f us per iteration\n", slowest / ITERATIONS * 1e6);
        if (!differ)
            printf(" No Errors\n");
    }
    MPI_Comm_free(&s.comm);
    free(s.u);
    free(s.next);
    MPI_Finalize();
    return 0;
}
