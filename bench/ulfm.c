/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: ULFM operations.
 *
 *   FTMPI_RECOVERY_MODE=ulfm mpiexec -n N ./ulfm latency [trials]
 *   FTMPI_RECOVERY_MODE=ulfm mpiexec -n N ./ulfm agree [trials]
 *   FTMPI_RECOVERY_MODE=ulfm mpiexec -n N ./ulfm kill VICTIM
 *   FTMPI_RECOVERY_MODE=ulfm mpiexec -n N ./ulfm after VICTIM
 *
 * The same source builds with any MPI that has the MPIX_ functions (Open
 * MPI declares them in mpi-ext.h, MPICH in mpi.h), so bench/run-peer.sh
 * compiles it with each library it compares.
 *
 * latency: no process fails. Prints
 *   agree <us>       MPIX_Comm_agree over MPI_COMM_WORLD, back to back
 *   allreduce <us>   MPI_Allreduce (MPI_BAND of one int), the same way,
 *                    for comparison: the agreement's failure-free floor
 *   shrink <us>      MPIX_Comm_shrink of MPI_COMM_WORLD (and MPI_Comm_free
 *                    of the result, untimed)
 *   revoke <us>      from MPIX_Comm_revoke at one rank (a different one at
 *                    each repetition) until the last of the others is out
 *                    of an MPI_Recv on the revoked communicator with
 *                    MPIX_ERR_REVOKED; every repetition revokes a new
 *                    duplicate of MPI_COMM_WORLD
 * each the median over `trials` (default 7) trials of the slowest rank's
 * mean (revoke: the median over repetitions). Clocks are CLOCK_MONOTONIC of
 * one machine, which every process shares.
 *
 * agree: the agree and allreduce lines of latency only (bench/run-peer.sh
 * compares them across libraries).
 *
 * kill: after a barrier VICTIM prints KILL <clock> and SIGKILLs itself
 * while the others wait in MPI_Recv from MPI_ANY_SOURCE; each survivor
 * prints DETECTED <rank> <clock> when that fails with
 * MPIX_ERR_PROC_FAILED, shrinks MPI_COMM_WORLD, checks the new
 * communicator with an allreduce and prints
 *   SHRUNK <rank> <clock when the shrink returned> <ok|broken>
 *
 * after: as kill, but on a duplicate of MPI_COMM_WORLD (DETECTED says
 * "revoked" where the receive ended with MPIX_ERR_REVOKED), and after
 * DETECTED each survivor acknowledges the failure and prints
 *   AGREE1 <rank> <us of its first MPIX_Comm_agree over that communicator,
 *          which still holds the dead process> <ok|failed>
 *   AGREE <rank> <us per MPIX_Comm_agree over it, back to back>
 * then revokes the communicator and shrinks it:
 *   REVSHRINK <rank> <us from the revoke until the shrink returned> <ok|broken>
 * (ok: the shrunk communicator has size N-1 and an allreduce works). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"

static void agree(void *arg)
{
    int flag = 1;
    MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
}

static void allreduce(void *arg)
{
    int in = 1, out;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_BAND, MPI_COMM_WORLD);
}

static void shrink(void *arg)
{
    MPI_Comm c;
    if (MPIX_Comm_shrink(MPI_COMM_WORLD, &c) == MPI_SUCCESS)
        MPI_Comm_free(&c);
}

/* the median over trials of the slowest rank's mean time of op, in us */
static double time_op(void (*op)(void *), int trials, int max_iters)
{
    double t[64], mine, slowest;
    int iters = bench_iterations(op, NULL, 0.05, max_iters);
    if (trials > 64)
        trials = 64;
    for (int tr = 0; tr < trials; tr++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = bench_now();
        for (int i = 0; i < iters; i++)
            op(NULL);
        mine = (bench_now() - t0) / iters;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[tr] = slowest;
    }
    return bench_median(t, trials) * 1e6;
}

