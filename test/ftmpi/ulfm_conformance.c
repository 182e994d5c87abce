/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* ULFM conformance: the User-Level Failure Mitigation chapter, function by
 * function, under ULFM's rules (FTMPI_RECOVERY_MODE=ulfm).
 *
 *   FTMPI_RECOVERY_MODE=ulfm ulfm_conformance CASE [RANKS [kill|exit]]
 *
 * CASE (RANKS: the victims, "1+3", of the cases with a failure; the
 * revoker of the revoke cases):
 *   classes                      the three error classes and their strings;
 *                                MPIX_Comm_is_revoked false on fresh
 *                                communicators; nothing failed yet
 *   revoke-intra REVOKER         revoke of an intracommunicator with pending
 *                                point-to-point and collectives; later calls
 *   revoke-inter REVOKER         revoke of an intercommunicator
 *   p2p VICTIMS HOW              point-to-point with dead peers, the
 *                                wildcard rule, acknowledgement
 *   any-wait, any-recv, any-probe VICTIMS HOW  MPI_Wait of a wildcard
 *                                receive, a blocking one, a blocking probe,
 *                                while a failure is not acknowledged
 *   coll VICTIMS HOW             collectives with dead members
 *   coll-revoke VICTIMS HOW      the same while a survivor revokes
 *   agree-before, iagree-before, agree-during, iagree-during VICTIMS HOW
 *   shrink-before, ishrink-before, shrink-during, ishrink-during VICTIMS HOW
 *   failed-groups VICTIMS HOW    get_failed, ack_failed, failure_ack,
 *                                failure_get_acked
 *   ack-query VICTIMS HOW        the same, and ack_failed(comm, 0) as a query
 *   multi-completion VICTIMS HOW the error handler MPI_Waitall/any/some and
 *                                MPI_Testall/any/some call
 *
 * The victims die (SIGKILL, or _exit) at a meeting of ftmpi_test.h: once
 * everyone has arrived, so "before" means the survivors know of the
 * failure before the call and "during" that they are (most likely) inside
 * it. The cases without a failure end with " No Errors"; in the others
 * every survivor reports for itself. ULFM_CONFORMANCE_VERBOSE=1 makes
 * the collective cases print the class each collective returned. */
#include "ftmpi_test.h"
#include <mpi-ext.h>
#include <stdarg.h>

#define BIG (1 << 20)           /* bytes: a rendezvous transfer */

static int rank, size;
static const char *victims = "", *how = "kill";
static int nvictims, nsurv, sidx = -1;  /* sidx: this process among the survivors */
static int surv[FT_MAX_PROCS];  /* the survivors' world ranks, ascending */

/* ---- helpers ------------------------------------------------------------ */

static const char *cname(int cls)
{
    static char other[64];
    switch (cls) {
        case MPI_SUCCESS:
            return "MPI_SUCCESS";
        case MPIX_ERR_PROC_FAILED:
            return "MPIX_ERR_PROC_FAILED";
        case MPIX_ERR_PROC_FAILED_PENDING:
            return "MPIX_ERR_PROC_FAILED_PENDING";
        case MPIX_ERR_REVOKED:
            return "MPIX_ERR_REVOKED";
        case MPI_ERR_OTHER:
            return "MPI_ERR_OTHER";
        case MPI_ERR_COMM:
            return "MPI_ERR_COMM";
        case MPI_ERR_REQUEST:
            return "MPI_ERR_REQUEST";
        case MPI_ERR_INTERN:
            return "MPI_ERR_INTERN";
        default:
            snprintf(other, sizeof(other), "class %d", cls);
            return other;
    }
}

/* The class of rc is one of the n classes that follow `n`. */
static void expect_at(int line, int rc, int n, const int *cls, const char *fmt, ...)
{
    int got = ft_class(rc);
    for (int i = 0; i < n; i++)
        if (got == cls[i])
            return;
    char what[256], want[256] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    for (int i = 0; i < n; i++)
        snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", i ? " or " : "",
                 cname(cls[i]));
    char s[MPI_MAX_ERROR_STRING] = "";
    int len;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, s, &len);
    fprintf(stderr, "[rank %d] %s:%d: %s: got %s (rc %d%s%s), expected %s\n", rank, __FILE__,
            line, what, cname(got), rc, s[0] ? ": " : "", s, want);
    test_errors++;
}

#define EXPECT(rc, cls, ...) \
    expect_at(__LINE__, (rc), 1, (const int[]) { cls }, __VA_ARGS__)
#define EXPECT2(rc, c1, c2, ...) \
    expect_at(__LINE__, (rc), 2, (const int[]) { c1, c2 }, __VA_ARGS__)
#define EXPECT3(rc, c1, c2, c3, ...) \
    expect_at(__LINE__, (rc), 3, (const int[]) { c1, c2, c3 }, __VA_ARGS__)

static int is_victim(int r)
{
    return ft_in_list(victims, r);
}

static int first_victim(void)
{
    for (int r = 0; r < size; r++)
        if (is_victim(r))
            return r;
    return -1;
}

/* World ranks of the members of g, in g's order; returns its size. */
static int world_ranks(MPI_Group g, int *out)
{
    MPI_Group world;
    int n = 0;
    MPI_Group_size(g, &n);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int *idx = malloc((n + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        idx[i] = i;
    if (n > 0)
        MPI_Group_translate_ranks(g, n, idx, world, out);
    free(idx);
    MPI_Group_free(&world);
    return n;
}

/* g holds exactly the victims (any order), each once. */
static void check_is_victims_at(int line, MPI_Group g, const char *what)
{
    int members[FT_MAX_PROCS], seen[FT_MAX_PROCS] = { 0 };
    int n = world_ranks(g, members), ok = n == nvictims;
    for (int i = 0; i < n && ok; i++) {
        ok = members[i] >= 0 && members[i] < size && is_victim(members[i]) && !seen[members[i]];
        if (ok)
            seen[members[i]] = 1;
    }
    if (!ok) {
        char list[512] = "";
        for (int i = 0; i < n; i++)
            snprintf(list + strlen(list), sizeof(list) - strlen(list), " %d", members[i]);
        fprintf(stderr, "[rank %d] %s:%d: %s holds {%s } (world ranks), expected the victims "
                "%s\n", rank, __FILE__, line, what, list, victims);
        test_errors++;
    }
}

#define CHECK_IS_VICTIMS(g, what) check_is_victims_at(__LINE__, (g), (what))

static int group_size(MPI_Group g)
{
    int n = -1;
    MPI_Group_size(g, &n);
    return n;
}

/* Waits (making progress) until this process knows n failures in comm;
 * returns how many it knows. */
static int wait_known(MPI_Comm comm, int n)
{
    double t0 = ft_now();
    int known = 0;
    for (;;) {
        MPI_Group g;
        int f;
        MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_SELF, &f, MPI_STATUS_IGNORE);
        if (MPIX_Comm_get_failed(comm, &g) != MPI_SUCCESS)
            return -1;
        known = group_size(g);
        MPI_Group_free(&g);
        if (known >= n || ft_now() - t0 > 20)
            return known;
        usleep(1000);
    }
}

/* The victims die together at meeting 0; the survivors return once they
 * know of every death in comm. */
static void victims_die_then_known(MPI_Comm comm)
{
    ft_meetings_open(rank, size);
    if (is_victim(rank))
        ft_die_together(0, rank, victims, size, 0.0, how);
    ft_arrive(0);
    int n = wait_known(comm, nvictims);
    CHECK(n == nvictims, "MPIX_Comm_get_failed names %d processes after 20 s, expected %d", n,
          nvictims);
}

/* The revoker's meeting: everyone else has arrived at meeting m. */
static void wait_for_others(int m)
{
    ft_wait_for(&ft_shared->arrived[m], size - 1, "waiting for the others to arrive");
    usleep(100000);     /* so that they are most likely blocked in the call */
}

/* A barrier of the survivors through the meeting table: every survivor has
 * reached meeting m (for steps that another process's message must not
 * overtake). */
static void survivors_meet(int m)
{
    ft_arrive(m);
    ft_wait_for(&ft_shared->arrived[m], nsurv, "waiting for the other survivors");
}

static MPI_Comm dup_world(void)
{
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

static int is_revoked(MPI_Comm c)
{
    int flag = -1;
    CHECK_MPI(MPIX_Comm_is_revoked(c, &flag));
    return flag;
}

/* Waits (making progress) until comm reads as revoked; returns whether.
 * The progress comes from a probe for a message a live peer never sends:
 * MPICH answers a probe on MPI_COMM_SELF without looking at the network. */
static int eventually_revoked(MPI_Comm comm)
{
    double t0 = ft_now();
    int peer = nsurv ? surv[(sidx + 1) % nsurv] : (rank + 1) % size;
    while (!is_revoked(comm) && ft_now() - t0 < 10) {
        int f;
        MPI_Iprobe(peer, 4711, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
        usleep(1000);
    }
    return is_revoked(comm);
}

/* Each rank's agreement contribution (its own bit cleared), and the AND
 * of everyone's or of the survivors' contributions. */
static int contribution(int r)
{
    return (int) ~(1u << (r % 31));
}

static int and_of(int survivors_only)
{
    unsigned f = ~0u;
    for (int r = 0; r < size; r++)
        if (!survivors_only || !is_victim(r))
            f &= (unsigned) contribution(r);
    return (int) f;
}

/* ---- 1. error classes --------------------------------------------------
 * MPIX_ERR_PROC_FAILED, _PENDING and _REVOKED are error classes of their
 * own: distinct, distinct from MPI's, their own class, each with its own
 * non-empty string; <mpi-ext.h>'s MPI_ERR_ names are the same classes.
 * Also (rule of MPIX_Comm_is_revoked, get_failed, ack_failed): fresh
 * communicators are not revoked and, with no failure, have no failed and
 * no acknowledged process; the job reports MPIX_FT. */
static void case_classes(void)
{
    const int cls[3] = { MPIX_ERR_PROC_FAILED, MPIX_ERR_PROC_FAILED_PENDING, MPIX_ERR_REVOKED };
    const char *names[3] = { "MPIX_ERR_PROC_FAILED", "MPIX_ERR_PROC_FAILED_PENDING",
        "MPIX_ERR_REVOKED"
    };
    const int mpi_classes[] = { MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE,
        MPI_ERR_TAG, MPI_ERR_COMM, MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP,
        MPI_ERR_OP, MPI_ERR_TOPOLOGY, MPI_ERR_DIMS, MPI_ERR_ARG, MPI_ERR_UNKNOWN,
        MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN, MPI_ERR_IN_STATUS, MPI_ERR_PENDING,
        MPI_ERR_NO_MEM, MPI_ERR_WIN, MPI_ERR_FILE, MPI_ERR_SESSION, MPI_ERR_LASTCODE
    };
    char str[3][MPI_MAX_ERROR_STRING];

    CHECK(MPI_ERR_PROC_FAILED == MPIX_ERR_PROC_FAILED &&
          MPI_ERR_PROC_FAILED_PENDING == MPIX_ERR_PROC_FAILED_PENDING &&
          MPI_ERR_REVOKED == MPIX_ERR_REVOKED, "<mpi-ext.h>'s MPI_ERR_ names differ");
    for (int i = 0; i < 3; i++) {
        int c = -1, len = -1;
        CHECK_MPI(MPI_Error_class(cls[i], &c));
        CHECK(c == cls[i], "MPI_Error_class(%s) = %d, expected itself (%d)", names[i], c, cls[i]);
        for (size_t k = 0; k < sizeof(mpi_classes) / sizeof(mpi_classes[0]); k++)
            CHECK(cls[i] != mpi_classes[k], "%s (%d) is the value of a standard class",
                  names[i], cls[i]);
        str[i][0] = 0;
        CHECK_MPI(MPI_Error_string(cls[i], str[i], &len));
        CHECK(len > 0 && str[i][0] != 0 && len == (int) strlen(str[i]),
              "MPI_Error_string(%s): length %d, \"%s\"", names[i], len, str[i]);
        for (int j = 0; j < i; j++) {
            CHECK(cls[i] != cls[j], "%s and %s are the same class", names[i], names[j]);
            CHECK(strcmp(str[i], str[j]) != 0, "%s and %s have the same string \"%s\"",
                  names[i], names[j], str[i]);
        }
        char other[MPI_MAX_ERROR_STRING];
        MPI_Error_string(MPI_ERR_OTHER, other, &len);
        CHECK(strcmp(str[i], other) != 0, "%s has MPI_ERR_OTHER's string", names[i]);
    }
    /* a class added at run time is yet another one */
    int added = -1;
    CHECK_MPI(MPI_Add_error_class(&added));
    for (int i = 0; i < 3; i++)
        CHECK(added != cls[i], "MPI_Add_error_class gave %s", names[i]);

    /* MPIX_FT is true exactly under ULFM's rules; the classes and their
     * strings hold in every mode */
    int *ft = NULL, found = 0, *mode = NULL, mode_found = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_FT, &ft, &found));
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_RECOVERY_MODE, &mode, &mode_found));
    int ulfm = mode_found && *mode == FTMPI_RECOVERY_MODE_ULFM;
    CHECK(found && ft && (*ft != 0) == ulfm, "MPIX_FT attribute %s, expected %s",
          !found ? "missing" : *ft ? "true" : "false", ulfm ? "true" : "false");
    if (!ulfm)
        return;

    /* fresh communicators: not revoked, nothing failed or acknowledged */
    MPI_Comm dup = dup_world(), split;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split));
    MPI_Comm fresh[4] = { MPI_COMM_WORLD, MPI_COMM_SELF, dup, split };
    const char *fname[4] = { "MPI_COMM_WORLD", "MPI_COMM_SELF", "a dup", "a split" };
    for (int i = 0; i < 4; i++) {
        MPI_Group g;
        int n = -1;
        CHECK(is_revoked(fresh[i]) == 0, "MPIX_Comm_is_revoked(%s) is true", fname[i]);
        CHECK_MPI(MPIX_Comm_get_failed(fresh[i], &g));
        CHECK(group_size(g) == 0, "MPIX_Comm_get_failed(%s): %d processes", fname[i],
              group_size(g));
        MPI_Group_free(&g);
        CHECK_MPI(MPIX_Comm_failure_get_acked(fresh[i], &g));
        CHECK(group_size(g) == 0, "MPIX_Comm_failure_get_acked(%s): %d processes", fname[i],
              group_size(g));
        MPI_Group_free(&g);
        CHECK_MPI(MPIX_Comm_ack_failed(fresh[i], size, &n));
        CHECK(n == 0, "MPIX_Comm_ack_failed(%s) acknowledged %d", fname[i], n);
        CHECK_MPI(MPIX_Comm_failure_ack(fresh[i]));
    }
    CHECK_MPI(MPI_Comm_free(&split));
    CHECK_MPI(MPI_Comm_free(&dup));
}

