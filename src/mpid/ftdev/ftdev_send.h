/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Point-to-point sends over UCX tag matching (eager, rendezvous and
 * zero-copy are UCX's own protocols).
 */

#ifndef FTDEV_SEND_H_INCLUDED
#define FTDEV_SEND_H_INCLUDED

#include "ftdev_impl.h"
#include "ftdev_failure.h"
#include "ftdev_request.h"

MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_send_cmpl_cb(void *request, ucs_status_t status,
                                                       void *user_data)
{
    MPIDI_FTDEV_ucp_request_t *ucp_request = (MPIDI_FTDEV_ucp_request_t *) request;
    MPIR_Request *req = ucp_request->req;

    MPIDI_FTDEV_global.ucx.sends_in_flight--;
    if (MPIDI_FTDEV_request_ucx_finished(req)) {
        if (unlikely(status == UCS_ERR_CANCELED)) {
            MPIR_STATUS_SET_CANCEL_BIT(req->status, TRUE);
        } else if (unlikely(status != UCS_OK)) {
            req->status.MPI_ERROR = MPIDI_FTDEV_transfer_error(status);
        }
        MPIDI_FTDEV_request_done(req);
    }
    ucp_request->req = NULL;
    ucp_request_release(ucp_request);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_send(const void *buf, MPI_Aint count,
                                              MPI_Datatype datatype, int tag, MPIR_Comm * comm,
                                              int context_offset, MPIDI_av_entry_t * addr,
                                              MPIR_Request ** request, int is_sync)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_FTDEV_ucp_request_t *ucp_request;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK,
        .cb.send = MPIDI_FTDEV_send_cmpl_cb,
    };
    const void *ucp_buf;
    size_t ucp_count;

    MPIR_FUNC_ENTER;
    int comm_wide = MPIDI_FTDEV_comm_wide_traffic(context_offset, tag);
    MPIDI_FTDEV_GATE_REQUEST(MPIDI_FTDEV_refuse_pt2pt(addr, comm, comm_wide), request, MPIR_REQUEST_KIND__SEND,
                             MPIR_Request_create_complete(MPIR_REQUEST_KIND__SEND));

    uint64_t ucp_tag = MPIDI_FTDEV_make_tag(comm->context_id + context_offset,
                                            MPIDI_FTDEV_global.world.my_tag_pid, tag);
    MPIDI_FTDEV_describe_buffer(buf, count, datatype, &param, &ucp_buf, &ucp_count);

    ucp_ep_h ep = MPIDI_FTDEV_AV(addr).ep;
    if (is_sync)
        ucp_request = ucp_tag_send_sync_nbx(ep, ucp_buf, ucp_count, ucp_tag, &param);
    else
        ucp_request = ucp_tag_send_nbx(ep, ucp_buf, ucp_count, ucp_tag, &param);
    /* refused at once (the connection broke before the peer's failure was
     * recorded): the error of a transfer that a failure ends later */
    if (unlikely(UCS_PTR_IS_ERR(ucp_request))) {
        mpi_errno = MPIDI_FTDEV_transfer_error(UCS_PTR_STATUS(ucp_request));
        goto fn_fail;
    }

    MPIR_Request *req;
    if (ucp_request) {
        MPIDI_FTDEV_global.ucx.sends_in_flight++;
        req = MPIR_Request_create_from_pool(MPIR_REQUEST_KIND__SEND, 0, 2);
        MPIR_ERR_CHKANDSTMT(req == NULL, mpi_errno, MPIX_ERR_NOREQ, goto fn_fail, "**nomemreq");
        ucp_request->req = req;
        MPIDI_FTDEV_REQ(req).u.ucp_request = ucp_request;
        /* a revocation of comm ends it (ULFM): a rendezvous to a member
         * that revoked and went on would otherwise wait for ever */
        req->comm = comm;
        MPIR_Comm_add_ref(comm);
        MPIDI_FTDEV_request_start(req, MPIDI_FTDEV_peer_list(MPIDI_FTDEV_AV(addr).pid), comm,
                                  comm_wide);
    } else {
        req = MPIR_Request_create_complete(MPIR_REQUEST_KIND__SEND);
    }
    *request = req;

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_isend(const void *buf, MPI_Aint count,
                                                MPI_Datatype datatype, int rank, int tag,
                                                MPIR_Comm * comm, int context_offset,
                                                MPIDI_av_entry_t * addr, MPIR_Request ** request)
{
    return MPIDI_FTDEV_send(buf, count, datatype, tag, comm, context_offset, addr, request, 0);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_issend(const void *buf, MPI_Aint count,
                                                 MPI_Datatype datatype, int rank, int tag,
                                                 MPIR_Comm * comm, int context_offset,
                                                 MPIDI_av_entry_t * addr, MPIR_Request ** request)
{
    return MPIDI_FTDEV_send(buf, count, datatype, tag, comm, context_offset, addr, request, 1);
}

/* Collective traffic carries the caller's error state in the tag's error
 * bits, so a failure seen by one rank propagates through the algorithm. */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_isend_coll(const void *buf, MPI_Aint count,
                                                 MPI_Datatype datatype, int rank, int tag,
                                                 MPIR_Comm * comm, int context_offset,
                                                 MPIDI_av_entry_t * addr, MPIR_Request ** request,
                                                 MPIR_Errflag_t * errflag)
{
    if (*errflag == MPIR_ERR_PROC_FAILED)
        MPIR_TAG_SET_PROC_FAILURE_BIT(tag);
    else if (*errflag != MPIR_ERR_NONE)
        MPIR_TAG_SET_ERROR_BIT(tag);

    return MPIDI_FTDEV_send(buf, count, datatype, tag, comm, context_offset, addr, request, 0);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_cancel_send(MPIR_Request * sreq)
{
    if (!MPIR_Request_is_complete(sreq))
        ucp_request_cancel(MPIDI_FTDEV_global.ucx.worker, MPIDI_FTDEV_REQ(sreq).u.ucp_request);
    return MPI_SUCCESS;
}

#endif /* FTDEV_SEND_H_INCLUDED */
