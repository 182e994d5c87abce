/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Agreement of the survivors on the failed set and the new world.
 *
 * State of every process: its epoch E (how many recoveries its world has
 * been through), the dead set of its world W(E) (identical on every process
 * at the same epoch, see below), and the set K of every failure it knows
 * (K grows only; failure notices between survivors make every K converge).
 *
 * Algorithm (one coordinator at a time, the lowest process id not in K;
 * JOINs go up a tree to it and DECIDE comes down the same way):
 *   The tree is the binomial tree of the process ids (the parent of p
 *   clears p's lowest set bit; p's subtree is [p, p + that bit)), repaired
 *   around the processes in K or in MPI_Finalize: p's parent is its
 *   nearest ancestor in neither, or the coordinator when there is none
 *   (process 0 failed). The coordinator's subtree is every process.
 *   1. A recovering process sends JOIN to its parent once every process of
 *      its subtree not in K and not in MPI_Finalize has joined (itself
 *      included), and again whenever its parent changes. A JOIN carries
 *      the sender's K, the joins it holds (per process, the epoch it
 *      joined from) and the highest (E, W(E)) among them.
 *   2. Any process that receives a JOIN records the joins it carries
 *      (keeping each process's latest), adds the sender's K to its own
 *      (handling those failures as if it had detected them), and keeps the
 *      highest (E, W(E)) seen.
 *   3. The coordinator, recovering itself, decides once every process not
 *      in K has joined (processes already in MPI_Finalize excepted): the
 *      new epoch is Emax + 1, the new dead set is K, the previous one
 *      W(Emax). It sends DECIDE(Emax + 1, K, W(Emax), itself) to each
 *      process that sent it JOIN and applies it; each process that takes
 *      it passes it on to each process that sent it JOIN.
 *   4. A recovering process takes a DECIDE only from the process it last
 *      sent its JOIN to, while it does not know that process to be dead.
 *   5. A recovering process without a decision sends its JOIN again,
 *      JOIN_RESEND_FIRST after the first and twice as long after each
 *      repeat to the same parent up to JOIN_RESEND_MAX (so that a process
 *      that many wait for, on a busy node, is not buried in repeats), and
 *      a process holding the decision of a recovery answers a JOIN from a
 *      process behind it with that DECIDE again: the protocol does not
 *      depend on one message getting through (a soak run hung with a
 *      survivor that never received its coordinator's DECIDE, while the
 *      others did).
 *   Applying a decision sets E and W(E) and forgets the joins of older
 *   epochs (joins of the new epoch or later, from processes that got ahead,
 *   belong to the next recovery).
 *
 * Costs: without a failure during the agreement each process receives at
 * most one JOIN per child, and each failure adds at most log2(n) children
 * to one process: O(log n) messages per process in O(log n) rounds.
 *
 * Why every survivor ends in the same world: a coordinator decides only
 * with a JOIN from every process it believes alive; a join reaches it only
 * along processes that believe in it, and a process takes the decision
 * only from where it sent its JOIN; so two coordinators cannot both decide
 * from one process's JOIN unless the first died (the processes on the way
 * only move on when they learn that). If a coordinator dies after some
 * processes applied its decision E and before others did, the first ones
 * see a failure in world E and recover again: their JOINs carry (E, W(E)),
 * so the next coordinator decides E + 1 from W(E) and every survivor,
 * whichever decisions it saw, ends at epoch E + 1 with the same dead set
 * and the same previous set (hence the same FTMPI_NUM_FAILED_PROCS).
 *
 * Why it terminates: a process waits only for processes not in K; each of
 * them either joins (it is recovering: MANUAL programs call MPI_Comm_dup,
 * AUTO ones recover on their own) or dies, which the failure sources add to
 * every K, and a process whose parent dies sends its JOIN to the next one
 * up. A coordinator's death makes the next lowest process coordinator;
 * with N processes this happens at most N times.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery_impl.h"
#include "ftmpi_agree_msg.h"
#include "mpid_ft_tree.h"