/* One revocation: the us from the revoke until the last rank knew. */
static double revoke_once(int revoker, int rank)
{
    MPI_Comm c;
    double t = 0;
    int buf, ok = 1, all_ok;

    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == revoker) {
        usleep(2000);   /* the others are in their receive by now */
        t = bench_now();
        MPIX_Comm_revoke(c);
    } else {
        int rc = MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, c, MPI_STATUS_IGNORE);
        t = bench_now();
        ok = rc == MPIX_ERR_REVOKED;
    }
    MPI_Comm_free(&c);
    /* {the last notification, the revocation}: each rank contributes one */
    double mine[2] = { rank == revoker ? 0 : t, rank == revoker ? t : 0 }, ext[2];
    MPI_Allreduce(mine, ext, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all_ok ? (ext[0] - ext[1]) * 1e6 : -1;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *what = argc > 1 ? argv[1] : "latency";

    if (strcmp(what, "agree") == 0) {
        int trials = argc > 2 ? atoi(argv[2]) : 7;
        if (trials < 1)
            trials = 1;
        double a = time_op(agree, trials, 20000);
        double r = time_op(allreduce, trials, 20000);
        if (rank == 0)
            printf("agree %.3f\nallreduce %.3f\n", a, r);
    } else if (strcmp(what, "after") == 0 && argc > 2) {
        int victim = atoi(argv[2]) % size;
        MPI_Comm c, shrunk;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        double detected;
        int rc = bench_kill_and_detect(c, rank, victim, &detected);
        /* agreement over the communicator that holds the dead process,
         * once its failure is acknowledged: the first call, then back to
         * back */
        MPIX_Comm_failure_ack(c);
        int flag = 1, reps = 100;
        double t0 = bench_now();
        rc = MPIX_Comm_agree(c, &flag);
        double t1 = bench_now();
        printf("AGREE1 %d %.3f %s\n", rank, (t1 - t0) * 1e6,
               rc == MPI_SUCCESS && flag ? "ok" : "failed");
        t0 = bench_now();
        for (int i = 0; i < reps && rc == MPI_SUCCESS; i++) {
            flag = 1;
            rc = MPIX_Comm_agree(c, &flag);
        }
        t1 = bench_now();
        if (rc == MPI_SUCCESS)
            printf("AGREE %d %.3f\n", rank, (t1 - t0) / reps * 1e6);
        t0 = bench_now();
        MPIX_Comm_revoke(c);
        rc = MPIX_Comm_shrink(c, &shrunk);
        t1 = bench_now();
        int ok = bench_shrunk_works(rc, &shrunk, size - 1);
        printf("REVSHRINK %d %.3f %s\n", rank, (t1 - t0) * 1e6, ok ? "ok" : "broken");
        fflush(stdout);
        MPI_Comm_free(&c);
    } else if (strcmp(what, "latency") == 0) {
        int trials = argc > 2 ? atoi(argv[2]) : 7;
        if (trials < 1)
            trials = 1;
        double a = time_op(agree, trials, 20000);
        double r = time_op(allreduce, trials, 20000);
        double s = time_op(shrink, trials, 500);
        double rev[64];
        int reps = 4 * trials > 64 ? 64 : 4 * trials, good = 0;
        for (int i = 0; i < reps; i++) {
            double us = revoke_once(i % size, rank);
            if (us >= 0)
                rev[good++] = us;
        }
        if (rank == 0) {
            printf("agree %.3f\nallreduce %.3f\nshrink %.3f\n", a, r, s);
            if (good)
                printf("revoke %.3f\n", bench_median(rev, good));
            if (good < reps)
                printf("# %d of %d revocations not seen as MPIX_ERR_REVOKED everywhere\n",
                       reps - good, reps);
        }
    } else if (strcmp(what, "kill") == 0 && argc > 2) {
        int victim = atoi(argv[2]) % size;
        MPI_Comm shrunk;
        double detected;
        bench_kill_and_detect(MPI_COMM_WORLD, rank, victim, &detected);
        int rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk);
        double t = bench_now();
        int ok = bench_shrunk_works(rc, &shrunk, size - 1);
        printf("SHRUNK %d %.6f %s\n", rank, t, ok ? "ok" : "broken");
        fflush(stdout);
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: ulfm latency|agree [trials] | ulfm kill|after VICTIM\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Finalize();
    return 0;
}
