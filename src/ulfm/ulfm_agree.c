/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * ULFM's agreement over a communicator (MPIX_Comm_agree, and the steps of
 * MPIX_Comm_shrink): every surviving member returns the same AND of the
 * flags contributed, the same set of members that did not contribute
 * (failed before they could), and the same verdict on whether to raise
 * MPIX_ERR_PROC_FAILED: raised when some non-contributor's failure was
 * not acknowledged by every contributor.
 *
 * Over an intercommunicator the members are both groups, the low group's
 * ranks first, so that both sides number them alike; each group returns
 * the AND of the other group's flags (the ULFM rule), so a contribution
 * carries one AND per group. A process acknowledges failures of the
 * remote group only (those are the failures its intercommunicator
 * reports), so a failure counts as acknowledged by all when every
 * contributor of the other group acknowledged it.
 *
 * An agreement can also AND a bitmap of any length besides the flags
 * (shrink's offered context ids, ulfm_comm.c); every member must ask for
 * the same length.
 *
 * Protocol, per agreement (communicator context id, sequence number). A
 * contribution is a set of members with the AND of their flags, of their
 * bitmaps and of their acknowledged failures; contributions merge. The
 * members form a binomial tree (mpid_ft_tree.h) rooted at a coordinator
 * c: member r sits at v = (r - c) mod n, v's parent clears v's lowest
 * set bit, skipping members known to have failed (the tree repaired: a
 * failed member's children join its nearest live ancestor, so each
 * failure adds at most log2(n) children to one member), and v's subtree
 * is [v, v + lowest bit).
 *   - While rank 0 lives, it is the coordinator. Each member sends CONTRIB
 *     to its parent once every member of its subtree not known to have
 *     failed has contributed, again to its new parent whenever the one it
 *     sent to fails; rank 0 decides once it holds every member's not known
 *     to have failed and sends DECIDE down. Without a failure: 2 log2(n)
 *     steps, one message up and one down per member.
 *   - Once a member knows that its coordinator failed, it commits to the
 *     next one: the lowest member above it not known to have failed (or a
 *     later one whose QUERY came first). Committed, it takes only
 *     decisions labelled with that coordinator. It sends QUERY to its
 *     children in that coordinator's tree and answers its parent there
 *     with CONTRIB once every member of its subtree not known to have
 *     failed has answered (answers merge: each names the members that
 *     committed). The coordinator decides once every member it does not
 *     know to have failed has answered, and sends DECIDE down its tree.
 *   - A member that already holds a decision answers every QUERY and
 *     CONTRIB with it; when the decision is not that coordinator's (an
 *     earlier one's, taken before it committed), it is marked found, and
 *     a committed member does not take it: it sends it to the
 *     coordinator itself (a decided parent would only answer with it
 *     again), which adopts it as its own decision and answers with it (a
 *     coordinator keeps one that comes before it took the role). A member
 *     that holds a decision passes a coordinator's DECIDE on to its
 *     children in that coordinator's tree and to every member that sent it
 *     CONTRIB, so a decided member that returned from the call does not
 *     cut the members below it off.
 *
 * Why survivors agree: a decision is made only by rank 0, or by a
 * coordinator that every survivor answered; one that held an earlier
 * decision answered with it instead (found), which the coordinator
 * adopts; and one that committed takes no other coordinator's decision
 * afterwards. Every DECIDE names the coordinator whose decision it is, so
 * a relay changes nothing. Why it ends: a member waits only for members it
 * does not know to have failed (every failure becomes known to every
 * survivor), and sends again when its parent fails; a decided member
 * answers whoever asks and passes later decisions on; and each failure of
 * a coordinator moves the role up.
 */

#include "mpiimpl.h"
#include "mpid_ft.h"
#include "mpid_ft_tree.h"
#include "ulfm_impl.h"

static size_t msg_len(uint32_t size, uint32_t and_words)
{
    return ulfm_agree_msg_len(size, and_words);
}

/* Zeroed working space, on the caller's stack when it fits: a
 * failure-free agreement of a small communicator allocates nothing but
 * its record. */
typedef struct {
    uint64_t words[32];
} scratch_t;

static void *scratch_zeroed(scratch_t * s, size_t len)
{
    void *p = len <= sizeof(*s) ? s : MPL_malloc(len, MPL_MEM_OTHER);
    if (p)
        memset(p, 0, len);
    return p;
}

static void scratch_release(scratch_t * s, void *p)
{
    if (p != (void *) s)
        MPL_free(p);
}

/* A send that fails (no memory) is kept in the instance: the agreement
 * ends with it. */
static int send_bytes(instance_t * in, int to_pid, const agree_msg_t * m)
{
    int mpi_errno = MPID_FT_send(to_pid, MPID_FT_CHANNEL_ULFM_AGREE, m, msg_len(m->size,
                                                                                 m->and_words));
    if (mpi_errno != MPI_SUCCESS && in->send_errno == MPI_SUCCESS)
        in->send_errno = mpi_errno;
    return mpi_errno;
}

/* CONTRIB: what it holds, for `origin` (query_answer: with the members
 * that committed to it); DECIDE: its decision, labelled `origin`, found
 * when it is not that coordinator's; QUERY: for `origin`. */
static int send_msg(int to_pid, int kind, instance_t * in, int origin, int flag)
{
    int mpi_errno = MPI_SUCCESS;
    size_t bytes = MPID_FT_SET_BYTES(in->size), len = msg_len(in->size, in->and_words);
    scratch_t scratch;
    agree_msg_t *m = scratch_zeroed(&scratch, len);
    MPIR_ERR_CHKANDJUMP(m == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    m->head = (MPID_FT_msg_head_t) {.kind = kind,.seq = in->seq,.sender = in->own_rank };
    m->context_id = in->context_id;
    m->size = in->size;
    m->and_words = in->and_words;
    m->origin = origin;
    if (kind == MSG_CONTRIB) {
        memcpy(m->flag, in->flag_and, sizeof(m->flag));
        m->query_answer = flag;
        memcpy(m->ranks, in->contributed, bytes);
        memcpy(m->ranks + bytes, in->acked_by_all, bytes);
        memcpy(m->ranks + 2 * bytes, in->answered, bytes);
    } else if (kind == MSG_DECIDE) {
        memcpy(m->flag, in->flag, sizeof(m->flag));
        m->raise = in->raise;
        m->found = flag;
        memcpy(m->ranks, in->absent, bytes);
    }
    if (kind != MSG_QUERY)
        memcpy(m->ranks + 3 * bytes, in->and_mask, in->and_words * sizeof(uint32_t));
    mpi_errno = send_bytes(in, to_pid, m);
    scratch_release(&scratch, m);
  fn_exit:
    return mpi_errno;
  fn_fail:
    if (in->send_errno == MPI_SUCCESS)
        in->send_errno = mpi_errno;
    goto fn_exit;
}

/* Merges a contribution (its members, the AND of their flags, of their
 * bitmaps (unaligned) and of their acknowledged failures) into what this
 * process holds. */
static void add_contribution(instance_t * in, const uint8_t * members, const int32_t * flag,
                             const uint8_t * acked, const void *and_mask)
{
    for (size_t i = 0; i < MPID_FT_SET_BYTES(in->size); i++) {
        in->contributed[i] |= members[i];
        in->acked_by_all[i] &= acked[i];
    }
    for (uint32_t w = 0; w < in->and_words; w++) {
        uint32_t word;
        memcpy(&word, (const char *) and_mask + w * sizeof(word), sizeof(word));
        in->and_mask[w] &= word;
    }
    in->flag_and[0] &= flag[0];
    in->flag_and[1] &= flag[1];
}

/* The decision; its bitmap (unaligned) is the AND held when NULL. */
static void adopt(instance_t * in, int origin, const int32_t * flag, int raise,
                  const uint8_t * absent, const void *and_mask)
{
    in->decided = 1;
    in->decided_origin = origin;
    in->flag[0] = flag[0];
    in->flag[1] = flag[1];
    in->raise = raise;
    memcpy(in->absent, absent, MPID_FT_SET_BYTES(in->size));
    if (and_mask)
        memcpy(in->and_mask, and_mask, in->and_words * sizeof(uint32_t));
}

/* Whether member r is not known to have failed. One in MPI_Finalize
 * counts: it returned from the agreement with the decision, and answers
 * with it until every process is in MPI_Finalize. */
static int member_alive(const instance_t * in, int r)
{
    if (r == in->own_rank)
        return 1;
    MPID_FT_proc_state_t state = MPID_FT_proc_state(in->pids[r]);
    return state == MPID_FT_PROC_ALIVE || state == MPID_FT_PROC_GONE;
}

/* ---- the trees ------------------------------------------------------------ */

/* mpid_ft_tree.h asks whether a position is alive; liveness is known per
 * member, and the member at a position depends on the coordinator. */
typedef struct {
    const instance_t *in;
    int c;
} tree_t;

static int position_alive(int pos, void *arg)
{
    const tree_t *t = arg;
    return member_alive(t->in, MPID_FT_tree_member(pos, t->c, (int) t->in->size));
}

/* Member r's parent in c's tree, repaired: its nearest ancestor not known
 * to have failed (c when none is). */
static int live_parent(const instance_t * in, int r, int c)
{
    int n = (int) in->size, v = MPID_FT_tree_position(r, c, n);
    tree_t t = { in, c };
    return MPID_FT_tree_member(MPID_FT_tree_parent(v, position_alive, &t), c, n);
}

/* Whether every member of r's subtree in c's tree not known to have failed is in set. */
static int subtree_in(const instance_t * in, int r, int c, const uint8_t * set)
{
    int n = (int) in->size, v = MPID_FT_tree_position(r, c, n);
    for (int i = v; i < MPID_FT_tree_subtree_end(v, n); i++) {
        int m = MPID_FT_tree_member(i, c, n);
        if (!MPID_FT_set_has(set, m) && member_alive(in, m))
            return 0;
    }
    return 1;
}

/* Whether member r is a child of this process in c's tree: of its
 * subtree, not known to have failed, and its live parent. */
static int is_child(const instance_t * in, int r, int c)
{
    int n = (int) in->size;
    tree_t t = { in, c };
    return MPID_FT_tree_is_child(MPID_FT_tree_position(in->own_rank, c, n),
                                 MPID_FT_tree_position(r, c, n), n, position_alive, &t);
}

/* Sends QUERY for coordinator c to each child of this process in c's
 * tree not asked yet. */
static void query_children(instance_t * in, int c)
{
    for (int r = 0; r < (int) in->size; r++)
        if (!MPID_FT_set_has(in->queried, r) && is_child(in, r, c)) {
            MPID_FT_set_add(in->queried, r);
            send_msg(in->pids[r], MSG_QUERY, in, c, 0);
        }
}

/* Whether member r gets coordinator c's decision from this process: a
 * child in c's tree, or one that sent it CONTRIB, unless the decision
 * left r out. */
static int owed_decision(const instance_t * in, int r, int c)
{
    return r != in->own_rank && !MPID_FT_set_has(in->absent, r) &&
        (MPID_FT_set_has(in->asked, r) || is_child(in, r, c));
}

/* ---- messages ------------------------------------------------------------- */

/* A decided process answers a QUERY or CONTRIB for coordinator `origin`:
 * with that coordinator's decision, or with its own marked found. (A
 * coordinator's own decision is its decision, whatever it was labelled.) */
static void answer_decided(instance_t * in, int to_pid, int origin)
{
    int found = in->decided_origin != origin && in->own_rank != origin;
    send_msg(to_pid, MSG_DECIDE, in, origin, found);
}

/* A decided process passes coordinator `origin`'s DECIDE on to its
 * children in that coordinator's tree and to whoever sent it CONTRIB: a
 * member that waits below it may have no other way to the decision. */
static void relay_decision(instance_t * in, const agree_msg_t * m)
{
    int c = m->origin;
    if (!in->entered || c == in->decided_origin || c == in->relayed_origin)
        return;
    in->relayed_origin = c;
    for (int r = 0; r < (int) in->size; r++)
        if (owed_decision(in, r, c))
            send_bytes(in, in->pids[r], m);
}

static void commit(instance_t * in, int origin, const char *why)
{
    in->origin = origin;
    in->parent_pid = -1;
    in->found_sent_to = -1;
    in->failures_at_query = (unsigned) -1;
    memset(in->queried, 0, MPID_FT_SET_BYTES(in->size));
    memset(in->answered, 0, MPID_FT_SET_BYTES(in->size));
    /* (coordinators only move up: a decision found for a lower one is of
     * no use any more; one found for this process as a coordinator waits
     * until it takes the role) */
    if (in->found && in->found->origin < origin) {
        MPL_free(in->found);
        in->found = NULL;
    }
    if (in->entered)
        MPID_FT_set_add(in->answered, in->own_rank);
    MPID_FT_TRACE("agree %#x/%u: answers to coordinator %d (%s)", in->context_id, in->seq,
                  origin, why);
}

static void agree_message(int from, const void *buf, size_t len)
{
    const agree_msg_t *m = buf;

    const char *wrong = ulfm_agree_msg_check(buf, len);
    if (wrong) {
        fprintf(stderr, "FT-MPICH: rank %d: dropped an agreement message from rank %d: %s\n",
                MPIR_Process.rank, from, wrong);
        return;
    }
    instance_t *in = MPII_ULFM_instance(m->context_id, m->head.seq, m->size, m->and_words, 1);
    if (in == NULL) {
        fprintf(stderr, "FT-MPICH: rank %d: dropped an agreement message from rank %d "
                "(no memory, or it disagrees on the communicator's size or the call)\n",
                MPIR_Process.rank, from);
        return;
    }
    MPID_FT_MSG_TRACE(&ulfm_agree_kinds, &m->head, from, " (agree %#x, coordinator %d%s)",
                      m->context_id, m->origin, m->found ? ", a decision found" : "");

    size_t bytes = MPID_FT_SET_BYTES(m->size);
    switch (m->head.kind) {
        case MSG_CONTRIB:
            if (in->decided) {
                answer_decided(in, from, m->origin);
                break;
            }
            add_contribution(in, m->ranks, m->flag, m->ranks + bytes, m->ranks + 3 * bytes);
            MPID_FT_set_add(in->asked, m->head.sender);
            if (m->query_answer && m->origin == in->origin)
                for (size_t i = 0; i < bytes; i++)
                    in->answered[i] |= m->ranks[2 * bytes + i];
            break;
        case MSG_QUERY:
            if (in->decided) {
                answer_decided(in, from, m->origin);
            } else if (m->origin == in->origin) {
                /* a parent of a repaired tree asks: answered again */
                in->parent_pid = -1;
                in->found_sent_to = -1;
            } else if (m->origin > in->origin) {
                commit(in, m->origin, "it asked");
            }
            break;
        case MSG_DECIDE:
            /* a decided process has nothing to take (every decision is
             * the same one), but passes a coordinator's on, and answers
             * one found below it (as the coordinator, with its own) */
            if (in->decided) {
                if (!m->found)
                    relay_decision(in, m);
                else if (in->entered)
                    answer_decided(in, from, m->origin);
            } else if (!m->found) {
                /* (only its coordinator's is taken) */
                if (in->entered && m->origin == in->origin)
                    adopt(in, in->origin, m->flag, m->raise, m->ranks, m->ranks + 3 * bytes);
            } else if (in->found == NULL && (!in->entered || m->origin == in->origin ||
                                             m->origin == in->own_rank)) {
                /* for its coordinator, or for itself as one (also before it
                 * entered: only a coordinator is sent one then); tree_step
                 * passes it on or takes it */
                in->found = MPL_malloc(len, MPL_MEM_OTHER);
                if (in->found)
                    memcpy(in->found, m, len);
            }
            break;
    }
}

__attribute__ ((constructor))
static void register_channel(void)
{
    MPID_FT_register_handler(MPID_FT_CHANNEL_ULFM_AGREE, agree_message, MPID_FT_FROM_ANY_WORLD);
}

/* The lowest member above `after` not known to have failed (this process
 * when none is). */
static int next_coordinator(const instance_t * in, int after)
{
    for (int r = after + 1; r < (int) in->size; r++)
        if (member_alive(in, r))
            return r;
    return in->own_rank;
}

/* The coordinator decides once every member not known to have failed has
 * contributed and, for a coordinator after rank 0, has committed to it. */
static int try_decide(instance_t * in)
{
    int raise = 0;

    /* called at every progress step while waiting: nothing is allocated
     * until everyone awaited has contributed */
    int took_over = in->own_rank != 0;
    for (int r = 0; r < (int) in->size; r++)
        if (member_alive(in, r) && (!MPID_FT_set_has(in->contributed, r) ||
                                      (took_over && !MPID_FT_set_has(in->answered, r))))
            return 0;

    scratch_t scratch;
    uint8_t *absent = scratch_zeroed(&scratch, MPID_FT_SET_BYTES(in->size));
    if (absent == NULL)
        return 0;
    for (int r = 0; r < (int) in->size; r++) {
        if (MPID_FT_set_has(in->contributed, r))
            continue;
        MPID_FT_set_add(absent, r);
        raise |= !MPID_FT_set_has(in->acked_by_all, r);
    }
    adopt(in, in->own_rank, in->flag_and, raise, absent, NULL);
    scratch_release(&scratch, absent);
    MPID_FT_TRACE("agree %#x/%u: decided flag %#x%s", in->context_id, in->seq,
                  (unsigned) in->flag[0], in->raise ? ", raise MPIX_ERR_PROC_FAILED" : "");
    if (in->high_group < (int) in->size)
        MPID_FT_TRACE("agree %#x/%u: decided the high group's flag %#x", in->context_id,
                      in->seq, (unsigned) in->flag[1]);
    return 1;
}

/* Passes the decision on: down its coordinator's tree, and to every
 * member that sent CONTRIB. */
static void pass_on(instance_t * in)
{
    int sent = 0;
    for (int r = 0; r < (int) in->size; r++)
        if (owed_decision(in, r, in->decided_origin)) {
            send_msg(in->pids[r], MSG_DECIDE, in, in->decided_origin, 0);
            /* (a test point: the coordinator dies with its decision known
             * to two members only) */
            if (++sent == 2 && in->decided_origin == in->own_rank)
                MPID_FT_test_death("mid-decide", in->seq, 0.02);
        }
}

/* ---- one agreement, in steps ----------------------------------------------------- */

int MPIR_ULFM_agree_start(MPIR_Comm * comm, int flag, const uint32_t * and_mask, int and_words,
                          MPIR_ULFM_agreement_t * ag)
{
    int mpi_errno = MPI_SUCCESS;
    uint32_t seq = MPID_FT_comm_next_agreement(comm), key = MPII_ULFM_agreement_key(comm);
    int n = MPII_ULFM_num_members(comm), me;
    instance_t *in;

    MPIR_Assert(and_words >= 0 && and_words <= MAX_AND_WORDS);
    MPII_ULFM_forget_older(key, seq);
    in = MPII_ULFM_instance(key, seq, n, and_words, 1);
    /* (a record made by others' messages with another bitmap length: they
     * called another operation than this one, or memory ran out) */
    MPIR_ERR_CHKANDJUMP(in == NULL, mpi_errno, MPI_ERR_OTHER, "**ulfm_mismatch");
    mpi_errno = MPII_ULFM_members_of(comm, n, in);
    MPIR_ERR_CHECK(mpi_errno);
    in->entered = 1;
    in->own_context = comm->recvcontext_id;
    me = in->own_rank;

    size_t bytes = MPID_FT_SET_BYTES(n);
    scratch_t scratch;
    uint8_t *own = scratch_zeroed(&scratch, 2 * bytes);
    MPIR_ERR_CHKANDJUMP(own == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    MPID_FT_set_add(own, me);
    for (int r = 0; r < n; r++)
        if (MPII_ULFM_acknowledged(comm, r))
            MPID_FT_set_add(own + bytes, r);
    int32_t own_flags[2] = { ~0, ~0 };
    own_flags[me >= in->high_group] = flag;
    add_contribution(in, own, own_flags, own + bytes, and_mask);
    scratch_release(&scratch, own);
    /* (committed before it entered: a coordinator's QUERY came first) */
    if (in->origin != 0)
        MPID_FT_set_add(in->answered, me);

    ag->comm = comm;
    ag->context_id = key;
    ag->seq = seq;
    ag->and_words = and_words;
    ag->mpi_errno = MPI_SUCCESS;
    MPID_FT_TRACE("agree %#x/%u: enter with flag %#x, coordinator %d", key, seq,
                  (unsigned) flag, in->origin);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The coordinator takes an earlier decision found for it as its own, and
 * owes it to the member that passed it on. */
static void take_found(instance_t * in)
{
    const agree_msg_t *m = in->found;
    size_t bytes = MPID_FT_SET_BYTES(in->size);
    adopt(in, in->own_rank, m->flag, m->raise, m->ranks, m->ranks + 3 * bytes);
    MPID_FT_set_add(in->asked, m->head.sender);
    MPID_FT_TRACE("agree %#x/%u: takes the decision found (flag %#x)", in->context_id, in->seq,
                  (unsigned) in->flag[0]);
}

/* One step in the coordinator's tree: a new coordinator when this one's
 * failed, QUERY to children not yet asked, and what the subtree holds to
 * the parent, again to a new one when the parent fails; the coordinator
 * decides. An earlier decision found goes to the coordinator itself,
 * which takes it: the member that found it may sit below a decided one,
 * which would only answer with it again. */
static void tree_step(instance_t * in)
{
    int me = in->own_rank;
    unsigned failures = MPID_FT_failure_count();

    if (!member_alive(in, in->origin))
        commit(in, next_coordinator(in, in->origin), "the one before failed");
    int c = in->origin;
    if (c != 0 && failures != in->failures_at_query) {
        in->failures_at_query = failures;
        query_children(in, c);
    }
    int found_for_c = in->found && in->found->origin == c;
    if (c == me) {
        if (found_for_c)
            take_found(in);
        else
            try_decide(in);
        return;
    }
    if (found_for_c) {
        if (in->found_sent_to != in->pids[c]) {
            in->found_sent_to = in->pids[c];
            in->found->head.sender = me;
            send_bytes(in, in->pids[c], in->found);
        }
        return;
    }
    /* once sent, only a new failure or a new parent's QUERY sends again */
    if (in->parent_pid >= 0 && failures == in->failures_at_send)
        return;
    if (!subtree_in(in, me, c, c == 0 ? in->contributed : in->answered))
        return;
    in->failures_at_send = failures;
    int parent_pid = in->pids[live_parent(in, me, c)];
    if (parent_pid == in->parent_pid)
        return;
    if (in->parent_pid >= 0)
        MPID_FT_TRACE("agree %#x/%u: parent failed, sending to process %d", in->context_id,
                      in->seq, parent_pid);
    in->parent_pid = parent_pid;
    send_msg(parent_pid, MSG_CONTRIB, in, c, c != 0);
}

int MPIR_ULFM_agree_step(MPIR_ULFM_agreement_t * ag, int *flag, MPIR_ULFM_outcome_t * outcome)
{
    int n = MPII_ULFM_num_members(ag->comm);
    instance_t *in = MPII_ULFM_instance(ag->context_id, ag->seq, n, ag->and_words, 0);

    if (in == NULL)
        return 0;       /* cannot happen: an entered record is kept while its communicator is */
    if (in->send_errno != MPI_SUCCESS) {
        ag->mpi_errno = in->send_errno;
        return 1;
    }
    if (!in->decided) {
        tree_step(in);
        if (!in->decided)
            return 0;
    }
    pass_on(in);

    /* the absent are failed processes (ULFM: acknowledging after the
     * agreement acknowledges them), whether or not this one knew yet */
    for (int r = 0; r < n; r++)
        if (MPID_FT_set_has(in->absent, r) && MPID_FT_proc_state(in->pids[r]) == MPID_FT_PROC_ALIVE)
            MPID_FT_failure_learned(in->pids[r], "left out of an agreement");
    /* each group of an intercommunicator gets the other's AND */
    int own_group = in->own_rank >= in->high_group;
    *flag = in->flag[in->high_group < n ? !own_group : 0];
    outcome->raise = in->raise;
    outcome->absent = in->absent;
    outcome->seq = ag->seq;
    outcome->group_and[0] = in->flag[0];
    outcome->group_and[1] = in->flag[1];
    outcome->own_group = own_group;
    outcome->and_mask = in->and_mask;
    return 1;
}

typedef struct {
    MPIR_ULFM_agreement_t ag;
    int *flag;
    MPIR_ULFM_outcome_t *outcome;
} blocking_agreement_t;

static int blocking_agree_step(void *arg)
{
    blocking_agreement_t *b = arg;
    return MPIR_ULFM_agree_step(&b->ag, b->flag, b->outcome);
}

int MPIR_ULFM_agree(MPIR_Comm * comm, int *flag, MPIR_ULFM_outcome_t * outcome)
{
    blocking_agreement_t b = {.flag = flag,.outcome = outcome };
    int mpi_errno = MPIR_ULFM_agree_start(comm, *flag, NULL, 0, &b.ag);

    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = MPID_FT_wait(blocking_agree_step, &b, "a ULFM agreement");
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = b.ag.mpi_errno;
    return mpi_errno;
}
