/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Receipt of MPIDIG active messages.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"

/* What arrives from the network is checked: a malformed message is
 * reported on one line and dropped (there is no caller to return an error
 * to); the sender's own checks make one a sign of memory corruption or of
 * a process outside the job. */
static ucs_status_t drop_message(const char *what, size_t length)
{
    fprintf(stderr, "FT-MPICH: rank %d: dropped an active message of %zu bytes: %s\n",
            MPIDI_FTDEV_global.world.my_pid, length, what);
    return UCS_OK;
}

/* UCX hands over the message at whatever alignment its transport left it;
 * MPIDIG reads its header as a struct, so a misaligned message is copied. */
ucs_status_t MPIDI_FTDEV_am_recv_cb(void *arg, const void *header, size_t header_length,
                                    void *data, size_t length, const ucp_am_recv_param_t * param)
{
    void *copy = NULL;
    MPIDI_FTDEV_am_header_t hdr;

    /* ftdev sends every active message eagerly (UCP_AM_SEND_FLAG_EAGER) */
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
        return drop_message("sent by rendezvous", length);
    if (length < sizeof(hdr))
        return drop_message("shorter than its header", length);
    memcpy(&hdr, data, sizeof(hdr));
    if ((uint64_t) sizeof(hdr) + hdr.am_hdr_sz + hdr.data_sz != length)
        return drop_message("its header's sizes do not add up to its length", length);
    if (hdr.handler_id >= MPIDI_AM_HANDLERS_MAX ||
        MPIDIG_global.target_msg_cbs[hdr.handler_id] == NULL)
        return drop_message("no handler has its number", length);

    /* A message of an epoch before the last recovery is stale: what it is
     * about (a window, a partitioned request) was destroyed, and in RESET
     * mode nothing sent before a recovery arrives after it. */
    if (hdr.epoch < MPIDI_FTDEV_global.epoch.current)
        return UCS_OK;

    if ((uintptr_t) data % sizeof(uint64_t)) {
        copy = MPL_malloc(length, MPL_MEM_BUFFER);
        if (copy == NULL)
            return drop_message("out of memory for an aligned copy", length);
        MPIR_Memcpy(copy, data, length);
        data = copy;
    }
    void *am_hdr = (MPIDI_FTDEV_am_header_t *) data + 1;
    void *payload = (char *) am_hdr + hdr.am_hdr_sz;

    int attr = 0;
    MPIDIG_AM_ATTR_SET_VCIS(attr, 0, 0);
    MPIDIG_global.target_msg_cbs[hdr.handler_id] (am_hdr, payload, hdr.data_sz, attr, NULL);

    MPL_free(copy);
    return UCS_OK;
}