/* ---- 4, 9. revoke of an intracommunicator ------------------------------
 * Revoke ends every pending operation on the communicator at every process
 * with MPIX_ERR_REVOKED (a wildcard and a specific receive, a rendezvous
 * send, a nonblocking and a blocking collective); every later non-local
 * call fails the same way; local calls work (rank, size, test_inter,
 * names, groups, attributes, error handlers, compare, info, the failure
 * queries, free); MPIX_Comm_is_revoked is false before and true after,
 * everywhere; agree and shrink still work; other communicators are not
 * touched; revoking again is allowed. */
static int deleted;
static int v1 = 11, v2 = 22;    /* attribute values */

static int count_delete(MPI_Comm c, int keyval, void *value, void *extra)
{
    deleted++;
    return MPI_SUCCESS;
}

static void local_calls_work(MPI_Comm comm, MPI_Comm congruent, int keyval, int inter)
{
    int r = -1, s = -1, flag = -1, len = -1, res = -1;
    char name[MPI_MAX_OBJECT_NAME] = "";
    MPI_Group g;
    CHECK_MPI(MPI_Comm_rank(comm, &r));
    CHECK_MPI(MPI_Comm_size(comm, &s));
    if (!inter)
        CHECK(r == rank && s == size, "revoked communicator: rank %d size %d", r, s);
    CHECK_MPI(MPI_Comm_test_inter(comm, &flag));
    CHECK(flag == inter, "MPI_Comm_test_inter on the revoked communicator: %d", flag);
    if (inter) {
        CHECK_MPI(MPI_Comm_remote_size(comm, &s));
        CHECK_MPI(MPI_Comm_remote_group(comm, &g));
        CHECK(group_size(g) == s && s > 0, "remote group of %d, remote size %d",
              group_size(g), s);
        MPI_Group_free(&g);
    }
    CHECK_MPI(MPI_Comm_set_name(comm, "revoked one"));
    CHECK_MPI(MPI_Comm_get_name(comm, name, &len));
    CHECK(strcmp(name, "revoked one") == 0, "name of the revoked communicator: \"%s\"", name);
    CHECK_MPI(MPI_Comm_group(comm, &g));
    MPI_Comm_size(comm, &s);
    CHECK(group_size(g) == s, "group of the revoked communicator: %d members", group_size(g));
    MPI_Group_free(&g);
    /* attributes: get the one set before, set, delete (its callback runs) */
    int *v = NULL, found = 0;
    CHECK_MPI(MPI_Comm_get_attr(comm, keyval, &v, &found));
    CHECK(found && v == &v1, "attribute set before the revocation: found %d", found);
    CHECK_MPI(MPI_Comm_set_attr(comm, keyval, &v2));
    CHECK(deleted == 1, "replacing the attribute ran the delete callback %d times", deleted);
    CHECK_MPI(MPI_Comm_get_attr(comm, keyval, &v, &found));
    CHECK(found && v == &v2, "attribute set after the revocation: found %d", found);
    CHECK_MPI(MPI_Comm_delete_attr(comm, keyval));
    CHECK(deleted == 2, "MPI_Comm_delete_attr ran the delete callback %d times in all", deleted);
    CHECK_MPI(MPI_Comm_set_attr(comm, keyval, &v1));
    /* error handlers */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    CHECK_MPI(MPI_Comm_get_errhandler(comm, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "the revoked communicator's error handler changed");
    if (eh != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&eh);
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    if (congruent != MPI_COMM_NULL) {
        CHECK_MPI(MPI_Comm_compare(comm, congruent, &res));
        CHECK(res == MPI_CONGRUENT, "MPI_Comm_compare with a dup: %d", res);
    }
    MPI_Info info = MPI_INFO_NULL;
    CHECK_MPI(MPI_Comm_get_info(comm, &info));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    /* failure queries: nobody failed */
    int n = -1;
    CHECK_MPI(MPIX_Comm_get_failed(comm, &g));
    CHECK(group_size(g) == 0, "get_failed on the revoked communicator: %d", group_size(g));
    MPI_Group_free(&g);
    CHECK_MPI(MPIX_Comm_ack_failed(comm, size, &n));
    CHECK(n == 0, "ack_failed on the revoked communicator: %d", n);
    CHECK_MPI(MPIX_Comm_failure_ack(comm));
    CHECK_MPI(MPIX_Comm_failure_get_acked(comm, &g));
    CHECK(group_size(g) == 0, "failure_get_acked on the revoked communicator: %d",
          group_size(g));
    MPI_Group_free(&g);
}

static void case_revoke_intra(int revoker)
{
    MPI_Comm comm = dup_world(), other = dup_world();
    int keyval, value = -1, sum = -1, one = 1;
    char *big = calloc(BIG, 1);

    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &keyval, NULL));
    CHECK_MPI(MPI_Comm_set_attr(comm, keyval, &v1));
    CHECK(is_revoked(comm) == 0, "a fresh dup reads as revoked");
    ft_meetings_open(rank, size);

    if (rank != revoker) {
        /* a ring among the others, for the rendezvous send */
        int next = (rank + 1) % size;
        if (next == revoker)
            next = (next + 1) % size;
        MPI_Request req[4];
        const char *what[4] = { "wildcard receive", "receive from the revoker",
            "rendezvous send", "MPI_Ibarrier"
        };
        CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 1, comm, &req[0]));
        CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, revoker, 2, comm, &req[1]));
        CHECK_MPI(MPI_Isend(big, BIG, MPI_BYTE, next, 3, comm, &req[2]));
        CHECK_MPI(MPI_Ibarrier(comm, &req[3]));
        ft_arrive(0);
        int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
        EXPECT(rc, MPIX_ERR_REVOKED, "blocking MPI_Allreduce pending at the revocation");
        for (int i = 0; i < 4; i++) {
            rc = MPI_Wait(&req[i], MPI_STATUS_IGNORE);
            EXPECT(rc, MPIX_ERR_REVOKED, "pending %s", what[i]);
            CHECK(req[i] == MPI_REQUEST_NULL, "the %s's request was not freed", what[i]);
        }
        CHECK(is_revoked(comm) == 1, "not revoked after MPIX_ERR_REVOKED was seen");
    } else {
        wait_for_others(0);
        CHECK_MPI(MPIX_Comm_revoke(comm));
        CHECK(is_revoked(comm) == 1, "not revoked right after MPIX_Comm_revoke");
    }

    /* later non-local calls: MPIX_ERR_REVOKED, at the revoker too */
    int peer = (rank + 1) % size, rc;
    MPI_Request req;
    MPI_Comm newcomm = MPI_COMM_NULL;
    MPI_Group g;
    MPI_Status st;
    int flag;
    EXPECT(MPI_Send(&one, 1, MPI_INT, peer, 4, comm), MPIX_ERR_REVOKED, "MPI_Send");
    EXPECT(MPI_Ssend(&one, 1, MPI_INT, peer, 4, comm), MPIX_ERR_REVOKED, "MPI_Ssend");
    EXPECT(MPI_Send(&one, 1, MPI_INT, rank, 4, comm), MPIX_ERR_REVOKED, "MPI_Send to itself");
    EXPECT(MPI_Recv(&value, 1, MPI_INT, peer, 4, comm, &st), MPIX_ERR_REVOKED, "MPI_Recv");
    EXPECT(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 4, comm, &st), MPIX_ERR_REVOKED,
           "MPI_Recv from MPI_ANY_SOURCE");
    rc = MPI_Isend(&one, 1, MPI_INT, peer, 4, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(rc, MPIX_ERR_REVOKED, "MPI_Isend + MPI_Wait");
    rc = MPI_Irecv(&value, 1, MPI_INT, peer, 4, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(rc, MPIX_ERR_REVOKED, "MPI_Irecv + MPI_Wait");
    EXPECT(MPI_Sendrecv(&one, 1, MPI_INT, peer, 4, &value, 1, MPI_INT, MPI_ANY_SOURCE, 4, comm,
                        &st), MPIX_ERR_REVOKED, "MPI_Sendrecv");
    EXPECT(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st), MPIX_ERR_REVOKED,
           "MPI_Iprobe");
    EXPECT(MPI_Probe(peer, 4, comm, &st), MPIX_ERR_REVOKED, "MPI_Probe");
    EXPECT(MPI_Barrier(comm), MPIX_ERR_REVOKED, "MPI_Barrier");
    EXPECT(MPI_Bcast(&value, 1, MPI_INT, 0, comm), MPIX_ERR_REVOKED, "MPI_Bcast");
    EXPECT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm), MPIX_ERR_REVOKED,
           "MPI_Allreduce");
    rc = MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(rc, MPIX_ERR_REVOKED, "MPI_Iallreduce + MPI_Wait");
    rc = MPI_Comm_dup(comm, &newcomm);
    EXPECT(rc, MPIX_ERR_REVOKED, "MPI_Comm_dup");
    if (rc == MPI_SUCCESS && newcomm != MPI_COMM_NULL)
        MPI_Comm_free(&newcomm);
    rc = MPI_Comm_split(comm, 0, rank, &newcomm);
    EXPECT(rc, MPIX_ERR_REVOKED, "MPI_Comm_split");
    if (rc == MPI_SUCCESS && newcomm != MPI_COMM_NULL)
        MPI_Comm_free(&newcomm);
    MPI_Comm_group(comm, &g);
    rc = MPI_Comm_create(comm, g, &newcomm);
    EXPECT(rc, MPIX_ERR_REVOKED, "MPI_Comm_create");
    if (rc == MPI_SUCCESS && newcomm != MPI_COMM_NULL)
        MPI_Comm_free(&newcomm);
    MPI_Group_free(&g);
    /* revoking a revoked communicator is allowed */
    CHECK_MPI(MPIX_Comm_revoke(comm));
    CHECK(is_revoked(comm) == 1, "not revoked");

    local_calls_work(comm, other, keyval, 0);

    /* agree and shrink work on a revoked communicator */
    flag = contribution(rank);
    CHECK_MPI(MPIX_Comm_agree(comm, &flag));
    CHECK(flag == and_of(0), "agree over the revoked communicator: %#x, expected %#x", flag,
          and_of(0));
    MPI_Comm shrunk = MPI_COMM_NULL;
    CHECK_MPI(MPIX_Comm_shrink(comm, &shrunk));
    if (shrunk != MPI_COMM_NULL) {
        int ssize = -1;
        MPI_Comm_size(shrunk, &ssize);
        CHECK(ssize == size, "shrink of the revoked communicator: size %d", ssize);
        CHECK(is_revoked(shrunk) == 0, "the shrunk communicator reads as revoked");
        CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, shrunk));
        CHECK(sum == size, "allreduce over the shrunk communicator: %d", sum);
        CHECK_MPI(MPI_Comm_free(&shrunk));
    }

    /* other communicators are not revoked */
    CHECK(is_revoked(other) == 0, "a dup made before reads as revoked");
    CHECK(is_revoked(MPI_COMM_WORLD) == 0, "MPI_COMM_WORLD reads as revoked");
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, other));
    CHECK(sum == size, "allreduce over another communicator: %d", sum);

    /* freeing it works and runs the attribute's delete callback */
    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK(comm == MPI_COMM_NULL, "MPI_Comm_free left the handle");
    CHECK(deleted == 3, "the attribute's delete callback ran %d times in all, expected 3",
          deleted);
    CHECK_MPI(MPI_Comm_free_keyval(&keyval));
    CHECK_MPI(MPI_Comm_free(&other));
    free(big);
}

