/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Every blocking and nonblocking collective on MPI_COMM_WORLD and on a
 * communicator whose ranks are permuted, with checked results. */
#include "ftmpi_test.h"

#define N 100

static void run(MPI_Comm comm, int nonblocking)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Request r;
#define COLL(blocking_call, nb_call)                                    \
    do {                                                                \
        if (nonblocking) {                                              \
            CHECK_MPI(nb_call);                                         \
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));                 \
        } else {                                                        \
            CHECK_MPI(blocking_call);                                   \
        }                                                               \
    } while (0)

    int *a = malloc(N * size * sizeof(int)), *b = malloc(N * size * sizeof(int));
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    MPI_Datatype *types = malloc(size * sizeof(MPI_Datatype));

    COLL(MPI_Barrier(comm), MPI_Ibarrier(comm, &r));

    for (int root = 0; root < size; root++) {
        for (int i = 0; i < N; i++)
            a[i] = rank == root ? root * 1000 + i : -1;
        COLL(MPI_Bcast(a, N, MPI_INT, root, comm), MPI_Ibcast(a, N, MPI_INT, root, comm, &r));
        for (int i = 0; i < N; i++)
            CHECK(a[i] == root * 1000 + i, "bcast root %d [%d]=%d", root, i, a[i]);

        for (int i = 0; i < N; i++)
            a[i] = rank + i;
        COLL(MPI_Reduce(a, b, N, MPI_INT, MPI_SUM, root, comm),
             MPI_Ireduce(a, b, N, MPI_INT, MPI_SUM, root, comm, &r));
        if (rank == root)
            for (int i = 0; i < N; i++)
                CHECK(b[i] == size * (size - 1) / 2 + size * i, "reduce [%d]=%d", i, b[i]);

        for (int i = 0; i < N; i++)
            a[i] = rank * N + i;
        COLL(MPI_Gather(a, N, MPI_INT, b, N, MPI_INT, root, comm),
             MPI_Igather(a, N, MPI_INT, b, N, MPI_INT, root, comm, &r));
        if (rank == root)
            for (int i = 0; i < N * size; i++)
                CHECK(b[i] == i, "gather [%d]=%d", i, b[i]);

        for (int i = 0; i < size; i++) {
            counts[i] = i + 1;
            displs[i] = i * N;
        }
        COLL(MPI_Gatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, root, comm),
             MPI_Igatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, root, comm, &r));
        if (rank == root)
            for (int p = 0; p < size; p++)
                for (int i = 0; i <= p; i++)
                    CHECK(b[p * N + i] == p * N + i, "gatherv [%d][%d]", p, i);

        for (int i = 0; i < N * size; i++)
            a[i] = rank == root ? i : -1;
        COLL(MPI_Scatter(a, N, MPI_INT, b, N, MPI_INT, root, comm),
             MPI_Iscatter(a, N, MPI_INT, b, N, MPI_INT, root, comm, &r));
        for (int i = 0; i < N; i++)
            CHECK(b[i] == rank * N + i, "scatter [%d]=%d", i, b[i]);
        COLL(MPI_Scatterv(a, counts, displs, MPI_INT, b, rank + 1, MPI_INT, root, comm),
             MPI_Iscatterv(a, counts, displs, MPI_INT, b, rank + 1, MPI_INT, root, comm, &r));
        for (int i = 0; i <= rank; i++)
            CHECK(b[i] == rank * N + i, "scatterv [%d]=%d", i, b[i]);
    }

    for (int i = 0; i < N; i++)
        a[i] = (rank + 1) * (i % 3 + 1);
    COLL(MPI_Allreduce(a, b, N, MPI_INT, MPI_MAX, comm),
         MPI_Iallreduce(a, b, N, MPI_INT, MPI_MAX, comm, &r));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == size * (i % 3 + 1), "allreduce max [%d]=%d", i, b[i]);

    double d = rank + 1.5, dsum;
    COLL(MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, comm),
         MPI_Iallreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, comm, &r));
    CHECK(dsum == size * (size - 1) / 2.0 + 1.5 * size, "allreduce double %g", dsum);

    struct { double v; int i; } mi = { (double) ((rank * 7) % size), rank }, mo;
    COLL(MPI_Allreduce(&mi, &mo, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm),
         MPI_Iallreduce(&mi, &mo, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm, &r));
    CHECK(mo.v == size - 1, "maxloc value %g", mo.v);

    for (int i = 0; i < N; i++)
        a[i] = rank * N + i;
    COLL(MPI_Allgather(a, N, MPI_INT, b, N, MPI_INT, comm),
         MPI_Iallgather(a, N, MPI_INT, b, N, MPI_INT, comm, &r));
    for (int i = 0; i < N * size; i++)
        CHECK(b[i] == i, "allgather [%d]=%d", i, b[i]);

    for (int i = 0; i < size; i++) {
        counts[i] = i + 1;
        displs[i] = i * N;
    }
    COLL(MPI_Allgatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, comm),
         MPI_Iallgatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, comm, &r));
    for (int p = 0; p < size; p++)
        for (int i = 0; i <= p; i++)
            CHECK(b[p * N + i] == p * N + i, "allgatherv [%d][%d]", p, i);

    for (int i = 0; i < N * size; i++)
        a[i] = rank * 100000 + i;
    COLL(MPI_Alltoall(a, N, MPI_INT, b, N, MPI_INT, comm),
         MPI_Ialltoall(a, N, MPI_INT, b, N, MPI_INT, comm, &r));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < N; i++)
            CHECK(b[p * N + i] == p * 100000 + rank * N + i, "alltoall [%d][%d]", p, i);

    int *scounts = malloc(size * sizeof(int)), *sdispls = malloc(size * sizeof(int));
    int *rcounts = malloc(size * sizeof(int)), *rdispls = malloc(size * sizeof(int));
    for (int p = 0; p < size; p++) {
        scounts[p] = p + 1;     /* to p: p+1 elements */
        sdispls[p] = p * N;
        rcounts[p] = rank + 1;  /* from p: rank+1 elements */
        rdispls[p] = p * N;
        types[p] = MPI_INT;
    }
    COLL(MPI_Alltoallv(a, scounts, sdispls, MPI_INT, b, rcounts, rdispls, MPI_INT, comm),
         MPI_Ialltoallv(a, scounts, sdispls, MPI_INT, b, rcounts, rdispls, MPI_INT, comm, &r));
    for (int p = 0; p < size; p++)
        for (int i = 0; i <= rank; i++)
            CHECK(b[p * N + i] == p * 100000 + rank * N + i, "alltoallv [%d][%d]", p, i);
    for (int p = 0; p < size; p++) {
        sdispls[p] *= sizeof(int);
        rdispls[p] *= sizeof(int);
    }
    COLL(MPI_Alltoallw(a, scounts, sdispls, types, b, rcounts, rdispls, types, comm),
         MPI_Ialltoallw(a, scounts, sdispls, types, b, rcounts, rdispls, types, comm, &r));
    for (int p = 0; p < size; p++)
        for (int i = 0; i <= rank; i++)
            CHECK(b[p * N + i] == p * 100000 + rank * N + i, "alltoallw [%d][%d]", p, i);

    for (int i = 0; i < N * size; i++)
        a[i] = rank + i;
    COLL(MPI_Reduce_scatter_block(a, b, N, MPI_INT, MPI_SUM, comm),
         MPI_Ireduce_scatter_block(a, b, N, MPI_INT, MPI_SUM, comm, &r));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == size * (size - 1) / 2 + size * (rank * N + i), "reduce_scatter_block [%d]",
              i);
    for (int p = 0; p < size; p++)
        counts[p] = p + 1;
    int off = rank * (rank + 1) / 2;
    COLL(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, comm),
         MPI_Ireduce_scatter(a, b, counts, MPI_INT, MPI_SUM, comm, &r));
    for (int i = 0; i <= rank; i++)
        CHECK(b[i] == size * (size - 1) / 2 + size * (off + i), "reduce_scatter [%d]=%d", i,
              b[i]);

    int v = rank + 1, s = -1;
    COLL(MPI_Scan(&v, &s, 1, MPI_INT, MPI_SUM, comm),
         MPI_Iscan(&v, &s, 1, MPI_INT, MPI_SUM, comm, &r));
    CHECK(s == (rank + 1) * (rank + 2) / 2, "scan %d", s);
    s = -1;
    COLL(MPI_Exscan(&v, &s, 1, MPI_INT, MPI_SUM, comm),
         MPI_Iexscan(&v, &s, 1, MPI_INT, MPI_SUM, comm, &r));
    if (rank > 0)
        CHECK(s == rank * (rank + 1) / 2, "exscan %d", s);

    free(a);
    free(b);
    free(counts);
    free(displs);
    free(types);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm permuted;
    MPI_Comm_split(MPI_COMM_WORLD, 0, (rank * 3 + 1) % size, &permuted);
    for (int nb = 0; nb < 2; nb++) {
        run(MPI_COMM_WORLD, nb);
        run(permuted, nb);
    }
    MPI_Comm_free(&permuted);
    return test_finish();
}
