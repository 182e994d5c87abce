/*
 * FT-MPICH: ch4 netmod "ftdev".
 *
 * Receipt of MPIDIG active messages.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"

/* UCX hands over the message at whatever alignment its transport left it;
 * MPIDIG reads its header as a struct, so a misaligned message is copied. */
ucs_status_t MPIDI_FTDEV_am_recv_cb(void *arg, const void *header, size_t header_length,
                                    void *data, size_t length, const ucp_am_recv_param_t * param)
{
    void *copy = NULL;

    MPIR_Assert(!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV));
    if ((uintptr_t) data % sizeof(uint64_t)) {
        copy = MPL_malloc(length, MPL_MEM_BUFFER);
        MPIR_Assert(copy);
        MPIR_Memcpy(copy, data, length);
        data = copy;
    }

    MPIDI_FTDEV_am_header_t *hdr = data;
    void *am_hdr = hdr + 1;
    void *payload = (char *) am_hdr + hdr->am_hdr_sz;
    MPIR_Assert(sizeof(*hdr) + hdr->am_hdr_sz + hdr->data_sz == length);

    /* A message of an epoch before the last recovery is stale: what it is
     * about (a window, a partitioned request) was destroyed, and in RESET
     * mode nothing sent before a recovery arrives after it. */
    if (hdr->epoch < MPIDI_FTDEV_global.epoch) {
        MPL_free(copy);
        return UCS_OK;
    }

    int attr = 0;
    MPIDIG_AM_ATTR_SET_VCIS(attr, 0, 0);
    MPIDIG_global.target_msg_cbs[hdr->handler_id] (am_hdr, payload, hdr->data_sz, attr, NULL);

    MPL_free(copy);
    return UCS_OK;
}
