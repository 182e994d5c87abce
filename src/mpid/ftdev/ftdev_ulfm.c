/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * ULFM state of the device: which failures each communicator has
 * acknowledged, the wildcard-receive rule that follows from it, and the
 * revocation of communicators.
 *
 * Acknowledgements: the device logs failures in the order it learns them
 * (MPIDI_FTDEV_global.failures.log); a communicator's failed members are
 * that log restricted to it, and it counts how many of them it has
 * acknowledged. A wildcard receive on a communicator with a failed member
 * not acknowledged cannot be matched safely: MPICH's waits then report
 * MPIX_ERR_PROC_FAILED_PENDING (MPID_Comm_AS_enabled is false).
 *
 * Revocation: the revoking process, and every process the first time it
 * hears of it, marks the communicator revoked, fails its pending requests
 * with MPIX_ERR_REVOKED and sends a REVOKE to the members at distance 1,
 * 2, 4, ... on either side of it in rank order (a binomial graph): about
 * 2 log2(n) messages per process and log2(n) steps, and every survivor is
 * reached as long as the survivors' graph stays connected, which the
 * failure of fewer than half of one process's neighbours cannot break.
 * Every communicator that carries the revoked one's traffic is revoked
 * with it: MPICH runs an intercommunicator's collectives partly on its
 * local_comm, and node-aware algorithms on node_comm and node_roots_comm.
 * A REVOKE for a context id this process does not use yet is kept until a
 * communicator with it is created; one for a context id it holds after
 * freeing its communicator (ftdev_comm.c) is a late duplicate for that
 * communicator and dropped.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_control.h"
#include "ftdev_failure.h"
#include "ftdev_ulfm.h"

/* ---- acknowledged failures -------------------------------------------------------- */

/* Ranks of comm's failed members in the order their failures were learned. */
static int failed_members(MPIR_Comm * comm, int *ranks)
{
    int n = 0;
    for (int i = 0; i < MPIDI_FTDEV_global.failures.log_len; i++) {
        int rank = MPIDI_FTDEV_rank_of_pid(comm, MPIDI_FTDEV_global.failures.log[i]);
        if (rank != MPI_UNDEFINED)
            ranks[n++] = rank;
    }
    return n;
}

static int group_of_ranks(MPIR_Comm * comm, const int *ranks, int n, MPIR_Group ** group)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Group *all = NULL;

    if (n == 0) {
        *group = MPIR_Group_empty;
        goto fn_exit;
    }
    if (comm->comm_kind == MPIR_COMM_KIND__INTERCOMM)
        mpi_errno = MPIR_Comm_remote_group_impl(comm, &all);
    else
        mpi_errno = MPIR_Comm_group_impl(comm, &all);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Group_incl_impl(all, n, ranks, group);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    if (all)
        MPIR_Group_release(all);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The first `count` failed members of comm (all of them when count < 0). */
