/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Point-to-point receives over UCX tag matching. The request holds a
 * reference to its communicator so that the sender's process id can be
 * translated to a rank when the message arrives.
 */

#ifndef FTDEV_RECV_H_INCLUDED
#define FTDEV_RECV_H_INCLUDED

#include "ftdev_impl.h"
#include "ftdev_failure.h"
#include "ftdev_request.h"

MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_recv_cmpl_cb(void *request, ucs_status_t status,
                                                       const ucp_tag_recv_info_t * info,
                                                       void *user_data)
{
    MPIDI_FTDEV_ucp_request_t *ucp_request = (MPIDI_FTDEV_ucp_request_t *) request;
    MPIR_Request *rreq = (MPIR_Request *) user_data;

    if (MPIDI_FTDEV_request_ucx_finished(rreq)) {
        if (likely(status == UCS_OK)) {
            rreq->status.MPI_ERROR = MPI_SUCCESS;
            MPIDI_FTDEV_set_status(&rreq->status, rreq->comm, info->sender_tag, info->length);
        } else if (status == UCS_ERR_MESSAGE_TRUNCATED) {
            rreq->status.MPI_ERROR = MPI_ERR_TRUNCATE;
            MPIDI_FTDEV_set_status(&rreq->status, rreq->comm, info->sender_tag, 0);
        } else if (status == UCS_ERR_CANCELED) {
            MPIR_STATUS_SET_CANCEL_BIT(rreq->status, TRUE);
        } else {
            rreq->status.MPI_ERROR = MPIDI_FTDEV_transfer_error(status);
        }
        MPIDI_FTDEV_request_done(rreq);
    }
    ucp_request->req = NULL;
    ucp_request_release(ucp_request);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_post_recv(MPIR_Request * rreq, void *buf,
                                                   MPI_Aint count, MPI_Datatype datatype,
                                                   ucp_tag_message_h message, uint64_t ucp_tag,
                                                   uint64_t mask)
{
    int mpi_errno = MPI_SUCCESS;
    const void *ucp_buf;
    size_t ucp_count;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
            UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = MPIDI_FTDEV_recv_cmpl_cb,
        .user_data = rreq,
    };
    MPIDI_FTDEV_ucp_request_t *ucp_request;

    MPIDI_FTDEV_describe_buffer(buf, count, datatype, &param, &ucp_buf, &ucp_count);
    if (message)
        ucp_request = ucp_tag_msg_recv_nbx(MPIDI_FTDEV_global.ucx.worker, (void *) ucp_buf,
                                           ucp_count, message, &param);
    else
        ucp_request = ucp_tag_recv_nbx(MPIDI_FTDEV_global.ucx.worker, (void *) ucp_buf, ucp_count,
                                       ucp_tag, mask, &param);
    MPIDI_FTDEV_CHK_REQUEST(ucp_request);

    /* The completion callback may already have run (a matching message was
     * waiting); it must not find the request in a list then. */
    if (!MPIR_Request_is_complete(rreq)) {
        ucp_request->req = rreq;
        MPIDI_FTDEV_REQ(rreq).u.ucp_request = ucp_request;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_irecv(void *buf, MPI_Aint count, MPI_Datatype datatype,
                                                int rank, int tag, MPIR_Comm * comm,
                                                int context_offset, MPIDI_av_entry_t * addr,
                                                MPIR_Request ** request, MPIR_Request * partner)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *rreq = *request;

    MPIR_FUNC_ENTER;
    int comm_wide = MPIDI_FTDEV_comm_wide_traffic(context_offset, tag);
    int context_id = comm->recvcontext_id + context_offset;
    ucp_tag_t ucp_tag = MPIDI_FTDEV_recv_tag(context_id, tag, rank, addr);
    ucp_tag_t mask = MPIDI_FTDEV_recv_mask(context_id, tag, rank);
    MPIDI_FTDEV_GATE_REQUEST(MPIDI_FTDEV_refuse_recv(rank == MPI_ANY_SOURCE ? NULL : addr, comm,
                                                     comm_wide, ucp_tag, mask),
                             request, MPIR_REQUEST_KIND__RECV, MPIR_Request_create_null_recv());

    if (rreq == NULL) {
        rreq = MPIR_Request_create_from_pool(MPIR_REQUEST_KIND__RECV, 0, 2);
        MPIR_ERR_CHKANDSTMT(rreq == NULL, mpi_errno, MPIX_ERR_NOREQ, goto fn_fail, "**nomemreq");
    } else {
        MPIR_Request_add_ref(rreq);
    }
    rreq->comm = comm;
    MPIR_Comm_add_ref(comm);
    *request = rreq;

    MPIDI_FTDEV_request_start(rreq, rank == MPI_ANY_SOURCE ? &MPIDI_FTDEV_global.peers.wildcard_reqs :
                              MPIDI_FTDEV_peer_list(MPIDI_FTDEV_AV(addr).pid), comm,
                              comm_wide);
    mpi_errno = MPIDI_FTDEV_post_recv(rreq, buf, count, datatype, NULL, ucp_tag, mask);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Receive of a message matched by MPI_Mprobe/Improbe: the probe already
 * filled in the status and remembered the sender's process id. */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_imrecv(void *buf, MPI_Aint count, MPI_Datatype datatype,
                                                 MPIR_Request * message)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;
    MPIDI_FTDEV_REFUSE_IF_FAILED(MPIDI_FTDEV_refuse_pt2pt(NULL, NULL, 0));

    MPIDI_FTDEV_request_start(message, MPIDI_FTDEV_peer_list(MPIDI_FTDEV_REQ(message).pid),
                              NULL, 0);
    mpi_errno = MPIDI_FTDEV_post_recv(message, buf, count, datatype,
                                      MPIDI_FTDEV_REQ(message).u.message, 0, 0);

    MPIR_FUNC_EXIT;
    return mpi_errno;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_cancel_recv(MPIR_Request * rreq)
{
    if (!MPIR_Request_is_complete(rreq))
        ucp_request_cancel(MPIDI_FTDEV_global.ucx.worker, MPIDI_FTDEV_REQ(rreq).u.ucp_request);
    return MPI_SUCCESS;
}

#endif /* FTDEV_RECV_H_INCLUDED */
