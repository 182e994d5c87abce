/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Recovery (SHRINK and BLANK worlds, AUTO and MANUAL recovery, RESET and
 * CONT messages), in the legacy FT-MPI pattern: a call fails, the error
 * handler returns, the survivors recover (MANUAL: MPI_Comm_dup of
 * MPI_COMM_WORLD; AUTO: the library did it before calling the handler),
 * rebuild their sub-communicators and go on.
 *
 *   ft_recover PLAN HOW
 *     PLAN  one cycle per ':'-separated item; an item lists the ranks (of
 *           the first MPI_COMM_WORLD, i.e. process ids) that die in that
 *           cycle, '+'-separated, and after '@' those that die in the middle
 *           of the recovery that follows, e.g. "2", "1+3", "2@0", "3:1:0"
 *     HOW   kill (SIGKILL) or exit (_exit)
 *
 * Each cycle checks: the blocked call fails with MPI_ERR_OTHER; recovery
 * succeeds; the new world's size and this process's rank; the FTMPI_*
 * attributes; blanks behave as MPI_PROC_NULL; the delete callbacks of
 * MPI_COMM_WORLD's attributes ran once each, in the order the attributes
 * were set, and the attributes stay; old communicator and group handles
 * are refused; a datatype survives; new communicators work; RESET drops
 * and CONT delivers a message sent before the failure; a ring over the
 * world carries the right values. */
#include "ftmpi_test.h"
#include <strings.h>

#define MAXP 64
#define BIG  (1 << 18)          /* ints: 1 MiB, sent with rendezvous */

static int blank_mode, auto_mode, cont_mode;
static int alive[MAXP];         /* by process id */
static int nproc;
static char order_log[64];      /* delete callbacks, in the order they ran */
static int handler_calls;

static int delete_cb(MPI_Comm comm, int keyval, void *val, void *extra)
{
    size_t n = strlen(order_log);
    if (n + 1 < sizeof(order_log)) {
        order_log[n] = *(char *) extra;
        order_log[n + 1] = 0;
    }
    return MPI_SUCCESS;
}

static void counting_handler(MPI_Comm * comm, int *code, ...)
{
    handler_calls++;
}

/* The world rank of process id pid in the current world. */
static int world_rank_of(int pid)
{
    if (blank_mode)
        return pid;
    int r = 0;
    for (int p = 0; p < pid; p++)
        r += alive[p];
    return r;
}

/* The rank of process id pid in a communicator of the live processes of
 * its parity, ordered by process id (MPI_Comm_split(world, pid % 2, pid)). */
static int parity_rank_of(int pid)
{
    int r = 0;
    for (int p = pid % 2; p < pid; p += 2)
        r += alive[p];
    return r;
}

/* Ring over the live processes: each sends its process id to the next one
 * and must get the previous one's. */
