/* ULFM agreement and shrink while a process dies at a moment of its own
 * choosing (a timer), in the middle of the loop.
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_agree VICTIM MS|rand kill|exit agree|shrink
 *
 * agree: every process runs MPIX_Comm_agree over MPI_COMM_WORLD again and
 * again; the victim dies after MS milliseconds (rand: 0-300 ms), wherever
 * it is. Survivors check each flag against their own contributions and,
 * at the end, that every survivor saw the same sequence of flags and
 * errors (an agreement that answers differently is not one).
 * shrink: the same with MPIX_Comm_shrink; the sequence of sizes must be
 * the same everywhere and end at size - 1. */
#include "ftmpi_test.h"
#include <mpi-ext.h>
#include <sys/time.h>

#define ROUNDS 200

static const char *how;

static void die_now(int sig)
{
    ft_die(how);
}

static unsigned contribution(int rank, int round)
{
    return (round + rank) % 2 == 0 ? ~(1u << (rank % 31)) : ~0u;
}

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 4, "VICTIM MS|rand kill|exit agree|shrink", &rank, &size);
    int victim = atoi(argv[1]);
    how = argv[3];
    int shrink = strcmp(argv[4], "shrink") == 0;
    int ms = strcmp(argv[2], "rand") == 0 ? (int) ((long long) (ft_now() * 1e6) % 300) : atoi(argv[2]);
    unsigned long hash = 5381;
    int failures_seen = 0;

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == victim) {
        struct itimerval t = {.it_value = {.tv_sec = ms / 1000,.tv_usec = (ms % 1000) * 1000 } };
        signal(SIGALRM, die_now);
        if (ms == 0)
            ft_die(how);
        setitimer(ITIMER_REAL, &t, NULL);
    }

    for (int round = 0; round < ROUNDS; round++) {
        if (round == ROUNDS - 1 && !shrink && !failures_seen)
            round--;    /* keep going until the victim is gone (the same at every survivor) */
        if (!shrink) {
            unsigned flag = contribution(rank, round);
            int rc = MPIX_Comm_agree(MPI_COMM_WORLD, (int *) &flag);
            CHECK(rc == MPI_SUCCESS || rc == MPIX_ERR_PROC_FAILED, "round %d: agree rc %d",
                  round, rc);
            for (int r = 0; r < size && r < 31; r++) {
                if (r == victim)
                    continue;
                unsigned bit = 1u << r;
                CHECK((flag & bit) == (contribution(r, round) & bit),
                      "round %d: flag %#x wrong in rank %d's bit", round, flag, r);
            }
            if (rc == MPIX_ERR_PROC_FAILED) {
                failures_seen++;
                MPIX_Comm_failure_ack(MPI_COMM_WORLD);
            }
            hash = hash * 33 + flag + (rc == MPI_SUCCESS ? 0 : 7);
        } else {
            MPI_Comm c;
            int rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &c), csize = -1;
            CHECK(rc == MPI_SUCCESS, "round %d: shrink rc %d", round, rc);
            if (rc != MPI_SUCCESS)
                break;
            MPI_Comm_size(c, &csize);
            CHECK(csize == size || csize == size - 1, "round %d: shrunk size %d", round, csize);
            hash = hash * 33 + csize;
            MPI_Comm_free(&c);
            if (round >= ROUNDS / 10 && csize == size)
                round--; /* keep going until the victim is gone */
        }
    }

    /* every survivor saw the same answers */
    MPI_Comm survivors;
    CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &survivors));
    int ssize = -1;
    MPI_Comm_size(survivors, &ssize);
    CHECK(ssize == size - 1, "survivors' communicator has %d processes, expected %d", ssize,
          size - 1);
    MPI_Comm_set_errhandler(survivors, MPI_ERRORS_RETURN);
    unsigned long mine[2] = { hash, ~hash }, all[2];
    CHECK_MPI(MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG, MPI_BAND, survivors));
    CHECK(all[0] == hash && all[1] == ~hash, "survivors saw different answers "
          "(hash %#lx, AND %#lx)", hash, all[0]);
    if (!shrink)
        CHECK(failures_seen <= 1, "%d agreements raised MPIX_ERR_PROC_FAILED after "
              "acknowledgement", failures_seen);
    MPI_Comm_free(&survivors);
    return ft_report();
}
