/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH benchmark: the cost of a diskless checkpoint (libftmpi_ckpt).
 *
 *   mpiexec -n P ./ckpt [MAX_MIB]
 *
 * For states of 1/16 MiB to MAX_MIB (default 64) per process, times
 * FTMPI_Ckpt_take (pack the state, send it to the buddy while receiving
 * the predecessor's, barrier, allgather of who takes part) and, for
 * comparison, its two main parts alone: a memcpy of the state and an
 * MPI_Sendrecv of it around the ring. Also times FTMPI_Ckpt_restore when
 * nobody died (every process rolls back to its own copy). Each figure is
 * the median over repetitions of the slowest process's time, each
 * repetition between barriers. Prints one line per size: milliseconds,
 * and milliseconds per MiB for take. */
#include <mpi.h>
#include <ftmpi_ckpt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

#define REPS 15

static double slowest(double t)
{
    double max;
    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

int main(int argc, char **argv)
{
    int rank, size;
    double max_mib;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    max_mib = argc > 1 ? atof(argv[1]) : 64;
    if (rank == 0)
        printf("%10s %10s %10s %10s %10s %12s\n", "MiB/proc", "take ms", "memcpy ms",
               "sendrecv ms", "restore ms", "take ms/MiB");
    for (double mib = 1.0 / 16; mib <= max_mib; mib *= 4) {
        size_t bytes = (size_t) (mib * 1048576);
        char *state = malloc(bytes), *copy = malloc(bytes), *in = malloc(bytes);
        double take[REPS], cpy[REPS], sr[REPS], rest[REPS];
        FTMPI_Ckpt ckpt;
        long step;
        memset(state, rank + 1, bytes);
        memset(copy, 0, bytes);
        memset(in, 0, bytes);
        FTMPI_Ckpt_create(&ckpt);
        FTMPI_Ckpt_register(ckpt, state, bytes);
        FTMPI_Ckpt_take(ckpt, MPI_COMM_WORLD, 0);       /* warm-up: buffers allocated */
        FTMPI_Ckpt_take(ckpt, MPI_COMM_WORLD, 0);
        FTMPI_Ckpt_take(ckpt, MPI_COMM_WORLD, 0);
        for (int r = 0; r < REPS; r++) {
            double t0;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            if (FTMPI_Ckpt_take(ckpt, MPI_COMM_WORLD, r) != FTMPI_CKPT_SUCCESS)
                MPI_Abort(MPI_COMM_WORLD, 1);
            take[r] = slowest(MPI_Wtime() - t0);

            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            memcpy(copy, state, bytes);
            cpy[r] = slowest(MPI_Wtime() - t0);

            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            MPI_Sendrecv(state, (int) bytes, MPI_BYTE, (rank + 1) % size, 0, in, (int) bytes,
                         MPI_BYTE, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sr[r] = slowest(MPI_Wtime() - t0);

            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            if (FTMPI_Ckpt_restore(ckpt, MPI_COMM_WORLD, &step) != FTMPI_CKPT_SUCCESS)
                MPI_Abort(MPI_COMM_WORLD, 1);
            rest[r] = slowest(MPI_Wtime() - t0);
        }
        if (rank == 0) {
            double t = bench_median(take, REPS) * 1e3;
            printf("%10.4g %10.3f %10.3f %10.3f %10.3f %12.3f\n", mib, t,
                   bench_median(cpy, REPS) * 1e3, bench_median(sr, REPS) * 1e3,
                   bench_median(rest, REPS) * 1e3, t / mib);
        }
        FTMPI_Ckpt_free(&ckpt);
        free(state);
        free(copy);
        free(in);
    }
    MPI_Finalize();
    return 0;
}
