/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: the FT-MPI state machine (recovery layer).
 *
 * Agreement of the survivors on the failed set and the new world.
 *
 * State of every process: its epoch E (how many recoveries its world has
 * been through), the dead set of its world W(E) (identical on every process
 * at the same epoch, see below), and the set K of every failure it knows
 * (K grows only; failure notices between survivors make every K converge).
 *
 * Algorithm (one coordinator at a time, the lowest process id not in K):
 *   1. A process that recovers sends JOIN(E, K, W(E)) to its coordinator,
 *      and again to the next one whenever its coordinator fails.
 *   2. Any process that receives a JOIN records the sender as joined, adds
 *      the sender's K to its own (handling those failures as if it had
 *      detected them), and keeps the (E, W(E)) of the highest epoch seen.
 *   3. A coordinator that is recovering itself decides once every process
 *      not in K has joined (processes already in MPI_Finalize excepted):
 *      the new epoch is Emax + 1, the new dead set is K, the previous one
 *      W(Emax). It sends DECIDE(Emax + 1, K, W(Emax)) to every process not
 *      in K and applies it.
 *   4. A recovering process applies a DECIDE only from the process it last
 *      sent its JOIN to, while it does not know that process to be dead.
 *   5. A recovering process without a decision sends its JOIN again,
 *      JOIN_RESEND_FIRST after the first and twice as long after each
 *      repeat to the same coordinator up to JOIN_RESEND_MAX (so that a
 *      coordinator that many processes wait for, on a busy node, is not
 *      buried in repeats), and a coordinator that decided its current
 *      epoch and is not recovering answers a JOIN of an older epoch with
 *      that DECIDE again: the protocol does not depend on one message
 *      getting through (a soak run hung with a survivor that never
 *      received its coordinator's DECIDE, while the others did).
 *   Applying a decision sets E and W(E) and forgets the joins of older
 *   epochs (joins of the new epoch or later, from processes that got ahead,
 *   belong to the next recovery).
 *
 * Why every survivor ends in the same world: a coordinator decides only
 * with a JOIN from every process it believes alive, and a process sends its
 * JOIN only to the coordinator it believes in; so two coordinators cannot
 * both decide from one process's JOIN unless the first died (the process
 * only moves on when it learns that). If a coordinator dies after some
 * processes applied its decision E and before others did, the first ones
 * see a failure in world E and recover again: their JOINs carry (E, W(E)),
 * so the next coordinator decides E + 1 from W(E) and every survivor,
 * whichever decisions it saw, ends at epoch E + 1 with the same dead set
 * and the same previous set (hence the same FTMPI_NUM_FAILED_PROCS).
 *
 * Why it terminates: a round waits only for processes not in K; each of
 * them either joins (it is recovering: MANUAL programs call MPI_Comm_dup,
 * AUTO ones recover on their own) or dies, which the failure sources add to
 * every K. A coordinator's death makes the next lowest process coordinator;
 * with N processes this happens at most N times.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"

enum { MSG_JOIN = 1, MSG_DECIDE = 2 };

typedef struct {
    uint32_t kind;
    uint32_t epoch;
    uint8_t sets[];             /* two bitmaps: JOIN K, W(E); DECIDE new, previous */
} agree_msg_t;

static struct {
    int n;                      /* processes */
    int nbytes;                 /* bytes of a bitmap */
    uint32_t epoch;
    uint8_t *world_dead;
    /* joins received for the recovery to come */
    uint32_t *join_epoch;       /* per process; NO_JOIN when none */
    uint32_t best_epoch;
    uint8_t *best_world_dead;
    /* this process's own recovery */
    int recovering;
    int join_target;
    int decided;
    uint32_t decided_epoch;
    uint8_t *decided_dead;
    uint8_t *decided_prev;
    uint32_t own_decision;      /* the last epoch this process decided as coordinator */
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

/* Sets up the agreement's state once; MPI_ERR_OTHER when memory ran out
 * (then the next call tries again). */
static int agree_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    int nbytes = MPID_FT_SET_BYTES(MPIR_Process.size);

    if (ag.n)
        return MPI_SUCCESS;
    ag.world_dead = MPL_calloc(5, nbytes, MPL_MEM_OTHER);
    ag.join_epoch = MPL_malloc(MPIR_Process.size * sizeof(uint32_t), MPL_MEM_OTHER);
    ag.msg = MPL_malloc(sizeof(agree_msg_t) + 2 * nbytes, MPL_MEM_OTHER);
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
        if (!MPIR_FTMPI_known_dead(p))
            return p;
    return -1;
}

static void note_join(int from, uint32_t epoch, const uint8_t * world_dead)
{
    ag.join_epoch[from] = epoch;
    if (epoch > ag.best_epoch) {
        ag.best_epoch = epoch;
        memcpy(ag.best_world_dead, world_dead, ag.nbytes);
    }
}

static int send_msg(int to, uint32_t kind, uint32_t epoch, const uint8_t * a, const uint8_t * b)
{
    size_t len = sizeof(agree_msg_t) + 2 * ag.nbytes;
    agree_msg_t *m = ag.msg;
    m->kind = kind;
    m->epoch = epoch;
    memcpy(m->sets, a, ag.nbytes);
    memcpy(m->sets + ag.nbytes, b, ag.nbytes);
    int mpi_errno = MPID_FT_send(to, MPID_FT_CHANNEL_RECOVERY, m, len);
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
        if (MPIR_FTMPI_known_dead(p))
            MPID_FT_set_add(set, p);
}

