/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: ch4 netmod "ftdev".
 *
 * The transport's part in a recovery: carrying the agreement, and moving
 * to a new epoch. RESET message mode matches the epoch (8 bits of the UCX
 * tag; all 32 in active-message headers), so nothing sent before a
 * recovery is received after it; what is left of older epochs in UCX's
 * unexpected queue is received into nothing and dropped, as is anything
 * from the dead in either mode.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_request.h"

int MPID_FT_world_rank_of_pid(int pid)
{
    return MPIDI_FTDEV_rank_of_pid(MPIR_Process.comm_world, pid);
}

MPIR_Comm *MPID_FT_next_user_comm(MPIR_Comm * skip1, MPIR_Comm * skip2)
{
    MPIR_Comm *comm = MPIDI_FTDEV_global.comms;
    while (comm && (comm == skip1 || comm == skip2))
        comm = MPIDI_FTDEV_COMM(comm).next;
    return comm;
}

/* ---- dropping unexpected messages ---------------------------------------- */

/* A UCX datatype that unpacks into nothing. */
static void *discard_start(void *context, void *buf, size_t count)
{
    return (void *) (uintptr_t) (count + 1);    /* any non-NULL state */
}

static size_t discard_size(void *state)
{
    return (uintptr_t) state - 1;
}

static ucs_status_t discard_unpack(void *state, size_t offset, const void *src, size_t len)
{
    return UCS_OK;
}

static void discard_finish(void *state)
{
}

static ucp_generic_dt_ops_t discard_ops = {
    .start_pack = NULL,
    .start_unpack = discard_start,
    .packed_size = discard_size,
    .pack = NULL,
    .unpack = discard_unpack,
    .finish = discard_finish,
};

static void discard_done_cb(void *request, ucs_status_t status, const ucp_tag_recv_info_t * info,
                            void *user_data)
{
}

