/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: ping-pong between ranks 0 and 1.
 *
 *   mpiexec -n 2 ./pingpong [trials]
 *
 * For each message size: a warm-up, then `trials` timed trials of a number
 * of round trips calibrated to take about 0.1 s. Prints one line per size:
 *   size  median-half-round-trip-us  median-bandwidth-MB/s
 * where bandwidth = size / half round trip. */
#include <stdio.h>
#include <string.h>
#include "bench_util.h"

typedef struct {
    char *buf;
    size_t n;
    int rank;
} pp_t;

static void round_trip(void *arg)
{
    pp_t *p = arg;
    if (p->rank == 0) {
        MPI_Send(p->buf, p->n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(p->buf, p->n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (p->rank == 1) {
        MPI_Recv(p->buf, p->n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(p->buf, p->n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    pp_t p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
    int trials = argc > 1 ? atoi(argv[1]) : 11;
    const size_t sizes[] = { 8, 64, 1024, 8192, 65536, 1 << 20, 4 << 20 };
    p.buf = malloc(4 << 20);
    memset(p.buf, 1, 4 << 20);
    double *t = malloc(trials * sizeof(double));

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        p.n = sizes[s];
        int iters = bench_iterations(round_trip, &p, 0.1, 100000);
        for (int tr = 0; tr < trials; tr++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++)
                round_trip(&p);
            t[tr] = (MPI_Wtime() - t0) / iters / 2;
        }
        double half = bench_median(t, trials);
        if (p.rank == 0)
            printf("%zu %.3f %.1f\n", p.n, half * 1e6, p.n / half / 1e6);
    }
    free(t);
    free(p.buf);
    MPI_Finalize();
    return 0;
}
