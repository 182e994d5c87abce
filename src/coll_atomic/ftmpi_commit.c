/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The commit of ATOMIC collectives: each member's vote, and the start of
 * the termination protocol when a member may never hear every vote (its
 * sweep is in ftmpi_commit_sweep.c, the records and the message handler
 * in ftmpi_commit_record.c). The commit runs over the device's control
 * messages (which failures do not stop). There is no coordinator: the
 * members combine their votes (1: my part succeeded) with a logical AND by
 * dissemination. In round k (k = 0 .. ceil(log2 n) - 1) member r sends
 * the AND of every vote it knows to member r + 2^k (mod n) and waits for
 * the one of member r - 2^k; after the last round each member knows every
 * vote, and decides COMMIT when all are yes. That is ceil(log2 n) one-way
 * messages after the collective (a coordinator's star costs a round trip
 * and n - 1 messages through one process). A no decides ABORT at once:
 * the member sends 0 for its remaining rounds, so every other member still
 * hears from everyone it waits for and learns the no.
 *
 * A member that may never hear from everyone runs the termination
 * protocol: when a failure ends the collective (a member died, or, in
 * AUTO/MANUAL mode, any failure is recognized) while it is undecided, it
 * needs what every live member knows. The members form a binomial tree of
 * their ranks counted from the lowest live member L (mpid_ft_tree.h: a
 * member's parent clears its lowest set bit, skipping members known to
 * have failed). An undecided member asks its parent: if that one is
 * undecided inside a blocking collective of this commit, it runs the
 * protocol itself (asking its own parent), and its decision comes down to
 * the asker; if it is not (it has not entered, or waits elsewhere), or it
 * dies, the asker runs the protocol's sweep itself. L runs the sweep:
 * SWEEP goes down the tree (each carries the process ids of the
 * receiver's subtree; a member that learns that a child it swept died
 * sweeps that child's children), each member answers REPORT once its
 * subtree has, and a decided member answers with its decision at once. A
 * member that knows nothing answers so, and is "sealed": it will not
 * decide COMMIT from its own rounds any more (it runs the termination
 * protocol itself instead). If any answer is COMMIT, that is the
 * decision; else ABORT. This is safe because a member that decided COMMIT
 * did so before the sweep reached it (then it answers COMMIT) or could
 * not (it was sealed): a sweep therefore sees every COMMIT of a member
 * alive to answer it. Answers come from the message handler and the
 * sweep's progress hook, so members that already returned, or never
 * entered the collective (a process that knew of the failure refused it
 * at once), answer too. Decisions are unanimous, so the first decided
 * answer ends the protocol; a member that answered undecided sends its
 * decision to the askers once it has one, and a no heard during the
 * protocol decides ABORT: an asker then does not wait for a member that
 * cannot answer. Each member sends and receives O(log n) messages.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "mpid_ft_tree.h"
#include "ftmpi_commit_impl.h"

/* ---- waiting -------------------------------------------------------------- */

static int member_dead(MPIR_Comm * comm, int rank)
{
    return MPID_FT_proc_failed(MPID_FT_comm_local_pid(comm, rank));
}

/* A failure that ends an undecided collective: any, once this process
 * has recognized one in AUTO/MANUAL mode; else one of the members'. */
static int collective_failed(MPIR_Comm * comm)
{
    if (MPIR_FTMPI_halts_on_failure() && MPIR_FTMPI_failure_pending())
        return 1;
    for (int r = 0; r < comm->local_size; r++)
        if (member_dead(comm, r))
            return 1;
    return 0;
}

/* ---- one process's part, step by step ------------------------------------ */

struct MPIR_FTMPI_vote {
    MPIR_Comm *comm;
    record_t *r;
    int yes;                    /* this process's own part */
    int rounds;                 /* ceil(log2(members)) */
    int sent;                   /* rounds whose VOTE this process sent */
    unsigned failures_checked;  /* MPID_FT_failure_count() when last looked at */
    MPIR_FTMPI_shared_output_t *shared;
    enum { DISSEMINATING, TERMINATING } phase;
    int sweeping;               /* the termination protocol sweeps the tree from here */
    int asked_rank;             /* the member asked last (-1: none yet) */
    unsigned number;            /* the collective's N at the test points (mpid_ft.h) */
};

/* collective_failed, looked at again only once the device has learned of
 * another failure (a loop over the members at every poll would cost the
 * failure-free commit time in proportion to their number) */
static int failed_since_last_check(MPIR_FTMPI_vote_t * v)
{
    unsigned failures = MPID_FT_failure_count();
    if (failures == v->failures_checked)
        return 0;
    v->failures_checked = failures;
    return collective_failed(v->comm);
}

static int send_msg(int pid, int type, record_t * r, uint32_t round, int value)
{
    return MPII_FTMPI_commit_send(pid, type, r, round, value, NULL, 0);
}

/* Sends this process's VOTE of the next round: the AND of the votes it
 * knows, to the member 2^round ranks ahead. */
static void send_round(MPIR_FTMPI_vote_t * v)
{
    MPIR_Comm *comm = v->comm;
    int to = (comm->rank + (1 << v->sent)) % comm->local_size;
    int value = v->yes && v->r->all_yes;

    send_msg(MPID_FT_comm_local_pid(comm, to), VOTE, v->r, v->sent, value);
    MPID_FT_TRACE("commit %x/%u/%u/%u: round %d: sends %d to rank %d", v->r->context_id,
                  v->r->epoch, v->r->instance, v->r->seq, v->sent, value, to);
    v->sent++;
}

/* A no is known: the remaining rounds carry it at once, and this process
 * decides ABORT (nobody can see every vote yes any more). */
static void abort_early(MPIR_FTMPI_vote_t * v)
{
    while (v->sent < v->rounds)
        send_round(v);
    v->r->decision = ABORT;
}

/* Whether the member at position pos of the tree (pids: tree_order's) is
 * alive as far as this process knows. */
static int alive_at(int pos, void *pids)
{
    return !MPID_FT_proc_failed(((int *) pids)[pos]);
}

/* The members in the tree's order, counted from the lowest live one
 * (which comes first); *me_at is this process's place. */
static int *tree_order(MPIR_Comm * comm, int *me_at)
{
    int n = comm->local_size, lowest = 0;
    int *pids = MPL_malloc(n * sizeof(int), MPL_MEM_COLL);
    if (pids == NULL)
        return NULL;
    while (lowest < n - 1 && member_dead(comm, lowest))
        lowest++;
    for (int v = 0; v < n; v++) {
        int rank = MPID_FT_tree_member(v, lowest, n);
        pids[v] = MPID_FT_comm_local_pid(comm, rank);
        if (rank == comm->rank)
            *me_at = v;
    }
    return pids;
}

/* This process may never hear from everyone: it asks its parent in the
 * tree, or the next one up when the one it asked does not decide by
 * itself (after one died: its own parent again); it sweeps the tree
 * itself when it is the root, or once the root turned out not to decide
 * by itself (then it never asks one alone again for this commit). */
static int start_termination(MPIR_FTMPI_vote_t * v)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm = v->comm;
    record_t *r = v->r;
    int me = 0;
    int *pids = tree_order(comm, &me);

    MPIR_ERR_CHKANDJUMP(pids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    r->terminating = 1;
    /* a rank's place in the tree counts from the lowest live rank */
    int n = comm->local_size, lowest = comm->rank - me;
    /* where to go up from: this process, or the one that did not decide */
    int from = me;
    if (v->asked_rank >= 0 && !member_dead(comm, v->asked_rank))
        from = MPID_FT_tree_position(v->asked_rank, lowest, n);
    if (r->decision != UNDECIDED) {
        /* (a sweep brought the decision before this process needed it) */
    } else if (from != 0 && !v->sweeping) {
        int parent = MPID_FT_tree_parent(from, alive_at, pids);
        v->asked_rank = MPID_FT_tree_member(parent, lowest, n);
        r->delegate = pids[parent];
        r->delegate_answer = NO_ANSWER;
        MPID_FT_TRACE("commit %x/%u/%u/%u: termination protocol (sealed %d), asks process %d",
                      r->context_id, r->epoch, r->instance, r->seq, r->sealed, r->delegate);
        send_msg(r->delegate, QUERY, r, 0, 0);
    } else {
        MPID_FT_TRACE("commit %x/%u/%u/%u: termination protocol (sealed %d), sweeps",
                      r->context_id, r->epoch, r->instance, r->seq, r->sealed);
        v->sweeping = 1;
        r->delegate = -1;
        /* this process first, then the others in the tree's order */
        int tmp = pids[0];
        pids[0] = pids[me];
        pids[me] = tmp;
        MPIR_Assert(pids[0] == MPIR_Process.rank);
        if (!MPII_FTMPI_commit_sweep(r, pids, n))
            MPIR_ERR_SETANDJUMP(mpi_errno, MPI_ERR_OTHER, "**nomem");
    }
    v->phase = TERMINATING;

  fn_exit:
    MPL_free(pids);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* A shared output needs no votes: this member's own output decides COMMIT
 * unless a query sealed it; without one, or sealed, it asks the others. */
static int shared_start(MPIR_FTMPI_vote_t * v)
{
    int mpi_errno = MPI_SUCCESS;
    record_t *r = v->r;

    r->shared = 1;
    r->result_len = v->shared->len;
    if (v->yes) {
        mpi_errno = MPII_FTMPI_commit_keep_result(r, v->shared->packed, v->shared->len);
        MPIR_ERR_CHKANDJUMP(mpi_errno, mpi_errno, MPI_ERR_OTHER, "**nomem");
    }
    if (v->yes && !r->sealed) {
        MPID_FT_test_death("after-vote", v->number, 0.02);
        MPID_FT_test_death("before-decision", v->number, 0.02);
        r->decision = COMMIT;
    } else {
        mpi_errno = start_termination(v);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int vote_start(MPIR_FTMPI_vote_t * v, MPIR_Comm * comm, uint32_t instance,
                      uint32_t seq, unsigned number, int yes,
                      MPIR_FTMPI_shared_output_t * shared)
{
    int mpi_errno = MPI_SUCCESS;

    v->number = number;
    v->r = MPII_FTMPI_commit_record(comm->context_id, MPID_FT_epoch(), instance, seq);
    MPIR_ERR_CHKANDJUMP(v->r == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    v->r->held = 1;
    v->comm = comm;
    v->yes = yes;
    v->shared = shared;
    v->phase = DISSEMINATING;
    v->sweeping = 0;
    v->asked_rank = -1;
    v->sent = 0;
    /* the first poll looks at the members */
    v->failures_checked = MPID_FT_failure_count() - 1;
    for (v->rounds = 0; (1 << v->rounds) < comm->local_size; v->rounds++);
    if (shared) {
        MPID_FT_TRACE("commit %x/%u/%u/%u: starts, part %s, shared output of %zu bytes "
                      "(no votes)", v->r->context_id, v->r->epoch, instance, seq,
                      yes ? "succeeded" : "failed", shared->len);
        mpi_errno = shared_start(v);
        MPIR_ERR_CHECK(mpi_errno);
        goto fn_exit;
    }
    MPID_FT_TRACE("commit %x/%u/%u/%u: starts, votes %s, %d rounds", v->r->context_id,
                  v->r->epoch, instance, seq, yes ? "yes" : "no", v->rounds);
    if (!yes) {
        abort_early(v);
    } else if (v->rounds > 0) {
        send_round(v);
        MPID_FT_test_death("after-vote", v->number, 0.02);
    }
    mpi_errno = v->r->send_errno;
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (v->r)
        v->r->held = 0;
    goto fn_exit;
}

static int vote_test(MPIR_FTMPI_vote_t * v, int *done, int *commit)
{
    int mpi_errno = MPI_SUCCESS;
    record_t *r = v->r;
    uint32_t all_rounds = (1u << v->rounds) - 1;

    *done = 0;
    mpi_errno = r->send_errno;
    MPIR_ERR_CHECK(mpi_errno);
    if (v->phase == DISSEMINATING && r->decision == UNDECIDED) {
        if (!r->all_yes) {
            abort_early(v);
        } else {
            /* each round's VOTE goes out once the previous round's is heard */
            while (v->sent < v->rounds && (r->rounds_heard >> (v->sent - 1)) & 1)
                send_round(v);
            if ((r->rounds_heard & all_rounds) == all_rounds && !r->sealed) {
                MPID_FT_test_death("before-decision", v->number, 0.02);
                r->decision = r->all_yes ? COMMIT : ABORT;
            } else if (r->sealed || failed_since_last_check(v)) {
                mpi_errno = start_termination(v);
                MPIR_ERR_CHECK(mpi_errno);
            }
        }
    } else if (v->phase == TERMINATING && r->decision == UNDECIDED) {
        /* a no was heard (a VOTE 0 can arrive after the termination
         * protocol started): no member can see every vote yes */
        if (!r->all_yes) {
            r->decision = ABORT;
        } else if (r->delegate >= 0) {
            /* asked alone: its decision ends this one's wait, unless it
             * died or does not decide by itself */
            if (MPID_FT_proc_failed(r->delegate) || r->delegate_answer == IDLE) {
                mpi_errno = start_termination(v);
                MPIR_ERR_CHECK(mpi_errno);
            }
        }
        /* (a sweep from here ends with the decision, in its progress hook) */
    }
    if (r->decision == UNDECIDED)
        goto fn_exit;
    *done = 1;
    r->held = 0;
    *commit = r->decision == COMMIT;
    if (*commit && v->shared && !v->yes && v->shared->len)
        memcpy(v->shared->packed, r->result, v->shared->len);
    MPID_FT_TRACE("commit %x/%u/%u/%u: %s", r->context_id, r->epoch, r->instance, r->seq,
                  *commit ? "COMMIT" : "ABORT");
    /* those that asked while this process was undecided may wait for a
     * member that cannot answer them (seen: one that had voted no and gone
     * into recovery); this decision ends their wait */
    if (r->waiting)
        for (int pid = 0; pid < MPIR_Process.size; pid++)
            if (r->waiting[pid])
                MPII_FTMPI_commit_send_state(pid, r);

  fn_exit:
    return mpi_errno;
  fn_fail:
    r->held = 0;
    goto fn_exit;
}

int MPIR_FTMPI_commit_start(MPIR_Comm * comm, uint32_t instance, uint32_t seq, unsigned number,
                            int yes, MPIR_FTMPI_shared_output_t * shared,
                            MPIR_FTMPI_vote_t ** vote)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FTMPI_vote_t *v = MPL_malloc(sizeof(*v), MPL_MEM_COLL);

    MPIR_ERR_CHKANDJUMP(v == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = vote_start(v, comm, instance, seq, number, yes, shared);
    MPIR_ERR_CHECK(mpi_errno);
    *vote = v;

  fn_exit:
    return mpi_errno;
  fn_fail:
    MPL_free(v);
    goto fn_exit;
}

int MPIR_FTMPI_commit_test(MPIR_FTMPI_vote_t * v, int *done, int *commit)
{
    int mpi_errno = vote_test(v, done, commit);
    if (*done || mpi_errno != MPI_SUCCESS)
        MPL_free(v);
    return mpi_errno;
}

void MPIR_FTMPI_commit_expect(MPIR_Comm * comm, uint32_t instance, uint32_t seq)
{
    /* undecided records are never reused, so this one stays */
    record_t *r = MPII_FTMPI_commit_record(comm->context_id, MPID_FT_epoch(), instance, seq);
    if (r && r->decision == UNDECIDED)
        r->driving = 1;
}

/* Those that asked while this process drove hear that it no longer does
 * (an undecided answer without the flag) and ask everyone. */
static void stop_driving(record_t * r)
{
    if (!r->driving)
        return;
    r->driving = 0;
    if (r->decision == UNDECIDED && r->waiting)
        for (int pid = 0; pid < MPIR_Process.size; pid++)
            if (r->waiting[pid])
                MPII_FTMPI_commit_send_state(pid, r);
}

void MPIR_FTMPI_commit_unexpect(MPIR_Comm * comm, uint32_t instance, uint32_t seq)
{
    record_t *r = MPII_FTMPI_commit_record(comm->context_id, MPID_FT_epoch(), instance, seq);
    if (r)
        stop_driving(r);
}

typedef struct {
    MPIR_FTMPI_vote_t v;
    int done;
    int *commit;
    int mpi_errno;
} blocking_vote_t;

static int blocking_vote_step(void *arg)
{
    blocking_vote_t *b = arg;
    b->mpi_errno = vote_test(&b->v, &b->done, b->commit);
    return b->done || b->mpi_errno != MPI_SUCCESS;
}

int MPIR_FTMPI_commit(MPIR_Comm * comm, uint32_t instance, uint32_t seq, unsigned number,
                      int yes, MPIR_FTMPI_shared_output_t * shared, int *commit)
{
    blocking_vote_t b = {.commit = commit };
    int mpi_errno;

    mpi_errno = vote_start(&b.v, comm, instance, seq, number, yes, shared);
    if (mpi_errno != MPI_SUCCESS) {
        MPIR_FTMPI_commit_unexpect(comm, instance, seq);
        return mpi_errno;
    }
    /* this wait runs until the commit is decided: a member that asks this
     * process alone may wait for it */
    record_t *r = b.v.r;
    r->driving = 1;
    mpi_errno = MPID_FT_wait(blocking_vote_step, &b, "an atomic collective's commit");
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = b.mpi_errno;
    if (b.done)
        r->driving = 0;
    else
        stop_driving(r);
    return mpi_errno;
}
