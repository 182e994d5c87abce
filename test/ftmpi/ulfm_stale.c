/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* What a ULFM communicator leaves behind must not reach its successors.
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_stale VICTIM kill|exit revoke|norevoke
 *
 * Over a dup of MPI_COMM_WORLD every process but rank 0 sends rank 0 two
 * messages it never receives: a small one and a 1 MiB one (rendezvous),
 * tag 7 and 8. Rank 0 waits until it sees them (MPI_Iprobe). Then VICTIM
 * dies; the survivors revoke the communicator (or not: norevoke), shrink it
 * and free it, and its senders give up their large sends. Its context id
 * is free again, and the communicators made next (a dup and a split of the
 * shrunk one) are the ones MPICH gives it to: over each, every survivor
 * sends rank 0 new messages with the same tags, and rank 0 must receive
 * exactly those, never the old ones. */
#include "ftmpi_test.h"
#include <mpi-ext.h>

#define BIG (1 << 20)
#define SMALL_TAG 7
#define BIG_TAG 8

static int value(int world_rank, int round)
{
    return 1000 * round + world_rank;
}

/* Every member but rank 0 sends rank 0 this round's two messages; rank 0
 * receives them (when `take`) and checks them. */
static void exchange(MPI_Comm comm, int round, int take, MPI_Request * big_req, int *big)
{
    int rank, size, world_rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (rank != 0) {
        int v = value(world_rank, round);
        for (int i = 0; i < BIG / (int) sizeof(int); i++)
            big[i] = v;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, SMALL_TAG, comm));
        CHECK_MPI(MPI_Isend(big, BIG / (int) sizeof(int), MPI_INT, 0, BIG_TAG, comm, big_req));
        if (take)
            CHECK_MPI(MPI_Wait(big_req, MPI_STATUS_IGNORE));
        return;
    }
    int *in = malloc(BIG), *ranks = malloc(size * sizeof(int));
    int *world = malloc(size * sizeof(int));
    MPI_Group g, wg;
    for (int r = 0; r < size; r++)
        ranks[r] = r;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, size, ranks, wg, world);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    for (int r = 1; r < size; r++) {
        int v = -1, from = world[r];
        if (!take) {
            /* the message has arrived and waits, unmatched */
            int flag = 0;
            while (!flag)
                CHECK_MPI(MPI_Iprobe(r, BIG_TAG, comm, &flag, MPI_STATUS_IGNORE));
            continue;
        }
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, r, SMALL_TAG, comm, MPI_STATUS_IGNORE));
        CHECK(v == value(from, round), "round %d: the small message of rank %d holds %d, "
              "expected %d (%s)", round, r, v, value(from, round),
              v == value(from, 0) ? "the one sent over the freed communicator" : "garbage");
        in[0] = in[BIG / sizeof(int) - 1] = -1;
        CHECK_MPI(MPI_Recv(in, BIG / (int) sizeof(int), MPI_INT, r, BIG_TAG, comm,
                           MPI_STATUS_IGNORE));
        CHECK(in[0] == value(from, round) && in[BIG / sizeof(int) - 1] == value(from, round),
              "round %d: the large message of rank %d holds %d ... %d, expected %d", round, r,
              in[0], in[BIG / sizeof(int) - 1], value(from, round));
    }
    free(in);
    free(ranks);
    free(world);
}

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 3, "VICTIM kill|exit revoke|norevoke", &rank, &size);
    int victim = atoi(argv[1]), revoke = strcmp(argv[3], "revoke") == 0;
    int *big = malloc(BIG);
    MPI_Request big_req = MPI_REQUEST_NULL;
    MPI_Comm first, shrunk;

    CHECK(victim > 0 && victim < size, "VICTIM must be a rank other than 0");
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &first));
    MPI_Comm_set_errhandler(first, MPI_ERRORS_RETURN);
    ft_meetings_open(rank, size);
    exchange(first, 0, 0, &big_req, big);
    CHECK_MPI(MPI_Barrier(first));
    /* the victim dies once everyone is past the barrier */
    if (rank == victim)
        ft_die_together(0, rank, argv[1], size, 0.0, argv[2]);
    ft_arrive(0);

    /* a failure shows up on the communicator; its collectives fail */
    int rc = MPI_SUCCESS;
    for (int i = 0; i < 1000 && rc == MPI_SUCCESS; i++)
        rc = MPI_Barrier(first);
    CHECK(rc != MPI_SUCCESS, "barriers over the communicator with a dead member succeed");
    if (revoke)
        CHECK_MPI(MPIX_Comm_revoke(first));
    CHECK_MPI(MPIX_Comm_shrink(first, &shrunk));
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    /* the large send is given up: it fails (revoked) or was never taken */
    if (big_req != MPI_REQUEST_NULL) {
        if (!revoke)
            MPI_Cancel(&big_req);
        MPI_Wait(&big_req, MPI_STATUS_IGNORE);
    }
    CHECK_MPI(MPI_Comm_free(&first));
    /* the sender's buffer is gone (and changed) before anyone could read it */
    memset(big, 0xee, BIG);
    free(big);
    big = malloc(BIG);

    MPI_Comm next;
    CHECK_MPI(MPI_Comm_dup(shrunk, &next));
    MPI_Comm_set_errhandler(next, MPI_ERRORS_RETURN);
    exchange(next, 1, 1, &big_req, big);
    CHECK_MPI(MPI_Comm_free(&next));
    CHECK_MPI(MPI_Comm_split(shrunk, 0, rank, &next));
    MPI_Comm_set_errhandler(next, MPI_ERRORS_RETURN);
    exchange(next, 2, 1, &big_req, big);
    CHECK_MPI(MPI_Comm_free(&next));
    CHECK_MPI(MPI_Barrier(shrunk));
    CHECK_MPI(MPI_Comm_free(&shrunk));
    free(big);
    return ft_report();
}
