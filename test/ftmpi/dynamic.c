/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Dynamic processes: spawn, connect/accept, and their failures.
 *
 *   dynamic basic
 *   dynamic childdies kill|exit
 *   FTMPI_RECOVERY_MODE=ulfm dynamic respawn kill|exit [samenode]
 *   dynamic badcommand missing|false|initdeath
 *
 * basic: the job spawns 2 children (MPI_Comm_spawn) and talks to them over
 * the intercommunicator both ways; merges it (MPI_Intercomm_merge: the
 * parents first) and runs an allreduce and a broadcast from a child over
 * the merged communicator; then rank 0 opens a port, hands its name to the
 * children, and the two worlds meet again through MPI_Comm_accept and
 * MPI_Comm_connect; then MPI_Comm_spawn_multiple starts two more children
 * of two commands, which check MPI_APPNUM. Children send their error
 * counts to the parents, which report for everyone.
 * childdies: child 1 of the 2 spawned dies at a chosen point (SIGKILL or
 * _exit) after the parents posted a receive from it and a large send to it:
 * both must end with an error, and a receive from child 0 must still work.
 * respawn (ULFM): the last rank dies; the survivors revoke, shrink, spawn
 * one process from the shrunk communicator and merge it in, so that the
 * job is whole again: the new communicator has the old size, and a ring
 * and an allreduce over it work. With a third argument "samenode" the
 * spawn asks for the node the dead process ran on (info "host"), and the
 * replacement checks it runs there (scripts/respawn_on_node.sh, over
 * simulated nodes).
 * badcommand: a spawn whose processes cannot start fails with an error (in
 * the return code or the error codes) long before the connect timeout, and
 * the job goes on: the program does not exist (missing), it exits at once
 * (false: /bin/false), or child 1 is killed inside MPI_Init, past the
 * launcher's first barrier, while child 0 goes on into the node's
 * shared-memory ones (initdeath: test point "init"). */
#include "ftmpi_test.h"
#include <mpi-ext.h>

#define BIG (1 << 20)

static char *self;


/* ---- basic ------------------------------------------------------------------- */

static void parent_basic(int rank, int size)
{
    MPI_Comm inter, merged, again, multi;
    int errcodes[2], merged_rank, merged_size;

    char *child_argv[] = { "child", "basic", NULL };
    CHECK_MPI(MPI_Comm_spawn(self, child_argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             errcodes));
    CHECK(errcodes[0] == MPI_SUCCESS && errcodes[1] == MPI_SUCCESS, "spawn error codes %d %d",
          errcodes[0], errcodes[1]);
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    CHECK(remote == 2, "remote size %d", remote);

    /* both ways over the intercommunicator: parent r to child r */
    int out = 1000 + rank, in = -1;
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, rank, 1, inter));
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 2, inter, &st));
    CHECK(in == 2000 + rank && st.MPI_SOURCE == rank, "got %d from %d", in, st.MPI_SOURCE);

    CHECK_MPI(MPI_Intercomm_merge(inter, 0, &merged));
    MPI_Comm_rank(merged, &merged_rank);
    MPI_Comm_size(merged, &merged_size);
    CHECK(merged_rank == rank && merged_size == size + 2, "merged rank %d of %d", merged_rank,
          merged_size);
    int sum = 0, mine = merged_rank;
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == merged_size * (merged_size - 1) / 2, "merged allreduce %d", sum);
    int word = 0;
    CHECK_MPI(MPI_Bcast(&word, 1, MPI_INT, merged_size - 1, merged));
    CHECK(word == 4242, "broadcast from a child gave %d", word);

    /* connect/accept: the port's name goes to the children */
    char port[MPI_MAX_PORT_NAME] = "";
    if (rank == 0) {
        CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 3, inter));
    }
    CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &again));
    int from_child = -1;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, rank, 4, &from_child, 1, MPI_INT, rank, 4, again,
                           MPI_STATUS_IGNORE));
    CHECK(from_child == rank + 10, "accepted intercommunicator gave %d", from_child);
    CHECK_MPI(MPI_Comm_disconnect(&again));
    if (rank == 0)
        CHECK_MPI(MPI_Close_port(port));

    /* the children's errors */
    int theirs = 0;
    CHECK_MPI(MPI_Recv(&theirs, 1, MPI_INT, rank, 5, inter, MPI_STATUS_IGNORE));
    test_errors += theirs;
    CHECK_MPI(MPI_Comm_free(&merged));
    CHECK_MPI(MPI_Comm_disconnect(&inter));

    /* two commands at once */
    char *cmds[2] = { self, self };
    char *argv_a[] = { "child", "multi", NULL }, *argv_b[] = { "child", "multi", NULL };
    char **argvs[2] = { argv_a, argv_b };
    int counts[2] = { 1, 1 };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    CHECK_MPI(MPI_Comm_spawn_multiple(2, cmds, argvs, counts, infos, 0, MPI_COMM_WORLD, &multi,
                                      errcodes));
    theirs = 0;
    if (rank == 0) {
        int e;
        for (int c = 0; c < 2; c++) {
            CHECK_MPI(MPI_Recv(&e, 1, MPI_INT, c, 6, multi, MPI_STATUS_IGNORE));
            theirs += e;
        }
    }
    test_errors += theirs;
    CHECK_MPI(MPI_Comm_disconnect(&multi));
}

