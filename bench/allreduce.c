/* FT-MPICH benchmark: MPI_Allreduce latency.
 *
 *   mpiexec -n 4 ./allreduce [trials] [max-bytes]
 *
 * For each size from 8 B up to max-bytes (default 8), multiplying by 8:
 * `trials` timed trials of a number of allreduces (MPI_DOUBLE, MPI_SUM)
 * calibrated to take about 0.1 s; a trial's time is the slowest rank's.
 * Prints one line per size:  size  median-us-per-allreduce */
#include <stdio.h>
#include "bench_util.h"

typedef struct {
    double *in, *out;
    int count;
} ar_t;

static void allreduce(void *arg)
{
    ar_t *a = arg;
    MPI_Allreduce(a->in, a->out, a->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank;
    ar_t a;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int trials = argc > 1 ? atoi(argv[1]) : 11;
    size_t maxsz = argc > 2 ? strtoul(argv[2], NULL, 0) : 8;
    a.in = calloc(maxsz / 8 + 1, sizeof(double));
    a.out = calloc(maxsz / 8 + 1, sizeof(double));
    double *t = malloc(trials * sizeof(double));

    for (size_t n = 8; n <= maxsz; n *= 8) {
        a.count = n / sizeof(double);
        int iters = bench_iterations(allreduce, &a, 0.1, 100000);
        for (int tr = 0; tr < trials; tr++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++)
                allreduce(&a);
            double mine = (MPI_Wtime() - t0) / iters, slowest;
            MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            t[tr] = slowest;
        }
        double med = bench_median(t, trials);
        if (rank == 0)
            printf("%zu %.3f\n", n, med * 1e6);
    }
    free(a.in);
    free(a.out);
    free(t);
    MPI_Finalize();
    return 0;
}
