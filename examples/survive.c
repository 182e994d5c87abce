/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPICH demo: a computation that survives the death of a process.
 *
 *   FTMPI_COMM_MODE=shrink mpiexec -n 4 ./survive
 *
 * The processes sum f(i) = i*i over i < N in STEPS steps: in each step the
 * items of that step are dealt out over MPI_COMM_WORLD and an
 * MPI_Allreduce adds the partial sums to a running total. Halfway, one
 * process kills itself (SIGKILL). The survivors' allreduce fails with
 * MPI_ERR_OTHER; they recover the FT-MPI way (MANUAL mode: every survivor
 * calls MPI_Comm_dup(MPI_COMM_WORLD, ...)), MPI_COMM_WORLD shrinks to the
 * survivors, and they redo the step that failed. Which step that is, they
 * agree on: a collective that a failure cuts short may have completed at
 * some survivors before they learned of it (NONATOMIC collectives), and
 * those would otherwise go on one step ahead of the others. The total is
 * checked against the closed form. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N     1000000L
#define STEPS 10
#define VICTIM 2

static double now(void)
{
    return MPI_Wtime();
}

int main(int argc, char **argv)
{
    int rank, size, pid;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &pid);        /* the original rank */
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size <= VICTIM) {
        if (pid == 0)
            fprintf(stderr, "survive: run with at least %d processes\n", VICTIM + 1);
        MPI_Finalize();
        return 1;
    }

    long long total = 0, total_before[STEPS + 1];
    long per_step = N / STEPS;
    for (int step = 0; step < STEPS;) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        total_before[step] = total;
        long long part = 0, sum = 0;
        for (long i = step * per_step + rank; i < (step + 1) * per_step; i += size)
            part += (long long) i * i;

        if (step == STEPS / 2 && pid == VICTIM) {
            printf("[process %d] step %d: killing myself with SIGKILL\n", pid, step);
            fflush(stdout);
            raise(SIGKILL);
        }

        double t0 = now();
        int rc = MPI_Allreduce(&part, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len, cls;
            MPI_Error_class(rc, &cls);
            MPI_Error_string(rc, msg, &len);
            if (rank == 0)
                printf("[process %d] step %d: MPI_Allreduce failed (class %s): %s\n", pid, step,
                       cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER" : "other", msg);
            MPI_Comm world = MPI_COMM_WORLD;
            int recovered = MPI_Comm_dup(MPI_COMM_WORLD, &world);      /* FT-MPI MANUAL recovery */
            int *nfailed, *code, flag;
            MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &nfailed, &flag);
            MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_ERROR_FAILURE, &code, &flag);
            MPI_Error_string(*code, msg, &len);
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            /* the first step that failed anywhere, and the total before it */
            int first = step;
            rc = MPI_Allreduce(&step, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            if (rc != MPI_SUCCESS) {
                fprintf(stderr, "[process %d] the survivors could not agree on a step\n", pid);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            step = first;
            total = total_before[step];
            if (rank == 0)
                printf("[process %d] recovered in %.1f ms (%s): MPI_COMM_WORLD has %d processes; "
                       "%d failed: %s; redoing step %d\n", pid, (now() - t0) * 1e3,
                       recovered == MPI_SUCCESS ? "MPI_SUCCESS" : "error", size, *nfailed, msg,
                       step);
            continue;
        }
        total += sum;
        step++;
    }

    long long n = (long long) per_step * STEPS;
    long long expect = (n - 1) * n * (2 * n - 1) / 6;
    if (rank == 0)
        printf("[process %d] sum of i*i for i < %lld = %lld, expected %lld: %s (%d survivors)\n",
               pid, n, total, expect, total == expect ? "correct" : "WRONG", size);
    MPI_Finalize();
    return total == expect ? 0 : 1;
}
