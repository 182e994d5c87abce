/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmarks: shared helpers. */
#ifndef BENCH_UTIL_H_INCLUDED
#define BENCH_UTIL_H_INCLUDED

#include <mpi.h>
/* ULFM's functions: Open MPI declares them in mpi-ext.h, MPICH in mpi.h */
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
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC, which every process of one machine shares */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static inline double bench_median(double *t, int n)
{
    qsort(t, n, sizeof(double), bench_cmp);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* How many calls of op(arg) take about `seconds`, the same on every rank
 * (rank 0 decides), between 10 and max_iters. op must be collective over
 * MPI_COMM_WORLD in the sense that every rank calls it. */
static inline int bench_iterations(void (*op)(void *), void *arg, double seconds, int max_iters)
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

/* ULFM's failure benchmarks. After a barrier over c, victim prints KILL
 * <clock> and SIGKILLs itself 50 ms later; every other process waits in a
 * receive from anyone on c, prints DETECTED <rank> <clock>
 * <ok|revoked|wrong-error> and returns the receive's code, with the clock
 * in *at. */
static inline int bench_kill_and_detect(MPI_Comm c, int rank, int victim, double *at)
{
    int buf;
    MPI_Barrier(c);
    if (rank == victim) {
        usleep(50 * 1000);
        printf("KILL %.6f\n", bench_now());
        fflush(stdout);
        raise(SIGKILL);
    }
    int rc = MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, c, MPI_STATUS_IGNORE);
    *at = bench_now();
    printf("DETECTED %d %.6f %s\n", rank, *at, rc == MPIX_ERR_PROC_FAILED ? "ok" :
           rc == MPIX_ERR_REVOKED ? "revoked" : "wrong-error");
    fflush(stdout);
    return rc;
}

/* Whether a shrink that returned rc gave a communicator of `survivors`
 * processes in which an allreduce works; frees it. */
static inline int bench_shrunk_works(int rc, MPI_Comm * shrunk, int survivors)
{
    int n = 0, one = 1, ok = rc == MPI_SUCCESS;
    if (ok) {
        MPI_Comm_set_errhandler(*shrunk, MPI_ERRORS_RETURN);
        ok = MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, *shrunk) == MPI_SUCCESS &&
            n == survivors;
        MPI_Comm_free(shrunk);
    }
    return ok;
}

#endif /* BENCH_UTIL_H_INCLUDED */