/* ---- 5. revoke of an intercommunicator ---------------------------------
 * A revoke of an intercommunicator (of the lower and upper half) by a
 * member of one group ends the pending collectives and receives of both
 * groups with MPIX_ERR_REVOKED; it reads as revoked in both; later calls
 * over it fail the same way (MPI_Intercomm_merge included); the local
 * communicator it was made from is not touched; local calls, agree
 * (each group gets the other's AND) and shrink work on it. */
static void case_revoke_inter(int revoker)
{
    int half = size / 2, low = rank < half, one = 1, sum = -1, value = -1;
    int remote_size = low ? size - half : half;
    MPI_Comm local, inter, inter2;
    int keyval;

    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local));
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 7, &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Comm_dup(inter, &inter2));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &keyval, NULL));
    CHECK_MPI(MPI_Comm_set_attr(inter, keyval, &v1));
    CHECK(is_revoked(inter) == 0, "a fresh intercommunicator reads as revoked");
    ft_meetings_open(rank, size);

    if (rank != revoker) {
        MPI_Request req[3];
        const char *what[3] = { "wildcard receive", "receive from remote rank 0",
            "MPI_Iallreduce"
        };
        CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 1, inter, &req[0]));
        CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, 0, 2, inter, &req[1]));
        CHECK_MPI(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter, &req[2]));
        ft_arrive(0);
        int rc = MPI_Barrier(inter);
        EXPECT(rc, MPIX_ERR_REVOKED, "blocking MPI_Barrier over the intercommunicator pending "
               "at the revocation (%s group)", (revoker < half) == low ? "revoker's" : "other");
        for (int i = 0; i < 3; i++) {
            rc = MPI_Wait(&req[i], MPI_STATUS_IGNORE);
            EXPECT(rc, MPIX_ERR_REVOKED, "pending %s over the intercommunicator", what[i]);
        }
        CHECK(is_revoked(inter) == 1, "not revoked after MPIX_ERR_REVOKED was seen");
    } else {
        wait_for_others(0);
        CHECK_MPI(MPIX_Comm_revoke(inter));
        CHECK(is_revoked(inter) == 1, "not revoked right after MPIX_Comm_revoke");
    }

    MPI_Comm merged = MPI_COMM_NULL;
    MPI_Request req;
    EXPECT(MPI_Send(&one, 1, MPI_INT, 0, 3, inter), MPIX_ERR_REVOKED, "MPI_Send across");
    EXPECT(MPI_Recv(&value, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE), MPIX_ERR_REVOKED,
           "MPI_Recv across");
    EXPECT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter), MPIX_ERR_REVOKED,
           "MPI_Allreduce over it");
    int rc = MPI_Ibarrier(inter, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(rc, MPIX_ERR_REVOKED, "MPI_Ibarrier + MPI_Wait over it");
    rc = MPI_Intercomm_merge(inter, low, &merged);
    EXPECT(rc, MPIX_ERR_REVOKED, "MPI_Intercomm_merge");
    if (rc == MPI_SUCCESS && merged != MPI_COMM_NULL)
        MPI_Comm_free(&merged);

    local_calls_work(inter, inter2, keyval, 1);

    /* the local communicator and a dup of the intercommunicator are untouched */
    CHECK(is_revoked(local) == 0, "the local communicator reads as revoked");
    CHECK(is_revoked(inter2) == 0, "a dup of the intercommunicator reads as revoked");
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, local));
    CHECK(sum == (low ? half : size - half), "allreduce over the local communicator: %d", sum);
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter2));
    CHECK(sum == remote_size, "allreduce over a dup of the intercommunicator: %d", sum);

    /* agree: each group gets the other group's AND */
    unsigned want = ~0u;
    for (int r = 0; r < size; r++)
        if ((r < half) != low)
            want &= (unsigned) contribution(r);
    int flag = contribution(rank);
    CHECK_MPI(MPIX_Comm_agree(inter, &flag));
    CHECK((unsigned) flag == want, "agree over the revoked intercommunicator: %#x, expected %#x",
          flag, want);
    MPI_Comm shrunk = MPI_COMM_NULL;
    CHECK_MPI(MPIX_Comm_shrink(inter, &shrunk));
    if (shrunk != MPI_COMM_NULL) {
        int lsize = -1, rsize = -1;
        MPI_Comm_size(shrunk, &lsize);
        MPI_Comm_remote_size(shrunk, &rsize);
        CHECK(lsize == (low ? half : size - half) && rsize == remote_size,
              "shrink of the revoked intercommunicator: sizes %d and %d", lsize, rsize);
        CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, shrunk));
        CHECK(sum == remote_size, "allreduce over the shrunk intercommunicator: %d", sum);
        CHECK_MPI(MPI_Comm_free(&shrunk));
    }
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK(deleted == 3, "the attribute's delete callback ran %d times in all, expected 3",
          deleted);
    CHECK_MPI(MPI_Comm_free_keyval(&keyval));
    CHECK_MPI(MPI_Comm_free(&inter2));
    CHECK_MPI(MPI_Comm_free(&local));
}

