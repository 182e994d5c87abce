/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Communicator and group creation, and traffic on what was created:
 * dup, split, create, create_group, intercommunicators and their merge,
 * Cartesian topology with neighbour collectives. */
#include "ftmpi_test.h"

/* Ring shift on comm: each rank must get its left neighbour's rank. */
static void ring(MPI_Comm comm, const char *what)
{
    int rank, size, in = -1;
    MPI_Status st;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 1, &in, 1, MPI_INT,
                           (rank + size - 1) % size, 1, comm, &st));
    CHECK(in == (rank + size - 1) % size && st.MPI_SOURCE == in, "%s: got %d from %d", what, in,
          st.MPI_SOURCE);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm dup, half, rev, created, grouped;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ring(dup, "dup");

    /* messages on the dup must not match receives on the world */
    int v = 1, w = 2;
    MPI_Request r;
    CHECK_MPI(MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, rank, 0, &v, 1, MPI_INT, rank, 0, dup,
                           MPI_STATUS_IGNORE));
    int flag;
    CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag && v == rank, "dup traffic leaked into the world");
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, rank, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));

    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    ring(half, "split");
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev));
    ring(rev, "reversed split");
    int rrank;
    MPI_Comm_rank(rev, &rrank);
    CHECK(rrank == size - 1 - rank, "reversed rank %d", rrank);

    MPI_Group world_group, even_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int *evens = malloc(size * sizeof(int)), neven = 0;
    for (int i = 0; i < size; i += 2)
        evens[neven++] = i;
    MPI_Group_incl(world_group, neven, evens, &even_group);
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, even_group, &created));
    CHECK((rank % 2 == 0) == (created != MPI_COMM_NULL), "comm_create membership");
    if (created != MPI_COMM_NULL) {
        ring(created, "create");
        MPI_Comm_free(&created);
    }
    if (rank % 2 == 0) {
        CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, even_group, 5, &grouped));
        ring(grouped, "create_group");
        MPI_Comm_free(&grouped);
    }
    int result;
    MPI_Group g2;
    MPI_Comm_group(half, &g2);
    MPI_Group_compare(g2, even_group, &result);
    CHECK((rank % 2 == 0) == (result == MPI_IDENT), "group compare %d", result);
    MPI_Group_free(&g2);
    MPI_Group_free(&even_group);
    MPI_Group_free(&world_group);
    free(evens);

    /* intercommunicator between evens and odds, then merged */
    if (size >= 2) {
        MPI_Comm inter, merged;
        int remote_leader = rank % 2 == 0 ? 1 : 0;
        CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 9, &inter));
        int rsize, hrank;
        MPI_Comm_remote_size(inter, &rsize);
        MPI_Comm_rank(half, &hrank);
        CHECK(rsize == (rank % 2 == 0 ? size / 2 : (size + 1) / 2), "remote size %d", rsize);
        if (hrank < rsize) {
            int in = -1;
            MPI_Status st;
            CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, hrank, 3, &in, 1, MPI_INT, hrank, 3, inter,
                                   &st));
            CHECK(in == (rank ^ 1) && st.MPI_SOURCE == hrank, "intercomm got %d from %d", in,
                  st.MPI_SOURCE);
        }
        int bval = rank % 2 == 0 ? 1234 : -1;
        if (rank % 2 == 0)
            CHECK_MPI(MPI_Bcast(&bval, 1, MPI_INT, hrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
        else
            CHECK_MPI(MPI_Bcast(&bval, 1, MPI_INT, 0, inter));
        CHECK(bval == 1234, "intercomm bcast %d", bval);
        CHECK_MPI(MPI_Intercomm_merge(inter, rank % 2, &merged));
        ring(merged, "merged");
        MPI_Comm_free(&merged);
        MPI_Comm_free(&inter);
    }

    /* periodic 1-D Cartesian grid: neighbour collectives */
    MPI_Comm cart;
    int dims[1] = { size }, periods[1] = { 1 };
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    int src, dst, crank, nb[2] = { -1, -1 };
    MPI_Comm_rank(cart, &crank);
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    CHECK_MPI(MPI_Neighbor_allgather(&crank, 1, MPI_INT, nb, 1, MPI_INT, cart));
    CHECK(nb[0] == src && nb[1] == dst, "neighbor_allgather %d %d (expected %d %d)", nb[0],
          nb[1], src, dst);
    ring(cart, "cart");
    MPI_Comm_free(&cart);

    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    return test_finish();
}
