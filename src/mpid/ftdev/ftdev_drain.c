/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Receiving into nothing: messages that no receive will ever take (of a
 * dead process, an old epoch, a freed or revoked communicator) are taken
 * out of UCX's unexpected queue and dropped, so that a rendezvous sender
 * does not wait for them for ever and no later receive matches them.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"

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
    while ((msg = ucp_tag_probe_nb(MPIDI_FTDEV_global.ucx.worker, tag, mask, 1, &info))) {
        ucp_request_param_t param = {
            .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_CALLBACK,
            .datatype = discard_dt,
            .cb.recv = discard_done_cb,
        };
        ucs_status_ptr_t r = ucp_tag_msg_recv_nbx(MPIDI_FTDEV_global.ucx.worker, NULL, info.length,
                                                  msg, &param);
        MPIDI_FTDEV_global.epoch.drained++;
        if (r && !UCS_PTR_IS_ERR(r))
            ucp_request_free(r);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPIDI_FTDEV_tag_pattern_t MPIDI_FTDEV_context_pattern(int context_id, int ignored)
{
    uint64_t field = MPIDI_FTDEV_FIELD_MASK(MPIDI_FTDEV_CONTEXT_ID_BITS,
                                            MPIDI_FTDEV_CONTEXT_ID_SHIFT);
    MPIDI_FTDEV_tag_pattern_t p;
    p.mask = field & ~MPIDI_FTDEV_CONTEXT_FIELD(ignored);
    p.tag = MPIDI_FTDEV_CONTEXT_FIELD(context_id) & p.mask;
    return p;
}

int MPIDI_FTDEV_drain_context(int context_id)
{
    MPIDI_FTDEV_tag_pattern_t p = MPIDI_FTDEV_context_pattern(context_id, MPIR_CONTEXT_SUFFIX_MASK);
    return MPIDI_FTDEV_drain(p.tag, p.mask);
}