/* ---- 2. point-to-point with dead peers ---------------------------------
 * Once a failure is known: a receive posted from the dead process ends
 * with MPIX_ERR_PROC_FAILED, and so do new sends, receives and probes
 * naming it (before and after acknowledgement). A wildcard receive posted
 * before the failure reports MPIX_ERR_PROC_FAILED_PENDING from MPI_Test
 * (again and again) and stays pending: it can be cancelled, or completed by
 * a later matching send; so does one posted after the failure (MPI_Wait
 * and blocking wildcard calls: case any-*). Receives from
 * live processes are not affected. After MPIX_Comm_ack_failed, new and
 * pending wildcard receives complete, matched by live senders; the
 * acknowledgement is per communicator (one acknowledged with
 * MPIX_Comm_failure_ack behaves the same). */
enum { T_CANCEL = 10, T_MATCH, T_LIVE, T_DEAD, T_ANY2, T_NONE, T_NEW, T_AFTER, T_AFTER2,
    T_RING, T_TODEAD
};

static void case_p2p(void)
{
    MPI_Comm comm = dup_world(), comm2 = dup_world();
    int victim = first_victim(), next = -1, prev = -1, rc, n = -1, flag;
    int v_cancel = -1, v_match = -1, v_live = -1, v_dead = -1, v_any2 = -1, v_new = -1, v = -1;
    MPI_Request r_cancel, r_match, r_live, r_dead, r_any2, r_new, req;
    MPI_Status st;
    MPI_Group g;

    ft_meetings_open(rank, size);
    if (is_victim(rank))
        ft_die_together(0, rank, victims, size, 0.0, how);
    next = surv[(sidx + 1) % nsurv];
    prev = surv[(sidx + nsurv - 1) % nsurv];
    /* posted before the failure */
    CHECK_MPI(MPI_Irecv(&v_cancel, 1, MPI_INT, MPI_ANY_SOURCE, T_CANCEL, comm, &r_cancel));
    CHECK_MPI(MPI_Irecv(&v_match, 1, MPI_INT, MPI_ANY_SOURCE, T_MATCH, comm, &r_match));
    CHECK_MPI(MPI_Irecv(&v_live, 1, MPI_INT, prev, T_LIVE, comm, &r_live));
    CHECK_MPI(MPI_Irecv(&v_dead, 1, MPI_INT, victim, T_DEAD, comm, &r_dead));
    CHECK_MPI(MPI_Irecv(&v_any2, 1, MPI_INT, MPI_ANY_SOURCE, T_ANY2, comm2, &r_any2));
    ft_arrive(0);
    n = wait_known(comm, nvictims);
    CHECK(n == nvictims, "MPIX_Comm_get_failed names %d processes after 20 s, expected %d", n,
          nvictims);

    /* the receive posted from the dead */
    EXPECT(MPI_Wait(&r_dead, &st), MPIX_ERR_PROC_FAILED, "receive from the dead posted before");

    /* new operations naming the dead */
    for (int r = 0; r < size; r++) {
        if (!is_victim(r))
            continue;
        EXPECT(MPI_Send(&rank, 1, MPI_INT, r, T_TODEAD, comm), MPIX_ERR_PROC_FAILED,
               "MPI_Send to dead rank %d", r);
        EXPECT(MPI_Ssend(&rank, 1, MPI_INT, r, T_TODEAD, comm), MPIX_ERR_PROC_FAILED,
               "MPI_Ssend to dead rank %d", r);
        rc = MPI_Isend(&rank, 1, MPI_INT, r, T_TODEAD, comm, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        EXPECT(rc, MPIX_ERR_PROC_FAILED, "MPI_Isend + MPI_Wait to dead rank %d", r);
        EXPECT(MPI_Recv(&v, 1, MPI_INT, r, T_DEAD, comm, &st), MPIX_ERR_PROC_FAILED,
               "MPI_Recv from dead rank %d", r);
        rc = MPI_Irecv(&v, 1, MPI_INT, r, T_DEAD, comm, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        EXPECT(rc, MPIX_ERR_PROC_FAILED, "MPI_Irecv + MPI_Wait from dead rank %d", r);
        EXPECT(MPI_Probe(r, T_DEAD, comm, &st), MPIX_ERR_PROC_FAILED, "MPI_Probe of dead rank %d",
               r);
        EXPECT(MPI_Iprobe(r, T_DEAD, comm, &flag, &st), MPIX_ERR_PROC_FAILED,
               "MPI_Iprobe of dead rank %d", r);
    }

    /* the wildcard receive posted before: pending, stays pending, cancellable */
    flag = -1;
    rc = MPI_Test(&r_cancel, &flag, &st);
    EXPECT(rc, MPIX_ERR_PROC_FAILED_PENDING, "MPI_Test of a wildcard receive posted before");
    CHECK(r_cancel != MPI_REQUEST_NULL, "MPI_Test freed the pending wildcard receive");
    if (r_cancel != MPI_REQUEST_NULL) {
        rc = MPI_Test(&r_cancel, &flag, &st);
        EXPECT(rc, MPIX_ERR_PROC_FAILED_PENDING, "MPI_Test again");
        CHECK(r_cancel != MPI_REQUEST_NULL, "the second MPI_Test freed it");
    }
    if (r_cancel != MPI_REQUEST_NULL) {
        CHECK_MPI(MPI_Cancel(&r_cancel));
        rc = MPI_Wait(&r_cancel, &st);
        EXPECT(rc, MPI_SUCCESS, "MPI_Wait of the cancelled pending wildcard receive");
        flag = 0;
        MPI_Test_cancelled(&st, &flag);
        CHECK(rc != MPI_SUCCESS || flag, "the pending wildcard receive was not cancelled");
    }

    /* receives from live processes are not affected */
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, next, T_LIVE, comm));
    EXPECT(MPI_Wait(&r_live, &st), MPI_SUCCESS, "receive from a live process posted before");
    CHECK(v_live == prev, "received %d from the live process, expected %d", v_live, prev);
    v = -1;
    EXPECT(MPI_Sendrecv(&rank, 1, MPI_INT, next, T_RING, &v, 1, MPI_INT, prev, T_RING, comm,
                        &st), MPI_SUCCESS, "MPI_Sendrecv among survivors");
    CHECK(v == prev, "ring among survivors: %d, expected %d", v, prev);

    /* a pending wildcard receive matched by a later send completes */
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, next, T_MATCH, comm));
    double t0 = ft_now();
    flag = 0;
    do {
        rc = MPI_Test(&r_match, &flag, &st);
    } while ((rc == MPIX_ERR_PROC_FAILED_PENDING || (rc == MPI_SUCCESS && !flag)) &&
             r_match != MPI_REQUEST_NULL && ft_now() - t0 < 10);
    EXPECT(rc, MPI_SUCCESS, "MPI_Test of a pending wildcard receive after a matching send");
    CHECK(rc != MPI_SUCCESS || (flag && v_match == prev && st.MPI_SOURCE == prev),
          "pending wildcard receive matched by a later send: flag %d, got %d from %d, "
          "expected %d", flag, v_match, st.MPI_SOURCE, prev);
    if (r_match != MPI_REQUEST_NULL) {
        MPI_Cancel(&r_match);
        MPI_Request_free(&r_match);
    }

    /* while not acknowledged: new wildcard receives pend or fail */
    rc = MPI_Irecv(&v_new, 1, MPI_INT, MPI_ANY_SOURCE, T_NEW, comm, &r_new);
    EXPECT(rc, MPI_SUCCESS, "posting a wildcard receive (MPI_Irecv)");
    if (rc == MPI_SUCCESS) {
        rc = MPI_Test(&r_new, &flag, &st);
        EXPECT(rc, MPIX_ERR_PROC_FAILED_PENDING, "MPI_Test of a wildcard receive posted after "
               "the failure, before acknowledgement");
        CHECK(r_new != MPI_REQUEST_NULL, "its MPI_Test freed it");
    }
    EXPECT(MPI_Iprobe(MPI_ANY_SOURCE, T_NONE, comm, &flag, &st), MPI_SUCCESS,
           "MPI_Iprobe of MPI_ANY_SOURCE before acknowledgement");
    CHECK(!flag, "MPI_Iprobe found a message nobody sent");

    /* acknowledge (no survivor sends what completes the wildcard receives
     * before every survivor has checked them) */
    survivors_meet(1);
    CHECK_MPI(MPIX_Comm_ack_failed(comm, 0, &n));
    CHECK(n == 0, "MPIX_Comm_ack_failed(comm, 0): %d acknowledged, expected 0", n);
    CHECK_MPI(MPIX_Comm_ack_failed(comm, size, &n));
    CHECK(n == nvictims, "MPIX_Comm_ack_failed: %d acknowledged, expected %d", n, nvictims);
    CHECK_MPI(MPIX_Comm_failure_get_acked(comm, &g));
    CHECK_IS_VICTIMS(g, "MPIX_Comm_failure_get_acked");
    MPI_Group_free(&g);

    /* the wildcard receive that was pending completes with a live sender */
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, next, T_NEW, comm));
    if (r_new != MPI_REQUEST_NULL) {
        EXPECT(MPI_Wait(&r_new, &st), MPI_SUCCESS, "MPI_Wait of the pending wildcard receive "
               "after acknowledgement");
        CHECK(v_new == prev && st.MPI_SOURCE == prev, "it got %d from %d, expected %d", v_new,
              st.MPI_SOURCE, prev);
    }
    /* new wildcard receives, nonblocking and blocking */
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, next, T_AFTER, comm));
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, next, T_AFTER2, comm));
    v = -1;
    rc = MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, T_AFTER, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, &st);
    EXPECT(rc, MPI_SUCCESS, "a wildcard MPI_Irecv after acknowledgement");
    CHECK(rc != MPI_SUCCESS || (v == prev && st.MPI_SOURCE == prev),
          "it got %d from %d, expected %d", v, st.MPI_SOURCE, prev);
    v = -1;
    EXPECT(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, T_AFTER2, comm, &st), MPI_SUCCESS,
           "a blocking wildcard MPI_Recv after acknowledgement");
    CHECK(v == prev && st.MPI_SOURCE == prev, "it got %d from %d, expected %d", v,
          st.MPI_SOURCE, prev);
    /* the dead stay dead */
    EXPECT(MPI_Send(&rank, 1, MPI_INT, victim, T_TODEAD, comm), MPIX_ERR_PROC_FAILED,
           "MPI_Send to the dead after acknowledgement");
    EXPECT(MPI_Recv(&v, 1, MPI_INT, victim, T_DEAD, comm, &st), MPIX_ERR_PROC_FAILED,
           "MPI_Recv from the dead after acknowledgement");

    /* acknowledgement is per communicator: comm2's wildcard receive is still pending */
    CHECK_MPI(MPIX_Comm_failure_get_acked(comm2, &g));
    CHECK(group_size(g) == 0, "acknowledging on a dup acknowledged %d on the other",
          group_size(g));
    MPI_Group_free(&g);
    rc = MPI_Test(&r_any2, &flag, &st);
    EXPECT(rc, MPIX_ERR_PROC_FAILED_PENDING, "the wildcard receive of another communicator, "
           "where nothing was acknowledged");
    survivors_meet(2);
    CHECK_MPI(MPIX_Comm_failure_ack(comm2));
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, next, T_ANY2, comm2));
    if (r_any2 != MPI_REQUEST_NULL) {
        EXPECT(MPI_Wait(&r_any2, &st), MPI_SUCCESS, "that wildcard receive after "
               "MPIX_Comm_failure_ack");
        CHECK(v_any2 == prev, "it got %d, expected %d", v_any2, prev);
    }
    CHECK_MPI(MPI_Comm_free(&comm2));
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* ---- 2b. waiting on a wildcard receive -----------------------------------
 * any-wait: MPI_Wait of a nonblocking MPI_ANY_SOURCE receive that no
 * message matches returns MPIX_ERR_PROC_FAILED_PENDING while a failure is
 * known and not acknowledged, and the request stays pending (as MPI_Test
 * does, case p2p); after MPIX_Comm_ack_failed a later send completes it.
 * any-recv, any-probe: a blocking MPI_Recv (MPI_Probe) from MPI_ANY_SOURCE
 * fails with MPIX_ERR_PROC_FAILED instead (no request to keep pending);
 * after acknowledgement the same call is matched by a live sender.
 * The last survivor (the rescuer) takes no part: it waits until the others
 * are back from the call, then sends each the message their call waits
 * for; should a call block instead of returning, the rescuer sends it
 * anyway after 5 s, so that the call returns MPI_SUCCESS (a failed check
 * that says how long it blocked) instead of hanging the test. */
