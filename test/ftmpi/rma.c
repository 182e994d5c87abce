/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* One-sided communication (MPICH's generic RMA over ftdev's active
 * messages): fence epochs with put, get and accumulate, passive-target
 * lock/unlock, and transfers larger than one active message. */
#include "ftmpi_test.h"

#define SMALL 64
#define BIG   (1 << 18)         /* 256 Ki ints = 1 MiB, above the eager limit */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    int *base;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(BIG * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &base, &win));
    for (int i = 0; i < BIG; i++)
        base[i] = -1;
    int *src = malloc(BIG * sizeof(int)), *dst = malloc(BIG * sizeof(int));
    for (int i = 0; i < BIG; i++)
        src[i] = rank * 1000000 + i;

    /* put to the right neighbour, small and big */
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(src, SMALL, MPI_INT, right, 0, SMALL, MPI_INT, win));
    CHECK_MPI(MPI_Put(src, BIG - SMALL, MPI_INT, right, SMALL, BIG - SMALL, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < SMALL; i++)
        CHECK(base[i] == left * 1000000 + i, "put [%d]=%d", i, base[i]);
    for (int i = SMALL; i < BIG && test_errors < 10; i++)
        CHECK(base[i] == left * 1000000 + i - SMALL, "big put [%d]=%d", i, base[i]);

    /* get the whole window of the left neighbour */
    CHECK_MPI(MPI_Get(dst, BIG, MPI_INT, left, 0, BIG, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    int ll = (left + size - 1) % size;
    for (int i = 0; i < SMALL; i++)
        CHECK(dst[i] == ll * 1000000 + i, "get [%d]=%d", i, dst[i]);

    /* everyone accumulates into rank 0 */
    for (int i = 0; i < SMALL; i++)
        base[i] = 0;
    CHECK_MPI(MPI_Win_fence(0, win));
    int ones[SMALL];
    for (int i = 0; i < SMALL; i++)
        ones[i] = rank + 1;
    CHECK_MPI(MPI_Accumulate(ones, SMALL, MPI_INT, 0, 0, SMALL, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0)
        for (int i = 0; i < SMALL; i++)
            CHECK(base[i] == size * (size + 1) / 2, "accumulate [%d]=%d", i, base[i]);

    /* passive target: fetch-and-add on rank 0's first element */
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0)
        base[0] = 0;
    CHECK_MPI(MPI_Win_fence(0, win));
    int one = 1, old;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    CHECK(old >= 0 && old < size, "fetch_and_op returned %d", old);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK(base[0] == size, "after fetch_and_op: %d", base[0]);
        CHECK_MPI(MPI_Win_unlock(0, win));
    }

    CHECK_MPI(MPI_Win_free(&win));
    free(src);
    free(dst);
    return test_finish();
}
