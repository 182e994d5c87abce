/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* One-sided communication when a process of the window dies: nothing
 * hangs, the synchronizations that need the dead process fail.
 *
 *   ft_rma VICTIM kill|exit fence|lock return|default
 *
 * fence:  every process puts to its right neighbour between fences; VICTIM
 *         dies after a few epochs, and the survivors' next fences fail
 *         instead of waiting for it.
 * lock:   the survivors lock VICTIM's window, get from it and unlock, in a
 *         loop; once VICTIM is dead a lock or unlock fails. In IGNORE mode
 *         a passive-target epoch with a live process still works after.
 * return: the window has MPI_ERRORS_RETURN; default: the window keeps its
 *         default handler, under which an FT-MPI program gets the failure
 *         back too (MPI_ERRORS_ARE_FATAL would have ended the job).
 *
 * After the failure the survivors recover (MPI_Comm_dup of MPI_COMM_WORLD,
 * unless IGNORE mode) and check that a new window works. */
#include "ftmpi_test.h"

#define EPOCHS_BEFORE_DEATH 5
#define MAX_EPOCHS 100000

static int ignore_mode(void)
{
    return test_env_is("FTMPI_RECOVERY_MODE", "ignore");
}

static MPI_Win make_window(MPI_Comm comm, int *slots, int use_return)
{
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(slots, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &win));
    if (use_return)
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    return win;
}

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 4, "VICTIM kill|exit fence|lock return|default", &rank, &size);
    int victim = atoi(argv[1]);
    const char *how = argv[2];
    int lock = strcmp(argv[3], "lock") == 0, use_return = strcmp(argv[4], "return") == 0;
    int slots[4] = { -1, -1, -1, -1 };
    int right = (rank + 1) % size, rc = MPI_SUCCESS, epoch;

    MPI_Win win = make_window(MPI_COMM_WORLD, slots, use_return);
    CHECK_MPI(MPI_Win_fence(0, win));
    if (!lock) {
        for (epoch = 0; epoch < MAX_EPOCHS; epoch++) {
            if (rank == victim && epoch == EPOCHS_BEFORE_DEATH)
                ft_die(how);
            int v = rank * 1000 + epoch % 1000;
            /* two slots: the next epoch's put may land while we read this one */
            if ((rc = MPI_Put(&v, 1, MPI_INT, right, epoch % 2, 1, MPI_INT, win)) != MPI_SUCCESS)
                break;
            if ((rc = MPI_Win_fence(0, win)) != MPI_SUCCESS)
                break;
            int left = (rank + size - 1) % size;
            CHECK(slots[epoch % 2] == left * 1000 + epoch % 1000, "epoch %d: slot %d", epoch,
                  slots[epoch % 2]);
        }
    } else {
        ft_meetings_open(rank, size);
        if (rank == victim) {
            char self[16];
            snprintf(self, sizeof(self), "%d", victim);
            ft_die_together(0, rank, self, size, 0.1, how);
        }
        ft_arrive(0);
        for (epoch = 0; epoch < MAX_EPOCHS; epoch++) {
            int got = -2;
            if ((rc = MPI_Win_lock(MPI_LOCK_SHARED, victim, 0, win)) != MPI_SUCCESS)
                break;
            rc = MPI_Get(&got, 1, MPI_INT, victim, 3, 1, MPI_INT, win);
            int rc2 = MPI_Win_unlock(victim, win);
            if (rc == MPI_SUCCESS)
                rc = rc2;
            if (rc != MPI_SUCCESS)
                break;
            CHECK(got == -1, "epoch %d: got %d from the victim", epoch, got);
        }
    }
    CHECK(rank != victim, "the victim is alive");
    CHECK(ft_class(rc) == MPI_ERR_OTHER, "%s epochs ended after %d epochs with class %d",
          lock ? "passive-target" : "fence", epoch, ft_class(rc));

    if (ignore_mode() && !lock) {
        /* a fence that failed leaves the window's epoch undefined */
        MPI_Win_free(&win);
        return ft_report();
    }
    if (ignore_mode()) {
        /* a live target still serves a passive-target epoch */
        int live = (victim + 1) % size, got = -2;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, live, 0, win));
        CHECK_MPI(MPI_Get(&got, 1, MPI_INT, live, 3, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_unlock(live, win));
        CHECK(got == -1, "got %d from live rank %d", got, live);
        MPI_Win_free(&win);
        return ft_report();
    }

    /* recovery: the window of the failed epoch is gone, a new one works */
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Win_free(&win);
    int nsize, nrank;
    MPI_Comm_size(MPI_COMM_WORLD, &nsize);
    MPI_Comm_rank(MPI_COMM_WORLD, &nrank);
    int nslots[4] = { -1, -1, -1, -1 };
    MPI_Win nwin = make_window(MPI_COMM_WORLD, nslots, 1);
    int v = 7000 + nrank;
    CHECK_MPI(MPI_Win_fence(0, nwin));
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, (nrank + 1) % nsize, 2, 1, MPI_INT, nwin));
    CHECK_MPI(MPI_Win_fence(0, nwin));
    CHECK(nslots[2] == 7000 + (nrank + nsize - 1) % nsize, "after recovery: slot %d", nslots[2]);
    CHECK_MPI(MPI_Win_free(&nwin));
    MPI_Comm_free(&comm);
    return ft_report();
}
