/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPI style: a conjugate-gradient solver that survives process deaths.
 *
 *   FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=auto \
 *       mpiexec -n 4 -inject-failure 2@1.5 ./cg_rebuild [GRID [ITERATIONS [EVERY [PAUSE_US]]]]
 *
 * Solves A x = b for a generated sparse symmetric positive definite A: a
 * five-point stencil on a GRID x GRID grid (default 256) with coefficients
 * that vary from edge to edge, the grid's rows dealt out in blocks. Every
 * EVERY iterations (default 20) the processes checkpoint x, r, p and rho
 * into a buddy's memory (libftmpi_ckpt). In REBUILD mode with AUTO
 * recovery, a death makes the library rebuild MPI_COMM_WORLD (a new
 * process takes the dead one's rank) and then call MPI_COMM_WORLD's error
 * handler, which longjmps back to the iteration loop; the survivors and
 * the replacement (whose MPI_Init returns MPI_INIT_RESTARTED_NODE) restore
 * the last checkpoint and go on from its iteration.
 *
 * Every floating-point sum is taken in a fixed order (dot products add the
 * processes' partial sums in rank order), so the run repeats bit for bit
 * from a checkpoint: the digest of x printed at the end is the one of the
 * failure-free run. PAUSE_US (default 0) sleeps in each iteration, so that
 * a failure injected at a given time lands mid-run on a fast machine.
 *
 * With RESTART_FILE=PREFIX the checkpoints go to files instead
 * (restart_file.h), as an application does without a fault-tolerant MPI:
 * run in the default mode, the job ends with the failure, and started
 * again it goes on from the last checkpoint in the files. */
#include <mpi.h>
#include <ftmpi_ckpt.h>
#include "restart_file.h"
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int grid, rank, size, lo, hi;    /* this process's grid rows [lo, hi) */
static double *x, *r, *p, *q, *b, *halo_lo, *halo_hi, *parts, rho;
static jmp_buf restart;
static volatile int recoveries;

/* coefficient of the edge between unknowns (i1, j1) and (i2, j2) */
static double edge(int i1, int j1, int i2, int j2)
{
    unsigned h = (unsigned) ((i1 + i2) * 7919 + (j1 + j2) * 104729);
    return 1.0 + (double) (h % 97) / 97.0;
}

/* q = A v, with the neighbours' rows of v in halo_lo / halo_hi */
static void apply(const double *v, double *out)
{
    for (int i = lo; i < hi; i++)
        for (int j = 0; j < grid; j++) {
            double vij = v[(i - lo) * grid + j], sum = 0.01 * vij;
            int di[4] = { -1, 1, 0, 0 }, dj[4] = { 0, 0, -1, 1 };
            for (int k = 0; k < 4; k++) {
                int ni = i + di[k], nj = j + dj[k];
                double c = edge(i, j, ni, nj), vn = 0;
                if (nj < 0 || nj >= grid || ni < 0 || ni >= grid)
                    vn = 0;     /* Dirichlet boundary */
                else if (ni < lo)
                    vn = halo_lo[nj];
                else if (ni >= hi)
                    vn = halo_hi[nj];
                else
                    vn = v[(ni - lo) * grid + nj];
                sum += c * (vij - vn);
            }
            out[(i - lo) * grid + j] = sum;
        }
}

static void exchange_halo(const double *v)
{
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int n = (hi - lo) * grid;
    MPI_Sendrecv(v, grid, MPI_DOUBLE, up, 1, halo_hi, grid, MPI_DOUBLE, down, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(v + n - grid, grid, MPI_DOUBLE, down, 2, halo_lo, grid, MPI_DOUBLE, up, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* the same bits on every process and in every run: partial sums added in
 * rank order */
static double dot(const double *u, const double *v)
{
    double part = 0, sum = 0;
    for (int k = 0; k < (hi - lo) * grid; k++)
        part += u[k] * v[k];
    MPI_Allgather(&part, 1, MPI_DOUBLE, parts, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int k = 0; k < size; k++)
        sum += parts[k];
    return sum;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *c = data;
    for (size_t k = 0; k < len; k++)
        h = (h ^ c[k]) * 0x100000001b3ULL;
    return h;
}

/* AUTO mode calls this once the world is rebuilt */
static void on_failure(MPI_Comm * comm, int *code, ...)
{
    recoveries++;
    longjmp(restart, 1);
}

int main(int argc, char **argv)
{
    static int restarted;
    static long start;
    long iterations, every, pause_us;
    FTMPI_Ckpt ckpt;
    MPI_Errhandler handler;
    restart_file_t files;

    restarted = MPI_Init(&argc, &argv) == MPI_INIT_RESTARTED_NODE;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    grid = argc > 1 ? atoi(argv[1]) : 256;
    iterations = argc > 2 ? atol(argv[2]) : 400;
    every = argc > 3 ? atol(argv[3]) : 20;
    pause_us = argc > 4 ? atol(argv[4]) : 0;
    if (grid < size || iterations < 1 || every < 1 || pause_us < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: cg_rebuild [GRID >= processes [ITERATIONS [EVERY "
                    "[PAUSE_US]]]]\n");
        MPI_Finalize();
        return 2;
    }
    lo = (int) ((long) grid * rank / size);
    hi = (int) ((long) grid * (rank + 1) / size);
    size_t n = (size_t) (hi - lo) * grid;
    x = calloc(n, sizeof(double));
    r = calloc(n, sizeof(double));
    p = calloc(n, sizeof(double));
    q = calloc(n, sizeof(double));
    b = calloc(n, sizeof(double));
    halo_lo = calloc(grid, sizeof(double));
    halo_hi = calloc(grid, sizeof(double));
    parts = calloc(size, sizeof(double));
    for (int i = lo; i < hi; i++)
        for (int j = 0; j < grid; j++)
            b[(i - lo) * grid + j] = 1.0 + (double) ((i * 13 + j * 7) % 11) / 11.0;

    FTMPI_Ckpt_create(&ckpt);
    FTMPI_Ckpt_register(ckpt, x, n * sizeof(double));
    FTMPI_Ckpt_register(ckpt, r, n * sizeof(double));
    FTMPI_Ckpt_register(ckpt, p, n * sizeof(double));
    FTMPI_Ckpt_register(ckpt, &rho, sizeof(rho));
    restart_file_init(&files, rank);
    restart_file_add(&files, x, n * sizeof(double));
    restart_file_add(&files, r, n * sizeof(double));
    restart_file_add(&files, p, n * sizeof(double));
    restart_file_add(&files, &rho, sizeof(rho));
    MPI_Comm_create_errhandler(on_failure, &handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);

    int rc = FTMPI_CKPT_ERR_NONE;
    if (setjmp(restart) || restarted) {
        /* survivors after the handler's longjmp, or a replacement: back
         * to the last checkpoint that every process completed */
        restarted = 0;
        if (recoveries > 10)
            MPI_Abort(MPI_COMM_WORLD, 1);
        rc = FTMPI_Ckpt_restore(ckpt, MPI_COMM_WORLD, &start);
        if (rc != FTMPI_CKPT_SUCCESS && rc != FTMPI_CKPT_ERR_NONE) {
            fprintf(stderr, "cg_rebuild: rank %d: restore failed: %s\n", rank,
                    FTMPI_Ckpt_error_string(rc));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else if (files.prefix && (start = restart_file_read(&files, MPI_COMM_WORLD)) >= 0) {
        rc = FTMPI_CKPT_SUCCESS;        /* a new job, from the files */
        if (rank == 0)
            printf("cg_rebuild: restarted from the files at iteration %ld\n", start);
    }
    if (rc == FTMPI_CKPT_ERR_NONE) {
        /* the start, or a failure before the first checkpoint */
        memset(x, 0, n * sizeof(double));
        memcpy(r, b, n * sizeof(double));
        memcpy(p, r, n * sizeof(double));
        rho = dot(r, r);
        start = 0;
    }

    for (long it = start; it < iterations; it++) {
        if (it % every == 0 && files.prefix)
            restart_file_write(&files, it);
        else if (it % every == 0)
            FTMPI_Ckpt_take(ckpt, MPI_COMM_WORLD, it);
        exchange_halo(p);
        apply(p, q);
        double alpha = rho / dot(p, q);
        for (size_t k = 0; k < n; k++) {
            x[k] += alpha * p[k];
            r[k] -= alpha * q[k];
        }
        double rho_next = dot(r, r), beta = rho_next / rho;
        rho = rho_next;
        for (size_t k = 0; k < n; k++)
            p[k] = r[k] + beta * p[k];
        if (pause_us)
            usleep(pause_us);
    }

    /* digest of the solution in rank order */
    uint64_t mine = fnv1a(0xcbf29ce484222325ULL, x, n * sizeof(double)), *all = NULL;
    int seen = recoveries, most;
    if (rank == 0)
        all = malloc(size * sizeof(uint64_t));
    MPI_Gather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Reduce(&seen, &most, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t digest = 0xcbf29ce484222325ULL;
        for (int k = 0; k < size; k++)
            digest = fnv1a(digest, &all[k], sizeof(uint64_t));
        printf("cg_rebuild: %dx%d grid, %d processes, %ld iterations, checkpoint every %ld\n",
               grid, grid, size, iterations, every);
        printf("cg_rebuild: residual norm %.17g\n", sqrt(rho));
        printf("cg_rebuild: solution digest %016" PRIx64 "\n", digest);
        printf("cg_rebuild: recoveries %d\n", most);
        free(all);
    }
    FTMPI_Ckpt_free(&ckpt);
    MPI_Finalize();
    return 0;
}
