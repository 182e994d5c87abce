/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* The checkpoint library (libftmpi_ckpt) under failures injected by the
 * launcher (MPIEXEC_INJECT_FAILURE), in whichever mode the job runs:
 *
 *   ckpt_modes [lost]
 *
 * Each process owns a block of numbers whose value after iteration t is a
 * known function of (owner, t). Every EVERY iterations the processes
 * checkpoint; after a failure they recover (MANUAL: MPI_Comm_dup) and
 * restore. A survivor must get back its blocks as they were at the step
 * restore returns; a REBUILD replacement the dead process's blocks; in
 * SHRINK and BLANK the dead process's buddy adopts its blocks and carries
 * them on. At the end every original block must be owned by exactly one
 * survivor and hold the value of the last iteration. With "lost", two
 * neighbours die together and restore must report FTMPI_CKPT_ERR_LOST on
 * every survivor. */
#include "ftmpi_test.h"
#include <ftmpi_ckpt.h>

#define ITERATIONS 120
#define EVERY 8
#define WORDS 1000
#define PAUSE_US 20000

static int nblocks, *owners;
static long long *blocks;       /* nblocks blocks of WORDS words, capacity: one per process */

static long long value(int owner, long t, int w)
{
    /* after iterations 0..t-1 */
    return (long long) owner * 1000003LL + (long long) w * 7919LL + t * (t + 1) / 2 * (owner + 1);
}

static void advance(long t)
{
    for (int b = 0; b < nblocks; b++)
        for (int w = 0; w < WORDS; w++)
            blocks[(size_t) b * WORDS + w] += (long long) (t + 1) * (owners[b] + 1);
}

static int holds_value(int b, long t)
{
    for (int w = 0; w < WORDS; w++)
        if (blocks[(size_t) b * WORDS + w] != value(owners[b], t, w))
            return 0;
    return 1;
}

/* Recovers (MANUAL mode: MPI_Comm_dup; a replacement has joined already)
 * and restores, again as long as failures interrupt it. */
static int recover_and_restore(FTMPI_Ckpt ckpt, int recover, long *step)
{
    for (int tries = 0; tries < 10; tries++) {
        MPI_Comm world;
        int rc;
        if (recover)
            MPI_Comm_dup(MPI_COMM_WORLD, &world);
        recover = 1;
        rc = FTMPI_Ckpt_restore(ckpt, MPI_COMM_WORLD, step);
        if (rc <= 0)
            return rc;          /* done, or one of the library's verdicts */
    }
    return FTMPI_CKPT_ERR_ARG;
}

int main(int argc, char **argv)
{
    int rc = MPI_Init(&argc, &argv), rank, size, pid, restarted = rc == MPI_INIT_RESTARTED_NODE;
    int expect_lost = argc > 1 && !strcmp(argv[1], "lost"), recoveries = 0;
    FTMPI_Ckpt ckpt;
    long t = 0, step;

    MPI_Comm_rank(MPI_COMM_WORLD, &pid);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    owners = malloc(size * sizeof(int));
    blocks = malloc((size_t) size * WORDS * sizeof(long long));
    nblocks = 1;
    owners[0] = pid;
    for (int w = 0; w < WORDS; w++)
        blocks[w] = value(pid, 0, w);

    /* fixed-capacity buffers: the registration never changes */
    CHECK(FTMPI_Ckpt_create(&ckpt) == FTMPI_CKPT_SUCCESS, "create");
    FTMPI_Ckpt_register(ckpt, &nblocks, sizeof(nblocks));
    FTMPI_Ckpt_register(ckpt, owners, size * sizeof(int));
    FTMPI_Ckpt_register(ckpt, blocks, (size_t) size * WORDS * sizeof(long long));
    if (!restarted) {
        /* (not in a replacement: a failure may be pending there already,
         * and every call fails until the recovery) */
        rc = FTMPI_Ckpt_restore(ckpt, MPI_COMM_SELF, &step);
        CHECK(rc == FTMPI_CKPT_ERR_NONE, "restore before any checkpoint: %s",
              FTMPI_Ckpt_error_string(rc));
    }

    while (t < ITERATIONS || restarted) {
        long long sum, mine = blocks[0];
        if (!restarted) {
            if (t % EVERY == 0 && (rc = FTMPI_Ckpt_take(ckpt, MPI_COMM_WORLD, t)) != MPI_SUCCESS)
                goto recover;
            advance(t);
            usleep(PAUSE_US);
            /* talk every iteration, so that a failure is seen promptly */
            if ((rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD)))
                goto recover;
            t++;
            continue;
        }

      recover:
        recoveries += !restarted;
        rc = recover_and_restore(ckpt, !restarted, &step);
        if (rc == FTMPI_CKPT_ERR_LOST && expect_lost) {
            printf("rank %d: restore reports the lost state: %s\n", pid,
                   FTMPI_Ckpt_error_string(rc));
            return ft_report();
        }
        CHECK(rc == FTMPI_CKPT_SUCCESS, "restore: %s", FTMPI_Ckpt_error_string(rc));
        if (rc != FTMPI_CKPT_SUCCESS)
            return ft_report();
        CHECK(!expect_lost, "restore succeeded although two neighbours died");
        CHECK(step % EVERY == 0 && (restarted || step <= t), "restored step %ld (at iteration %ld)",
              step, t);
        t = step;
        for (int b = 0; b < nblocks; b++)
            CHECK(holds_value(b, t), "block of %d wrong after restore at %ld", owners[b], t);
        int adopted;
        FTMPI_Ckpt_adopted(ckpt, &adopted);
        for (int i = 0; i < adopted; i++) {
            void *buf;
            size_t bytes;
            int old, *their_owners, their_n;
            FTMPI_Ckpt_adopted_buffer(ckpt, i, 0, &buf, &bytes, &old);
            their_n = *(int *) buf;
            FTMPI_Ckpt_adopted_buffer(ckpt, i, 1, &buf, &bytes, NULL);
            their_owners = buf;
            FTMPI_Ckpt_adopted_buffer(ckpt, i, 2, &buf, &bytes, NULL);
            for (int b = 0; b < their_n; b++) {
                owners[nblocks] = their_owners[b];
                memcpy(blocks + (size_t) nblocks * WORDS, (long long *) buf + (size_t) b * WORDS,
                       WORDS * sizeof(long long));
                CHECK(holds_value(nblocks, t), "adopted block of %d wrong", owners[nblocks]);
                nblocks++;
            }
            printf("rank %d: adopted the state of rank %d (%d block(s)) at step %ld\n", pid, old,
                   their_n, t);
        }
        if (restarted)
            printf("rank %d: replacement restored at step %ld\n", pid, t);
        restarted = 0;
    }

    /* every original block exactly once, with its final value */
    int *count = calloc(size, sizeof(int)), *total = calloc(size, sizeof(int));
    for (int b = 0; b < nblocks; b++) {
        count[owners[b]]++;
        CHECK(holds_value(b, ITERATIONS), "final value of the block of %d", owners[b]);
    }
    rc = MPI_Allreduce(count, total, size, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "final allreduce failed");
    for (int o = 0; o < size && rc == MPI_SUCCESS; o++)
        CHECK(total[o] == 1, "the block of %d is held %d times", o, total[o]);
    CHECK(!expect_lost, "no state was lost");
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d (now %d of %d): %d block(s), %d recovery(ies)\n", pid, rank, size, nblocks,
           recoveries);
    free(count);
    free(total);
    FTMPI_Ckpt_free(&ckpt);
    return ft_report();
}
