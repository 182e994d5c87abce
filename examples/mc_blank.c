/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Naturally fault tolerant: a Monte Carlo estimate of pi that keeps going
 * with blanks.
 *
 *   FTMPI_COMM_MODE=blank FTMPI_RECOVERY_MODE=auto FTMPI_COLL_MODE=atomic \
 *       mpiexec -n 4 -inject-failure 1@1.0 ./mc_blank [ROUNDS [SAMPLES [PAUSE_US]]]
 *
 * In each of ROUNDS rounds (default 100) every process draws SAMPLES points
 * (default 1000000) in the unit square from its own stream (determined by
 * its rank and the round) and an MPI_Allreduce adds up the points that
 * fall in the quarter disc (PAUSE_US, default 0, sleeps in each round,
 * standing in for more work, so that a failure injected at a given time
 * lands mid-run however fast the machine is). When a process dies, AUTO
 * recovery turns it into a blank: MPI_COMM_WORLD keeps its size, the dead
 * rank behaves as MPI_PROC_NULL and collectives combine the live processes only. Nothing
 * lost is recovered: the round that failed is drawn again by the
 * survivors, later rounds have fewer points, and the estimate gets less
 * precise. ATOMIC collectives make a round either count everywhere or
 * fail everywhere, so the survivors never disagree on what was counted.
 *
 * The lowest live rank reports how the result degrades with the number of
 * blanks (the rounds drawn with each number, their estimate, and the
 * standard error against a failure-free run's), and checks the answer:
 * every round counted exactly SAMPLES points per live process, the total
 * of points in the disc is exactly what the streams of the processes
 * alive in each round give, and the estimate is within 5 standard errors
 * of pi. It prints "mc_blank: check passed" or names what failed.
 *
 * With RESTART_FILE=PREFIX (restart_file.h) each process also writes its
 * state to a file every RESTART_FILE_EVERY rounds (default 10), and a job
 * started again goes on from the last round all of them wrote: what an
 * application does without a fault-tolerant MPI (the job ends with the
 * failure), for comparison. */
#include <mpi.h>
#include "restart_file.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A process's points in a round: its stream is a function of (rank,
 * round) only, so anyone can draw a dead process's points again. */
