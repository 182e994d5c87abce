/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: collective latency (MPI_Allreduce, MPI_Bcast,
 * MPI_Barrier, MPI_Alltoall).
 *
 *   mpiexec -n N ./coll [trials [budget-seconds [collectives]]]
 *
 * For MPI_Allreduce (MPI_SUM of doubles), MPI_Bcast (MPI_BYTE, root 0) and
 * MPI_Alltoall (MPI_BYTE; the size is the block each process sends to
 * each) at 8 B to 1 MiB (x8 steps, then 1 MiB), and MPI_Barrier (size 0):
 * `trials` timed trials (default 5) of a number of calls calibrated to
 * take about 0.05 s. `collectives` is a comma-separated list of those to
 * run, in this order: allreduce,bcast,barrier,alltoall (the default: all).
 * Each call but a barrier is timed on its own between barriers (as the OSU
 * collective benchmarks do), so that a call's latency is measured rather
 * than how well back-to-back calls pipeline (a NONATOMIC broadcast's root
 * returns as soon as its sends are out; an ATOMIC one waits for the
 * commit); barriers are timed back to back. A trial's time is the
 * slowest rank's mean. The collective mode is whatever the environment says
 * (FTMPI_COLL_MODE; stock MPICH ignores it), so one binary serves every
 * configuration bench/run-coll.sh compares. Each size's results are
 * checked once. Once `budget-seconds` (default 60) have passed, the trials
 * and sizes left are skipped, and a line says so: a slow configuration ends
 * the run itself instead of running into the caller's time-out.
 * Prints one line per collective and size:
 *   collective  bytes  median-us  best-trial-us
 * (on a machine that others load, the best trial says more than the
 * median) */
#include <stdio.h>
#include <string.h>
#include "bench_util.h"

typedef struct {
    double *in, *out;
    char *buf;
    char *a2a_in, *a2a_out;     /* size blocks of up to 1 MiB each */
    int count;                  /* doubles (allreduce) or bytes (bcast, alltoall) */
} coll_t;

static void allreduce(void *arg)
{
    coll_t *a = arg;
    MPI_Allreduce(a->in, a->out, a->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static void bcast(void *arg)
{
    coll_t *a = arg;
    MPI_Bcast(a->buf, a->count, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void barrier(void *arg)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void alltoall(void *arg)
{
    coll_t *a = arg;
    MPI_Alltoall(a->a2a_in, a->count, MPI_BYTE, a->a2a_out, a->count, MPI_BYTE, MPI_COMM_WORLD);
}

static const struct {
    const char *name;
    void (*op)(void *);
} colls[] = {
    { "allreduce", allreduce }, { "bcast", bcast }, { "barrier", barrier }, { "alltoall", alltoall }
};

/* whether `name` is in the comma-separated `list` */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 8, 64, 512, 4096, 32768, 262144, 1048576 };
    const int nsizes = sizeof(sizes) / sizeof(sizes[0]);
    const size_t maxsz = 1048576;
    int rank, size, bad = 0;
    coll_t a;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int trials = argc > 1 ? atoi(argv[1]) : 5;
    double budget = argc > 2 ? atof(argv[2]) : 60;
    const char *which = argc > 3 ? argv[3] : "allreduce,bcast,barrier,alltoall";
    if (trials < 1)
        trials = 1;
    a.in = malloc(maxsz);
    a.out = malloc(maxsz);
    a.buf = malloc(maxsz);
    a.a2a_in = listed(which, "alltoall") ? malloc(maxsz * size) : NULL;
    a.a2a_out = listed(which, "alltoall") ? malloc(maxsz * size) : NULL;
    double *t = malloc(trials * sizeof(double));
    for (size_t i = 0; i < maxsz / sizeof(double); i++)
        a.in[i] = rank + 1;
    memset(a.buf, rank, maxsz);
    double start = MPI_Wtime();

    for (int c = 0; c < (int) (sizeof(colls) / sizeof(colls[0])); c++) {
        void (*op)(void *) = colls[c].op;
        const char *name = colls[c].name;
        int is_barrier = op == barrier;
        if (!listed(which, name))
            continue;
        for (int s = 0; s < (is_barrier ? 1 : nsizes); s++) {
            size_t bytes = is_barrier ? 0 : sizes[s];
            int over = rank == 0 && MPI_Wtime() - start > budget;
            MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (over) {
                if (rank == 0)
                    printf("# %s %zu skipped: past the budget of %.0f s\n", name, bytes, budget);
                continue;
            }
            a.count = op == allreduce ? (int) (bytes / sizeof(double)) : (int) bytes;
            if (op == alltoall) /* the block for process j holds j + rank */
                for (int j = 0; j < size; j++)
                    memset(a.a2a_in + (size_t) j * bytes, (j + rank) & 0xff, bytes);
            int iters = bench_iterations(op, &a, 0.05, 2000), done = 0;
            for (int tr = 0; tr < trials; tr++) {
                /* a slow configuration (busy-polling processes that share
                 * cores) stops within a trial of the budget */
                over = rank == 0 && tr > 0 && MPI_Wtime() - start > budget;
                MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
                if (over)
                    break;
                double mine = 0, slowest;
                if (is_barrier) {
                    MPI_Barrier(MPI_COMM_WORLD);
                    double t0 = MPI_Wtime();
                    for (int i = 0; i < iters; i++)
                        op(&a);
                    mine = MPI_Wtime() - t0;
                } else {
                    for (int i = 0; i < iters; i++) {
                        MPI_Barrier(MPI_COMM_WORLD);
                        double t0 = MPI_Wtime();
                        op(&a);
                        mine += MPI_Wtime() - t0;
                    }
                }
                mine /= iters;
                MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                t[done++] = slowest;
            }
            /* the results are right (the output buffers were just written) */
            int n = a.count;
            if (op == allreduce) {
                for (int i = 0; i < n; i++)
                    if (a.out[i] != size * (size + 1) / 2.0) {
                        bad = 1;
                        break;
                    }
            } else if (op == alltoall) {
                /* a2a_out's block j came from process j: j + rank */
                for (int j = 0; j < size && !bad; j++)
                    for (int i = 0; i < n; i++)
                        if ((unsigned char) a.a2a_out[(size_t) j * n + i] != ((j + rank) & 0xff)) {
                            bad = 1;
                            break;
                        }
            } else if (op == bcast) {
                memset(a.buf, rank == 0 ? 0x5a : rank, n);
                bcast(&a);
                for (int i = 0; i < n; i++)
                    if (a.buf[i] != 0x5a) {
                        bad = 1;
                        break;
                    }
            }
            double med = bench_median(t, done); /* sorts t */
            if (rank == 0)
                printf("%s %zu %.3f %.3f\n", name, bytes, med * 1e6, t[0] * 1e6);
            fflush(stdout);
        }
    }
    if (bad)
        fprintf(stderr, "coll: rank %d: wrong results\n", rank);
    free(a.in);
    free(a.out);
    free(a.buf);
    free(a.a2a_in);
    free(a.a2a_out);
    free(t);
    MPI_Finalize();
    return bad;
}