static void child_basic(MPI_Comm parent, int rank, int size)
{
    MPI_Comm merged, again;
    int in = -1, merged_rank, merged_size, psize;

    MPI_Comm_remote_size(parent, &psize);
    CHECK(size == 2 && psize == 2, "children %d, parents %d", size, psize);
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, rank, 1, parent, MPI_STATUS_IGNORE));
    CHECK(in == 1000 + rank, "got %d", in);
    int out = 2000 + rank;
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, rank, 2, parent));

    CHECK_MPI(MPI_Intercomm_merge(parent, 1, &merged));
    MPI_Comm_rank(merged, &merged_rank);
    MPI_Comm_size(merged, &merged_size);
    CHECK(merged_rank == psize + rank, "merged rank %d", merged_rank);
    int sum = 0, mine = merged_rank;
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == merged_size * (merged_size - 1) / 2, "merged allreduce %d", sum);
    int word = merged_rank == merged_size - 1 ? 4242 : 0;
    CHECK_MPI(MPI_Bcast(&word, 1, MPI_INT, merged_size - 1, merged));

    char port[MPI_MAX_PORT_NAME] = "";
    if (rank == 0)
        CHECK_MPI(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 3, parent, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &again));
    int from_parent = -1, mine10 = rank + 10;
    CHECK_MPI(MPI_Sendrecv(&mine10, 1, MPI_INT, rank, 4, &from_parent, 1, MPI_INT, rank, 4, again,
                           MPI_STATUS_IGNORE));
    CHECK(from_parent == rank, "connected intercommunicator gave %d", from_parent);
    CHECK_MPI(MPI_Comm_disconnect(&again));

    CHECK_MPI(MPI_Send(&test_errors, 1, MPI_INT, rank, 5, parent));
    CHECK_MPI(MPI_Comm_free(&merged));
    CHECK_MPI(MPI_Comm_disconnect(&parent));
}

static void child_multi(MPI_Comm parent, int rank, int size)
{
    int *appnum, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    CHECK(size == 2 && flag && *appnum == rank, "size %d, appnum %d", size, flag ? *appnum : -1);
    CHECK_MPI(MPI_Send(&test_errors, 1, MPI_INT, 0, 6, parent));
    CHECK_MPI(MPI_Comm_disconnect(&parent));
}

/* ---- a child dies ---------------------------------------------------------------- */

