/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A survivor that receives nothing after a death on its node (its
 * shared-memory queue left blocked by a process killed while writing into
 * it) must leave the job instead of holding the recovery up forever.
 *
 *   FTMPI_TEST_POINT=D:deaf ft_deaf VICTIM HOW
 *
 * VICTIM dies (HOW: kill or exit) while the others wait in a barrier;
 * process D then drops every control message it gets (the library's test
 * hook), so it never hears the recovery's decision. The others recover
 * (MANUAL, SHRINK: MPI_Comm_dup of MPI_COMM_WORLD) until the world holds
 * only them, which needs D to find itself deaf and end; then they check
 * the world's size and their ranks and reduce over it. Without the check
 * this test hangs. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 2, "VICTIM kill|exit", &rank, &size);
    int victim = atoi(argv[1]);
    const char *deaf_env = getenv("FTMPI_TEST_POINT");
    int deaf = -1;
    if (deaf_env == NULL || sscanf(deaf_env, "%d:deaf", &deaf) != 1 || !strstr(deaf_env, ":deaf"))
        deaf = -1;
    if (victim < 0 || victim >= size || deaf < 0 || deaf >= size || deaf == victim) {
        fprintf(stderr, "ft_deaf: needs FTMPI_TEST_POINT=D:deaf and VICTIM, two ranks of %d\n",
                size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ft_meetings_open(rank, size);
    if (rank == victim)
        ft_die_together(0, rank, argv[1], size, 0.05, argv[2]);
    ft_arrive(0);

    /* recover until the world is the survivors that still hear */
    int world_size = size, recoveries = 0, rc = MPI_SUCCESS;
    double start = ft_now();
    for (;;) {
        rc = MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_size(MPI_COMM_WORLD, &world_size);
        if (rc == MPI_SUCCESS && world_size == size - 2)
            break;
        if (ft_now() - start > 60) {
            CHECK(0, "world of %d processes after 60 s and %d recoveries", world_size,
                  recoveries);
            break;
        }
        if (rc != MPI_SUCCESS) {
            MPI_Comm x = FT_MPI_CHECK_RECOVER;
            if (MPI_Comm_dup(MPI_COMM_WORLD, &x) == MPI_SUCCESS)
                recoveries++;
        }
    }
    CHECK(rank != deaf, "the deaf process %d is still in the world", deaf);
    CHECK(recoveries >= 1, "no recovery");

    /* a SHRINK world of the others, in the order of their process ids */
    int new_rank, expected = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &new_rank);
    for (int p = 0; p < rank; p++)
        expected += p != victim && p != deaf;
    CHECK(new_rank == expected, "rank %d in the new world, expected %d", new_rank, expected);
    int sum = 0, want = 0;
    for (int p = 0; p < size; p++)
        want += p != victim && p != deaf ? p : 0;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == want, "sum of the survivors' first ranks %d, expected %d", sum, want);
    return ft_report();
}
