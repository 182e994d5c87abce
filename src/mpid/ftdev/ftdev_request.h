/*
 * FT-MPICH: ch4 netmod "ftdev".
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
 * or cancellation: the peer failed or the connection to it broke. */
MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_transfer_error(ucs_status_t status)
{
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPI_ERR_OTHER, "**ftdev_transfer", "**ftdev_transfer %s",
                                ucs_status_string(status));
}

/* UCX has finished with a request ftdev tracked: drop it from its peer's
 * list and complete it. */
MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_request_done(MPIR_Request * req)
{
    MPIDI_FTDEV_untrack(req);
    MPIDIU_request_complete(req);
}

#endif /* FTDEV_REQUEST_H_INCLUDED */