static void parent_childdies(int rank, const char *how)
{
    MPI_Comm inter;
    int errcodes[2];
    char *child_argv[] = { "child", "childdies", (char *) how, NULL };

    CHECK_MPI(MPI_Comm_spawn(self, child_argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             errcodes));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    /* child 1 waits for this before it dies: the parents' operations with
     * it are under way by then */
    int word = 0, rc;
    MPI_Request reqs[2];
    char *big = calloc(BIG, 1);
    CHECK_MPI(MPI_Irecv(&word, 1, MPI_INT, 1, 7, inter, &reqs[0]));
    CHECK_MPI(MPI_Isend(big, BIG, MPI_CHAR, 1, 8, inter, &reqs[1]));
    if (rank == 0)
        CHECK_MPI(MPI_Send(&word, 1, MPI_INT, 1, 9, inter));
    for (int i = 0; i < 2; i++) {
        rc = MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        CHECK(rc != MPI_SUCCESS, "%s with the dead child succeeded", i ? "a send" : "a receive");
        if (test_env_is("FTMPI_RECOVERY_MODE", "ulfm"))
            CHECK(ft_class(rc) == MPIX_ERR_PROC_FAILED, "class %d, expected MPIX_ERR_PROC_FAILED",
                  ft_class(rc));
    }
    /* later operations with it fail at once */
    rc = MPI_Send(&word, 1, MPI_INT, 1, 10, inter);
    CHECK(rc != MPI_SUCCESS, "a send to the dead child succeeded");
    /* the other child still talks */
    int theirs = -1;
    CHECK_MPI(MPI_Recv(&theirs, 1, MPI_INT, 0, 11, inter, MPI_STATUS_IGNORE));
    CHECK(theirs == 0, "child 0 found %d errors", theirs);
    free(big);
    CHECK_MPI(MPI_Comm_free(&inter));
}

static void child_childdies(MPI_Comm parent, int rank, const char *how)
{
    MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    if (rank == 1) {
        int word;
        CHECK_MPI(MPI_Recv(&word, 1, MPI_INT, 0, 9, parent, MPI_STATUS_IGNORE));
        ft_sleep(0.2);
        ft_die(how);
    }
    int parents;
    MPI_Comm_remote_size(parent, &parents);
    for (int p = 0; p < parents; p++)
        CHECK_MPI(MPI_Send(&test_errors, 1, MPI_INT, p, 11, parent));
    CHECK_MPI(MPI_Comm_free(&parent));
}

/* ---- ULFM respawn ------------------------------------------------------------------ */

static void ring_and_sum(MPI_Comm comm, int expected_size)
{
    int r, n, left, right, token = -1;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    CHECK(n == expected_size, "size %d, expected %d", n, expected_size);
    right = (r + 1) % n;
    left = (r - 1 + n) % n;
    CHECK_MPI(MPI_Sendrecv(&r, 1, MPI_INT, right, 12, &token, 1, MPI_INT, left, 12, comm,
                           MPI_STATUS_IGNORE));
    CHECK(token == left, "ring gave %d from %d", token, left);
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == n * (n - 1) / 2, "allreduce %d", sum);
}

static void parent_respawn(int rank, int size, const char *how, int same_node)
{
    MPI_Comm shrunk, inter, whole;
    int errcodes[1], len;
    char *hosts = calloc(size, MPI_MAX_PROCESSOR_NAME);
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Info info = MPI_INFO_NULL;

    /* where each process runs, for a replacement on the node of the dead */
    MPI_Get_processor_name(mine, &len);
    CHECK_MPI(MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts,
                            MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD));
    const char *dead_host = hosts + (size - 1) * MPI_MAX_PROCESSOR_NAME;
    if (same_node) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "host", dead_host);
    }
    /* everyone is here; a barrier the victim left early may see its death */
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1)
        ft_die(how);
    while (rc == MPI_SUCCESS)
        rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(ft_class(rc) == MPIX_ERR_PROC_FAILED || ft_class(rc) == MPIX_ERR_REVOKED,
          "barrier class %d", ft_class(rc));
    MPIX_Comm_revoke(MPI_COMM_WORLD);
    CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk));
    int n;
    MPI_Comm_size(shrunk, &n);
    CHECK(n == size - 1, "shrunk to %d", n);

    char *child_argv[] = { "child", "respawn", (char *) how, NULL };
    CHECK_MPI(MPI_Comm_spawn(self, child_argv, size - n, info, 0, shrunk, &inter, errcodes));
    CHECK_MPI(MPI_Intercomm_merge(inter, 0, &whole));
    /* the replacement checks where it runs */
    if (rank == 0)
        CHECK_MPI(MPI_Send(same_node ? dead_host : "", MPI_MAX_PROCESSOR_NAME, MPI_CHAR, size - 1,
                           13, whole));
    ring_and_sum(whole, size);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    free(hosts);
    CHECK_MPI(MPI_Comm_free(&whole));
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&shrunk));
}