static void ring(int me, const char *when)
{
    int next = -1, prev = -1;
    for (int i = 1; i < nproc && next < 0; i++)
        if (alive[(me + i) % nproc])
            next = (me + i) % nproc;
    for (int i = 1; i < nproc && prev < 0; i++)
        if (alive[(me - i + nproc) % nproc])
            prev = (me - i + nproc) % nproc;
    if (next < 0)
        return;
    int in = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, world_rank_of(next), 40, &in, 1, MPI_INT,
                           world_rank_of(prev), 40, MPI_COMM_WORLD, &st));
    CHECK(in == prev && st.MPI_SOURCE == world_rank_of(prev), "%s: ring got %d from rank %d",
          when, in, st.MPI_SOURCE);
}

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 2, "PLAN kill|exit", &rank, &size);
    const char *plan = argv[1], *how = argv[2];
    blank_mode = test_env_is("FTMPI_COMM_MODE", "blank");
    auto_mode = test_env_is("FTMPI_RECOVERY_MODE", "auto");
    cont_mode = test_env_is("FTMPI_MSG_MODE", "cont");
    nproc = size;
    const int me = rank;        /* process id */
    ft_meetings_open(rank, size);
    for (int p = 0; p < nproc; p++)
        alive[p] = 1;

    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(counting_handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);

    /* attributes whose delete callbacks recovery calls, in this order */
    int ka, kb, kc;
    static char tag_a = 'a', tag_b = 'b', tag_c = 'c';
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &ka, &tag_a);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &kb, &tag_b);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &kc, &tag_c);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kb, &tag_b);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kc, &tag_c);
    MPI_Comm_set_attr(MPI_COMM_WORLD, ka, &tag_a);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);

    char planbuf[256];
    snprintf(planbuf, sizeof(planbuf), "%s", plan);
    char *save = NULL;
    int cycle = 0;
    for (char *item = strtok_r(planbuf, ":", &save); item; item = strtok_r(NULL, ":", &save),
         cycle++) {
        char *during = strchr(item, '@');
        if (during)
            *during++ = 0;
        int nvictims = 0, ndying = 0;
        for (int p = 0; p < nproc; p++) {
            nvictims += alive[p] && ft_in_list(item, p);
            ndying += alive[p] && during && ft_in_list(during, p);
        }
        int old_size;
        MPI_Comm_size(MPI_COMM_WORLD, &old_size);

        /* objects that recovery must destroy */
        MPI_Comm sub = MPI_COMM_NULL;
        MPI_Group grp;
        MPI_Comm_group(MPI_COMM_WORLD, &grp);
        if (!blank_mode || cycle == 0)
            CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &sub));

        /* messages to the next live process that it only looks for after
         * the recovery: RESET must drop them, CONT deliver them. One is large
         * (rendezvous), on MPI_COMM_WORLD; one small, on the sub-communicator,
         * to be received on the one made again in the same order after the
         * recovery (same context id) */
        /* CONT delivers a send that was pending at the failure after the
         * recovery, from its buffer as it then is: each cycle sends from a
         * buffer of its own that nothing changes */
        static int big_in[BIG];
        int *big_out = malloc(BIG * sizeof(int));
        MPI_Request big_req = MPI_REQUEST_NULL;
        int next = -1, next_same = -1;
        for (int i = 1; i < nproc; i++) {
            int q = (me + i) % nproc;
            if (!alive[q] || ft_in_list(item, q))
                continue;
            if (next < 0)
                next = q;
            if (next_same < 0 && q % 2 == me % 2 && q > me)
                next_same = q;
        }
        int early = 1000 * cycle + me;
        for (int i = 0; i < BIG; i++)
            big_out[i] = early;
        if (!ft_in_list(item, me) && next >= 0)
            CHECK_MPI(MPI_Isend(big_out, BIG, MPI_INT, world_rank_of(next), 70 + cycle,
                                MPI_COMM_WORLD, &big_req));
        if (!ft_in_list(item, me) && next_same >= 0 && sub != MPI_COMM_NULL)
            CHECK_MPI(MPI_Send(&early, 1, MPI_INT, parity_rank_of(next_same), 80 + cycle, sub));
        ring(me, "before the failure");

        /* a receive from the previous survivor, posted before the failure;
         * the sender sends only after the recovery. CONT keeps it pending
         * (waits fail until the recovery, then it completes); RESET ends it
         * with MPI_ERR_OTHER and a new receive gets the message */
        int pend_from = -1, pend_val = -1;
        MPI_Request pend_req = MPI_REQUEST_NULL;
        for (int i = 1; i < nproc && pend_from < 0; i++) {
            int q = (me - i + nproc) % nproc;
            if (alive[q] && !ft_in_list(item, q))
                pend_from = q;
        }
        if (!ft_in_list(item, me) && !during && pend_from >= 0)
            CHECK_MPI(MPI_Irecv(&pend_val, 1, MPI_INT, world_rank_of(pend_from), 90 + cycle,
                                MPI_COMM_WORLD, &pend_req));

        /* a nonblocking broadcast that only its root starts before the
         * failure: after the recovery, the next one must neither see its
         * message nor stumble over its schedule tag */
        int stale_root = -1, stale = -1000 - cycle;
        MPI_Request stale_req = MPI_REQUEST_NULL;
        for (int p = 0; p < nproc && stale_root < 0; p++)
            if (alive[p] && !ft_in_list(item, p) && !(during && ft_in_list(during, p)))
                stale_root = p;
        if (!blank_mode && me == stale_root)
            CHECK_MPI(MPI_Ibcast(&stale, 1, MPI_INT, world_rank_of(me), MPI_COMM_WORLD,
                                 &stale_req));

        /* the victims die together once every live process is here; those
         * of `during` die while the others recover, without joining them */
        int nlive = 0;
        for (int p = 0; p < nproc; p++)
            nlive += alive[p];
        if (ft_in_list(item, me))
            ft_die_together(cycle, me, item, nlive, 0.05, how);
        if (during && ft_in_list(during, me))
            ft_die_after(cycle, 0.4, how);

        /* blocked in a receive nobody sends until the failure ends it */
        int dummy, calls_before = handler_calls;
        order_log[0] = 0;
        ft_arrive(cycle);
        int rc = MPI_Recv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE);
        CHECK(ft_class(rc) == MPI_ERR_OTHER, "cycle %d: blocked receive returned class %d",
              cycle, ft_class(rc));
        for (int p = 0; p < nproc; p++)
            if (ft_in_list(item, p))
                alive[p] = 0;

        if (auto_mode) {
            CHECK(handler_calls == calls_before + 1, "cycle %d: error handler called %d times",
                  cycle, handler_calls - calls_before);
        } else {
            if (pend_req != MPI_REQUEST_NULL) {
                int f = 0;
                rc = MPI_Test(&pend_req, &f, MPI_STATUS_IGNORE);
                CHECK(ft_class(rc) == MPI_ERR_OTHER, "cycle %d: MPI_Test before recovery gave "
                      "class %d", cycle, ft_class(rc));
                CHECK((pend_req == MPI_REQUEST_NULL) == !cont_mode,
                      "cycle %d: the pending receive %s", cycle,
                      cont_mode ? "was ended (CONT)" : "is still pending (RESET)");
            }
            MPI_Comm x = FT_MPI_CHECK_RECOVER;
            rc = MPI_Comm_dup(MPI_COMM_WORLD, &x);
            CHECK(rc == MPI_SUCCESS && x == MPI_COMM_WORLD, "cycle %d: recovery returned %d",
                  cycle, ft_class(rc));
        }
        int handled = nvictims + ndying;
        if (during)
            for (int p = 0; p < nproc; p++)
                if (ft_in_list(during, p))
                    alive[p] = 0;

        /* the new world */
        int new_size, new_rank, nalive = 0;
        for (int p = 0; p < nproc; p++)
            nalive += alive[p];
        MPI_Comm_size(MPI_COMM_WORLD, &new_size);
        MPI_Comm_rank(MPI_COMM_WORLD, &new_rank);
        CHECK(new_size == (blank_mode ? nproc : nalive), "cycle %d: world size %d", cycle,
              new_size);
        CHECK(new_rank == world_rank_of(me), "cycle %d: rank %d, expected %d", cycle, new_rank,
              world_rank_of(me));
        int *nf, *code, flag;
        MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &nf, &flag);
        CHECK(flag && *nf == handled, "cycle %d: FTMPI_NUM_FAILED_PROCS %d, expected %d", cycle,
              flag ? *nf : -1, handled);
        MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_ERROR_FAILURE, &code, &flag);
        CHECK(flag && ft_class(*code) == MPI_ERR_OTHER, "cycle %d: FTMPI_ERROR_FAILURE", cycle);
        CHECK(strcmp(order_log, "bca") == 0, "cycle %d: delete callbacks ran as '%s'", cycle,
              order_log);
        void *av;
        MPI_Comm_get_attr(MPI_COMM_WORLD, ka, &av, &flag);
        CHECK(flag && av == &tag_a, "cycle %d: attribute lost", cycle);

        /* destroyed objects are refused; datatypes survive */
        if (sub != MPI_COMM_NULL) {
            rc = MPI_Barrier(sub);
            CHECK(ft_class(rc) == MPI_ERR_COMM, "cycle %d: old communicator gave class %d",
                  cycle, ft_class(rc));
            rc = MPI_Comm_free(&sub);
            CHECK(ft_class(rc) == MPI_ERR_COMM, "cycle %d: freeing it gave class %d", cycle,
                  ft_class(rc));
        }
        int gsize;
        rc = MPI_Group_size(grp, &gsize);
        CHECK(ft_class(rc) == MPI_ERR_GROUP, "cycle %d: old group gave class %d", cycle,
              ft_class(rc));
        int pv[2] = { me, -me }, pin[2] = { 0, 0 };
        CHECK_MPI(MPI_Sendrecv(pv, 1, pair, new_rank, 5, pin, 1, pair, new_rank, 5,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(pin[0] == me && pin[1] == -me, "cycle %d: datatype after recovery", cycle);

        /* the large message the previous survivor sent before the failure
         * (CONT delivers it unless its sender died during the recovery;
         * RESET never does), then this process's own large send, which
         * its receiver has now taken (CONT) or which ended at the failure */
        if (!ft_in_list(item, me) && pend_from >= 0) {
            int got = 0;
            MPI_Status st;
            double t0 = ft_now();
            do
                CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 70 + cycle, MPI_COMM_WORLD, &got, &st));
            while (!got && cont_mode && alive[pend_from] && ft_now() - t0 < 5);
            if (cont_mode && alive[pend_from]) {
                CHECK(got, "cycle %d: CONT lost the message sent before the failure", cycle);
                if (got) {
                    int val;
                    big_in[0] = big_in[BIG - 1] = -1;
                    CHECK_MPI(MPI_Recv(big_in, BIG, MPI_INT, st.MPI_SOURCE, 70 + cycle,
                                       MPI_COMM_WORLD, &st));
                    val = big_in[0];
                    CHECK(val == 1000 * cycle + pend_from && big_in[BIG - 1] == val &&
                          st.MPI_SOURCE == world_rank_of(pend_from),
                          "cycle %d: CONT message %d..%d came from rank %d", cycle, val,
                          big_in[BIG - 1], st.MPI_SOURCE);
                }
            } else {
                CHECK(!got, "cycle %d: a message sent before the failure by %s was delivered",
                      cycle, cont_mode ? "a process that died since" : "a survivor (RESET)");
            }
        }
        if (big_req != MPI_REQUEST_NULL) {
            rc = MPI_Wait(&big_req, MPI_STATUS_IGNORE);
            if (cont_mode && alive[next])
                CHECK(rc == MPI_SUCCESS, "cycle %d: CONT: the large send to a survivor gave "
                      "class %d", cycle, ft_class(rc));
            else
                CHECK(rc == MPI_SUCCESS || ft_class(rc) == MPI_ERR_OTHER,
                      "cycle %d: waiting for the large send gave class %d", cycle, ft_class(rc));
        }

        /* the receive that was pending across the failure */
        if (!ft_in_list(item, me) && !during && pend_from >= 0) {
            /* next: the following survivor, whose pending receive waits for this */
            int val = 1000 * cycle + me;
            CHECK_MPI(MPI_Send(&val, 1, MPI_INT, world_rank_of(next), 90 + cycle,
                               MPI_COMM_WORLD));
            MPI_Status st;
            if (pend_req != MPI_REQUEST_NULL) {
                rc = MPI_Wait(&pend_req, &st);
                CHECK(cont_mode ? rc == MPI_SUCCESS : ft_class(rc) == MPI_ERR_OTHER,
                      "cycle %d: waiting again for the pending receive gave class %d", cycle,
                      ft_class(rc));
            }
            if (!cont_mode)
                CHECK_MPI(MPI_Recv(&pend_val, 1, MPI_INT, world_rank_of(pend_from), 90 + cycle,
                                   MPI_COMM_WORLD, &st));
            CHECK(pend_val == 1000 * cycle + pend_from &&
                  st.MPI_SOURCE == world_rank_of(pend_from),
                  "cycle %d: pending receive got %d from rank %d", cycle, pend_val,
                  st.MPI_SOURCE);
        }

        ring(me, "after recovery");
        if (blank_mode) {
            /* a blank behaves as MPI_PROC_NULL */
            for (int p = 0; p < nproc; p++) {
                if (alive[p])
                    continue;
                int buf = 12345;
                MPI_Status st;
                CHECK_MPI(MPI_Send(&me, 1, MPI_INT, p, 6, MPI_COMM_WORLD));
                CHECK_MPI(MPI_Recv(&buf, 1, MPI_INT, p, 6, MPI_COMM_WORLD, &st));
                CHECK(buf == 12345 && st.MPI_SOURCE == MPI_PROC_NULL,
                      "blank %d: receive wrote %d, source %d", p, buf, st.MPI_SOURCE);
                break;
            }
        } else {
            /* new communicators work, the collectives of the new world too */
            MPI_Comm half;
            int sum = -1, expect = 0, ones = 0;
            CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
            for (int p = me % 2; p < nproc; p += 2)
                expect += alive[p] ? p : 0;
            CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, half));
            CHECK(sum == expect, "cycle %d: allreduce on a new communicator %d, expected %d",
                  cycle, sum, expect);

            /* made in the same order as the old sub-communicator: in CONT
             * mode it receives what was sent on that one */
            int prev_same = -1;
            for (int p = me - 2; p >= 0 && prev_same < 0; p -= 2)
                if (alive[p])
                    prev_same = p;
            if (prev_same >= 0 && !during && !ft_in_list(item, prev_same)) {
                int got = 0, val = -1;
                MPI_Status st;
                double t0 = ft_now();
                do
                    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 80 + cycle, half, &got, &st));
                while (!got && cont_mode && ft_now() - t0 < 5);
                CHECK(got == cont_mode, "cycle %d: a message of the old sub-communicator %s",
                      cycle, got ? "arrived (RESET)" : "was lost (CONT)");
                if (got) {
                    CHECK_MPI(MPI_Recv(&val, 1, MPI_INT, st.MPI_SOURCE, 80 + cycle, half, &st));
                    CHECK(val == 1000 * cycle + prev_same &&
                          st.MPI_SOURCE == parity_rank_of(prev_same),
                          "cycle %d: old sub-communicator message %d from rank %d", cycle, val,
                          st.MPI_SOURCE);
                }
            }
            if (stale_req != MPI_REQUEST_NULL) {
                rc = MPI_Wait(&stale_req, MPI_STATUS_IGNORE);
                CHECK(rc == MPI_SUCCESS || ft_class(rc) == MPI_ERR_OTHER,
                      "cycle %d: the broadcast started before the failure gave class %d",
                      cycle, ft_class(rc));
            }
            int fresh = me == stale_root ? 1000 * cycle + me : -1;
            MPI_Request fresh_req;
            CHECK_MPI(MPI_Ibcast(&fresh, 1, MPI_INT, world_rank_of(stale_root), MPI_COMM_WORLD,
                                 &fresh_req));
            CHECK_MPI(MPI_Wait(&fresh_req, MPI_STATUS_IGNORE));
            CHECK(fresh == 1000 * cycle + stale_root, "cycle %d: broadcast after the recovery "
                  "gave %d, expected %d", cycle, fresh, 1000 * cycle + stale_root);
            int one = 1;
            CHECK_MPI(MPI_Allreduce(&one, &ones, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            CHECK(ones == nalive, "cycle %d: allreduce over the world %d", cycle, ones);
            MPI_Comm_free(&half);
        }
    }

    MPI_Type_free(&pair);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return ft_report();
}
