/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Probes over UCX's unexpected-message queue.
 */

#ifndef FTDEV_PROBE_H_INCLUDED
#define FTDEV_PROBE_H_INCLUDED

#include "ftdev_impl.h"
#include "ftdev_failure.h"

MPL_STATIC_INLINE_PREFIX ucp_tag_message_h MPIDI_FTDEV_probe(int source, int tag,
                                                             MPIR_Comm * comm,
                                                             int context_offset,
                                                             MPIDI_av_entry_t * addr, int remove,
                                                             ucp_tag_recv_info_t * info)
{
    int context_id = comm->recvcontext_id + context_offset;
    uint64_t ucp_tag = MPIDI_FTDEV_recv_tag(context_id, tag, source, addr);
    return ucp_tag_probe_nb(MPIDI_FTDEV_global.ucx.worker, ucp_tag,
                            MPIDI_FTDEV_recv_mask(context_id, tag, source), remove, info);
}

/* After a failure: MPI_SUCCESS to go on, an error, or MPIDI_FTDEV_BLANK_PEER
 * when the source is a blank, having found "a message" from it as from
 * MPI_PROC_NULL. */
MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_probe_gate(int source, MPIDI_av_entry_t * addr,
                                                    int *flag, MPI_Status * status)
{
    int gate = MPIDI_FTDEV_refuse_pt2pt(source == MPI_ANY_SOURCE ? NULL : addr, NULL, 0);
    if (gate == MPIDI_FTDEV_BLANK_PEER) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            MPIR_Status_set_procnull(status);
    }
    return gate;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_iprobe(int source, int tag, MPIR_Comm * comm,
                                                 int context_offset, MPIDI_av_entry_t * addr,
                                                 int *flag, MPI_Status * status)
{
    ucp_tag_recv_info_t info;

    *flag = 0;
    if (unlikely(MPIDI_FTDEV_global.failures.num_refusal_causes)) {
        int gate = MPIDI_FTDEV_probe_gate(source, addr, flag, status);
        if (gate != MPI_SUCCESS)
            return gate == MPIDI_FTDEV_BLANK_PEER ? MPI_SUCCESS : gate;
    }
    if (MPIDI_FTDEV_probe(source, tag, comm, context_offset, addr, 0, &info) == NULL) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    *flag = 1;
    /* a probe's status keeps the caller's MPI_ERROR field */
    if (status != MPI_STATUS_IGNORE)
        MPIDI_FTDEV_set_status(status, comm, info.sender_tag, info.length);
    return MPI_SUCCESS;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_improbe(int source, int tag, MPIR_Comm * comm,
                                                  int context_offset, MPIDI_av_entry_t * addr,
                                                  int *flag, MPIR_Request ** message,
                                                  MPI_Status * status)
{
    int mpi_errno = MPI_SUCCESS;
    ucp_tag_recv_info_t info;
    ucp_tag_message_h msg;
    MPIR_Request *req = NULL;

    *flag = 0;
    *message = NULL;
    if (unlikely(MPIDI_FTDEV_global.failures.num_refusal_causes)) {
        int gate = MPIDI_FTDEV_probe_gate(source, addr, flag, status);
        if (gate == MPIDI_FTDEV_BLANK_PEER) {
            /* builtin request 0, whose handle is MPI_MESSAGE_NO_PROC */
            *message = MPIR_Request_create_complete(MPIR_REQUEST_KIND__UNDEFINED);
            return MPI_SUCCESS;
        }
        if (gate != MPI_SUCCESS)
            return gate;
    }
    msg = MPIDI_FTDEV_probe(source, tag, comm, context_offset, addr, 1, &info);
    *flag = (msg != NULL);
    if (msg) {
        req = MPIR_Request_create_from_pool(MPIR_REQUEST_KIND__MPROBE, 0, 2);
        MPIR_ERR_CHKANDSTMT(req == NULL, mpi_errno, MPIX_ERR_NOREQ, goto fn_fail, "**nomemreq");
        req->comm = comm;
        MPIR_Comm_add_ref(comm);
        MPIDI_FTDEV_REQ(req).u.message = msg;
        MPIDI_FTDEV_REQ(req).list = NULL;
        MPIDI_FTDEV_REQ(req).pid = MPIDI_FTDEV_pid_of(info.sender_tag);
        if (status != MPI_STATUS_IGNORE)
            MPIDI_FTDEV_set_status(status, comm, info.sender_tag, info.length);
    }
    *message = req;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

#endif /* FTDEV_PROBE_H_INCLUDED */