static struct {
    int n;                      /* processes */
    int nbytes;                 /* bytes of a bitmap */
    uint32_t epoch;
    uint8_t *world_dead;
    /* joins received for the recovery to come */
    uint32_t *join_epoch;       /* per process; NO_JOIN when none */
    uint32_t best_epoch;
    uint8_t *best_world_dead;
    uint8_t *joined_here;       /* processes that sent JOIN to this one: DECIDE goes back to them */
    /* this process's own recovery */
    int recovering;
    int join_target;            /* the parent it last sent JOIN to; -1: none yet */
    int decided;
    int passed_on;              /* the decision went to the processes in joined_here */
    int passed_to_any;          /* ... and that was one at least */
    uint32_t decided_epoch;
    int decider;
    uint8_t *decided_dead;
    uint8_t *decided_prev;
    MPL_time_t join_sent;
    double join_resend;         /* seconds until the JOIN is sent again */
    int send_errno;             /* the first send that failed (this process's own
                                 * error: no memory), which ends the agreement */
    /* made once, so that sending allocates nothing */
    uint8_t *known;             /* send_join's set */
    agree_msg_t *msg;
} ag;

#define JOIN_RESEND_FIRST 0.2   /* seconds */
#define JOIN_RESEND_MAX 3.2

#define NO_JOIN UINT32_MAX

static size_t msg_len(int kind)
{
    return ftmpi_agree_msg_len(kind, ag.n);
}

/* Sets up the agreement's state once; MPI_ERR_OTHER when memory ran out
 * (then the next call tries again). */
static int agree_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    int nbytes = MPID_FT_SET_BYTES(MPIR_Process.size);

    if (ag.n)
        return MPI_SUCCESS;
    ag.world_dead = MPL_calloc(6, nbytes, MPL_MEM_OTHER);
    ag.join_epoch = MPL_malloc(MPIR_Process.size * sizeof(uint32_t), MPL_MEM_OTHER);
    ag.msg = MPL_malloc(sizeof(agree_msg_t) + 2 * nbytes +
                        MPIR_Process.size * sizeof(uint32_t), MPL_MEM_OTHER);
    if (!ag.world_dead || !ag.join_epoch || !ag.msg) {
        MPL_free(ag.world_dead);
        MPL_free(ag.join_epoch);
        MPL_free(ag.msg);
        ag.world_dead = NULL;
        ag.join_epoch = NULL;
        ag.msg = NULL;
        MPIR_ERR_SETANDJUMP(mpi_errno, MPI_ERR_OTHER, "**nomem");
    }
    ag.n = MPIR_Process.size;
    ag.nbytes = nbytes;
    ag.best_world_dead = ag.world_dead + nbytes;
    ag.decided_dead = ag.world_dead + 2 * nbytes;
    ag.decided_prev = ag.world_dead + 3 * nbytes;
    ag.known = ag.world_dead + 4 * nbytes;
    ag.joined_here = ag.world_dead + 5 * nbytes;
    for (int p = 0; p < ag.n; p++)
        ag.join_epoch[p] = NO_JOIN;
    ag.best_epoch = 0;
    ag.join_target = -1;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int coordinator(void)
{
    for (int p = 0; p < ag.n; p++)
        if (!MPID_FT_proc_failed(p))
            return p;
    return -1;
}

/* Awaited by nobody: known dead, or in MPI_Finalize. */
static int left(int p)
{
    return MPID_FT_proc_failed(p) || MPID_FT_proc_state(p) == MPID_FT_PROC_GONE;
}

static int awaited(int p, void *arg)
{
    return !left(p);
}

/* This process's parent in the repaired tree rooted at rank 0 (the
 * coordinator stands in for a rank 0 that left); itself when it is the
 * coordinator. */
static int parent(void)
{
    int me = MPIR_Process.rank, c = coordinator();
    if (c == me)
        return me;
    int a = MPID_FT_tree_parent(me, awaited, NULL);
    return a == 0 && left(0) ? c : a;
}

/* Has every process of this one's subtree that is alive and not leaving
 * joined? (Every process, for the root: the coordinator.) */
static int subtree_joined(int root)
{
    int me = MPIR_Process.rank, first = me, end = MPID_FT_tree_subtree_end(me, ag.n);
    if (root) {
        first = 0;
        end = ag.n;
    }
    for (int p = first; p < end; p++)
        if (ag.join_epoch[p] == NO_JOIN && !left(p))
            return 0;
    return 1;
}

static void note_join(int p, uint32_t epoch)
{
    if (ag.join_epoch[p] == NO_JOIN || epoch > ag.join_epoch[p])
        ag.join_epoch[p] = epoch;
}

static void note_best(uint32_t epoch, const uint8_t * world_dead)
{
    if (epoch > ag.best_epoch) {
        ag.best_epoch = epoch;
        memcpy(ag.best_world_dead, world_dead, ag.nbytes);
    }
}