static long long hits_of(int rank, long round, long samples)
{
    uint64_t state = ((uint64_t) rank << 32) ^ (uint64_t) round ^ 0x5deece66dULL, hits = 0;
    for (long i = 0; i < samples; i++) {
        uint64_t z;
        double u[2];
        for (int k = 0; k < 2; k++) {
            z = (state += 0x9e3779b97f4a7c15ULL);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            u[k] = (double) ((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
        }
        hits += u[0] * u[0] + u[1] * u[1] < 1.0;
    }
    return (long long) hits;
}

/* The live ranks: a blank leaves its entry of an allgather as it was. */
static int find_live(int size, int *live)
{
    int one = 1;
    memset(live, 0, size * sizeof(int));
    return MPI_Allgather(&one, 1, MPI_INT, live, 1, MPI_INT, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size, coll_mode, flag, *mode, recoveries = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long rounds = argc > 1 ? atol(argv[1]) : 100;
    long samples = argc > 2 ? atol(argv[2]) : 1000000;
    long pause_us = argc > 3 ? atol(argv[3]) : 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_COLL_MODE, &mode, &flag);
    coll_mode = flag ? *mode : -1;
    if (rounds < 1 || samples < 1 || pause_us < 0 || coll_mode != FTMPI_COLL_MODE_ATOMIC) {
        if (rank == 0)
            fprintf(stderr, "usage: FTMPI_COLL_MODE=atomic mc_blank [ROUNDS [SAMPLES "
                    "[PAUSE_US]]]\n");
        MPI_Finalize();
        return 2;
    }

    /* live[r] of each round, to report and to check against */
    int *live = malloc(size * sizeof(int)), *alive_in = calloc((size_t) rounds * size, sizeof(int));
    long long total[2] = { 0, 0 }, *per_round = calloc((size_t) rounds * 2, sizeof(long long));
    long long own = 0;          /* this process's points in the disc, over the rounds counted */
    int ok = 1;

    restart_file_t files;
    restart_file_init(&files, rank);
    restart_file_add(&files, &own, sizeof(own));
    restart_file_add(&files, total, sizeof(total));
    restart_file_add(&files, per_round, (size_t) rounds * 2 * sizeof(long long));
    restart_file_add(&files, alive_in, (size_t) rounds * size * sizeof(int));
    long first = restart_file_read(&files, MPI_COMM_WORLD), written = first;

    while (find_live(size, live) != MPI_SUCCESS)
        recoveries++;   /* AUTO mode has recovered already */
    for (long t = first > 0 ? first : 0; t < rounds;) {
        if (t % files.every == 0 && t != written) {
            restart_file_write(&files, t);
            written = t;
        }
        long long mine[2] = { hits_of(rank, t, samples), samples }, sum[2];
        if (pause_us)
            usleep(pause_us);
        if (MPI_Allreduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) {
            /* the survivors draw this round again, without the dead */
            recoveries++;
            while (find_live(size, live) != MPI_SUCCESS)
                recoveries++;
            continue;
        }
        int nlive = 0;
        for (int k = 0; k < size; k++)
            nlive += live[k];
        if (sum[1] != (long long) nlive * samples) {
            fprintf(stderr, "mc_blank: round %ld counted %lld points, expected %d processes x %ld\n",
                    t, sum[1], nlive, samples);
            ok = 0;
        }
        memcpy(alive_in + t * size, live, size * sizeof(int));
        per_round[2 * t] = sum[0];
        per_round[2 * t + 1] = sum[1];
        own += mine[0];
        total[0] += sum[0];
        total[1] += sum[1];
        t++;
    }

    /* the report comes from the lowest live rank; the survivors' own
     * totals are part of its check */
    int reporter, nlive;
    long long own_sum = 0;
    for (;;) {
        for (reporter = 0; !live[reporter]; reporter++);
        if (MPI_Reduce(&own, &own_sum, 1, MPI_LONG_LONG, MPI_SUM, reporter, MPI_COMM_WORLD) ==
            MPI_SUCCESS)
            break;
        recoveries++;
        while (find_live(size, live) != MPI_SUCCESS)
            recoveries++;
    }
    for (int k = nlive = 0; k < size; k++)
        nlive += live[k];
    if (rank == reporter) {
        /* points of the dead, drawn again for the rounds they were in */
        long long expected = own_sum;
        for (int k = 0; k < size; k++)
            for (long t = 0; t < rounds && !live[k]; t++)
                if (alive_in[t * size + k])
                    expected += hits_of(k, t, samples);
        const double pi = 3.14159265358979323846, p = pi / 4;
        printf("mc_blank: %d processes, %ld rounds of %ld points each\n", size, rounds, samples);
        printf("mc_blank: %6s %6s %12s %12s %10s %10s\n", "blanks", "rounds", "points",
               "estimate", "error", "std.error");
        for (int blanks = 0; blanks < size; blanks++) {
            long n = 0;
            long long h = 0, pts = 0;
            for (long t = 0; t < rounds; t++) {
                int nl = 0;
                for (int k = 0; k < size; k++)
                    nl += alive_in[t * size + k];
                if (size - nl == blanks) {
                    n++;
                    h += per_round[2 * t];
                    pts += per_round[2 * t + 1];
                }
            }
            if (n)
                printf("mc_blank: %6d %6ld %12lld %12.8f %10.2e %10.2e\n", blanks, n, pts,
                       4.0 * h / pts, fabs(4.0 * h / pts - pi), 4 * sqrt(p * (1 - p) / pts));
        }
        double estimate = 4.0 * total[0] / total[1];
        double se = 4 * sqrt(p * (1 - p) / total[1]);
        double se_full = 4 * sqrt(p * (1 - p) / ((double) rounds * samples * size));
        printf("mc_blank: all rounds: %lld points (failure-free: %lld), pi ~ %.8f, error %.2e, "
               "standard error %.2e (%.2fx the failure-free run's)\n", total[1],
               (long long) rounds * samples * size, estimate, fabs(estimate - pi), se,
               se / se_full);
        printf("mc_blank: %d blank(s) at the end, %d recoveries seen by rank %d\n", size - nlive,
               recoveries, rank);
        if (expected != total[0]) {
            printf("mc_blank: %lld points in the disc, but the live processes' streams give "
                   "%lld\n", total[0], expected);
            ok = 0;
        }
        if (fabs(estimate - pi) > 5 * se) {
            printf("mc_blank: the estimate is %.1f standard errors from pi\n",
                   fabs(estimate - pi) / se);
            ok = 0;
        }
        printf("mc_blank: check %s\n", ok ? "passed" : "FAILED");
    }
    free(live);
    free(alive_in);
    free(per_round);
    MPI_Finalize();
    return ok ? 0 : 1;
}
