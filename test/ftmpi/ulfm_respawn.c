/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM's respawn, end to end, as ULFM programs write it (the pattern
 * known as MPIX_Comm_replace), failure after failure.
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_respawn KILLS [ITERATIONS]
 *
 * KILLS lists "RANK@ITERATION" (e.g. "2@3+0@7"): that rank of the working
 * communicator kills itself (SIGKILL) at the start of that iteration. Each
 * iteration is an allreduce whose result every rank checks. When one
 * fails, the survivors revoke the working communicator, shrink it, spawn
 * as many processes as died (from the shrunk communicator), agree on the
 * intercommunicator, merge it, agree on the merged communicator, hand each
 * new process the rank it replaces and the iteration to resume at, and
 * split the merged communicator back into rank order; then the iteration
 * runs again. A spawned process takes the same steps from the other side.
 * Every process of the final communicator reports " rank R: No Errors"
 * with its rank there, so the job reports as many as it started with. */
#include "ftmpi_test.h"
#include <mpi-ext.h>

#define MAX_KILLS 8

static int nkills, kill_rank[MAX_KILLS], kill_iter[MAX_KILLS];

static void parse_kills(const char *list)
{
    const char *p = list;
    while (*p && nkills < MAX_KILLS) {
        char *end;
        kill_rank[nkills] = (int) strtol(p, &end, 10);
        if (*end != '@')
            break;
        kill_iter[nkills++] = (int) strtol(end + 1, &end, 10);
        p = *end == '+' ? end + 1 : end;
    }
}

static int value_of(int rank, int iter)
{
    return rank * 7 + iter * 13 + 1;
}

/* The rank each member of `merged` takes: survivors keep theirs, the
 * spawned (ranks nsurv.. of merged) take the dead ones' in order. Sent by
 * merged rank 0 to each spawned process, with the iteration to resume. */
static void place_newcomers(MPI_Comm merged, int nsurv, const int *dead, int ndead, int iter)
{
    int rank;
    MPI_Comm_rank(merged, &rank);
    if (rank != 0)
        return;
    for (int i = 0; i < ndead; i++) {
        int msg[2] = { dead[i], iter };
        CHECK_MPI(MPI_Send(msg, 2, MPI_INT, nsurv + i, 7, merged));
    }
}

/* Agreement on the intercommunicator to the spawned processes, merge
 * (survivors low), agreement on the merged communicator, then the split
 * into rank order. */
static MPI_Comm join(MPI_Comm inter, int high)
{
    MPI_Comm merged;
    int flag = 1;
    CHECK_MPI(MPIX_Comm_agree(inter, &flag));
    CHECK(flag == 1, "agreement on the spawn's intercommunicator gave %d", flag);
    CHECK_MPI(MPI_Intercomm_merge(inter, high, &merged));
    flag = 1;
    CHECK_MPI(MPIX_Comm_agree(merged, &flag));
    CHECK(flag == 1, "agreement on the merged communicator gave %d", flag);
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    return merged;
}

int main(int argc, char **argv)
{
    MPI_Comm parent, work, inter, merged;
    int rank, size, iter = 0, iterations = 10, rc, spawned;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    signal(SIGUSR2, ft_exit_on_signal);
    if (argc < 2) {
        fprintf(stderr, "usage: %s KILLS [ITERATIONS]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    parse_kills(argv[1]);
    if (argc > 2)
        iterations = atoi(argv[2]);

    MPI_Comm_get_parent(&parent);
    spawned = parent != MPI_COMM_NULL;
    if (!spawned) {
        MPI_Comm_dup(MPI_COMM_WORLD, &work);
        MPI_Comm_rank(work, &rank);
    } else {
        /* a replacement: join the survivors, learn whose place it takes */
        int msg[2];
        MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
        merged = join(parent, 1);
        CHECK_MPI(MPI_Recv(msg, 2, MPI_INT, 0, 7, merged, MPI_STATUS_IGNORE));
        rank = msg[0];
        iter = msg[1];
        CHECK_MPI(MPI_Comm_split(merged, 0, rank, &work));
        MPI_Comm_free(&merged);
        MPI_Comm_free(&parent);
    }
    MPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);
    MPI_Comm_size(work, &size);

    while (iter < iterations) {
        for (int k = 0; k < nkills; k++)
            if (kill_iter[k] == iter && kill_rank[k] == rank && !spawned)
                ft_die("kill");
        int mine = value_of(rank, iter), sum = 0, want = 0;
        for (int r = 0; r < size; r++)
            want += value_of(r, iter);
        rc = MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, work);
        if (rc == MPI_SUCCESS) {
            /* every member must have succeeded before the result counts */
            int ok = 1;
            rc = MPIX_Comm_agree(work, &ok);
        }
        if (rc == MPI_SUCCESS) {
            CHECK(sum == want, "iteration %d: sum %d, expected %d", iter, sum, want);
            iter++;
            continue;
        }
        CHECK(ft_class(rc) == MPIX_ERR_PROC_FAILED || ft_class(rc) == MPIX_ERR_REVOKED,
              "iteration %d failed with class %d", iter, ft_class(rc));

        /* replace the dead */
        MPI_Comm shrunk;
        MPI_Group old_group, new_group;
        int nsurv, dead[MAX_KILLS], ndead = 0;
        MPIX_Comm_revoke(work);
        CHECK_MPI(MPIX_Comm_shrink(work, &shrunk));
        MPI_Comm_size(shrunk, &nsurv);
        MPI_Comm_group(work, &old_group);
        MPI_Comm_group(shrunk, &new_group);
        for (int r = 0; r < size && ndead < MAX_KILLS; r++) {
            int in_new;
            MPI_Group_translate_ranks(old_group, 1, &r, new_group, &in_new);
            if (in_new == MPI_UNDEFINED)
                dead[ndead++] = r;
        }
        MPI_Group_free(&old_group);
        MPI_Group_free(&new_group);
        CHECK(ndead == size - nsurv, "%d dead found, %d missing", ndead, size - nsurv);
        int errcodes[MAX_KILLS];
        CHECK_MPI(MPI_Comm_spawn(argv[0], &argv[1], ndead, MPI_INFO_NULL, 0, shrunk, &inter,
                                 errcodes));
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        merged = join(inter, 0);
        place_newcomers(merged, nsurv, dead, ndead, iter);
        MPI_Comm next;
        CHECK_MPI(MPI_Comm_split(merged, 0, rank, &next));
        MPI_Comm_free(&merged);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&shrunk);
        MPI_Comm_free(&work);
        work = next;
        MPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);
        MPI_Comm_size(work, &size);
        int new_rank;
        MPI_Comm_rank(work, &new_rank);
        CHECK(new_rank == rank && size == nsurv + ndead, "after the respawn: rank %d of %d, "
              "expected %d of %d", new_rank, size, rank, nsurv + ndead);
    }

    if (test_errors == 0)
        printf(" rank %d: No Errors\n", rank);
    else
        printf(" rank %d: Found %d errors\n", rank, test_errors);
    fflush(stdout);
    MPI_Comm_free(&work);
    MPI_Finalize();
    return test_errors != 0;
}