static int arrivals_within(int m, int n, double seconds)
{
    double t0 = ft_now();
    while (__atomic_load_n(&ft_shared->arrived[m], __ATOMIC_SEQ_CST) < n) {
        if (ft_now() - t0 > seconds)
            return 0;
        usleep(200);
    }
    return 1;
}

static void case_any(const char *kind)
{
    MPI_Comm comm = dup_world();
    int wait = strcmp(kind, "any-wait") == 0, probe = strcmp(kind, "any-probe") == 0;
    int rescuer = surv[nsurv - 1], n, v = -1, rc, consumed = 0;
    const char *name = wait ? "MPI_Wait of a wildcard MPI_Irecv" :
        probe ? "blocking wildcard MPI_Probe" : "blocking wildcard MPI_Recv";
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;

    victims_die_then_known(comm);
    if (rank == rescuer) {
        int in_time = arrivals_within(1, nsurv - 1, 5.0);
        int back = __atomic_load_n(&ft_shared->arrived[1], __ATOMIC_SEQ_CST);
        for (int i = 0; i < nsurv - 1; i++)
            CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, surv[i], T_NONE, comm));
        CHECK(in_time, "after 5 s only %d of the other %d survivors were back from the %s",
              back, nsurv - 1, name);
        CHECK_MPI(MPI_Comm_free(&comm));
        return;
    }
    if (wait)
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, T_NONE, comm, &req));
    double t0 = ft_now();
    if (wait)
        rc = MPI_Wait(&req, &st);
    else if (probe)
        rc = MPI_Probe(MPI_ANY_SOURCE, T_NONE, comm, &st);
    else
        rc = MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, T_NONE, comm, &st);
    double took = ft_now() - t0;
    ft_arrive(1);
    consumed = rc == MPI_SUCCESS && !probe;
    EXPECT(rc, wait ? MPIX_ERR_PROC_FAILED_PENDING : MPIX_ERR_PROC_FAILED,
           "%s before acknowledgement (returned after %.2f s%s)", name, took,
           rc == MPI_SUCCESS ? ", matched by the rescuer's message: it blocked" : "");
    if (wait)
        CHECK(rc == MPI_SUCCESS || req != MPI_REQUEST_NULL, "MPI_Wait freed the pending "
              "request");
    CHECK_MPI(MPIX_Comm_ack_failed(comm, size, &n));
    CHECK(n == nvictims, "MPIX_Comm_ack_failed: %d acknowledged, expected %d", n, nvictims);
    /* after acknowledgement: the rescuer's message is received */
    if (wait && req != MPI_REQUEST_NULL) {
        rc = MPI_Wait(&req, &st);
        EXPECT(rc, MPI_SUCCESS, "MPI_Wait of the pending wildcard receive after "
               "acknowledgement");
        consumed = rc == MPI_SUCCESS;
    } else if (probe) {
        rc = MPI_Probe(MPI_ANY_SOURCE, T_NONE, comm, &st);
        EXPECT(rc, MPI_SUCCESS, "blocking wildcard MPI_Probe after acknowledgement");
        CHECK(rc != MPI_SUCCESS || st.MPI_SOURCE == rescuer, "MPI_Probe found a message "
              "from %d, expected %d", st.MPI_SOURCE, rescuer);
    }
    if (!consumed) {
        rc = MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, T_NONE, comm, &st);
        EXPECT(rc, MPI_SUCCESS, "blocking wildcard MPI_Recv after acknowledgement");
    }
    CHECK(v == rescuer && st.MPI_SOURCE == rescuer, "received %d from %d, expected %d", v,
          st.MPI_SOURCE, rescuer);
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* ---- 3. collectives with dead members ----------------------------------
 * A collective over a communicator with a dead member never hangs: where a
 * survivor needs the dead one's part (barriers, all-to-all patterns, a
 * broadcast from it, the root of a reduce or gather, a scan above it,
 * communicator creation) it fails with MPIX_ERR_PROC_FAILED, elsewhere it
 * may succeed, and then with the right result. With coll-revoke the first
 * survivor revokes the communicators once its barrier failed: then every
 * error is MPIX_ERR_PROC_FAILED or MPIX_ERR_REVOKED, and MPIX_ERR_REVOKED
 * at the revoker. A communicator of survivors only is not affected. */
enum { C_BARRIER, C_IBARRIER, C_ALLREDUCE, C_IALLREDUCE, C_BCAST_DEAD, C_IBCAST_DEAD,
    C_ALLGATHER, C_ALLTOALL, C_IALLTOALL, C_REDUCE_SCATTER, C_REDUCE, C_GATHER, C_SCAN,
    C_BCAST_LIVE, C_DUP, C_SPLIT, NCOLL
};

static const char *coll_name[NCOLL] = { "MPI_Barrier", "MPI_Ibarrier", "MPI_Allreduce",
    "MPI_Iallreduce", "MPI_Bcast from the dead", "MPI_Ibcast from the dead", "MPI_Allgather",
    "MPI_Alltoall", "MPI_Ialltoall", "MPI_Reduce_scatter_block", "MPI_Reduce to a survivor",
    "MPI_Gather to a survivor", "MPI_Scan", "MPI_Bcast from a survivor", "MPI_Comm_dup",
    "MPI_Comm_split"
};

