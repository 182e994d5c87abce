/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Endpoints and addresses: every UCX endpoint to a peer is made here, with
 * the error handler that reports the peer's failure, and every peer's
 * worker address is kept here (a REBUILD coordinator hands them on).
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_failure.h"
#include "ftdev_rebuild.h"

/* REBUILD's endpoints to replacements not yet installed (ftdev_rebuild.c) */
static MPIDI_FTDEV_ep_error_filter_t ep_error_filter;

void MPIDI_FTDEV_filter_ep_errors(MPIDI_FTDEV_ep_error_filter_t filter)
{
    ep_error_filter = filter;
}

/* Peers whose connection broke, declared failed once UCX's progress has
 * returned. UCX can report the error in the same progress call that would
 * have read the peer's last message, before reading it (the error came on
 * one transport, a TCP reset, while the message waits on another, shared
 * memory): taken first, as for a notice from outside UCX. */
typedef struct {
    int pid;
    ucs_status_t status;
} broken_connection_t;

static broken_connection_t *broken;
static int num_broken, max_broken;

static void declare_broken(int pid, ucs_status_t status)
{
    char how[96];
    snprintf(how, sizeof(how), "connection error: %s", ucs_status_string(status));
    MPIDI_FTDEV_peer_failed(pid, how);
}

static void ep_error_cb(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    int pid = (int) (intptr_t) arg;
    MPIDI_FTDEV_global.failures.learned++;
    if (ep_error_filter && ep_error_filter(pid))
        return;
    if (num_broken == max_broken) {
        int more = max_broken ? 2 * max_broken : 16;
        broken_connection_t *grown = MPL_realloc(broken, more * sizeof(*broken), MPL_MEM_OTHER);
        if (grown == NULL) {
            declare_broken(pid, status);
            return;
        }
        broken = grown;
        max_broken = more;
    }
    broken[num_broken].pid = pid;
    broken[num_broken].status = status;
    num_broken++;
    MPIDI_FTDEV_global.failures.progress_checks = 1;
}

void MPIDI_FTDEV_declare_broken_connections(void)
{
    if (num_broken == 0 || MPIDI_FTDEV_global.ucx.in_worker_progress)
        return;
    MPIDI_FTDEV_take_what_arrived();
    /* taking may break more connections: those are declared here too */
    for (int i = 0; i < num_broken; i++)
        declare_broken(broken[i].pid, broken[i].status);
    num_broken = 0;
}

/* Every endpoint reports a peer's failure, except the one to this process
 * itself: UCX's loopback transport has no peer-failure support, and a
 * process cannot outlive itself. */
int MPIDI_FTDEV_create_ep(int pid, const ucp_address_t * address, ucp_ep_h * ep)
{
    int mpi_errno = MPI_SUCCESS;
    ucp_ep_params_t params = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
        .address = address,
    };
    if (pid != MPIDI_FTDEV_global.world.my_pid) {
        params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
        params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        params.err_handler.cb = ep_error_cb;
        params.err_handler.arg = (void *) (intptr_t) pid;
    }
    ucs_status_t status = ucp_ep_create(MPIDI_FTDEV_global.ucx.worker, &params, ep);
    MPIDI_FTDEV_CHK_STATUS(status);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_keep_address_copy(void **slot, size_t * slot_len, const void *address, size_t len)
{
    void *copy = MPL_malloc(len, MPL_MEM_ADDRESS);
    if (copy == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", 0);
    memcpy(copy, address, len);
    MPL_free(*slot);
    *slot = copy;
    *slot_len = len;
    return MPI_SUCCESS;
}

int MPIDI_FTDEV_save_address(int pid, const void *address, size_t len)
{
    return MPIDI_FTDEV_keep_address_copy(&MPIDI_FTDEV_global.rebuild.peer_address[pid],
                                         &MPIDI_FTDEV_global.rebuild.peer_address_len[pid], address, len);
}
