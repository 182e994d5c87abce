/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Helpers shared by the netmod's inline paths: tag construction, request
 * tracking per peer, process id <-> rank translation. Every file of the
 * netmod includes this first, then the private headers it uses.
 */

#ifndef FTDEV_IMPL_H_INCLUDED
#define FTDEV_IMPL_H_INCLUDED

#include <mpidimpl.h>
#include "ftdev_types.h"
#include "mpidch4r.h"
#include "ch4_impl.h"

#define MPIDI_FTDEV_REQ(req)   ((req)->dev.ch4.netmod.ftdev)
#define MPIDI_FTDEV_AV(av)     ((av)->netmod.ftdev)
#define MPIDI_FTDEV_COMM(comm) ((comm)->dev.ch4.netmod.ftdev)
#define MPIDI_FTDEV_DT(dt)     ((dt)->dev.netmod.ftdev)
#define MPIDI_FTDEV_WIN(win)   ((win)->dev.netmod.ftdev)

#define MPIDI_FTDEV_CHK_STATUS(status_)                                         \
    MPIR_ERR_CHKANDJUMP2((status_) != UCS_OK && (status_) != UCS_INPROGRESS,    \
                         mpi_errno, MPI_ERR_OTHER, "**ftdev_ucx",               \
                         "**ftdev_ucx %s %s", __func__, ucs_status_string(status_))

#define MPIDI_FTDEV_CHK_REQUEST(ptr_)                                           \
    MPIR_ERR_CHKANDJUMP2(UCS_PTR_IS_ERR(ptr_), mpi_errno, MPI_ERR_OTHER,        \
                         "**ftdev_ucx", "**ftdev_ucx %s %s", __func__,          \
                         ucs_status_string(UCS_PTR_STATUS(ptr_)))

/* ---- tags ---------------------------------------------------------------- */

MPL_STATIC_INLINE_PREFIX uint64_t MPIDI_FTDEV_make_tag(int context_id, int pid, int tag)
{
    return ((uint64_t) context_id << MPIDI_FTDEV_CONTEXT_ID_SHIFT) | MPIDI_FTDEV_global.epoch.bits |
        ((uint64_t) pid << MPIDI_FTDEV_global.tag.bits) | ((uint64_t) tag & MPIDI_FTDEV_global.tag.mask);
}

/* Matching ignores MPICH's error bits; a wildcard clears its field. CONT
 * leaves the epoch unmatched for point-to-point traffic only: a collective
 * that failed must not feed the same collective after the recovery. */
MPL_STATIC_INLINE_PREFIX uint64_t MPIDI_FTDEV_recv_mask(int context_id, int tag, int source)
{
    uint64_t mask = ((context_id & MPIR_CONTEXT_SUFFIX_MASK) == MPIR_CONTEXT_INTRA_COLL) ?
        ~(uint64_t) 0 : ~MPIDI_FTDEV_global.epoch.unmatched_bits;
    MPIR_TAG_CLEAR_ERROR_BITS(mask);
    if (tag == MPI_ANY_TAG)
        mask &= ~(uint64_t) MPIR_TAG_USABLE_BITS;
    if (source == MPI_ANY_SOURCE)
        mask &= ~MPIDI_FTDEV_global.tag.pid_mask;
    return mask;
}

