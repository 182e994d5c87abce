/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* REBUILD: failed ranks are replaced by new processes, which rejoin with
 * MPI_INIT_RESTARTED_NODE; the job keeps its size, as a legacy FT-MPI
 * solver with in-memory checkpoints expects.
 *
 *   ft_rebuild PLAN HOW
 *     PLAN  one round per ':'-separated item; an item lists the ranks that
 *           die at the start of that round, '+'-separated ("-" for none),
 *           e.g. "2", "0", "1+3", "3:0:5". The same rank must not die in
 *           two consecutive rounds (see may_die). An item may end with
 *           "@P" (process P dies in the rebuild that follows, as its
 *           coordinator, after launching the replacements), "^P" (P dies
 *           as coordinator after telling one survivor the rebuild is done)
 *           or "%P" (P dies in it as a survivor, before it reports ready),
 *           e.g. "2@0".
 *     HOW   kill (SIGKILL) or exit (_exit)
 *
 * Every round passes a token around a ring (tag = round, so that in CONT
 * mode a message of a failed round never matches a later one) and commits
 * with an allreduce. A failure makes the survivors recover (MANUAL:
 * MPI_Comm_dup of MPI_COMM_WORLD; AUTO: the library did it) and everyone,
 * replacements included, resynchronizes on the lowest round not committed
 * everywhere, then repeats it. Checks: MPI_Init's return value, the size
 * and ranks of MPI_COMM_WORLD after each rebuild, FTMPI_NUM_FAILED_PROCS,
 * the ring's values, MPI_COMM_SELF, and at the end a sum over the world. */
#include "ftmpi_test.h"
#include <limits.h>
#include <strings.h>

#define MAXROUNDS 32
#define MAXP 64

static int nrounds;
static int victims[MAXROUNDS][MAXP];    /* victims[round][rank] */
static int auto_mode;
static int born = INT_MIN;      /* a replacement: the round it resumed at */
static int rebuild_victim = -1;  /* dies inside a rebuild (PLAN's '@' / '%') */

static void parse_plan(const char *plan)
{
    char *copy = strdup(plan), *save = NULL;
    for (char *item = strtok_r(copy, ":", &save); item && nrounds < MAXROUNDS;
         item = strtok_r(NULL, ":", &save), nrounds++) {
        char *save2 = NULL, *in_rebuild = strpbrk(item, "@^%"), spec[64];
        if (in_rebuild) {
            /* the library's test hook; replacements do not inherit it */
            snprintf(spec, sizeof(spec), "%d:%s", atoi(in_rebuild + 1),
                     *in_rebuild == '@' ? "after-spawn" :
                     *in_rebuild == '^' ? "mid-announce" : "before-ready");
            setenv("FTMPI_TEST_POINT", spec, 1);
            rebuild_victim = atoi(in_rebuild + 1);
            *in_rebuild = 0;
        }
        for (char *r = strtok_r(item, "+", &save2); r; r = strtok_r(NULL, "+", &save2))
            if (strcmp(r, "-"))
                victims[nrounds][atoi(r)] = 1;
    }
    free(copy);
}

/* The process that has a rank at the start of round k dies there if the
 * plan says so. A replacement resumes at the round whose start its
 * predecessor died at, or at the one before (a survivor may have missed
 * the end of the previous round), so it must not die in either. */
static int may_die(int round, int rank)
{
    return victims[round][rank] && born + 1 < round;
}

static int mode_is(const char *var, const char *value)
{
    const char *v = getenv(var);
    return v && strcasecmp(v, value) == 0;
}

static void recover_after(int rc)
{
    CHECK(ft_class(rc) == MPI_ERR_OTHER, "a failed call returned class %d", ft_class(rc));
    if (!auto_mode) {
        MPI_Comm x;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &x));
        CHECK(x == MPI_COMM_WORLD, "MPI_Comm_dup in recovery did not return MPI_COMM_WORLD");
    }
}

static void check_world(int np, int rank0)
{
    int size, rank, nfailed, flag, *v;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(size == np, "world has %d processes after a rebuild, expected %d", size, np);
    CHECK(rank == rank0, "rank %d after a rebuild, was %d", rank, rank0);
    MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &v, &flag);
    nfailed = flag ? *v : -1;
    CHECK(flag && nfailed >= 0 && nfailed <= np, "FTMPI_NUM_FAILED_PROCS = %d", nfailed);
}

/* One round: a token around the ring, then a commit everyone must reach. */
static int ring(int round, int rank, int np)
{
    int right = (rank + 1) % np, left = (rank + np - 1) % np;
    int token = round * 1000 + rank, got = -1, rc;
    rc = MPI_Sendrecv(&token, 1, MPI_INT, right, round, &got, 1, MPI_INT, left, round,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK(got == round * 1000 + left, "round %d: ring token %d from %d, expected %d", round,
          got, left, round * 1000 + left);
    int ok = got == round * 1000 + left, all = 0;
    rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        CHECK(all == np, "round %d: %d of %d ring tokens right", round, all, np);
    return rc;
}

int main(int argc, char **argv)
{
    int rank, np, rc, round = 0, synced, recoveries = 0, self_size;
    const char *how = argc > 2 ? argv[2] : "kill";

    /* before MPI_Init, which reads the library's test point */
    if (argc >= 2)
        parse_plan(argv[1]);
    rc = MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    auto_mode = mode_is("FTMPI_RECOVERY_MODE", "auto");
    if (argc < 2 || np > MAXP) {
        fprintf(stderr, "usage: ft_rebuild PLAN [kill|exit] (at most %d processes)\n", MAXP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    int restarted = rc == MPI_INIT_RESTARTED_NODE;
    CHECK(rc == MPI_SUCCESS || restarted, "MPI_Init returned %d", rc);
    if (restarted) {
        MPI_Comm parent;
        int planned = 0;
        for (int k = 0; k < nrounds; k++)
            planned |= victims[k][rank];
        planned |= rank == rebuild_victim;
        CHECK(planned, "rank %d was replaced, but the plan never kills it", rank);
        MPI_Comm_get_parent(&parent);
        CHECK(parent == MPI_COMM_NULL, "a replacement has a parent communicator");
        check_world(np, rank);
    }
    MPI_Comm_size(MPI_COMM_SELF, &self_size);
    CHECK(self_size == 1, "MPI_COMM_SELF has %d processes", self_size);

    for (;;) {
        /* everyone resumes at the lowest round not committed everywhere */
        int mine = restarted && born == INT_MIN ? INT_MAX : round;
        rc = MPI_Allreduce(&mine, &synced, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) {
            recover_after(rc);
            recoveries++;
            check_world(np, rank);
            continue;
        }
        if (restarted && born == INT_MIN)
            born = synced;
        round = synced;
        if (round >= nrounds)
            break;
        if (may_die(round, rank))
            ft_die(how);
        rc = ring(round, rank, np);
        if (rc != MPI_SUCCESS) {
            recover_after(rc);
            recoveries++;
            check_world(np, rank);
            continue;
        }
        round++;
    }

    /* the world as the plan leaves it: every rank alive */
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == np * (np - 1) / 2, "sum of ranks %d, expected %d", sum, np * (np - 1) / 2);
    int kills = 0;
    for (int k = 0; k < nrounds; k++)
        for (int r = 0; r < np; r++)
            kills += victims[k][r];
    CHECK(restarted || kills == 0 || recoveries > 0, "no recovery although the plan kills");
    return ft_report();
}
