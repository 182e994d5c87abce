/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmarks: shared helpers. */
#ifndef BENCH_UTIL_H_INCLUDED
#define BENCH_UTIL_H_INCLUDED

#include <mpi.h>
#include <stdlib.h>

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double bench_median(double *t, int n)
{
    qsort(t, n, sizeof(double), bench_cmp);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* How many calls of op(arg) take about `seconds`, the same on every rank
 * (rank 0 decides), between 10 and max_iters. op must be collective over
 * MPI_COMM_WORLD in the sense that every rank calls it. */
static int bench_iterations(void (*op)(void *), void *arg, double seconds, int max_iters)
{
    int n = 10;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++)
        op(arg);
    double per = (MPI_Wtime() - t0) / n;
    int iters = per > 0 ? (int) (seconds / per) : max_iters;
    if (iters < 10)
        iters = 10;
    if (iters > max_iters)
        iters = max_iters;
    MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return iters;
}

#endif /* BENCH_UTIL_H_INCLUDED */
