/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Epochs and stale traffic: the transport's part in a recovery, moving to
 * a new epoch, and what it keeps dropping after one. RESET message mode
 * matches the epoch (8 bits of the UCX tag; all 32 in active-message
 * headers), so nothing sent before a recovery is received after it; what
 * is left of older epochs in UCX's unexpected queue is received into
 * nothing and dropped, as is anything from the dead in either mode.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_failure.h"
#include "ftdev_ulfm.h"

int MPID_FT_world_rank_of_pid(int pid)
{
    return MPIDI_FTDEV_rank_of_pid(MPIR_Process.comm_world, pid);
}

MPIR_Comm *MPID_FT_next_user_comm(MPIR_Comm * skip1, MPIR_Comm * skip2)
{
    MPIR_Comm *comm = MPIDI_FTDEV_global.objects.comms;
    while (comm && (comm == skip1 || comm == skip2))
        comm = MPIDI_FTDEV_COMM(comm).next;
    return comm;
}

/* What a job that outlived a failure keeps dropping (IGNORE and ULFM):
 *  - the collective traffic of a communicator with a failed member: a
 *    member that learned of the failure first left the collective, and
 *    the others' messages to it would wait for ever (a rendezvous sender)
 *    or be matched by a later collective; a group collective's messages
 *    (tagged MPIR_TAG_COLL_BIT) are still received, see
 *    MPIDI_FTDEV_comm_wide_traffic;
 *  - all traffic of a revoked communicator (ULFM): its members go on to
 *    agree and shrink, and a rendezvous sender to them would wait for ever;
 *  - whatever arrives for a context id this process holds (ftdev_comm.c).
 * A communicator's node_comm and node_roots_comm carry its collectives:
 * one pattern, blind to the sub-communicator field of the context id,
 * covers the three. The patterns are worked out again only when
 * failures.generation moved, not at every progress call. */
static MPIDI_FTDEV_tag_pattern_t *stale_patterns;
static int num_stale_patterns, max_stale_patterns;
static unsigned long stale_patterns_generation;
static int have_stale_patterns;