static void child_respawn(MPI_Comm parent, int size)
{
    MPI_Comm whole;
    int psize;
    MPI_Comm_remote_size(parent, &psize);
    CHECK_MPI(MPI_Intercomm_merge(parent, 1, &whole));
    char wanted[MPI_MAX_PROCESSOR_NAME] = "", mine[MPI_MAX_PROCESSOR_NAME] = "";
    int len;
    CHECK_MPI(MPI_Recv(wanted, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 13, whole,
                       MPI_STATUS_IGNORE));
    MPI_Get_processor_name(mine, &len);
    CHECK(!wanted[0] || !strcmp(wanted, mine), "runs on %s, not on %s where the dead one ran",
          mine, wanted);
    if (wanted[0])
        printf("replacement runs on %s, the node of the dead process\n", mine);
    ring_and_sum(whole, psize + size);
    CHECK_MPI(MPI_Comm_free(&whole));
    CHECK_MPI(MPI_Comm_free(&parent));
}

/* ---- processes that cannot start ------------------------------------------------------ */

static void parent_badcommand(int rank, const char *how)
{
    MPI_Comm inter = MPI_COMM_NULL;
    int errcodes[2] = { MPI_SUCCESS, MPI_SUCCESS };
    char *no_argv[] = { NULL }, *initdeath_argv[] = { "child", "initdeath", NULL };
    const char *command = self;
    char **child_argv = initdeath_argv;

    if (!strcmp(how, "missing"))
        command = "./no-such-program-here", child_argv = no_argv;
    else if (!strcmp(how, "false"))
        command = "/bin/false", child_argv = no_argv;
    else
        CHECK(!strcmp(how, "initdeath"), "unknown way to fail %s", how);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double start = MPI_Wtime();
    int rc = MPI_Comm_spawn(command, child_argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            errcodes);
    CHECK(rc != MPI_SUCCESS || errcodes[0] != MPI_SUCCESS || errcodes[1] != MPI_SUCCESS,
          "a spawn whose processes cannot start (%s) succeeded", how);
    if (rc != MPI_SUCCESS && rank == 0) {
        char s[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, s, &len);
        printf("spawn (%s) failed after %.1f s: %s\n", how, MPI_Wtime() - start, s);
    }
    if (inter != MPI_COMM_NULL)
        MPI_Comm_free(&inter);
    /* the job goes on */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Comm parent;

    self = argv[0];
    /* a child of "badcommand initdeath": child 1 dies inside MPI_Init */
    if (argc > 2 && !strcmp(argv[1], "child") && !strcmp(argv[2], "initdeath"))
        setenv("FTMPI_TEST_POINT", "1:init", 1);
    ft_init(&argc, &argv, 1, "basic|childdies HOW|respawn HOW|badcommand HOW", &rank, &size);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        const char *what = argc > 2 ? argv[2] : "";
        if (!strcmp(what, "basic"))
            child_basic(parent, rank, size);
        else if (!strcmp(what, "multi"))
            child_multi(parent, rank, size);
        else if (!strcmp(what, "childdies"))
            child_childdies(parent, rank, argv[3]);
        else if (!strcmp(what, "respawn"))
            child_respawn(parent, size);
        else
            CHECK(0, "child of unknown test %s", what);
        return ft_report();
    }
    if (!strcmp(argv[1], "basic"))
        parent_basic(rank, size);
    else if (!strcmp(argv[1], "childdies") && argc > 2)
        parent_childdies(rank, argv[2]);
    else if (!strcmp(argv[1], "respawn") && argc > 2)
        parent_respawn(rank, size, argv[2], argc > 3 && !strcmp(argv[3], "samenode"));
    else if (!strcmp(argv[1], "badcommand") && argc > 2)
        parent_badcommand(rank, argv[2]);
    else
        CHECK(0, "unknown test %s", argv[1]);
    return ft_report();
}