static void send_join(void)
{
    known_dead_set(ag.known);
    int again = ag.join_target == coordinator();
    ag.join_target = coordinator();
    ag.join_resend = again ? MPL_MIN(2 * ag.join_resend, JOIN_RESEND_MAX) : JOIN_RESEND_FIRST;
    MPL_wtime(&ag.join_sent);
    MPID_FT_TRACE("agree: join coordinator %d at epoch %u%s", ag.join_target, ag.epoch,
                  again ? " again" : "");
    if (ag.join_target == MPIR_Process.rank)
        note_join(MPIR_Process.rank, ag.epoch, ag.world_dead);
    else
        send_msg(ag.join_target, MSG_JOIN, ag.epoch, ag.known, ag.world_dead);
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
    if (len != sizeof(agree_msg_t) + 2 * (size_t) ag.nbytes ||
        (m->kind != MSG_JOIN && m->kind != MSG_DECIDE)) {
        fprintf(stderr, "FT-MPICH: rank %d: dropped a malformed recovery message from rank %d\n",
                MPIR_Process.rank, from);
        return;
    }
    MPID_FT_TRACE("agree: %s epoch %u from %d", m->kind == MSG_JOIN ? "join" : "decide",
                  m->epoch, from);
    if (m->kind == MSG_JOIN) {
        /* failures the sender knows of and this process does not */
        for (int p = 0; p < ag.n; p++)
            if (MPID_FT_set_has(m->sets, p) && !MPIR_FTMPI_known_dead(p))
                MPID_FT_failure_learned(p, "reported in recovery");
        /* it missed this coordinator's decision of the current epoch */
        if (!ag.recovering && ag.own_decision == ag.epoch && ag.epoch > 0 &&
            m->epoch < ag.epoch) {
            MPID_FT_TRACE("agree: decide epoch %u again for %d", ag.epoch, from);
            send_msg(from, MSG_DECIDE, ag.epoch, ag.decided_dead, ag.decided_prev);
            return;
        }
        note_join(from, m->epoch, m->sets + ag.nbytes);
    } else if (m->kind == MSG_DECIDE) {
        if (ag.recovering && from == ag.join_target && !MPIR_FTMPI_known_dead(from) &&
            m->epoch > ag.epoch) {
            ag.decided = 1;
            ag.decided_epoch = m->epoch;
            memcpy(ag.decided_dead, m->sets, ag.nbytes);
            memcpy(ag.decided_prev, m->sets + ag.nbytes, ag.nbytes);
        }
    }
}

__attribute__ ((constructor))
static void register_agree_channel(void)
{
    MPID_FT_register_handler(MPID_FT_CHANNEL_RECOVERY, agree_message);
}

/* As coordinator: has every process that is alive and not leaving joined? */
static int all_joined(void)
{
    for (int p = 0; p < ag.n; p++)
        if (!MPIR_FTMPI_known_dead(p) && !(MPID_FT_proc_state(p) == MPID_FT_PROC_GONE) &&
            ag.join_epoch[p] == NO_JOIN)
            return 0;
    return 1;
}

static void decide(void)
{
    ag.decided = 1;
    ag.decided_epoch = ag.best_epoch + 1;
    ag.own_decision = ag.decided_epoch;
    MPID_FT_TRACE("agree: decides epoch %u", ag.decided_epoch);
    known_dead_set(ag.decided_dead);
    memcpy(ag.decided_prev, ag.best_world_dead, ag.nbytes);
    for (int p = 0; p < ag.n; p++)
        if (p != MPIR_Process.rank && !MPIR_FTMPI_known_dead(p))
            send_msg(p, MSG_DECIDE, ag.decided_epoch, ag.decided_dead, ag.decided_prev);
}

static void apply_decision(void)
{
    ag.epoch = ag.decided_epoch;
    memcpy(ag.world_dead, ag.decided_dead, ag.nbytes);
    for (int p = 0; p < ag.n; p++)
        if (ag.join_epoch[p] != NO_JOIN && ag.join_epoch[p] < ag.epoch)
            ag.join_epoch[p] = NO_JOIN;
    if (ag.best_epoch < ag.epoch) {
        ag.best_epoch = ag.epoch;
        memcpy(ag.best_world_dead, ag.world_dead, ag.nbytes);
    }
}

/* Between progress calls of the agreement: join again where the
 * coordinator changed or did not answer, decide as the coordinator once
 * everyone joined. */
static int agree_step(void *unused)
{
    if (ag.decided || ag.send_errno != MPI_SUCCESS)
        return 1;
    if (MPIR_FTMPI_known_dead(ag.join_target) || coordinator() != ag.join_target)
        send_join();
    else if (ag.join_target == MPIR_Process.rank && all_joined())
        decide();
    else if (ag.join_target != MPIR_Process.rank && since(&ag.join_sent) > ag.join_resend)
        send_join();
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
    ag.send_errno = MPI_SUCCESS;
    /* the joins kept from others start from this process's own epoch */
    if (ag.best_epoch < ag.epoch) {
        ag.best_epoch = ag.epoch;
        memcpy(ag.best_world_dead, ag.world_dead, ag.nbytes);
    }
    send_join();
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
    if (ag.join_target == MPIR_Process.rank) {
        mpi_errno = MPID_FT_flush(MPID_FT_CHANNEL_RECOVERY);
        if (mpi_errno != MPI_SUCCESS)
            return mpi_errno;
    }
    *decider = ag.join_target;
    ag.recovering = 0;
    ag.join_target = -1;
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