int MPIDI_FTDEV_drain(uint64_t tag, uint64_t mask)
{
    int mpi_errno = MPI_SUCCESS;
    static ucp_datatype_t discard_dt;
    static int have_discard_dt;
    ucp_tag_recv_info_t info;
    ucp_tag_message_h msg;

    if (!have_discard_dt) {
        ucs_status_t status = ucp_dt_create_generic(&discard_ops, NULL, &discard_dt);
        MPIDI_FTDEV_CHK_STATUS(status);
        have_discard_dt = 1;
    }
    while ((msg = ucp_tag_probe_nb(MPIDI_FTDEV_global.worker, tag, mask, 1, &info))) {
        ucp_request_param_t param = {
            .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_CALLBACK,
            .datatype = discard_dt,
            .cb.recv = discard_done_cb,
        };
        ucs_status_ptr_t r = ucp_tag_msg_recv_nbx(MPIDI_FTDEV_global.worker, NULL, info.length,
                                                  msg, &param);
        if (r && !UCS_PTR_IS_ERR(r))
            ucp_request_free(r);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static uint64_t context_field(int context_id)
{
    return (uint64_t) context_id << MPIDI_FTDEV_CONTEXT_ID_SHIFT;
}

int MPIDI_FTDEV_drain_context(int context_id)
{
    uint64_t suffix = context_field(MPIR_CONTEXT_SUFFIX_MASK);
    return MPIDI_FTDEV_drain(context_field(context_id) & ~suffix,
                             MPIDI_FTDEV_FIELD_MASK(MPIDI_FTDEV_CONTEXT_ID_BITS,
                                                    MPIDI_FTDEV_CONTEXT_ID_SHIFT) & ~suffix);
}

/* A revoked communicator receives nothing any more (ULFM): what its
 * members sent is taken and dropped, or a rendezvous sender would wait for
 * ever for a receiver that has gone on to agree and shrink. Nothing else
 * can have the context id while the communicator exists. */
static int drain_revoked(MPIR_Comm * comm)
{
    return comm->revoked ? MPIDI_FTDEV_drain_context(comm->recvcontext_id) : MPI_SUCCESS;
}

/* Runs at every progress call in IGNORE mode after a failure: asks, and
 * creates no error code. */
static int drain_collectives_of(MPIR_Comm * comm)
{
    if (MPIDI_FTDEV_comm_failed_member(comm) < 0)
        return MPI_SUCCESS;
    /* a group collective's messages (tagged MPIR_TAG_COLL_BIT) are still
     * received: see MPIDI_FTDEV_comm_wide_traffic */
    return MPIDI_FTDEV_drain(context_field(comm->recvcontext_id + MPIR_CONTEXT_INTRA_COLL),
                             context_field(0xffff) | (uint64_t) MPIR_TAG_COLL_BIT);
}

int MPIDI_FTDEV_drain_stale(int pending)
{
    /* the epoch the failure happened in, which the recovery may already
     * have left while it goes on (a rebuild): the new one's messages are
     * good */
    uint64_t doomed = MPIDI_FTDEV_global.doomed_epoch_bits;

    if (pending) {
        uint64_t coll = context_field(MPIR_CONTEXT_INTRA_COLL);
        uint64_t suffix = context_field(MPIR_CONTEXT_SUFFIX_MASK);
        if (MPIDI_FTDEV_global.unmatched_bits)
            MPIDI_FTDEV_drain(doomed | coll, MPIDI_FTDEV_EPOCH_MASK | suffix);
        else
            MPIDI_FTDEV_drain(doomed, MPIDI_FTDEV_EPOCH_MASK);
        return 1;
    }
    if (MPIDI_FTDEV_global.policy.halts_on_failure)
        return 0;
    if (MPIDI_FTDEV_global.finalizing) {
        /* Its communicators are gone and it takes part in no collective
         * any more, while it waits for every peer to finalize: a live
         * peer still in a collective it left with the failure (a
         * rendezvous step to it, say) would wait for it, and it for the
         * peer, for ever. Every collective message is taken and dropped. */
        MPIDI_FTDEV_drain(context_field(MPIR_CONTEXT_INTRA_COLL),
                          context_field(MPIR_CONTEXT_SUFFIX_MASK));
        return 1;
    }
    /* what is stale stays so for the rest of the job, but only a message
     * that arrived since the last look can be new to it: one progress
     * call in a quiet job is no probe of UCX's queues per communicator */
    static unsigned long drained_at_events = (unsigned long) -1;
    if (MPIDI_FTDEV_global.worker_events == drained_at_events)
        return 1;
    drained_at_events = MPIDI_FTDEV_global.worker_events;
    drain_collectives_of(MPIR_Process.comm_world);
    drain_revoked(MPIR_Process.comm_world);
    for (MPIR_Comm * comm = MPIDI_FTDEV_global.comms; comm; comm = MPIDI_FTDEV_COMM(comm).next) {
        drain_collectives_of(comm);
        drain_revoked(comm);
    }
    /* nothing here can receive on a held context id (ftdev_comm.c): a
     * rendezvous its sender started before the free would wait for ever */
    MPIDI_FTDEV_drain_held_contexts();
    return 1;
}

/* ---- the new epoch ---------------------------------------------------------- */

int MPID_FT_begin_epoch(uint32_t epoch, const uint8_t * dead, int blank)
{
    int mpi_errno = MPI_SUCCESS;

    for (int pid = 0; pid < MPIDI_FTDEV_global.num_pids; pid++) {
        if (!MPID_FT_set_has(dead, pid))
            continue;
        /* the survivors may have known of failures this process had not
         * heard of yet */
        MPIDI_FTDEV_peer_failed(pid, "agreed on in recovery");
        if (blank) {
            MPIDI_FTDEV_global.peer_state[pid] = MPIDI_FTDEV_PEER_BLANK;
            MPIDI_FTDEV_global.coll_divert = 1;
        }
        mpi_errno = MPIDI_FTDEV_drain((uint64_t) pid << MPIDI_FTDEV_global.tag_bits,
                                      MPIDI_FTDEV_global.pid_mask);
        MPIR_ERR_CHECK(mpi_errno);
    }

    MPIDI_FTDEV_fail_requests_of_destroyed_comms();
    /* windows are named by the number of windows made on their
     * communicator: MPI_COMM_WORLD, which survives, counts from 0 again in
     * the new world (where a replacement counts from 0) */
    MPIDIG_COMM(MPIR_Process.comm_world, window_instance) = 0;
    MPID_FT_TRACE("epoch: %u begins", epoch);
    MPIDI_FTDEV_global.epoch = epoch;
    MPIDI_FTDEV_global.epoch_bits = ((uint64_t) epoch << MPIDI_FTDEV_EPOCH_SHIFT) &
        MPIDI_FTDEV_EPOCH_MASK;
    /* what older epochs sent can never match again: nothing in RESET, the
     * traffic of collectives in CONT (see MPIDI_FTDEV_recv_mask) */
    uint64_t context_mask = MPIDI_FTDEV_global.unmatched_bits ?
        (uint64_t) MPIR_CONTEXT_SUFFIX_MASK << MPIDI_FTDEV_CONTEXT_ID_SHIFT : 0;
    uint64_t context_bits = MPIDI_FTDEV_global.unmatched_bits ?
        (uint64_t) MPIR_CONTEXT_INTRA_COLL << MPIDI_FTDEV_CONTEXT_ID_SHIFT : 0;
    for (uint64_t e = 0; e < (1 << MPIDI_FTDEV_EPOCH_BITS); e++) {
        uint64_t bits = e << MPIDI_FTDEV_EPOCH_SHIFT;
        if (bits == MPIDI_FTDEV_global.epoch_bits)
            continue;
        mpi_errno = MPIDI_FTDEV_drain(bits | context_bits, MPIDI_FTDEV_EPOCH_MASK | context_mask);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