MPL_STATIC_INLINE_PREFIX uint64_t MPIDI_FTDEV_recv_tag(int context_id, int tag, int source,
                                                       MPIDI_av_entry_t * av)
{
    int pid = (source == MPI_ANY_SOURCE) ? 0 : MPIDI_FTDEV_AV(av).tag_pid;
    return MPIDI_FTDEV_make_tag(context_id, pid, (tag == MPI_ANY_TAG) ? 0 : tag);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_tag_of(uint64_t ucp_tag)
{
    return (int) (ucp_tag & MPIDI_FTDEV_global.tag.mask);
}

/* The pid of a tag pid: a process of this world, of another world known
 * here, or -1. */
MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_pid_of_tag_pid(int tag_pid)
{
    int pid = tag_pid - MPIDI_FTDEV_global.world.base;
    if (likely((unsigned) pid < (unsigned) MPIDI_FTDEV_global.world.num_pids))
        return pid;
    if ((unsigned) tag_pid < (unsigned) MPIDI_FTDEV_global.world.pid_capacity)
        return MPIDI_FTDEV_global.world.pid_of_foreign_tag_pid[tag_pid];
    return -1;
}

/* The sender's pid */
MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_pid_of(uint64_t ucp_tag)
{
    return MPIDI_FTDEV_pid_of_tag_pid((int) ((ucp_tag & MPIDI_FTDEV_global.tag.pid_mask) >>
                                             MPIDI_FTDEV_global.tag.bits));
}

/* The address entry of a pid */
MPL_STATIC_INLINE_PREFIX MPIDI_av_entry_t *MPIDI_FTDEV_peer_av(int pid)
{
    return pid < MPIDI_FTDEV_global.world.num_pids ? &MPIDIU_get_av(0, pid) :
        MPIDI_FTDEV_global.world.foreign_av[pid];
}

/* The (tag, mask) of every message pid sent */
MPL_STATIC_INLINE_PREFIX uint64_t MPIDI_FTDEV_sender_pattern(int pid)
{
    return (uint64_t) MPIDI_FTDEV_AV(MPIDI_FTDEV_peer_av(pid)).tag_pid <<
        MPIDI_FTDEV_global.tag.bits;
}

/* ---- process id -> rank in a communicator (its remote group for an
 * intercommunicator), built by the commit hook -------------------------- */

MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_rank_of_pid(MPIR_Comm * comm, int pid)
{
    MPIDI_FTDEV_comm_t *c = &MPIDI_FTDEV_COMM(comm);
    if (likely(c->pid == NULL))
        return (unsigned) (pid - c->offset) < (unsigned) c->n ? pid - c->offset : MPI_UNDEFINED;

    int lo = 0, hi = c->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c->pid[mid] == pid)
            return c->rank[mid];
        if (c->pid[mid] < pid)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return MPI_UNDEFINED;
}

MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_set_status(MPI_Status * status, MPIR_Comm * comm,
                                                     uint64_t sender_tag, MPI_Aint count)
{
    status->MPI_SOURCE = MPIDI_FTDEV_rank_of_pid(comm, MPIDI_FTDEV_pid_of(sender_tag));
    status->MPI_TAG = MPIDI_FTDEV_tag_of(sender_tag);
    MPIR_STATUS_SET_COUNT(*status, count);
}

/* ---- outstanding requests per peer -------------------------------------- */

MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_track(MPIR_Request * req, MPIR_Request ** list)
{
    MPIDI_FTDEV_request_t *r = &MPIDI_FTDEV_REQ(req);
    r->list = list;
    r->prev = NULL;
    r->next = *list;
    if (*list)
        MPIDI_FTDEV_REQ(*list).prev = req;
    *list = req;
}

MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_untrack(MPIR_Request * req)
{
    MPIDI_FTDEV_request_t *r = &MPIDI_FTDEV_REQ(req);
    if (r->list == NULL)
        return;
    if (r->prev)
        MPIDI_FTDEV_REQ(r->prev).next = r->next;
    else
        *r->list = r->next;
    if (r->next)
        MPIDI_FTDEV_REQ(r->next).prev = r->prev;
    r->list = NULL;
}

MPL_STATIC_INLINE_PREFIX MPIR_Request **MPIDI_FTDEV_peer_list(int pid)
{
    return &MPIDI_FTDEV_global.peers.reqs[pid];
}

/* ---- UCX's progress ------------------------------------------------------- */

/* Every entry into UCX's progress, so that a failure learned outside it
 * can first take what already arrived (MPIDI_FTDEV_take_what_arrived)
 * and one learned in its callbacks does not enter it again. */
