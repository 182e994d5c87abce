/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM protocols over communicators whose context ids are reused: every
 * pattern creates and frees a communicator per iteration, so that MPICH
 * hands the same few context ids out again and again while some members
 * are still one or two iterations behind (one rank sleeps a little at
 * random points). A message of one communicator's protocol must never be
 * taken for the next one's.
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_reuse PATTERN ITERATIONS
 *
 * PATTERN:
 *   agree          dup MPI_COMM_WORLD, MPIX_Comm_agree with a flag that
 *                  alternates between 0xfffffff0 and 0xffffffff, free: every
 *                  rank gets this iteration's flag
 *   revoke-shrink  dup, a rotating rank revokes, everyone shrinks the
 *                  revoked communicator and checks the result (its size, an
 *                  allreduce, MPIX_Comm_is_revoked, the parent's error
 *                  handler), frees both
 *   transfers      dup, rank 0 revokes while the others run 4 MiB
 *                  nonblocking exchanges and a barrier over it: each ends
 *                  with MPI_SUCCESS or MPIX_ERR_REVOKED (never an invalid
 *                  request), free
 *   inter          an intercommunicator of the even and odd ranks; rank 0
 *                  revokes it while the others are in MPI_Barrier over it:
 *                  every barrier ends with MPIX_ERR_REVOKED, free
 */
#include "ftmpi_test.h"
#include <mpi-ext.h>

static int rank, size;

/* One rank, chosen per iteration, falls a little behind. */
static void maybe_lag(int it)
{
    if (rank == (it * 7 + 1) % size && (it % 3) == 0)
        ft_sleep(0.0005 * (it % 5));
}

static int agree_iteration(int it)
{
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    maybe_lag(it);
    int expected = it % 2 ? (int) 0xffffffff : (int) 0xfffffff0, flag = expected;
    int rc = MPIX_Comm_agree(comm, &flag);
    CHECK(rc == MPI_SUCCESS, "iteration %d: agree returned %d", it, rc);
    CHECK(flag == expected, "iteration %d: agreed %#x, expected %#x", it, flag, expected);
    CHECK_MPI(MPI_Comm_free(&comm));
    return rc == MPI_SUCCESS && flag == expected;
}

static int revoke_shrink_iteration(int it)
{
    MPI_Comm comm, shrunk;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    maybe_lag(it);
    if (rank == it % size)
        CHECK_MPI(MPIX_Comm_revoke(comm));
    int rc = MPIX_Comm_shrink(comm, &shrunk);
    CHECK(rc == MPI_SUCCESS, "iteration %d: shrink returned %d", it, rc);
    if (rc != MPI_SUCCESS)
        return 0;
    int ssize = -1, sum = -1, revoked = 0;
    MPI_Comm_size(shrunk, &ssize);
    CHECK(ssize == size, "iteration %d: shrunk size %d", it, ssize);
    /* the parent's handler goes on to the shrunk communicator */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    CHECK_MPI(MPI_Comm_get_errhandler(shrunk, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "iteration %d: the shrunk communicator's handler is not "
          "the parent's MPI_ERRORS_RETURN", it);
    if (eh != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&eh);
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk));
    CHECK(sum == size * (size - 1) / 2, "iteration %d: sum %d over the shrunk communicator",
          it, sum);
    CHECK_MPI(MPIX_Comm_is_revoked(comm, &revoked));
    CHECK(revoked, "iteration %d: the communicator does not read as revoked", it);
    CHECK_MPI(MPIX_Comm_is_revoked(shrunk, &revoked));
    CHECK(!revoked, "iteration %d: the shrunk communicator reads as revoked", it);
    CHECK_MPI(MPI_Comm_free(&shrunk));
    CHECK_MPI(MPI_Comm_free(&comm));
    return ssize == size;
}