static int send_msg(int to, uint32_t kind, uint32_t epoch, const uint8_t * a, const uint8_t * b)
{
    agree_msg_t *m = ag.msg;
    m->head = (MPID_FT_msg_head_t) {.kind = kind,.seq = epoch,.sender = MPIR_Process.rank };
    m->decider = kind == MSG_DECIDE ? ag.decider : -1;
    memcpy(m->sets, a, ag.nbytes);
    memcpy(m->sets + ag.nbytes, b, ag.nbytes);
    if (kind == MSG_JOIN)
        memcpy(m->sets + 2 * ag.nbytes, ag.join_epoch, ag.n * sizeof(uint32_t));
    int mpi_errno = MPID_FT_send(to, MPID_FT_CHANNEL_RECOVERY, m, msg_len(kind));
    if (mpi_errno != MPI_SUCCESS) {
        MPID_FT_TRACE("agree: %s to %d could not be sent", kind == MSG_JOIN ? "join" :
                      "decide", to);
        if (ag.send_errno == MPI_SUCCESS)
            ag.send_errno = mpi_errno;
    }
    return mpi_errno;
}

static void known_dead_set(uint8_t * set)
{
    memset(set, 0, ag.nbytes);
    for (int p = 0; p < ag.n; p++)
        if (MPID_FT_proc_failed(p))
            MPID_FT_set_add(set, p);
}

static void send_join(int to)
{
    known_dead_set(ag.known);
    int again = ag.join_target == to;
    ag.join_target = to;
    ag.join_resend = again ? MPL_MIN(2 * ag.join_resend, JOIN_RESEND_MAX) : JOIN_RESEND_FIRST;
    MPL_wtime(&ag.join_sent);
    MPID_FT_TRACE("agree: join %s %d at epoch %u%s", to == coordinator()? "coordinator" : "parent",
                  to, ag.epoch, again ? " again" : "");
    send_msg(to, MSG_JOIN, ag.best_epoch, ag.known, ag.best_world_dead);
}

static double since(MPL_time_t * t)
{
    MPL_time_t now;
    double elapsed;
    MPL_wtime(&now);
    MPL_wtime_diff(t, &now, &elapsed);
    return elapsed;
}

/* An agreement message from process `from` (channel
 * MPID_FT_CHANNEL_RECOVERY of the device). */
static void agree_message(int from, const void *buf, size_t len)
{
    const agree_msg_t *m = buf;

    if (agree_init() != MPI_SUCCESS) {
        fprintf(stderr, "FT-MPICH: rank %d: out of memory for a recovery message from rank %d\n",
                MPIR_Process.rank, from);
        return;
    }
    const char *wrong = ftmpi_agree_msg_check(buf, len, from, ag.n);
    if (wrong) {
        fprintf(stderr, "FT-MPICH: rank %d: dropped a recovery message from rank %d: %s\n",
                MPIR_Process.rank, from, wrong);
        return;
    }
    MPID_FT_MSG_TRACE(&ftmpi_agree_kinds, &m->head, from, "%s", "");
    if (m->head.kind == MSG_JOIN) {
        const uint8_t *joins = m->sets + 2 * ag.nbytes;
        uint32_t sender_epoch;
        memcpy(&sender_epoch, joins + from * sizeof(uint32_t), sizeof(sender_epoch));
        /* failures the sender knows of and this process does not */
        for (int p = 0; p < ag.n; p++)
            if (MPID_FT_set_has(m->sets, p) && !MPID_FT_proc_failed(p))
                MPID_FT_failure_learned(p, "reported in recovery");
        /* it missed the decision this process holds */
        if (ag.decided && sender_epoch < ag.decided_epoch) {
            MPID_FT_TRACE("agree: decide epoch %u again for %d", ag.decided_epoch, from);
            send_msg(from, MSG_DECIDE, ag.decided_epoch, ag.decided_dead, ag.decided_prev);
            return;
        }
        for (int p = 0; p < ag.n; p++) {
            uint32_t e;
            memcpy(&e, joins + p * sizeof(uint32_t), sizeof(e));
            if (e != NO_JOIN)
                note_join(p, e);
        }
        note_best(m->head.seq, m->sets + ag.nbytes);
        MPID_FT_set_add(ag.joined_here, from);
    } else if (m->head.kind == MSG_DECIDE) {
        if (ag.recovering && !ag.decided && from == ag.join_target &&
            !MPID_FT_proc_failed(from) && m->head.seq > ag.epoch) {
            ag.decided = 1;
            ag.decided_epoch = m->head.seq;
            ag.decider = m->decider;
            memcpy(ag.decided_dead, m->sets, ag.nbytes);
            memcpy(ag.decided_prev, m->sets + ag.nbytes, ag.nbytes);
        }
    }
}