static void case_coll(int revoke)
{
    MPI_Comm comm[NCOLL], live, newcomm = MPI_COMM_NULL;
    int victim = first_victim(), root = surv[0], revoker = surv[0];
    int *in = malloc(size * sizeof(int)), *out = malloc(size * sizeof(int)), one = 1;
    MPI_Request req;

    for (int k = 0; k < NCOLL; k++)
        comm[k] = dup_world();
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, is_victim(rank), rank, &live));
    MPI_Comm_set_errhandler(live, MPI_ERRORS_RETURN);
    ft_meetings_open(rank, size);
    if (is_victim(rank))
        ft_die_together(0, rank, victims, size, 0.2, how);

    ft_arrive(0);
    for (int k = 0; k < NCOLL; k++) {
        int rc = MPI_SUCCESS, must_fail = 1, ok_data = 1;
        for (int i = 0; i < size; i++)
            in[i] = rank * 100 + i, out[i] = -1;
        switch (k) {
            case C_BARRIER:
                rc = MPI_Barrier(comm[k]);
                break;
            case C_IBARRIER:
                rc = MPI_Ibarrier(comm[k], &req);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                break;
            case C_ALLREDUCE:
                rc = MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, comm[k]);
                break;
            case C_IALLREDUCE:
                rc = MPI_Iallreduce(in, out, 1, MPI_INT, MPI_SUM, comm[k], &req);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                break;
            case C_BCAST_DEAD:
                rc = MPI_Bcast(out, 1, MPI_INT, victim, comm[k]);
                break;
            case C_IBCAST_DEAD:
                rc = MPI_Ibcast(out, 1, MPI_INT, victim, comm[k], &req);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                break;
            case C_ALLGATHER:
                rc = MPI_Allgather(in, 1, MPI_INT, out, 1, MPI_INT, comm[k]);
                break;
            case C_ALLTOALL:
                rc = MPI_Alltoall(in, 1, MPI_INT, out, 1, MPI_INT, comm[k]);
                break;
            case C_IALLTOALL:
                rc = MPI_Ialltoall(in, 1, MPI_INT, out, 1, MPI_INT, comm[k], &req);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                break;
            case C_REDUCE_SCATTER:
                rc = MPI_Reduce_scatter_block(in, out, 1, MPI_INT, MPI_SUM, comm[k]);
                break;
            case C_REDUCE:
                rc = MPI_Reduce(in, out, 1, MPI_INT, MPI_SUM, root, comm[k]);
                must_fail = rank == root;
                break;
            case C_GATHER:
                rc = MPI_Gather(in, 1, MPI_INT, out, 1, MPI_INT, root, comm[k]);
                must_fail = rank == root;
                break;
            case C_SCAN:
                rc = MPI_Scan(&rank, out, 1, MPI_INT, MPI_SUM, comm[k]);
                must_fail = rank > victim;
                ok_data = rc != MPI_SUCCESS || out[0] == rank * (rank + 1) / 2;
                break;
            case C_BCAST_LIVE:
                if (rank == root)
                    out[0] = 4242;
                rc = MPI_Bcast(out, 1, MPI_INT, root, comm[k]);
                must_fail = 0;
                ok_data = rc != MPI_SUCCESS || out[0] == 4242;
                break;
            case C_DUP:
                rc = MPI_Comm_dup(comm[k], &newcomm);
                break;
            case C_SPLIT:
                rc = MPI_Comm_split(comm[k], 0, rank, &newcomm);
                break;
        }
        if (rc == MPI_SUCCESS && newcomm != MPI_COMM_NULL)
            MPI_Comm_free(&newcomm);
        if (getenv("ULFM_CONFORMANCE_VERBOSE"))
            fprintf(stderr, "[rank %d] %s: %s\n", rank, coll_name[k], cname(ft_class(rc)));
        CHECK(ok_data, "%s succeeded with a wrong result %d", coll_name[k], out[0]);
        if (revoke && rank == revoker && k > C_BARRIER)
            EXPECT(rc, MPIX_ERR_REVOKED, "%s at the revoker, after its revoke", coll_name[k]);
        else if (revoke && must_fail)
            EXPECT2(rc, MPIX_ERR_PROC_FAILED, MPIX_ERR_REVOKED, "%s with a dead member",
                    coll_name[k]);
        else if (revoke)
            EXPECT3(rc, MPI_SUCCESS, MPIX_ERR_PROC_FAILED, MPIX_ERR_REVOKED,
                    "%s with a dead member", coll_name[k]);
        else if (must_fail)
            EXPECT(rc, MPIX_ERR_PROC_FAILED, "%s with a dead member", coll_name[k]);
        else
            EXPECT2(rc, MPI_SUCCESS, MPIX_ERR_PROC_FAILED, "%s with a dead member",
                    coll_name[k]);
        if (revoke && rank == revoker && k == C_BARRIER)
            for (int j = 1; j < NCOLL; j++)
                CHECK_MPI(MPIX_Comm_revoke(comm[j]));
    }

    /* the survivors' own communicator works */
    int sum = -1;
    EXPECT(MPI_Barrier(live), MPI_SUCCESS, "MPI_Barrier over the survivors");
    EXPECT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, live), MPI_SUCCESS,
           "MPI_Allreduce over the survivors");
    CHECK(sum == nsurv, "MPI_Allreduce over the survivors: %d, expected %d", sum, nsurv);
    for (int k = 0; k < NCOLL; k++)
        CHECK_MPI(MPI_Comm_free(&comm[k]));
    CHECK_MPI(MPI_Comm_free(&live));
    free(in);
    free(out);
}

/* ---- 6. agreement ---------------------------------------------------------
 * MPIX_Comm_agree / MPIX_Comm_iagree give every process the AND of the
 * flags. A failure before the call and not acknowledged by every survivor
 * (not at all, then by one survivor only) raises MPIX_ERR_PROC_FAILED at
 * every survivor, with the flag still the AND of the contributors; once
 * every survivor acknowledged it (MPIX_Comm_ack_failed), it succeeds. The
 * same on a revoked communicator: agreement is not ended by revocation,
 * so it reports the failure (MPIX_ERR_PROC_FAILED, not MPIX_ERR_REVOKED)
 * and then succeeds. A failure during the call raises MPIX_ERR_PROC_FAILED at every survivor
 * with the AND of the contributors; after that, MPIX_Comm_failure_ack
 * acknowledges exactly the processes that did not contribute, and the
 * next agreement succeeds. */