static int transfers_iteration(int it, char *sbuf, char *rbuf, int bytes)
{
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int ok = 1;
    maybe_lag(it);
    if (rank == 0) {
        CHECK_MPI(MPIX_Comm_revoke(comm));
    } else {
        /* a ring among ranks 1..size-1 */
        int n = size - 1, me = rank - 1;
        int to = 1 + (me + 1) % n, from = 1 + (me + n - 1) % n;
        MPI_Request req[2];
        int rc[2];
        rc[0] = MPI_Irecv(rbuf, bytes, MPI_BYTE, from, it, comm, &req[0]);
        rc[1] = MPI_Isend(sbuf, bytes, MPI_BYTE, to, it, comm, &req[1]);
        for (int i = 0; i < 2; i++) {
            if (rc[i] == MPI_SUCCESS)
                rc[i] = MPI_Wait(&req[i], MPI_STATUS_IGNORE);
            ok &= rc[i] == MPI_SUCCESS || ft_class(rc[i]) == MPIX_ERR_REVOKED;
            CHECK(rc[i] == MPI_SUCCESS || ft_class(rc[i]) == MPIX_ERR_REVOKED,
                  "iteration %d: the %s ended with class %d", it, i ? "send" : "receive",
                  ft_class(rc[i]));
        }
        int b = MPI_Barrier(comm);
        CHECK(b == MPI_SUCCESS || ft_class(b) == MPIX_ERR_REVOKED,
              "iteration %d: barrier ended with class %d", it, ft_class(b));
    }
    /* the revocation reaches everyone: a barrier over it fails everywhere */
    int b = MPI_Barrier(comm);
    CHECK(ft_class(b) == MPIX_ERR_REVOKED, "iteration %d: barrier after the revocation "
          "ended with class %d", it, ft_class(b));
    CHECK_MPI(MPI_Comm_free(&comm));
    return ok && ft_class(b) == MPIX_ERR_REVOKED;
}

static int inter_iteration(int it)
{
    MPI_Comm half, inter;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 77, &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    maybe_lag(it);
    int rc;
    if (rank == 0) {
        rc = MPIX_Comm_revoke(inter);
        CHECK(rc == MPI_SUCCESS, "iteration %d: revoke returned %d", it, rc);
    } else {
        rc = MPI_Barrier(inter);
        CHECK(ft_class(rc) == MPIX_ERR_REVOKED, "iteration %d: barrier over the revoked "
              "intercommunicator ended with class %d", it, ft_class(rc));
    }
    int flag = 0;
    CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag, "iteration %d: MPI_Comm_test_inter on the revoked intercommunicator", it);
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&half));
    return rank == 0 || ft_class(rc) == MPIX_ERR_REVOKED;
}

int main(int argc, char **argv)
{
    ft_init(&argc, &argv, 2, "agree|revoke-shrink|transfers|inter ITERATIONS", &rank, &size);
    const char *pattern = argv[1];
    int iterations = atoi(argv[2]), bytes = 4 << 20;
    char *sbuf = NULL, *rbuf = NULL;

    if (strcmp(pattern, "transfers") == 0) {
        CHECK(size >= 3, "transfers needs 3 processes or more");
        sbuf = calloc(bytes, 1);
        rbuf = calloc(bytes, 1);
    }
    if (strcmp(pattern, "inter") == 0)
        CHECK(size >= 2, "inter needs 2 processes or more");
    for (int it = 0; it < iterations; it++) {
        int ok;
        if (strcmp(pattern, "agree") == 0)
            ok = agree_iteration(it);
        else if (strcmp(pattern, "revoke-shrink") == 0)
            ok = revoke_shrink_iteration(it);
        else if (strcmp(pattern, "transfers") == 0)
            ok = transfers_iteration(it, sbuf, rbuf, bytes);
        else if (strcmp(pattern, "inter") == 0)
            ok = inter_iteration(it);
        else {
            CHECK(0, "unknown pattern %s", pattern);
            break;
        }
        if (!ok)
            fprintf(stderr, "[rank %d] %s: iteration %d failed\n", rank, pattern, it);
    }
    free(sbuf);
    free(rbuf);
    return test_finish();
}