static int add_stale_pattern(MPIDI_FTDEV_tag_pattern_t pattern)
{
    int mpi_errno = MPI_SUCCESS;
    if (num_stale_patterns == max_stale_patterns) {
        int n = max_stale_patterns ? 2 * max_stale_patterns : 16;
        MPIDI_FTDEV_tag_pattern_t *p = MPL_realloc(stale_patterns, n * sizeof(*p), MPL_MEM_OTHER);
        MPIR_ERR_CHKANDJUMP1(p == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                             "ftdev's patterns of stale traffic");
        stale_patterns = p;
        max_stale_patterns = n;
    }
    stale_patterns[num_stale_patterns++] = pattern;
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int add_stale_traffic_of(MPIR_Comm * comm)
{
    int mpi_errno = MPI_SUCCESS;
    /* a node-level communicator goes with the one it carries */
    if (comm->hierarchy_kind == MPIR_COMM_HIERARCHY_KIND__NODE ||
        comm->hierarchy_kind == MPIR_COMM_HIERARCHY_KIND__NODE_ROOTS)
        return MPI_SUCCESS;
    MPIDI_FTDEV_tag_pattern_t family =
        MPIDI_FTDEV_context_pattern(comm->recvcontext_id,
                                    MPIR_CONTEXT_SUBCOMM_MASK | MPIR_CONTEXT_SUFFIX_MASK);
    if (comm->revoked) {
        mpi_errno = add_stale_pattern(family);
    } else if (MPIDI_FTDEV_comm_failed_member(comm) >= 0) {
        uint64_t coll = MPIDI_FTDEV_CONTEXT_FIELD(MPIR_CONTEXT_INTRA_COLL);
        family.tag |= coll;
        family.mask |= coll | (uint64_t) MPIR_TAG_COLL_BIT;
        mpi_errno = add_stale_pattern(family);
    }
    return mpi_errno;
}

static int find_stale_patterns(void)
{
    int mpi_errno = MPI_SUCCESS;
    num_stale_patterns = 0;
    mpi_errno = add_stale_traffic_of(MPIR_Process.comm_world);
    MPIR_ERR_CHECK(mpi_errno);
    for (MPIR_Comm * comm = MPIDI_FTDEV_global.objects.comms; comm; comm = MPIDI_FTDEV_COMM(comm).next) {
        mpi_errno = add_stale_traffic_of(comm);
        MPIR_ERR_CHECK(mpi_errno);
    }
    for (int i = 0; i < MPIDI_FTDEV_num_held_contexts(); i++) {
        mpi_errno = add_stale_pattern(MPIDI_FTDEV_context_pattern(MPIDI_FTDEV_held_context(i),
                                                                  MPIR_CONTEXT_SUFFIX_MASK));
        MPIR_ERR_CHECK(mpi_errno);
    }
    stale_patterns_generation = MPIDI_FTDEV_global.failures.generation;
    have_stale_patterns = 1;
  fn_exit:
    return mpi_errno;
  fn_fail:
    have_stale_patterns = 0;
    goto fn_exit;
}

int MPIDI_FTDEV_drain_stale(int pending, int *stale)
{
    /* the epoch the failure happened in, which the recovery may already
     * have left while it goes on (a rebuild): the new one's messages are
     * good */
    uint64_t doomed = MPIDI_FTDEV_global.epoch.doomed_bits;

    *stale = pending;
    if (pending) {
        uint64_t coll = MPIDI_FTDEV_CONTEXT_FIELD(MPIR_CONTEXT_INTRA_COLL);
        uint64_t suffix = MPIDI_FTDEV_CONTEXT_FIELD(MPIR_CONTEXT_SUFFIX_MASK);
        if (MPIDI_FTDEV_global.epoch.unmatched_bits)
            return MPIDI_FTDEV_drain(doomed | coll, MPIDI_FTDEV_EPOCH_MASK | suffix);
        return MPIDI_FTDEV_drain(doomed, MPIDI_FTDEV_EPOCH_MASK);
    }
    if (MPIDI_FTDEV_global.upper.policy.halts_on_failure)
        return MPI_SUCCESS;
    int first = !MPIDI_FTDEV_global.epoch.stale_traffic;
    MPIDI_FTDEV_global.epoch.stale_traffic = 1;
    return MPIDI_FTDEV_drain_stale_traffic(first);
}

/* A stale message's sender (a rendezvous one) waits until it is taken.
 * While messages keep coming, so that a job that outlived a failure runs
 * at its old speed, it is taken within MPIDI_FTDEV_DRAIN_BUSY_CALLS
 * progress calls, or once MPIDI_FTDEV_DRAIN_IDLE_POLLS calls in a row found
 * nothing (a process that waits), or as soon as what is stale may have
 * changed. Nothing here can receive it meanwhile: receives on a revoked
 * communicator, and collective ones on a communicator with a failed
 * member, are refused, and a held context id has no communicator. */
#define MPIDI_FTDEV_DRAIN_BUSY_CALLS 256
#define MPIDI_FTDEV_DRAIN_IDLE_POLLS 16
/* Each probe of a drain walks every message waiting unmatched in UCX: a
 * process that keeps many (another process sends what it receives later)
 * pays for each drain that finds nothing, and a waiting one would drain
 * after nearly every arrival. Every drain in a row that took nothing
 * doubles both intervals, up to 2^MPIDI_FTDEV_DRAIN_MAX_BACKOFF times;
 * one that takes something, or a change of what is stale, starts over. */
#define MPIDI_FTDEV_DRAIN_MAX_BACKOFF 10

int MPIDI_FTDEV_drain_stale_traffic(int now)
{
    int mpi_errno = MPI_SUCCESS;
    static unsigned busy_calls, backoff;
    unsigned long drained_before = MPIDI_FTDEV_global.epoch.drained;

    if (MPIDI_FTDEV_global.ucx.worker_events == MPIDI_FTDEV_global.epoch.stale_drained_at_events && !now)
        return MPI_SUCCESS;
    int patterns_current = have_stale_patterns &&
        stale_patterns_generation == MPIDI_FTDEV_global.failures.generation;
    if (!patterns_current)
        backoff = 0;
    if (!now && MPIDI_FTDEV_global.ucx.idle_polls < (MPIDI_FTDEV_DRAIN_IDLE_POLLS << backoff) &&
        ++busy_calls < (MPIDI_FTDEV_DRAIN_BUSY_CALLS << backoff) && patterns_current)
        return MPI_SUCCESS;
    busy_calls = 0;
    if (MPIDI_FTDEV_global.finalizing) {
        /* Its communicators are gone and it takes part in no collective
         * any more, while it waits for every peer to finalize: a live
         * peer still in a collective it left with the failure (a
         * rendezvous step to it, say) would wait for it, and it for the
         * peer, for ever. Every collective message is taken and dropped. */
        mpi_errno = MPIDI_FTDEV_drain(MPIDI_FTDEV_CONTEXT_FIELD(MPIR_CONTEXT_INTRA_COLL),
                                      MPIDI_FTDEV_CONTEXT_FIELD(MPIR_CONTEXT_SUFFIX_MASK));
        MPIR_ERR_CHECK(mpi_errno);
    } else {
        if (!have_stale_patterns ||
            stale_patterns_generation != MPIDI_FTDEV_global.failures.generation) {
            mpi_errno = find_stale_patterns();
            MPIR_ERR_CHECK(mpi_errno);
        }
        for (int i = 0; i < num_stale_patterns; i++) {
            mpi_errno = MPIDI_FTDEV_drain(stale_patterns[i].tag, stale_patterns[i].mask);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }
    MPIDI_FTDEV_global.epoch.stale_drained_at_events = MPIDI_FTDEV_global.ucx.worker_events;
    if (MPIDI_FTDEV_global.epoch.drained != drained_before)
        backoff = 0;
    else if (backoff < MPIDI_FTDEV_DRAIN_MAX_BACKOFF)
        backoff++;
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- the new epoch ---------------------------------------------------------- */

int MPID_FT_begin_epoch(uint32_t epoch, const uint8_t * dead, int blank)
{
    int mpi_errno = MPI_SUCCESS;

    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids; pid++) {
        if (!MPID_FT_set_has(dead, pid))
            continue;
        /* the survivors may have known of failures this process had not
         * heard of yet */
        MPIDI_FTDEV_peer_failed(pid, "agreed on in recovery");
        if (blank) {
            MPIDI_FTDEV_set_peer_state(pid, MPIDI_FTDEV_PEER_BLANK);
            MPIDI_FTDEV_global.upper.coll_divert = 1;
        }
        mpi_errno = MPIDI_FTDEV_drain(MPIDI_FTDEV_sender_pattern(pid),
                                      MPIDI_FTDEV_global.tag.pid_mask);
        MPIR_ERR_CHECK(mpi_errno);
    }

    MPIDI_FTDEV_fail_requests_of_destroyed_comms();
    /* windows are named by the number of windows made on their
     * communicator: MPI_COMM_WORLD, which survives, counts from 0 again in
     * the new world (where a replacement counts from 0) */
    MPIDIG_COMM(MPIR_Process.comm_world, window_instance) = 0;
    MPID_FT_TRACE("epoch: %u begins", epoch);
    MPIDI_FTDEV_global.epoch.current = epoch;
    MPIDI_FTDEV_global.epoch.bits = ((uint64_t) epoch << MPIDI_FTDEV_EPOCH_SHIFT) &
        MPIDI_FTDEV_EPOCH_MASK;
    /* what older epochs sent can never match again: nothing in RESET, the
     * traffic of collectives in CONT (see MPIDI_FTDEV_recv_mask) */
    uint64_t context_mask = MPIDI_FTDEV_global.epoch.unmatched_bits ?
        (uint64_t) MPIR_CONTEXT_SUFFIX_MASK << MPIDI_FTDEV_CONTEXT_ID_SHIFT : 0;
    uint64_t context_bits = MPIDI_FTDEV_global.epoch.unmatched_bits ?
        (uint64_t) MPIR_CONTEXT_INTRA_COLL << MPIDI_FTDEV_CONTEXT_ID_SHIFT : 0;
    for (uint64_t e = 0; e < (1 << MPIDI_FTDEV_EPOCH_BITS); e++) {
        uint64_t bits = e << MPIDI_FTDEV_EPOCH_SHIFT;
        if (bits == MPIDI_FTDEV_global.epoch.bits)
            continue;
        mpi_errno = MPIDI_FTDEV_drain(bits | context_bits, MPIDI_FTDEV_EPOCH_MASK | context_mask);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