static int agree(MPI_Comm comm, int *flag, int nonblocking, int meeting)
{
    if (!nonblocking) {
        if (meeting >= 0)
            ft_arrive(meeting);
        return MPIX_Comm_agree(comm, flag);
    }
    MPI_Request req;
    int rc = MPIX_Comm_iagree(comm, flag, &req);
    if (meeting >= 0)
        ft_arrive(meeting);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void case_agree(int nonblocking, int during)
{
    MPI_Comm comm = dup_world(), revoked = dup_world();
    const char *name = nonblocking ? "MPIX_Comm_iagree" : "MPIX_Comm_agree";
    int flag, rc, n = -1;
    MPI_Group g;

    /* no failure: the AND of everyone's flags */
    flag = contribution(rank);
    EXPECT(agree(comm, &flag, nonblocking, -1), MPI_SUCCESS, "%s without failure", name);
    CHECK(flag == and_of(0), "%s without failure: %#x, expected %#x", name, flag, and_of(0));
    flag = ~0;
    EXPECT(agree(comm, &flag, nonblocking, -1), MPI_SUCCESS, "%s of all ones", name);
    CHECK(flag == ~0, "%s of all ones: %#x", name, flag);

    ft_meetings_open(rank, size);
    if (is_victim(rank))
        ft_die_together(0, rank, victims, size, during ? 0.2 : 0.0, how);
    if (during) {
        flag = contribution(rank);
        rc = agree(comm, &flag, nonblocking, 0);
        EXPECT(rc, MPIX_ERR_PROC_FAILED, "%s with a failure during it", name);
        CHECK(flag == and_of(1), "%s with a failure during it: %#x, expected the survivors' "
              "AND %#x", name, flag, and_of(1));
        /* failure_ack after the raise acknowledges exactly the non-contributors */
        CHECK_MPI(MPIX_Comm_failure_ack(comm));
        CHECK_MPI(MPIX_Comm_failure_get_acked(comm, &g));
        CHECK_IS_VICTIMS(g, "MPIX_Comm_failure_get_acked right after the raising agreement");
        MPI_Group_free(&g);
    } else {
        ft_arrive(0);
        n = wait_known(comm, nvictims);
        CHECK(n == nvictims, "MPIX_Comm_get_failed names %d processes after 20 s, expected %d",
              n, nvictims);
        /* a revocation does not end an agreement: on a revoked communicator
         * it reports the unacknowledged failure, and succeeds once the
         * failure is acknowledged */
        if (rank == surv[0])
            CHECK_MPI(MPIX_Comm_revoke(revoked));
        CHECK(eventually_revoked(revoked), "the revocation did not arrive within 10 s");
        CHECK(wait_known(revoked, nvictims) == nvictims, "MPIX_Comm_get_failed on the revoked "
              "communicator does not name the %d failed processes", nvictims);
        flag = contribution(rank);
        rc = agree(revoked, &flag, nonblocking, -1);
        EXPECT(rc, MPIX_ERR_PROC_FAILED, "%s on a revoked communicator after a failure nobody "
               "acknowledged", name);
        CHECK(flag == and_of(1), "%s on a revoked communicator: %#x, expected %#x", name, flag,
              and_of(1));
        CHECK_MPI(MPIX_Comm_ack_failed(revoked, size, &n));
        flag = contribution(rank);
        rc = agree(revoked, &flag, nonblocking, -1);
        EXPECT(rc, MPI_SUCCESS, "%s on a revoked communicator after acknowledgement", name);
        flag = contribution(rank);
        rc = agree(comm, &flag, nonblocking, -1);
        EXPECT(rc, MPIX_ERR_PROC_FAILED, "%s after a failure nobody acknowledged", name);
        CHECK(flag == and_of(1), "%s after a failure: %#x, expected the survivors' AND %#x",
              name, flag, and_of(1));
        /* acknowledged by one survivor only: still raised, everywhere */
        if (rank == surv[0]) {
            CHECK_MPI(MPIX_Comm_ack_failed(comm, size, &n));
            CHECK(n == nvictims, "MPIX_Comm_ack_failed acknowledged %d, expected %d", n,
                  nvictims);
        }
        flag = contribution(rank);
        rc = agree(comm, &flag, nonblocking, -1);
        EXPECT(rc, MPIX_ERR_PROC_FAILED, "%s after a failure that only rank %d acknowledged",
               name, surv[0]);
        CHECK(flag == and_of(1), "%s (acknowledged by one): %#x, expected %#x", name, flag,
              and_of(1));
        /* acknowledged by all */
        CHECK_MPI(MPIX_Comm_ack_failed(comm, size, &n));
        CHECK(n == nvictims, "MPIX_Comm_ack_failed acknowledged %d, expected %d", n, nvictims);
    }
    flag = contribution(rank);
    rc = agree(comm, &flag, nonblocking, -1);
    EXPECT(rc, MPI_SUCCESS, "%s after every survivor acknowledged the failure", name);
    CHECK(flag == and_of(1), "%s after acknowledgement: %#x, expected %#x", name, flag,
          and_of(1));
    flag = rank == surv[nsurv - 1] ? 0x5 : 0x7;
    rc = agree(comm, &flag, nonblocking, -1);
    EXPECT(rc, MPI_SUCCESS, "%s again", name);
    CHECK(flag == 0x5, "%s again: %#x, expected 0x5", name, flag);
    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK_MPI(MPI_Comm_free(&revoked));
}

/* ---- 7. shrink -------------------------------------------------------------
 * MPIX_Comm_shrink / MPIX_Comm_ishrink, with the failure before the call
 * (and the parent revoked by one survivor: shrink works on a revoked
 * communicator) or during it, succeed and give exactly the survivors, in
 * their order in the parent; the new communicator is not revoked, has no
 * failed member, keeps the parent's error handler, and works (a barrier,
 * an allreduce). The parent's handler is called with MPIX_ERR_PROC_FAILED
 * for the failed barrier before. */
static int eh_calls, eh_class;

static void count_errors(MPI_Comm * c, int *code, ...)
{
    eh_calls++;
    eh_class = ft_class(*code);
}

static void case_shrink(int nonblocking, int during)
{
    MPI_Comm comm, shrunk = MPI_COMM_NULL;
    MPI_Errhandler eh, got = MPI_ERRHANDLER_NULL;
    const char *name = nonblocking ? "MPIX_Comm_ishrink" : "MPIX_Comm_shrink";
    int rc, n;

    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_create_errhandler(count_errors, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, eh));
    ft_meetings_open(rank, size);
    if (is_victim(rank))
        ft_die_together(0, rank, victims, size, during ? 0.2 : 0.0, how);
    if (!during) {
        ft_arrive(0);
        n = wait_known(comm, nvictims);
        CHECK(n == nvictims, "MPIX_Comm_get_failed names %d processes after 20 s, expected %d",
              n, nvictims);
        EXPECT(MPI_Barrier(comm), MPIX_ERR_PROC_FAILED, "MPI_Barrier with a dead member");
        CHECK(eh_calls == 1 && eh_class == MPIX_ERR_PROC_FAILED, "the parent's error handler "
              "was called %d times (last class %s), expected once with MPIX_ERR_PROC_FAILED",
              eh_calls, cname(eh_class));
        survivors_meet(1);      /* every barrier is over before the revoke */
        if (rank == surv[0])
            CHECK_MPI(MPIX_Comm_revoke(comm));
    }
    if (nonblocking) {
        MPI_Request req;
        rc = MPIX_Comm_ishrink(comm, &shrunk, &req);
        if (during)
            ft_arrive(0);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        if (during)
            ft_arrive(0);
        rc = MPIX_Comm_shrink(comm, &shrunk);
    }
    EXPECT(rc, MPI_SUCCESS, "%s with a failure %s", name, during ? "during it" : "before");
    if (!during)
        CHECK(eventually_revoked(comm), "the parent revoked by rank %d does not read as "
              "revoked after 10 s", surv[0]);
    else
        CHECK(eh_calls == 0, "the error handler was called %d times (last class %s)",
              eh_calls, cname(eh_class));
    CHECK(shrunk != MPI_COMM_NULL, "%s gave MPI_COMM_NULL", name);
    if (rc == MPI_SUCCESS && shrunk != MPI_COMM_NULL) {
        int ssize = -1, srank = -1, members[FT_MAX_PROCS], sum = -1, max = -1;
        MPI_Group g;
        MPI_Comm_size(shrunk, &ssize);
        MPI_Comm_rank(shrunk, &srank);
        CHECK(ssize == nsurv && srank == sidx, "%s: rank %d of %d, expected %d of %d", name,
              srank, ssize, sidx, nsurv);
        MPI_Comm_group(shrunk, &g);
        n = world_ranks(g, members);
        MPI_Group_free(&g);
        for (int i = 0; i < n && i < nsurv; i++)
            CHECK(members[i] == surv[i], "%s: rank %d is world rank %d, expected %d", name, i,
                  members[i], surv[i]);
        CHECK_MPI(MPI_Comm_get_errhandler(shrunk, &got));
        CHECK(got == eh, "the shrunk communicator does not have the parent's error handler");
        if (got != MPI_ERRHANDLER_NULL)
            MPI_Errhandler_free(&got);
        CHECK(is_revoked(shrunk) == 0, "the shrunk communicator reads as revoked");
        CHECK_MPI(MPIX_Comm_get_failed(shrunk, &g));
        CHECK(group_size(g) == 0, "the shrunk communicator has %d failed members",
              group_size(g));
        MPI_Group_free(&g);
        EXPECT(MPI_Barrier(shrunk), MPI_SUCCESS, "MPI_Barrier over the shrunk communicator");
        EXPECT(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk), MPI_SUCCESS,
               "MPI_Allreduce over the shrunk communicator");
        EXPECT(MPI_Allreduce(&rank, &max, 1, MPI_INT, MPI_MAX, shrunk), MPI_SUCCESS,
               "MPI_Allreduce (max) over the shrunk communicator");
        int want = 0;
        for (int i = 0; i < nsurv; i++)
            want += surv[i];
        CHECK(sum == want && max == surv[nsurv - 1], "allreduce over the shrunk communicator: "
              "sum %d max %d, expected %d and %d", sum, max, want, surv[nsurv - 1]);
        CHECK_MPI(MPI_Comm_free(&shrunk));
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* ---- 8. failed and acknowledged groups ------------------------------------
 * MPIX_Comm_get_failed names exactly the dead members of the communicator
 * (translated to ranks of the communicator's group: a communicator in
 * reverse order gives the reversed ranks; one without the dead gives an
 * empty group). MPIX_Comm_ack_failed(comm, k) acknowledges the first k of
 * that group and returns how many are acknowledged in all (0 queries, and
 * acknowledgement is never undone: case ack-query); MPIX_Comm_failure_get_acked
 * gives them; MPIX_Comm_failure_ack acknowledges all known ones; both share
 * the count, which is per communicator.
 * ack-query: the same, and also that once failures are acknowledged,
 * MPIX_Comm_ack_failed with a smaller num_to_ack (0: the way to query the
 * count) returns the total and leaves them acknowledged. */
static void case_failed_groups(int query)
{
    MPI_Comm comm = dup_world(), comm2 = dup_world(), rev, sub;
    MPI_Group failed, acked, g;
    int n = -1, res = -1;

    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, is_victim(rank), rank, &sub));
    MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
    victims_die_then_known(comm);
    n = wait_known(rev, nvictims);

    CHECK_MPI(MPIX_Comm_get_failed(comm, &failed));
    CHECK_IS_VICTIMS(failed, "MPIX_Comm_get_failed");
    CHECK_MPI(MPIX_Comm_get_failed(comm2, &g));
    CHECK_IS_VICTIMS(g, "MPIX_Comm_get_failed of another dup");
    MPI_Group_free(&g);
    /* ranks in the communicator's own group */
    CHECK_MPI(MPIX_Comm_get_failed(rev, &g));
    {
        MPI_Group rg;
        int k = group_size(g), idx[FT_MAX_PROCS], out[FT_MAX_PROCS];
        MPI_Comm_group(rev, &rg);
        for (int i = 0; i < k; i++)
            idx[i] = i;
        if (k > 0)
            MPI_Group_translate_ranks(g, k, idx, rg, out);
        CHECK(k == nvictims, "MPIX_Comm_get_failed of a reversed communicator: %d", k);
        for (int i = 0; i < k; i++)
            CHECK(out[i] != MPI_UNDEFINED && is_victim(size - 1 - out[i]),
                  "MPIX_Comm_get_failed of a reversed communicator names its rank %d "
                  "(world rank %d), not a victim", out[i], size - 1 - out[i]);
        MPI_Group_free(&rg);
    }
    MPI_Group_free(&g);
    CHECK_MPI(MPIX_Comm_get_failed(sub, &g));
    CHECK(group_size(g) == 0, "MPIX_Comm_get_failed of the survivors' communicator: %d",
          group_size(g));
    MPI_Group_free(&g);

    /* acknowledging step by step */
    CHECK_MPI(MPIX_Comm_failure_get_acked(comm, &acked));
    CHECK(group_size(acked) == 0, "%d acknowledged before any acknowledgement",
          group_size(acked));
    MPI_Group_free(&acked);
    CHECK_MPI(MPIX_Comm_ack_failed(comm, 0, &n));
    CHECK(n == 0, "MPIX_Comm_ack_failed(comm, 0): %d", n);
    CHECK_MPI(MPIX_Comm_ack_failed(comm, 1, &n));
    CHECK(n == 1, "MPIX_Comm_ack_failed(comm, 1): %d", n);
    CHECK_MPI(MPIX_Comm_failure_get_acked(comm, &acked));
    CHECK(group_size(acked) == 1, "after acknowledging 1: get_acked has %d",
          group_size(acked));
    if (group_size(acked) == 1) {
        int a = -1, f = -1;
        world_ranks(acked, &a);
        int fr[FT_MAX_PROCS];
        world_ranks(failed, fr);
        f = fr[0];
        CHECK(a == f, "MPIX_Comm_ack_failed(comm, 1) acknowledged world rank %d, not the "
              "first of MPIX_Comm_get_failed (%d)", a, f);
    }
    MPI_Group_free(&acked);
    CHECK_MPI(MPIX_Comm_ack_failed(comm, size + 5, &n));
    CHECK(n == nvictims, "MPIX_Comm_ack_failed(comm, size + 5): %d, expected %d", n,
          nvictims);
    CHECK_MPI(MPIX_Comm_failure_get_acked(comm, &acked));
    CHECK_IS_VICTIMS(acked, "MPIX_Comm_failure_get_acked after acknowledging all");
    MPI_Group_compare(acked, failed, &res);
    CHECK(res == MPI_IDENT, "get_acked and get_failed differ (MPI_Group_compare %d)", res);
    MPI_Group_free(&acked);
    if (query) {
        /* asking for fewer than are acknowledged acknowledges nothing more
         * and undoes nothing: num_acked stays the total */
        CHECK_MPI(MPIX_Comm_ack_failed(comm, 1, &n));
        CHECK(n == nvictims, "MPIX_Comm_ack_failed(comm, 1) after all: %d, expected %d", n,
              nvictims);
        CHECK_MPI(MPIX_Comm_ack_failed(comm, 0, &n));
        CHECK(n == nvictims, "MPIX_Comm_ack_failed(comm, 0) after all: %d, expected %d", n,
              nvictims);
        CHECK_MPI(MPIX_Comm_failure_get_acked(comm, &acked));
        CHECK_IS_VICTIMS(acked, "MPIX_Comm_failure_get_acked after MPIX_Comm_ack_failed(comm, "
                         "0) queried the count");
        MPI_Group_free(&acked);
        /* and wildcard receives still work (nothing is unacknowledged) */
        MPI_Request req;
        int v, flag = -1, rc;
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, T_NONE, comm, &req));
        rc = MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        EXPECT(rc, MPI_SUCCESS, "MPI_Test of a wildcard receive after the count was queried");
        if (req != MPI_REQUEST_NULL) {
            MPI_Cancel(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }

    /* per communicator; failure_ack shares the count */
    CHECK_MPI(MPIX_Comm_failure_get_acked(comm2, &acked));
    CHECK(group_size(acked) == 0, "acknowledging on one dup acknowledged %d on the other",
          group_size(acked));
    MPI_Group_free(&acked);
    CHECK_MPI(MPIX_Comm_ack_failed(comm2, 0, &n));
    CHECK(n == 0, "MPIX_Comm_ack_failed(comm2, 0): %d, expected 0", n);
    CHECK_MPI(MPIX_Comm_failure_ack(comm2));
    CHECK_MPI(MPIX_Comm_failure_get_acked(comm2, &acked));
    CHECK_IS_VICTIMS(acked, "MPIX_Comm_failure_get_acked after MPIX_Comm_failure_ack");
    MPI_Group_free(&acked);
    CHECK_MPI(MPIX_Comm_ack_failed(comm2, query ? 0 : size, &n));
    CHECK(n == nvictims, "MPIX_Comm_ack_failed(comm2, %d) after MPIX_Comm_failure_ack: %d, "
          "expected %d", query ? 0 : size, n, nvictims);
    MPI_Group_free(&failed);

    CHECK_MPI(MPI_Comm_free(&sub));
    CHECK_MPI(MPI_Comm_free(&rev));
    CHECK_MPI(MPI_Comm_free(&comm2));
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* ---- main ------------------------------------------------------------------ */

/* ---- 9. multiple completion: whose error handler -----------------------
 * MPI_Waitall, _Waitany, _Waitsome, _Testall, _Testany and _Testsome name
 * no communicator: the handler they call is that of the failed request's
 * communicator (once per call), never MPI_COMM_WORLD's, which a program may
 * have left fatal. Also with that communicator freed before the call, and
 * for a wildcard receive pending on a failure. */
enum { M_WAITALL, M_WAITANY, M_WAITSOME, M_TESTALL, M_TESTANY, M_TESTSOME, M_FREED,
    M_ANY_WAITANY, M_ANY_WAITSOME, NMULTI
};
static const char *multi_name[NMULTI] = { "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
    "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Waitall on a freed communicator",
    "MPI_Waitany of a pending wildcard receive", "MPI_Waitsome of a pending wildcard receive"
};

static int world_eh_calls;

static void count_world_errors(MPI_Comm * c, int *code, ...)
{
    world_eh_calls++;
}

/* Completes r with call `which`, testing until it returns an error or
 * completes (10 s at most); returns the call's return code and sets *cls
 * to the error class of the request itself. */
static int complete_one(int which, MPI_Request * r, int *cls)
{
    MPI_Status st;
    int rc, idx = -1, out = -1, flag = 0, array_form = 1;
    double t0 = ft_now();
    st.MPI_ERROR = MPI_SUCCESS;
    do {
        switch (which) {
            case M_WAITALL:
            case M_FREED:
                rc = MPI_Waitall(1, r, &st);
                break;
            case M_WAITANY:
            case M_ANY_WAITANY:
                rc = MPI_Waitany(1, r, &idx, &st);
                array_form = 0;
                break;
            case M_WAITSOME:
            case M_ANY_WAITSOME:
                rc = MPI_Waitsome(1, r, &out, &idx, &st);
                break;
            case M_TESTALL:
                rc = MPI_Testall(1, r, &flag, &st);
                break;
            case M_TESTANY:
                rc = MPI_Testany(1, r, &idx, &flag, &st);
                array_form = 0;
                break;
            default:
                rc = MPI_Testsome(1, r, &out, &idx, &st);
                flag = out > 0;
                break;
        }
    } while (which >= M_TESTALL && which <= M_TESTSOME && rc == MPI_SUCCESS && !flag &&
             ft_now() - t0 < 10);
    *cls = ft_class(array_form && ft_class(rc) == MPI_ERR_IN_STATUS ? st.MPI_ERROR : rc);
    return rc;
}

static void case_multi_completion(void)
{
    MPI_Comm comm = dup_world(), doomed = dup_world();
    MPI_Errhandler eh, world_eh;
    MPI_Request r[NMULTI];
    int v[NMULTI], victim = first_victim();

    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Comm_set_errhandler(doomed, eh);
    MPI_Comm_create_errhandler(count_world_errors, &world_eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_eh);

    ft_meetings_open(rank, size);
    if (is_victim(rank))
        ft_die_together(0, rank, victims, size, 0.0, how);
    for (int i = 0; i < NMULTI; i++) {
        int src = i >= M_ANY_WAITANY ? MPI_ANY_SOURCE : victim;
        CHECK_MPI(MPI_Irecv(&v[i], 1, MPI_INT, src, 100 + i, i == M_FREED ? doomed : comm, &r[i]));
    }
    CHECK_MPI(MPI_Comm_free(&doomed));
    ft_arrive(0);
    int n = wait_known(comm, nvictims);
    CHECK(n == nvictims, "MPIX_Comm_get_failed names %d processes after 20 s, expected %d", n,
          nvictims);

    for (int i = 0; i < NMULTI; i++) {
        int cls, want = i >= M_ANY_WAITANY ? MPIX_ERR_PROC_FAILED_PENDING : MPIX_ERR_PROC_FAILED;
        eh_calls = world_eh_calls = 0;
        int rc = complete_one(i, &r[i], &cls);
        CHECK(rc != MPI_SUCCESS && cls == want, "%s: returned %s, the request's class %s, "
              "expected %s", multi_name[i], cname(ft_class(rc)), cname(cls), cname(want));
        CHECK(eh_calls == 1 && world_eh_calls == 0, "%s called the communicator's error handler "
              "%d times and MPI_COMM_WORLD's %d times, expected 1 and 0", multi_name[i], eh_calls,
              world_eh_calls);
        if (i >= M_ANY_WAITANY && r[i] != MPI_REQUEST_NULL) {
            CHECK_MPI(MPI_Cancel(&r[i]));
            MPI_Wait(&r[i], MPI_STATUS_IGNORE);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&world_eh);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    const char *usage = "classes | revoke-intra REVOKER | revoke-inter REVOKER | "
        "p2p|any-wait|any-recv|any-probe|coll|coll-revoke|"
        "agree-before|iagree-before|agree-during|iagree-during|"
        "shrink-before|ishrink-before|shrink-during|ishrink-during|"
        "failed-groups|ack-query|multi-completion VICTIMS kill|exit";
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* ULFM keeps MPI_ERRORS_ARE_FATAL as the default */
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD's error handler is not "
          "MPI_ERRORS_ARE_FATAL at start");
    if (eh != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    signal(SIGUSR2, ft_exit_on_signal);

    const char *cs = argc > 1 ? argv[1] : "";
    int failure = strcmp(cs, "p2p") == 0 || strncmp(cs, "any-", 4) == 0 ||
        strncmp(cs, "coll", 4) == 0 || strstr(cs, "agree-") != NULL ||
        strstr(cs, "shrink-") != NULL || strcmp(cs, "failed-groups") == 0 ||
        strcmp(cs, "ack-query") == 0 || strcmp(cs, "multi-completion") == 0;
    int revoke_case = strncmp(cs, "revoke-", 7) == 0;
    if ((failure && argc < 4) || (revoke_case && argc < 3) ||
        (!failure && !revoke_case && strcmp(cs, "classes") != 0) || size > 31) {
        if (rank == 0)
            fprintf(stderr, "usage: %s %s (2 to 31 processes)\n", argv[0], usage);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (failure) {
        victims = argv[2];
        how = argv[3];
        for (int r = 0; r < size; r++) {
            if (is_victim(r)) {
                nvictims++;
            } else {
                if (r == rank)
                    sidx = nsurv;
                surv[nsurv++] = r;
            }
        }
        if (nvictims == 0 || nsurv < 2 || (strcmp(how, "kill") && strcmp(how, "exit"))) {
            if (rank == 0)
                fprintf(stderr, "%s: VICTIMS must name 1 to size - 2 ranks, HOW kill or exit\n",
                        argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }

    if (strcmp(cs, "classes") == 0)
        case_classes();
    else if (strcmp(cs, "revoke-intra") == 0)
        case_revoke_intra(atoi(argv[2]) % size);
    else if (strcmp(cs, "revoke-inter") == 0)
        case_revoke_inter(atoi(argv[2]) % size);
    else if (strcmp(cs, "p2p") == 0)
        case_p2p();
    else if (strncmp(cs, "any-", 4) == 0)
        case_any(cs);
    else if (strcmp(cs, "coll") == 0 || strcmp(cs, "coll-revoke") == 0)
        case_coll(strcmp(cs, "coll-revoke") == 0);
    else if (strstr(cs, "agree-"))
        case_agree(cs[0] == 'i', strstr(cs, "during") != NULL);
    else if (strstr(cs, "shrink-"))
        case_shrink(cs[0] == 'i', strstr(cs, "during") != NULL);
    else if (strcmp(cs, "failed-groups") == 0 || strcmp(cs, "ack-query") == 0)
        case_failed_groups(strcmp(cs, "ack-query") == 0);
    else if (strcmp(cs, "multi-completion") == 0)
        case_multi_completion();
    else
        CHECK(0, "unknown case %s", cs);

    if (failure)
        return ft_report();
    if (ft_shared_name[0])
        shm_unlink(ft_shared_name);
    return test_finish();
}
