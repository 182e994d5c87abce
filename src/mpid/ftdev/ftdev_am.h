/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Active messages for MPICH's generic layer (MPIDIG: RMA, partitioned
 * communication). Each message is [ftdev header | MPIDIG header | data],
 * sent with UCX's eager protocol; MPIDIG does its own rendezvous above
 * MPIDI_FTDEV_AM_MSG_MAX.
 */

#ifndef FTDEV_AM_H_INCLUDED
#define FTDEV_AM_H_INCLUDED

#include "ftdev_impl.h"
#include "ftdev_failure.h"

/* Header of an outgoing active message, built in memory that lives until
 * UCX has sent it. With contiguous data the data goes out in place through
 * a two-entry iov stored in front of the header. */
typedef struct {
    ucp_dt_iov_t iov[2];
    MPIDI_FTDEV_am_header_t hdr;
} MPIDI_FTDEV_am_buf_t;

MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_am_isend_cmpl_cb(void *request, ucs_status_t status,
                                                           void *user_data)
{
    MPIR_Request *sreq = (MPIR_Request *) user_data;
    int handler_id = sreq->dev.ch4.am.netmod_am.ftdev.handler_id;

    MPL_free(sreq->dev.ch4.am.netmod_am.ftdev.pack_buffer);
    sreq->dev.ch4.am.netmod_am.ftdev.pack_buffer = NULL;
    MPIDIG_global.origin_cbs[handler_id] (sreq);
}

MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_am_free_cmpl_cb(void *request, ucs_status_t status,
                                                          void *user_data)
{
    MPL_free(user_data);
}

/* Allocates the outgoing buffer with room for extra bytes after the MPIDIG
 * header, and fills in both headers. */
MPL_STATIC_INLINE_PREFIX MPIDI_FTDEV_am_buf_t *MPIDI_FTDEV_am_buf_create(int handler_id,
                                                                        const void *am_hdr,
                                                                        MPI_Aint am_hdr_sz,
                                                                        size_t data_sz,
                                                                        size_t extra)
{
    MPIDI_FTDEV_am_buf_t *b = MPL_malloc(sizeof(*b) + am_hdr_sz + extra, MPL_MEM_BUFFER);
    if (b == NULL)
        return NULL;
    b->hdr.handler_id = handler_id;
    b->hdr.pad = 0;
    b->hdr.epoch = MPIDI_FTDEV_global.epoch.current;
    b->hdr.am_hdr_sz = am_hdr_sz;
    b->hdr.data_sz = data_sz;
    MPIR_Memcpy(b + 1, am_hdr, am_hdr_sz);
    return b;
}

/* Sends one MPIDIG active message; param's send callback also runs when
 * UCX completes the send in place. */
MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_am_send(MPIR_Comm * comm, int rank, const void *buf,
                                                 size_t count, ucp_request_param_t * param)
{
    int mpi_errno = MPI_SUCCESS;
    ucs_status_ptr_t ucp_request = ucp_am_send_nbx(MPIDI_FTDEV_comm_ep(comm, rank),
                                                   MPIDI_FTDEV_AM_MPIDIG, NULL, 0, buf, count,
                                                   param);
    MPIDI_FTDEV_CHK_REQUEST(ucp_request);
    if (ucp_request == NULL)
        param->cb.send(NULL, UCS_OK, param->user_data);
    else
        ucp_request_release(ucp_request);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_am_isend(int rank, MPIR_Comm * comm, int handler_id,
                                               const void *am_hdr, MPI_Aint am_hdr_sz,
                                               const void *data, MPI_Aint count,
                                               MPI_Datatype datatype, int src_vci, int dst_vci,
                                               MPIR_Request * sreq)
{
    int mpi_errno = MPI_SUCCESS;
    int dt_contig;
    size_t data_sz;
    MPI_Aint dt_true_lb;
    MPIR_Datatype *dt_ptr;
    MPIDI_FTDEV_am_buf_t *b;
    const void *ucp_buf;
    size_t ucp_count;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
            UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_DATATYPE,
        .cb.send = MPIDI_FTDEV_am_isend_cmpl_cb,
        .user_data = sreq,
        .flags = UCP_AM_SEND_FLAG_EAGER,
    };

    MPIR_FUNC_ENTER;
    MPIDI_FTDEV_REFUSE_IF_FAILED(MPIDI_FTDEV_refuse_pt2pt(MPIDIU_comm_rank_to_av(comm, rank), NULL, 0));

    MPIDI_Datatype_get_info(count, datatype, dt_contig, data_sz, dt_ptr, dt_true_lb);
    size_t hdr_len = sizeof(MPIDI_FTDEV_am_header_t) + am_hdr_sz;

    b = MPIDI_FTDEV_am_buf_create(handler_id, am_hdr, am_hdr_sz, data_sz, dt_contig ? 0 : data_sz);
    MPIR_ERR_CHKANDJUMP(b == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    if (dt_contig) {
        b->iov[0].buffer = &b->hdr;
        b->iov[0].length = hdr_len;
        b->iov[1].buffer = (void *) MPIR_get_contig_ptr(data, dt_true_lb);
        b->iov[1].length = data_sz;
        ucp_buf = b->iov;
        ucp_count = 2;
        param.datatype = ucp_dt_make_iov();
    } else {
        MPI_Aint packed;
        mpi_errno = MPIR_Typerep_pack(data, count, datatype, 0, (char *) &b->hdr + hdr_len,
                                      data_sz, &packed);
        MPIR_ERR_CHECK(mpi_errno);
        MPIR_Assert(packed == data_sz);
        ucp_buf = &b->hdr;
        ucp_count = hdr_len + data_sz;
        param.datatype = ucp_dt_make_contig(1);
    }

    sreq->dev.ch4.am.netmod_am.ftdev.handler_id = handler_id;
    sreq->dev.ch4.am.netmod_am.ftdev.pack_buffer = b;

    mpi_errno = MPIDI_FTDEV_am_send(comm, rank, ucp_buf, ucp_count, &param);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_am_isend_reply(MPIR_Comm * comm, int src_rank,
                                                     int handler_id, const void *am_hdr,
                                                     MPI_Aint am_hdr_sz, const void *data,
                                                     MPI_Aint count, MPI_Datatype datatype,
                                                     int src_vci, int dst_vci, MPIR_Request * sreq)
{
    return MPIDI_NM_am_isend(src_rank, comm, handler_id, am_hdr, am_hdr_sz, data, count,
                             datatype, src_vci, dst_vci, sreq);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_am_send_hdr(int rank, MPIR_Comm * comm, int handler_id,
                                                  const void *am_hdr, MPI_Aint am_hdr_sz,
                                                  int src_vci, int dst_vci)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_FTDEV_am_buf_t *b;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
            UCP_OP_ATTR_FIELD_FLAGS,
        .cb.send = MPIDI_FTDEV_am_free_cmpl_cb,
        .flags = UCP_AM_SEND_FLAG_EAGER,
    };

    MPIR_FUNC_ENTER;
    MPIDI_FTDEV_REFUSE_IF_FAILED(MPIDI_FTDEV_refuse_pt2pt(MPIDIU_comm_rank_to_av(comm, rank), NULL, 0));

    b = MPIDI_FTDEV_am_buf_create(handler_id, am_hdr, am_hdr_sz, 0, 0);
    MPIR_ERR_CHKANDJUMP(b == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    param.user_data = b;

    mpi_errno = MPIDI_FTDEV_am_send(comm, rank, &b->hdr, sizeof(b->hdr) + am_hdr_sz, &param);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_am_send_hdr_reply(MPIR_Comm * comm, int rank,
                                                        int handler_id, const void *am_hdr,
                                                        MPI_Aint am_hdr_sz, int src_vci,
                                                        int dst_vci)
{
    return MPIDI_NM_am_send_hdr(rank, comm, handler_id, am_hdr, am_hdr_sz, src_vci, dst_vci);
}

MPL_STATIC_INLINE_PREFIX MPI_Aint MPIDI_NM_am_hdr_max_sz(void)
{
    return MPIDI_FTDEV_AM_MSG_MAX - sizeof(MPIDI_FTDEV_am_header_t);
}

MPL_STATIC_INLINE_PREFIX MPI_Aint MPIDI_NM_am_eager_limit(void)
{
    return MPIDI_FTDEV_AM_MSG_MAX - sizeof(MPIDI_FTDEV_am_header_t);
}

MPL_STATIC_INLINE_PREFIX MPI_Aint MPIDI_NM_am_eager_buf_limit(void)
{
    return MPIDI_FTDEV_AM_MSG_MAX;
}

MPL_STATIC_INLINE_PREFIX bool MPIDI_NM_am_check_eager(MPI_Aint am_hdr_sz, MPI_Aint data_sz,
                                                      const void *data, MPI_Aint count,
                                                      MPI_Datatype datatype, MPIR_Request * sreq)
{
    return am_hdr_sz + data_sz <= MPIDI_NM_am_eager_limit();
}

MPL_STATIC_INLINE_PREFIX MPIDIG_recv_data_copy_cb MPIDI_NM_am_get_data_copy_cb(uint32_t attr)
{
    return NULL;
}

#endif /* FTDEV_AM_H_INCLUDED */
