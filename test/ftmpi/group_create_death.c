/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A group collective that leaves the dead out completes.
 *
 *   group_create_death VICTIM kill|exit
 *
 * (ULFM or IGNORE mode.) The survivors create communicators of their own
 * group with MPI_Comm_create_group over MPI_COMM_WORLD, round after round,
 * and reduce over each; the victim, which is not in the group, dies at a
 * random moment while they do. Its death must not cut the creation short:
 * every survivor gets every communicator, and the sums are right (before
 * the fix, the member that learned of the death first left the creation
 * with an error and the others waited for it for ever). A collective over
 * MPI_COMM_WORLD itself still fails. */
#include "ftmpi_test.h"

#define ROUNDS 300

int main(int argc, char **argv)
{
    int rank, size, rc;
    ft_init(&argc, &argv, 2, "VICTIM kill|exit", &rank, &size);
    int victim = atoi(argv[1]);
    const char *how = argv[2];
    CHECK(victim >= 0 && victim < size, "victim %d is not a rank of %d processes", victim, size);

    MPI_Group world, group;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_excl(world, 1, &victim, &group);
    ft_meetings_open(rank, size);

    if (rank == victim) {
        /* somewhere in the first few dozen rounds */
        srand((unsigned) (ft_now() * 1e6));
        ft_arrive(0);
        ft_wait_for(&ft_shared->arrived[0], size, "waiting for the survivors to start");
        ft_sleep((rand() % 20000) * 1e-6);
        ft_die(how);
    }

    ft_arrive(0);
    int expect = 0;
    for (int r = 0; r < size; r++)
        expect += r == victim ? 0 : r;
    int round;
    for (round = 0; round < ROUNDS; round++) {
        MPI_Comm comm = MPI_COMM_NULL;
        rc = MPI_Comm_create_group(MPI_COMM_WORLD, group, round, &comm);
        if (rc != MPI_SUCCESS || comm == MPI_COMM_NULL)
            break;
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        int sum = -1;
        rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
        MPI_Comm_free(&comm);
        if (rc != MPI_SUCCESS)
            break;
        CHECK(sum == expect, "round %d: sum %d over the group, expected %d", round, sum, expect);
    }
    CHECK(round == ROUNDS, "round %d: group creation or reduction failed (rc %d)", round, rc);

    /* the victim is dead by now (it died within 20 ms of the start); a
     * collective of the whole world fails once that is known */
    rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS, "barrier over MPI_COMM_WORLD with a dead member succeeded");

    MPI_Group_free(&group);
    MPI_Group_free(&world);
    return ft_report();
}