static int failed_group(MPIR_Comm * comm, int count, MPIR_Group ** group)
{
    int mpi_errno = MPI_SUCCESS;
    int *ranks = MPL_malloc((MPIDI_FTDEV_global.failures.log_len + 1) * sizeof(int),
                            MPL_MEM_OTHER);

    MPIR_ERR_CHKANDJUMP(ranks == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    int n = failed_members(comm, ranks);
    if (count >= 0 && count < n)
        n = count;
    mpi_errno = group_of_ranks(comm, ranks, n, group);

  fn_exit:
    MPL_free(ranks);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The failure notices that have arrived (launcher, heartbeat, peers) are
 * read by progress. A program that polls MPIX_Comm_get_failed with no
 * other call that progresses (MPI_Iprobe on MPI_COMM_SELF does not) would
 * otherwise never see a failure reported after its last blocking call. */
static int learn_failures(void)
{
    return MPID_Progress_test(NULL);
}

static int num_failed_members(MPIR_Comm * comm)
{
    int n = 0;
    for (int i = 0; i < MPIDI_FTDEV_global.failures.log_len; i++)
        n += MPIDI_FTDEV_rank_of_pid(comm, MPIDI_FTDEV_global.failures.log[i]) != MPI_UNDEFINED;
    return n;
}

int MPID_FT_comm_failure_ack(MPIR_Comm * comm)
{
    int mpi_errno = learn_failures();
    if (mpi_errno != MPI_SUCCESS)
        return mpi_errno;
    MPIDI_FTDEV_COMM(comm).num_acked = num_failed_members(comm);
    MPID_FT_TRACE("ack: %d failure(s) of communicator %#x", MPIDI_FTDEV_COMM(comm).num_acked,
                  comm->context_id);
    return MPI_SUCCESS;
}

int MPID_FT_comm_failure_get_acked(MPIR_Comm * comm, MPIR_Group ** group)
{
    return failed_group(comm, MPIDI_FTDEV_COMM(comm).num_acked, group);
}

int MPID_FT_comm_get_failed(MPIR_Comm * comm, MPIR_Group ** group)
{
    int mpi_errno = learn_failures();
    if (mpi_errno != MPI_SUCCESS)
        return mpi_errno;
    return failed_group(comm, -1, group);
}

int MPID_Comm_get_failed(MPIR_Comm * comm, MPIR_Group ** failed)
{
    return MPID_FT_comm_get_failed(comm, failed);
}

int MPID_Comm_ack_failed(MPIR_Comm * comm, int num_to_ack, int *num_acked)
{
    int mpi_errno = learn_failures();
    if (mpi_errno != MPI_SUCCESS)
        return mpi_errno;
    /* acknowledges more, never fewer: ack_failed(comm, 0, &n) is how
     * programs read the count */
    int n = num_failed_members(comm);
    int want = num_to_ack < n ? num_to_ack : n;
    if (want > MPIDI_FTDEV_COMM(comm).num_acked)
        MPIDI_FTDEV_COMM(comm).num_acked = want;
    *num_acked = MPIDI_FTDEV_COMM(comm).num_acked;
    MPID_FT_TRACE("ack: %d failure(s) of communicator %#x", *num_acked, comm->context_id);
    return MPI_SUCCESS;
}

int MPID_FT_comm_acked(MPIR_Comm * comm, int rank)
{
    int acked = MPIDI_FTDEV_COMM(comm).num_acked;
    for (int i = 0; i < MPIDI_FTDEV_global.failures.log_len && acked > 0; i++) {
        int r = MPIDI_FTDEV_rank_of_pid(comm, MPIDI_FTDEV_global.failures.log[i]);
        if (r == MPI_UNDEFINED)
            continue;
        if (r == rank)
            return 1;
        acked--;
    }
    return 0;
}

int MPID_FT_comm_AS_enabled(MPIR_Comm * comm)
{
    return MPIDI_FTDEV_COMM(comm).num_acked == num_failed_members(comm);
}

int MPID_FT_request_is_anysource(MPIR_Request * req)
{
    return req->kind == MPIR_REQUEST_KIND__RECV &&
        MPIDI_FTDEV_REQ(req).list == &MPIDI_FTDEV_global.peers.wildcard_reqs;
}

int MPID_FT_request_is_pending_failure(MPIR_Request * req)
{
    /* a blocking receive ends with the failure; a nonblocking one waits */
    return MPIDI_FTDEV_global.upper.policy.ulfm && req->kind == MPIR_REQUEST_KIND__RECV &&
        !MPIDI_FTDEV_REQ(req).blocking;
}

/* ---- revocation ---------------------------------------------------------------------- */

/* Marks comm and the communicators that carry its traffic revoked here
 * and ends what is pending on them. */
static void revoke_here(MPIR_Comm * comm)
{
    if (comm == NULL || comm->revoked)
        return;
    comm->revoked = 1;
    MPIDI_FTDEV_global.failures.num_refusal_causes++;
    MPIDI_FTDEV_global.failures.generation++;
    /* its messages are dropped from now on (MPIDI_FTDEV_drain_stale) */
    MPIDI_FTDEV_global.failures.progress_checks = 1;
    MPIDI_FTDEV_fail_requests_of_comm(comm, MPIDI_FTDEV_revoked_error());
    if (comm->comm_kind == MPIR_COMM_KIND__INTERCOMM)
        revoke_here(comm->local_comm);
    revoke_here(comm->node_comm);
    revoke_here(comm->node_roots_comm);
}

int MPID_FT_comm_revoke(MPIR_Comm * comm, int is_remote)
{
    if (comm->revoked)
        return MPI_SUCCESS;
    revoke_here(comm);
    MPID_FT_TRACE("revoke: communicator %#x (%s)", comm->context_id,
                  is_remote ? "told by a member" : "revoked here");

    if (comm->comm_kind == MPIR_COMM_KIND__INTERCOMM) {
        /* every member of the remote group, directly: the binomial graph
         * is over one group */
        for (int r = 0; r < comm->remote_size; r++) {
            int pid = MPID_FT_comm_pid(comm, r);
            if (MPIDI_FTDEV_global.peers.state[pid] == MPIDI_FTDEV_PEER_ALIVE)
                MPIDI_FTDEV_send_ctrl(pid, MPIDI_FTDEV_CTRL_REVOKE, (int) comm->context_id, NULL,
                                      0, NULL);
        }
    } else {
        MPIDI_FTDEV_tell_neighbours(comm->local_size, comm->rank, comm, MPIDI_FTDEV_CTRL_REVOKE,
                                    (int) comm->context_id);
    }
    MPIDI_FTDEV_wake_waits();
    return MPI_SUCCESS;
}

static MPIR_Comm *comm_of_context(uint32_t context_id)
{
    if (MPIR_Process.comm_world == NULL)
        return NULL;    /* finalized */
    if (MPIR_Process.comm_world->context_id == context_id)
        return MPIR_Process.comm_world;
    for (MPIR_Comm * c = MPIDI_FTDEV_global.objects.comms; c; c = MPIDI_FTDEV_COMM(c).next)
        if (c->context_id == context_id || c->recvcontext_id == context_id)
            return c;
    return NULL;
}

static int early_revoke_index(uint32_t context_id)
{
    for (int i = 0; i < MPIDI_FTDEV_global.ulfm.num_early_revokes; i++)
        if (MPIDI_FTDEV_global.ulfm.early_revokes[i] == context_id)
            return i;
    return -1;
}

/* A REVOKE control message: the communicator of context id `about` is
 * revoked. */
static void revoke_received(int from, int about, const void *payload, size_t len)
{
    uint32_t context_id = (uint32_t) about;
    if (MPIDI_FTDEV_global.finalizing)
        return;
    MPIR_Comm *comm = comm_of_context(context_id);
    if (comm) {
        MPID_FT_comm_revoke(comm, 1);
        return;
    }
    if (MPIDI_FTDEV_context_is_held(context_id) || early_revoke_index(context_id) >= 0)
        return;
    uint32_t *more = MPL_realloc(MPIDI_FTDEV_global.ulfm.early_revokes,
                                 (MPIDI_FTDEV_global.ulfm.num_early_revokes + 1) * sizeof(uint32_t),
                                 MPL_MEM_OTHER);
    if (more == NULL) {
        fprintf(stderr, "FT-MPICH: rank %d: out of memory; a revocation is lost\n",
                MPIDI_FTDEV_global.world.my_pid);
        return;
    }
    MPIDI_FTDEV_global.ulfm.early_revokes = more;
    MPIDI_FTDEV_global.ulfm.early_revokes[MPIDI_FTDEV_global.ulfm.num_early_revokes++] = context_id;
}

__attribute__ ((constructor))
static void register_revoke_messages(void)
{
    MPIDI_FTDEV_ctrl_register(MPIDI_FTDEV_CTRL_REVOKE, revoke_received, NULL);
}

static void revoke_if_early(MPIR_Comm * comm)
{
    int i = early_revoke_index(comm->context_id);
    if (i < 0)
        return;
    MPIDI_FTDEV_global.ulfm.early_revokes[i] =
        MPIDI_FTDEV_global.ulfm.early_revokes[--MPIDI_FTDEV_global.ulfm.num_early_revokes];
    MPID_FT_comm_revoke(comm, 1);
}

__attribute__ ((constructor))
static void register_early_revokes(void)
{
    MPIDI_FTDEV_observe_new_comms(revoke_if_early);
}
