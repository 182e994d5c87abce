/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Request life cycle shared by sends, receives and active messages.
 */

#ifndef FTDEV_REQUEST_H_INCLUDED
#define FTDEV_REQUEST_H_INCLUDED

#include "ftdev_impl.h"

MPL_STATIC_INLINE_PREFIX void MPIDI_NM_am_request_init(MPIR_Request * req)
{
    req->dev.ch4.am.netmod_am.ftdev.pack_buffer = NULL;
}

MPL_STATIC_INLINE_PREFIX void MPIDI_NM_am_request_finalize(MPIR_Request * req)
{
    MPL_free(req->dev.ch4.am.netmod_am.ftdev.pack_buffer);
    req->dev.ch4.am.netmod_am.ftdev.pack_buffer = NULL;
}

/* The error a transfer completes with when UCX reports anything but success
 * or cancellation: the peer failed or the connection to it broke, which is
 * a process failure to ULFM (its class; FT-MPI programs expect
 * MPI_ERR_OTHER). */
MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_transfer_error(ucs_status_t status)
{
    int errclass = MPIDI_FTDEV_global.upper.policy.ulfm ? MPIX_ERR_PROC_FAILED : MPI_ERR_OTHER;
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__, errclass,
                                "**ftdev_transfer", "**ftdev_transfer %s",
                                ucs_status_string(status));
}

/* A request about to be handed to UCX and tracked. */
MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_request_start(MPIR_Request * req, MPIR_Request ** list,
                                                       MPIR_Comm * comm, int comm_wide)
{
    /* see MPIDI_FTDEV_comm_wide_traffic */
    MPIDI_FTDEV_REQ(req).coll_comm = comm_wide ? comm : NULL;
    MPIDI_FTDEV_REQ(req).fail_err = MPI_SUCCESS;
    MPIDI_FTDEV_REQ(req).orphaned = 0;
    MPIDI_FTDEV_REQ(req).blocking = MPID_starting_blocking_op;
    MPIDI_FTDEV_track(req, list);
}

/* UCX has finished with a request ftdev tracked. Returns 0 when a failure
 * already completed it (only the reference UCX held is dropped then);
 * otherwise the caller fills in the status and calls request_done. */
MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_request_ucx_finished(MPIR_Request * req)
{
    if (unlikely(MPIDI_FTDEV_REQ(req).orphaned)) {
        MPIDI_CH4_REQUEST_FREE(req);
        return 0;
    }
    return 1;
}

/* Drop the request from its peer's list and complete it, with the error a
 * failure left on it if any. */
MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_request_done(MPIR_Request * req)
{
    if (unlikely(MPIDI_FTDEV_REQ(req).fail_err != MPI_SUCCESS)) {
        /* the cancellation that stopped it was ftdev's, not the user's */
        req->status.MPI_ERROR = MPIDI_FTDEV_REQ(req).fail_err;
        MPIR_STATUS_SET_CANCEL_BIT(req->status, FALSE);
        MPIR_STATUS_SET_COUNT(req->status, 0);
    }
    MPIDI_FTDEV_untrack(req);
    MPIDIU_request_complete(req);
}

#endif /* FTDEV_REQUEST_H_INCLUDED */