MPL_STATIC_INLINE_PREFIX unsigned MPIDI_FTDEV_worker_progress(void)
{
    MPIDI_FTDEV_global.ucx.in_worker_progress++;
    unsigned events = ucp_worker_progress(MPIDI_FTDEV_global.ucx.worker);
    MPIDI_FTDEV_global.ucx.in_worker_progress--;
    MPIDI_FTDEV_global.ucx.worker_events += events;
    return events;
}

/* ---- datatypes ------------------------------------------------------------ */

int MPIDI_FTDEV_create_ucp_datatype(MPIR_Datatype * dt_ptr);

/* Buffer, count and UCX datatype describing (buf, count, datatype) to UCX.
 * A non-contiguous type gains a reference that UCX's finish callback drops. */
MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_describe_buffer(const void *buf, MPI_Aint count,
                                                          MPI_Datatype datatype,
                                                          ucp_request_param_t * param,
                                                          const void **ucp_buf,
                                                          size_t *ucp_count)
{
    int dt_contig;
    size_t data_sz;
    MPI_Aint dt_true_lb;
    MPIR_Datatype *dt_ptr;

    MPIDI_Datatype_get_info(count, datatype, dt_contig, data_sz, dt_ptr, dt_true_lb);
    if (dt_contig) {
        *ucp_buf = MPIR_get_contig_ptr(buf, dt_true_lb);
        *ucp_count = data_sz;
    } else {
        if (unlikely(!MPIDI_FTDEV_DT(dt_ptr).has_ucp_datatype))
            MPIDI_FTDEV_create_ucp_datatype(dt_ptr);
        *ucp_buf = buf;
        *ucp_count = count;
        param->op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
        param->datatype = MPIDI_FTDEV_DT(dt_ptr).ucp_datatype;
        MPIR_Datatype_ptr_add_ref(dt_ptr);
    }
}

MPL_STATIC_INLINE_PREFIX ucp_ep_h MPIDI_FTDEV_comm_ep(MPIR_Comm * comm, int rank)
{
    return MPIDI_FTDEV_AV(MPIDIU_comm_rank_to_av(comm, rank)).ep;
}

/* The UCX tags t with (t & mask) == tag. */
typedef struct {
    uint64_t tag;
    uint64_t mask;
} MPIDI_FTDEV_tag_pattern_t;

/* The traffic of context id `context_id` in every epoch, from every
 * process, whatever the context id's bits in `ignored` hold
 * (MPIR_CONTEXT_SUFFIX_MASK: point-to-point and collective alike). */
MPIDI_FTDEV_tag_pattern_t MPIDI_FTDEV_context_pattern(int context_id, int ignored);

/* Receives every message in UCX's unexpected queue whose tag matches
 * (tag, mask) into nothing. */
int MPIDI_FTDEV_drain(uint64_t tag, uint64_t mask);

/* Receives into nothing every message of a receive context id (its
 * point-to-point and collective traffic, every epoch). */
int MPIDI_FTDEV_drain_context(int context_id);

/* With a failure awaiting recovery (`pending`, AUTO/MANUAL), receives into
 * nothing every message of this epoch in RESET mode and the collectives'
 * in CONT mode; sets *stale to whether such messages may keep coming. In
 * IGNORE and ULFM modes, where what a failure or a revocation leaves
 * behind keeps coming for as long as the job runs, that is left to
 * MPIDI_FTDEV_drain_stale_traffic from then on. */
int MPIDI_FTDEV_drain_stale(int pending, int *stale);

/* Receives into nothing, in IGNORE and ULFM modes, the collective traffic
 * of communicators with a failed member, the traffic of revoked ones and
 * of held context ids; while messages keep coming, not at every progress
 * call, unless `now`. */
int MPIDI_FTDEV_drain_stale_traffic(int now);

ucs_status_t MPIDI_FTDEV_am_recv_cb(void *arg, const void *header, size_t header_length,
                                    void *data, size_t length, const ucp_am_recv_param_t * param);

/* A spawned world's base and tag layout, from its parent's port
 * (ftdev_spawn.c) */
int MPIDI_FTDEV_spawned_world_layout(int num_pids, int *base, int *bits);

#endif /* FTDEV_IMPL_H_INCLUDED */
