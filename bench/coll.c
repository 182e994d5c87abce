/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: collective latency (MPI_Allreduce, MPI_Bcast).
 *
 *   mpiexec -n N ./coll [trials [budget-seconds]]
 *
 * For MPI_Allreduce (MPI_SUM of doubles) and MPI_Bcast (MPI_BYTE, root 0)
 * at 8 B to 1 MiB (x8 steps, then 1 MiB): `trials` timed trials (default
 * 5) of a number of calls calibrated to take about 0.05 s. Each call is
 * timed on its own between barriers (as the OSU collective benchmarks do),
 * so that a call's latency is measured rather than how well back-to-back
 * calls pipeline (a NONATOMIC broadcast's root returns as soon as its sends
 * are out; an ATOMIC one waits for the commit); a trial's time is the
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
    int count;                  /* doubles (allreduce) or bytes (bcast) */
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
    if (trials < 1)
        trials = 1;
    a.in = malloc(maxsz);
    a.out = malloc(maxsz);
    a.buf = malloc(maxsz);
    double *t = malloc(trials * sizeof(double));
    for (size_t i = 0; i < maxsz / sizeof(double); i++)
        a.in[i] = rank + 1;
    memset(a.buf, rank, maxsz);
    double start = MPI_Wtime();

    for (int c = 0; c < 2; c++) {
        void (*op)(void *) = c == 0 ? allreduce : bcast;
        const char *name = c == 0 ? "allreduce" : "bcast";
        for (int s = 0; s < nsizes; s++) {
            int over = rank == 0 && MPI_Wtime() - start > budget;
            MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (over) {
                if (rank == 0)
                    printf("# %s %zu skipped: past the budget of %.0f s\n", name, sizes[s], budget);
                continue;
            }
            a.count = c == 0 ? (int) (sizes[s] / sizeof(double)) : (int) sizes[s];
            int iters = bench_iterations(op, &a, 0.05, 2000), done = 0;
            for (int tr = 0; tr < trials; tr++) {
                /* a slow configuration (busy-polling processes that share
                 * cores) stops within a trial of the budget */
                over = rank == 0 && tr > 0 && MPI_Wtime() - start > budget;
                MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
                if (over)
                    break;
                double mine = 0, slowest;
                for (int i = 0; i < iters; i++) {
                    MPI_Barrier(MPI_COMM_WORLD);
                    double t0 = MPI_Wtime();
                    op(&a);
                    mine += MPI_Wtime() - t0;
                }
                mine /= iters;
                MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                t[done++] = slowest;
            }
            /* the results are right (the output buffers were just written) */
            int n = a.count;
            if (c == 0) {
                for (int i = 0; i < n; i++)
                    if (a.out[i] != size * (size + 1) / 2.0) {
                        bad = 1;
                        break;
                    }
            } else {
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
                printf("%s %zu %.3f %.3f\n", name, sizes[s], med * 1e6, t[0] * 1e6);
            fflush(stdout);
        }
    }
    if (bad)
        fprintf(stderr, "coll: rank %d: wrong results\n", rank);
    free(a.in);
    free(a.out);
    free(a.buf);
    free(t);
    MPI_Finalize();
    return bad;
}
