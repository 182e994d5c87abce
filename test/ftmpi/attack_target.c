/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* The job the attack tests (test/ftmpi/scripts/attack_*.sh) attack: the
 * processes pass a checked block around a ring (MPI_Sendrecv) and add up
 * checked numbers (MPI_Allreduce) every 5 ms, for at least MIN_SECONDS
 * and until the file $ATTACK_STOP_FILE exists (90 s at most). Rank 0
 * creates $ATTACK_READY_FILE once every process has passed the first
 * round (MPI_Init done everywhere, heartbeat threads running). With
 * "ckpt" the processes also checkpoint with libftmpi_ckpt every 50 rounds
 * (its trace opens the name of MPI's trace at the first checkpoint and
 * appends to it), from the round where rank 0 sees $ATTACK_CKPT_GO_FILE
 * (when set; else from the first). Any error is counted and ends the loop;
 * each process reports " rank R: No Errors" or its errors.
 *
 *   attack_target MIN_SECONDS [ckpt] */
#include "ftmpi_test.h"
#include <ftmpi_ckpt.h>

#define WORDS 1024
#define MAX_SECONDS 90

int main(int argc, char **argv)
{
    int rank, size, rc, use_ckpt, bad = 0;
    long iter;
    static int out[WORDS], in[WORDS], state[WORDS];
    FTMPI_Ckpt ckpt = NULL;

    ft_init(&argc, &argv, 1, "MIN_SECONDS [ckpt]", &rank, &size);
    double min = atof(argv[1]), start = ft_now();
    const char *ready = getenv("ATTACK_READY_FILE"), *stop = getenv("ATTACK_STOP_FILE");
    const char *go = getenv("ATTACK_CKPT_GO_FILE");
    long first_ckpt = -1;
    use_ckpt = argc > 2 && !strcmp(argv[2], "ckpt");
    printf("attack_target: rank %d pid %d\n", rank, (int) getpid());
    fflush(stdout);
    if (use_ckpt) {
        CHECK(FTMPI_Ckpt_create(&ckpt) == FTMPI_CKPT_SUCCESS, "FTMPI_Ckpt_create");
        FTMPI_Ckpt_register(ckpt, state, sizeof(state));
    }

    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (iter = 0;; iter++) {
        for (int w = 0; w < WORDS; w++) {
            out[w] = (int) (iter * 7 + rank * WORDS + w);
            state[w] = (int) (iter + w);
        }
        rc = MPI_Sendrecv(out, WORDS, MPI_INT, right, 5, in, WORDS, MPI_INT, left, 5,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_MPI(rc);
        if (rc != MPI_SUCCESS)
            break;
        for (int w = 0; w < WORDS; w++)
            bad += in[w] != (int) (iter * 7 + left * WORDS + w);

        long long mine[3] = { (long long) (rank + 1) * (iter + 1), 0, 0 }, sum[3];
        if (rank == 0) {
            double t = ft_now() - start;
            mine[1] = t >= MAX_SECONDS || (t >= min && (stop == NULL || access(stop, F_OK) == 0));
            mine[2] = go == NULL || access(go, F_OK) == 0;
        }
        rc = MPI_Allreduce(mine, sum, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK_MPI(rc);
        if (rc != MPI_SUCCESS)
            break;
        CHECK(sum[0] == (long long) (iter + 1) * size * (size + 1) / 2,
              "round %ld: sum %lld", iter, sum[0]);
        if (iter == 0 && rank == 0 && ready) {
            FILE *f = fopen(ready, "w");
            if (f)
                fclose(f);
        }
        if (use_ckpt && first_ckpt < 0 && sum[2])
            first_ckpt = iter;
        if (use_ckpt && first_ckpt >= 0 && (iter - first_ckpt) % 50 == 0) {
            rc = FTMPI_Ckpt_take(ckpt, MPI_COMM_WORLD, iter);
            CHECK(rc == MPI_SUCCESS, "FTMPI_Ckpt_take at round %ld: %d", iter, rc);
            if (rc != MPI_SUCCESS)
                break;
        }
        if (sum[1])
            break;
        usleep(5000);
    }
    CHECK(bad == 0, "%d words of the ring's blocks wrong", bad);
    CHECK(!use_ckpt || first_ckpt >= 0, "no checkpoint was taken");
    printf("attack_target: rank %d: %ld rounds in %.1f s\n", rank, iter + 1, ft_now() - start);
    if (ckpt)
        FTMPI_Ckpt_free(&ckpt);
    return ft_report();
}