__attribute__ ((constructor))
static void register_agree_channel(void)
{
    MPID_FT_register_handler(MPID_FT_CHANNEL_RECOVERY, agree_message, MPID_FT_FROM_THIS_WORLD);
}

static void decide(void)
{
    ag.decided = 1;
    ag.decided_epoch = ag.best_epoch + 1;
    ag.decider = MPIR_Process.rank;
    MPID_FT_TRACE("agree: decides epoch %u", ag.decided_epoch);
    known_dead_set(ag.decided_dead);
    memcpy(ag.decided_prev, ag.best_world_dead, ag.nbytes);
}

/* The decision goes back to every process whose JOIN came here. */
static void pass_on(void)
{
    ag.passed_on = 1;
    for (int p = 0; p < ag.n; p++)
        if (MPID_FT_set_has(ag.joined_here, p) && p != MPIR_Process.rank &&
            !MPID_FT_proc_failed(p)) {
            ag.passed_to_any = 1;
            send_msg(p, MSG_DECIDE, ag.decided_epoch, ag.decided_dead, ag.decided_prev);
        }
}

static void apply_decision(void)
{
    ag.epoch = ag.decided_epoch;
    memcpy(ag.world_dead, ag.decided_dead, ag.nbytes);
    /* (a process that got ahead stays where it joined for the next one) */
    for (int p = 0; p < ag.n; p++)
        if (ag.join_epoch[p] == NO_JOIN || ag.join_epoch[p] < ag.epoch) {
            ag.join_epoch[p] = NO_JOIN;
            ag.joined_here[p / 8] &= ~(1u << (p % 8));
        }
    note_best(ag.epoch, ag.world_dead);
}

/* Between progress calls of the agreement: join (again) where the parent
 * changed, did not answer, or the subtree completed; decide as the
 * coordinator once everyone joined; pass the decision on. */
static int agree_step(void *unused)
{
    if (ag.send_errno != MPI_SUCCESS)
        return 1;
    if (!ag.decided) {
        int to = parent();
        if (to == MPIR_Process.rank) {
            if (subtree_joined(1))
                decide();
        } else if (subtree_joined(0) &&
                   (to != ag.join_target || since(&ag.join_sent) > ag.join_resend)) {
            send_join(to);
        }
    }
    if (ag.decided && !ag.passed_on)
        pass_on();
    return ag.decided || ag.send_errno != MPI_SUCCESS;
}

int MPIR_FTMPI_agree(uint32_t * epoch, const uint8_t ** dead, const uint8_t ** prev,
                     int *decider)
{
    int mpi_errno = agree_init();
    if (mpi_errno != MPI_SUCCESS)
        return mpi_errno;
    ag.recovering = 1;
    ag.decided = 0;
    ag.passed_on = ag.passed_to_any = 0;
    ag.join_target = -1;
    ag.send_errno = MPI_SUCCESS;
    /* the joins kept from others start from this process's own epoch */
    note_best(ag.epoch, ag.world_dead);
    note_join(MPIR_Process.rank, ag.epoch);
    mpi_errno = MPID_FT_wait(agree_step, NULL, "the recovery agreement");
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = ag.send_errno;
    if (mpi_errno != MPI_SUCCESS) {
        ag.recovering = 0;
        return mpi_errno;
    }

    apply_decision();
    /* the others' way out of the agreement: it must leave this process
     * even if the application stops calling MPI right after */
    if (ag.passed_to_any) {
        mpi_errno = MPID_FT_flush(MPID_FT_CHANNEL_RECOVERY);
        if (mpi_errno != MPI_SUCCESS)
            return mpi_errno;
    }
    *decider = ag.decider;
    ag.recovering = 0;
    *epoch = ag.decided_epoch;
    *dead = ag.decided_dead;
    *prev = ag.decided_prev;
    return MPI_SUCCESS;
}

void MPIR_FTMPI_agree_world_rebuilt(void)
{
    if (!ag.n)
        return;
    memset(ag.world_dead, 0, ag.nbytes);
    if (ag.best_epoch == ag.epoch)
        memset(ag.best_world_dead, 0, ag.nbytes);
}

void MPIR_FTMPI_agree_start_at(uint32_t epoch)
{
    /* (without memory the next MPIR_FTMPI_agree fails) */
    if (agree_init() == MPI_SUCCESS)
        ag.epoch = ag.best_epoch = epoch;
}
