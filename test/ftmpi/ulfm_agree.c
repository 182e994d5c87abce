/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM agreement and shrink while a process dies at a moment of its own
 * choosing (a timer, or a test point), in the middle of the loop.
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_agree VICTIM MS|rand|point kill|exit agree|shrink|ishrink|interagree|intershrink|interishrink
 *
 * agree: every process runs MPIX_Comm_agree over MPI_COMM_WORLD again and
 * again; the victim dies after MS milliseconds (rand: 20-300 ms), wherever
 * it is (point: where FTMPI_TEST_POINT kills it, such as "mid-decide").
 * Survivors check each flag against their own contributions and, at the
 * end, that every survivor saw the same sequence of flags and errors (an
 * agreement that answers differently is not one).
 * shrink: the same with MPIX_Comm_shrink; the sequence of sizes must be
 * the same everywhere and end at size - 1.
 * interagree: agree over an intercommunicator between the lower and the
 * upper half of the ranks: each half gets the AND of the other half's
 * flags, and both halves see the same errors. intershrink: shrink that
 * intercommunicator; local plus remote size must follow the same sequence
 * everywhere, and the last one must work (an intercommunicator allreduce).
 * ishrink, interishrink: the same with MPIX_Comm_ishrink, tested until
 * done. Every shrink mode ends by showing that MPIX_Comm_ishrink does not
 * block: the survivors' first starts one and then receives a synchronous
 * send that the second makes before starting its own (a shrink that ran
 * to its end inside the call would wait for the second forever). */
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
    ft_init(&argc, &argv, 4, "VICTIM MS|rand|point kill|exit "
            "agree|shrink|ishrink|interagree|intershrink|interishrink", &rank, &size);
    int victim = atoi(argv[1]);
    how = argv[3];
    int shrink = strstr(argv[4], "shrink") != NULL;
    int nonblocking = strstr(argv[4], "ishrink") != NULL;
    /* inter...: over an intercommunicator between the halves */
    int inter = strncmp(argv[4], "inter", 5) == 0, half = size / 2;
    int my_half = rank >= half;
    MPI_Comm agree_comm = MPI_COMM_WORLD;
    if (inter) {
        MPI_Comm local;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, my_half, rank, &local));
        CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, my_half ? 0 : half, 99,
                                       &agree_comm));
        MPI_Comm_set_errhandler(agree_comm, MPI_ERRORS_RETURN);
        MPI_Comm_free(&local);
    }
    unsigned long errors_hash = 5381;   /* the same at every survivor, both halves */
    /* (rand starts at 20 ms: a victim killed as it leaves the first barrier
     * can take its last barrier message with it, which fails the barrier
     * elsewhere before the loop under test begins) */
    int by_point = strcmp(argv[2], "point") == 0;
    int ms = strcmp(argv[2], "rand") == 0 ? 20 + (int) ((long long) (ft_now() * 1e6) % 280) :
        atoi(argv[2]);
    unsigned long hash = 5381;
    int failures_seen = 0;

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == victim && !by_point) {
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
            int rc = MPIX_Comm_agree(agree_comm, (int *) &flag);
            CHECK(rc == MPI_SUCCESS || rc == MPIX_ERR_PROC_FAILED, "round %d: agree rc %d",
                  round, rc);
            for (int r = 0; r < size && r < 31; r++) {
                if (r == victim)
                    continue;
                unsigned bit = 1u << r;
                /* an intercommunicator's flag is the other half's AND */
                unsigned want = inter && (r >= half) == my_half ? bit : contribution(r, round) & bit;
                CHECK((flag & bit) == want, "round %d: flag %#x wrong in rank %d's bit",
                      round, flag, r);
            }
            if (rc == MPIX_ERR_PROC_FAILED) {
                failures_seen++;
                MPIX_Comm_failure_ack(agree_comm);
            }
            hash = hash * 33 + flag + (rc == MPI_SUCCESS ? 0 : 7);
            errors_hash = errors_hash * 33 + (rc == MPI_SUCCESS ? 0 : 7);
        } else {
            MPI_Comm c;
            int rc, csize = -1;
            if (nonblocking) {
                MPI_Request req;
                int done = 0;
                rc = MPIX_Comm_ishrink(agree_comm, &c, &req);
                while (rc == MPI_SUCCESS && !done)
                    rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            } else {
                rc = MPIX_Comm_shrink(agree_comm, &c);
            }
            CHECK(rc == MPI_SUCCESS, "round %d: shrink rc %d", round, rc);
            /* (MPI_COMM_NULL: the other half of an intercommunicator is
             * all gone, which one death cannot make) */
            CHECK(c != MPI_COMM_NULL, "round %d: shrink gave MPI_COMM_NULL", round);
            if (rc != MPI_SUCCESS || c == MPI_COMM_NULL)
                break;
            MPI_Comm_size(c, &csize);
            if (inter) {
                int remote = -1;
                MPI_Comm_remote_size(c, &remote);
                csize += remote;
            }
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
    /* (the halves of an intercommunicator get different flags) */
    unsigned long mine[6] = { ~0ul, ~0ul, ~0ul, ~0ul, errors_hash, ~errors_hash }, all[6];
    int group = inter ? my_half : 0;
    mine[2 * group] = hash;
    mine[2 * group + 1] = ~hash;
    CHECK_MPI(MPI_Allreduce(mine, all, 6, MPI_UNSIGNED_LONG, MPI_BAND, survivors));
    CHECK(all[2 * group] == hash && all[2 * group + 1] == ~hash, "survivors saw different "
          "answers (hash %#lx, AND %#lx)", hash, all[2 * group]);
    CHECK(all[4] == errors_hash && all[5] == ~errors_hash, "survivors saw different errors");
    if (!shrink)
        CHECK(failures_seen <= 1, "%d agreements raised MPIX_ERR_PROC_FAILED after "
              "acknowledgement", failures_seen);
    if (inter) {
        /* the shrunk intercommunicator works: each half counts the other */
        MPI_Comm c;
        int remote = -1, one = 1, counted = -1;
        CHECK_MPI(MPIX_Comm_shrink(agree_comm, &c));
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        MPI_Comm_remote_size(c, &remote);
        int victim_remote = (victim >= half) != my_half;
        CHECK(remote == (my_half ? half : size - half) - victim_remote,
              "shrunk intercommunicator: remote size %d", remote);
        CHECK_MPI(MPI_Allreduce(&one, &counted, 1, MPI_INT, MPI_SUM, c));
        CHECK(counted == remote, "intercommunicator allreduce over the shrunk one counted %d, "
              "remote size %d", counted, remote);
        MPI_Comm_free(&c);
    }
    if (shrink) {
        MPI_Comm pair, c = MPI_COMM_NULL;
        MPI_Request req = MPI_REQUEST_NULL;
        int srank = -1, token = 42, got = -1, csize = -1;
        MPI_Comm_rank(survivors, &srank);
        CHECK_MPI(MPI_Comm_dup(survivors, &pair));
        if (srank == 0) {
            CHECK_MPI(MPIX_Comm_ishrink(survivors, &c, &req));
            CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 1, 5, pair, MPI_STATUS_IGNORE));
            CHECK(got == token, "received %d, expected %d", got, token);
        } else if (srank == 1) {
            CHECK_MPI(MPI_Ssend(&token, 1, MPI_INT, 0, 5, pair));
            CHECK_MPI(MPIX_Comm_ishrink(survivors, &c, &req));
        } else {
            CHECK_MPI(MPIX_Comm_ishrink(survivors, &c, &req));
        }
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(c != MPI_COMM_NULL, "MPIX_Comm_ishrink gave MPI_COMM_NULL");
        if (c != MPI_COMM_NULL) {
            MPI_Comm_size(c, &csize);
            CHECK(csize == ssize, "MPIX_Comm_ishrink of the survivors: size %d, expected %d",
                  csize, ssize);
            MPI_Comm_free(&c);
        }
        MPI_Comm_free(&pair);
    }
    MPI_Comm_free(&survivors);
    if (inter)
        MPI_Comm_free(&agree_comm);
    return ft_report();
}
