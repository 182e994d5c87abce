/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Process failures as the transport sees them. Three sources report a
 * dead process: a UCX endpoint error (the connection broke, or keepalive
 * found the peer gone), the launcher (Hydra signals SIGUSR1 and lists the
 * dead ranks under PMI_dead_processes), and a notice from another survivor.
 * Each failed process is handled once, whichever source comes first:
 * the recovery layer records it (and ends the job in ABORT mode), every
 * other survivor is told, the endpoint is closed, and requests UCX may
 * never complete are completed here with MPI_ERR_OTHER.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_upcalls.h"
#include "ftdev_control.h"
#include "ftdev_failure.h"
#include "ftdev_rma.h"
#include "ftdev_test_point.h"
#include <signal.h>

/* SIGUSR1 from the launcher can come before MPI_Init installs ch4's
 * handler (the process may still be starting when another one dies), and
 * its default action would kill this process too. Count it from the moment
 * the library is loaded; ch4's handler chains to this one later. */
static void early_sigusr1(int sig)
{
    MPIDI_global.sigusr1_count++;
}

__attribute__ ((constructor))
static void install_early_sigusr1(void)
{
    struct sigaction old;
    if (sigaction(SIGUSR1, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
        signal(SIGUSR1, early_sigusr1);
}

/* ---- completing requests a failure cut short ------------------------- */

/* The user sees the request complete now, with err; UCX keeps a reference
 * of its own until it lets go of the request (if ever: a request to a dead
 * peer may stay in UCX forever). The completion goes the usual way, which
 * also tells waits that progress was made: a wait that saw no progress
 * would go on waiting for a request that is already complete. */
static void orphan(MPIR_Request * req, int err)
{
    MPIDI_FTDEV_untrack(req);
    req->status.MPI_ERROR = err;
    MPIR_STATUS_SET_COUNT(req->status, 0);
    MPIDI_FTDEV_REQ(req).orphaned = 1;
    MPIR_Request_add_ref(req);
    MPIDIU_request_complete(req);
}

/* Whether a send to a live peer that a failure ends must still run to its
 * end in UCX before it completes: UCX reads a rendezvous send's buffer
 * when the receiver takes the message, which may be after the failure,
 * and the buffer must not be the caller's again by then (MPICH's
 * collectives free theirs at once). The receivers take every such message
 * that can no longer be received (MPIDI_FTDEV_drain_stale). Only a
 * blocking point-to-point send in CONT mode, whose message survivors may
 * still receive after the recovery, cannot wait for that: it ends at once. */
static int send_runs_to_its_end(MPIR_Request * req)
{
    return !(MPIDI_FTDEV_global.epoch.unmatched_bits && MPIDI_FTDEV_REQ(req).blocking &&
             !MPIDI_FTDEV_REQ(req).coll_comm);
}

/* Requests with the dead process complete at once: nothing of it can
 * arrive any more, nothing will be taken by it. A send to a live peer
 * completes with err when UCX is done with it (send_runs_to_its_end); a
 * receive is withdrawn from UCX and completes with err when UCX lets go of
 * it, which is at once unless a transfer from a live peer already
 * started: that one finishes first, so that nothing writes into the
 * user's buffer after completion. */
static void fail_request(MPIR_Request * req, int err, int dead_pid)
{
    MPIDI_FTDEV_ucp_request_t *ucp_request = MPIDI_FTDEV_REQ(req).u.ucp_request;
    /* Under ULFM a failure reaches the program as its bare class
     * (errhan-ulfm-codes-are-classes): a request keeps the class, not an
     * error code of MPICH's error stack, whose ring holds only the latest
     * errors; thousands of requests ended at once (a revocation) would
     * otherwise hand their waits codes long overwritten. */
    if (MPIDI_FTDEV_global.upper.policy.ulfm)
        err = MPIR_ERR_GET_CLASS(err);
    int with_dead = dead_pid >= 0 &&
        MPIDI_FTDEV_REQ(req).list == MPIDI_FTDEV_peer_list(dead_pid);

    if (req->kind == MPIR_REQUEST_KIND__SEND) {
        if (with_dead || !send_runs_to_its_end(req))
            orphan(req, err);
        else
            MPIDI_FTDEV_REQ(req).fail_err = err;
        return;
    }
    if (with_dead)
        orphan(req, err);
    else
        MPIDI_FTDEV_REQ(req).fail_err = err;
    ucp_request_cancel(MPIDI_FTDEV_global.ucx.worker, ucp_request);
}

static int comm_has_pid(MPIR_Comm * comm, int pid)
{
    return comm && MPIDI_FTDEV_rank_of_pid(comm, pid) != MPI_UNDEFINED;
}

/* The communicator whose collectives a node-level one carries: MPICH runs
 * a communicator's node-aware algorithms over its node_comm and
 * node_roots_comm, so a failure of any member of that communicator ends
 * their traffic as its own (a member that learned of it first left the
 * collective before it reached the node-level step its node-mates wait
 * in). NULL for every other communicator. */
static MPIR_Comm *carried_comm(MPIR_Comm * comm)
{
    if (comm->hierarchy_kind != MPIR_COMM_HIERARCHY_KIND__NODE &&
        comm->hierarchy_kind != MPIR_COMM_HIERARCHY_KIND__NODE_ROOTS)
        return NULL;
    MPIR_Comm *c = MPIR_Process.comm_world;
    if (c->node_comm == comm || c->node_roots_comm == comm)
        return c;
    for (c = MPIDI_FTDEV_global.objects.comms; c; c = MPIDI_FTDEV_COMM(c).next)
        if (c->node_comm == comm || c->node_roots_comm == comm)
            return c;
    return NULL;
}

/* Whether a pending request involves the dead process (IGNORE mode): it
 * is with that process, or a wildcard receive it could have matched, or
 * traffic of a collective over a communicator it belongs to (which cannot
 * complete: the other members refuse it once they know). The exception is
 * a communicator a shrink creates its successor over: there every member
 * runs MPICH's algorithms to their end, which go on past a dead partner,
 * so a live partner's step is still taken (and must be: its partner waits
 * for it). */
static int involves(MPIR_Request * req, int dead_pid)
{
    MPIR_Request **list = MPIDI_FTDEV_REQ(req).list;
    MPIR_Comm *coll_comm = MPIDI_FTDEV_REQ(req).coll_comm;
    if (list == MPIDI_FTDEV_peer_list(dead_pid))
        return 1;
    if (coll_comm)
        return comm_has_pid(coll_comm, dead_pid) || comm_has_pid(carried_comm(coll_comm), dead_pid);
    /* ULFM: a wildcard receive waits; MPICH's waits report the failure
     * as pending until it is acknowledged (MPID_Comm_AS_enabled) */
    return list == &MPIDI_FTDEV_global.peers.wildcard_reqs && !MPIDI_FTDEV_global.upper.policy.ulfm &&
        comm_has_pid(req->comm, dead_pid);
}

/* Which pending requests a failure ends. IGNORE: those that involve the
 * dead process. AUTO/MANUAL with RESET: all (nothing from before the
 * recovery is received after it). AUTO/MANUAL with CONT: those with the
 * dead process, collective traffic, and those of blocking calls; the
 * application's own stay pending, and its waits return MPI_ERR_OTHER until
 * the recovery after which they can complete. */
static int ends_now(MPIR_Request * req, int dead_pid)
{
    if (!MPIDI_FTDEV_global.upper.policy.halts_on_failure)
        return involves(req, dead_pid);
    if (!MPIDI_FTDEV_global.epoch.unmatched_bits)
        return 1;
    return MPIDI_FTDEV_REQ(req).list == MPIDI_FTDEV_peer_list(dead_pid) ||
        MPIDI_FTDEV_REQ(req).coll_comm || MPIDI_FTDEV_REQ(req).blocking;
}

static int comm_destroyed(MPIR_Request * req, int dead_pid)
{
    return req->comm && MPIR_Object_get_ref(req->comm) <= 0;
}

static MPIR_Comm *revoked_comm;

static int on_revoked_comm(MPIR_Request * req, int dead_pid)
{
    return req->comm == revoked_comm || MPIDI_FTDEV_REQ(req).coll_comm == revoked_comm;
}

/* The error of an operation that involves failed process pid (-1: the
 * failure under way) */
static int peer_error(int pid)
{
    return pid < MPIDI_FTDEV_global.world.num_pids ? MPIDI_FTDEV_failure_error(pid) :
        MPIDI_FTDEV_foreign_failure_error();
}

/* Fails every tracked request for which ends(req, dead_pid) holds, with
 * err (or, when err is MPI_SUCCESS, the failure of dead_pid). */
static void fail_tracked(int (*ends) (MPIR_Request *, int), int dead_pid, int err)
{
    int n = MPIDI_FTDEV_global.world.num_pids + MPIDI_FTDEV_global.world.num_foreign;
    for (int pid = 0; pid <= n; pid++) {
        MPIR_Request **list = pid < n ? MPIDI_FTDEV_peer_list(pid) :
            &MPIDI_FTDEV_global.peers.wildcard_reqs;
        MPIR_Request *req = *list, *next;
        for (; req; req = next) {
            next = MPIDI_FTDEV_REQ(req).next;
            if (ends(req, dead_pid))
                fail_request(req, err != MPI_SUCCESS ? err : peer_error(dead_pid), dead_pid);
        }
    }
}

void MPIDI_FTDEV_fail_requests_of_destroyed_comms(void)
{
    fail_tracked(comm_destroyed, -1, MPI_SUCCESS);
}

void MPIDI_FTDEV_fail_requests_of_comm(MPIR_Comm * comm, int err)
{
    revoked_comm = comm;
    fail_tracked(on_revoked_comm, -1, err);
    revoked_comm = NULL;
}

/* ---- the one entry point for failures ----------------------------------- */

/* Endpoints whose close waits until UCX's progress has returned. */
static ucp_ep_h *eps_to_close;
static int num_eps_to_close, max_eps_to_close;

static void force_close(ucp_ep_h ep)
{
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
        .flags = UCP_EP_CLOSE_FLAG_FORCE,
    };
    ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &param);
    if (r && !UCS_PTR_IS_ERR(r))
        ucp_request_free(r);
}

/* A failure learned inside UCX's progress (an endpoint's error callback,
 * a notice on the control channel) must not close an endpoint there: UCX
 * may hold more events of that endpoint in the batch it is handling (its
 * TCP transport asserts on an event of a closed endpoint, seen when a
 * whole node was killed). Such closes wait for the next progress call. */
static void close_ep(int pid)
{
    MPIDI_FTDEV_addr_t *addr = &MPIDI_FTDEV_AV(MPIDI_FTDEV_peer_av(pid));
    ucp_ep_h ep = addr->ep;
    if (ep == NULL)
        return;
    addr->ep = NULL;
    if (MPIDI_FTDEV_global.ucx.in_worker_progress) {
        if (num_eps_to_close == max_eps_to_close) {
            int more = max_eps_to_close ? 2 * max_eps_to_close : 16;
            ucp_ep_h *grown = MPL_realloc(eps_to_close, more * sizeof(ucp_ep_h), MPL_MEM_OTHER);
            if (grown == NULL)
                return; /* left open: the worker's destruction frees it */
            eps_to_close = grown;
            max_eps_to_close = more;
        }
        eps_to_close[num_eps_to_close++] = ep;
        MPIDI_FTDEV_global.failures.progress_checks = 1;
        return;
    }
    force_close(ep);
}

int MPIDI_FTDEV_close_deferred_eps(void)
{
    while (num_eps_to_close > 0 && !MPIDI_FTDEV_global.ucx.in_worker_progress)
        force_close(eps_to_close[--num_eps_to_close]);
    return num_eps_to_close;
}

/* A replacement took over `pid`: its failure leaves the log, which thus
 * never holds a pid twice. */
void MPIDI_FTDEV_forget_failure(int pid)
{
    int j = 0;
    for (int i = 0; i < MPIDI_FTDEV_global.failures.log_len; i++)
        if (MPIDI_FTDEV_global.failures.log[i] != pid)
            MPIDI_FTDEV_global.failures.log[j++] = MPIDI_FTDEV_global.failures.log[i];
    MPIDI_FTDEV_global.failures.log_len = j;
}

/* The device's own reactions to a failure, each in the file of its concept
 * (the echo check, say), registered there when the library is loaded. */
#define MAX_FAILURE_OBSERVERS 4
static MPIDI_FTDEV_failure_observer_t failure_observers[MAX_FAILURE_OBSERVERS];
static int num_failure_observers;

void MPIDI_FTDEV_observe_failures(MPIDI_FTDEV_failure_observer_t observer)
{
    MPIR_Assert(num_failure_observers < MAX_FAILURE_OBSERVERS);
    failure_observers[num_failure_observers++] = observer;
}

/* This process was declared failed by the others, who have gone on
 * without it: anything it sent from now on would be dropped, or worse,
 * taken for the recovered job's. */
void MPIDI_FTDEV_fence(const char *how)
{
    fprintf(stderr, "FT-MPICH: process %d (os pid %d) was declared failed by the others (%s); "
            "it ends\n", MPIDI_FTDEV_global.world.my_pid, (int) getpid(), how);
    _exit(1);
}

void MPIDI_FTDEV_record_failure(int pid, const char *how)
{
    MPIDI_FTDEV_set_peer_state(pid, MPIDI_FTDEV_PEER_FAILED);
    MPIDI_FTDEV_global.failures.num_refusal_causes++;
    MPIDI_FTDEV_forget_failure(pid);    /* an earlier process with this pid */
    MPIDI_FTDEV_global.failures.log[MPIDI_FTDEV_global.failures.log_len++] = pid;
    if (MPIDI_FTDEV_global.upper.events.failed)
        MPIDI_FTDEV_global.upper.events.failed(pid, how);
}

/* A process of another world (pid >= num_pids) fails only here: its
 * communication ends with the failure error, but its world's failure
 * handling is its world's (no notice, no recovery here); one that said it
 * was finalizing has simply left. */
void MPIDI_FTDEV_peer_failed(int pid, const char *how)
{
    if (pid < 0 || pid >= MPIDI_FTDEV_global.world.num_pids + MPIDI_FTDEV_global.world.num_foreign ||
        pid == MPIDI_FTDEV_global.world.my_pid ||
        MPIDI_FTDEV_global.peers.state[pid] != MPIDI_FTDEV_PEER_ALIVE)
        return;
    MPIDI_FTDEV_global.failures.learned++;
    int foreign = pid >= MPIDI_FTDEV_global.world.num_pids;

    /* While this process finalizes, peers leave as they finish: whether
     * one left or died, there is nothing more to wait for from it. */
    if (MPIDI_FTDEV_global.finalizing || (foreign && MPIDI_FTDEV_global.peers.finalizing[pid])) {
        MPIDI_FTDEV_set_peer_state(pid, MPIDI_FTDEV_PEER_GONE);
        close_ep(pid);
        return;
    }

    if (foreign) {
        MPID_FT_TRACE("failure: process %d of another world (tag pid %d; %s)", pid,
                      MPIDI_FTDEV_AV(MPIDI_FTDEV_peer_av(pid)).tag_pid, how);
        MPIDI_FTDEV_set_peer_state(pid, MPIDI_FTDEV_PEER_FAILED);
        MPIDI_FTDEV_global.failures.num_refusal_causes++;
    } else {
        MPID_FT_TRACE("failure: process %d (%s)", pid, how);
        MPIDI_FTDEV_global.epoch.doomed_bits = MPIDI_FTDEV_global.epoch.bits;
        MPIDI_FTDEV_record_failure(pid, how);
        MPIDI_FTDEV_tell_neighbours(MPIDI_FTDEV_global.world.num_pids, MPIDI_FTDEV_global.world.my_pid,
                                    NULL, MPIDI_FTDEV_CTRL_FAILED, pid);
    }
    MPIDI_FTDEV_global.failures.progress_checks = 1;

    fail_tracked(ends_now, pid, MPI_SUCCESS);
    MPIDI_FTDEV_wake_waits();
    close_ep(pid);
    if (foreign)
        return;
    MPIDI_FTDEV_test_deaf_after(pid);
    for (int i = 0; i < num_failure_observers; i++)
        failure_observers[i] (pid);
}

static void failure_notice(int from, int about, const void *payload, size_t len)
{
    char how[64];
    snprintf(how, sizeof(how), "reported by rank %d", from);
    /* a survivor names this process: the others go on without it (a
     * REBUILD replacement may still hear of the process it replaced) */
    if (about == MPIDI_FTDEV_global.world.my_pid && !MPIDI_FTDEV_global.finalizing &&
        !MPIDI_FTDEV_global.rebuild.is_replacement)
        MPIDI_FTDEV_fence(how);
    MPIDI_FTDEV_peer_failed(about, how);
}

__attribute__ ((constructor))
static void register_failure_notices(void)
{
    MPIDI_FTDEV_ctrl_register(MPIDI_FTDEV_CTRL_FAILED, failure_notice, NULL);
}

/* A notice from outside UCX (the launcher's, the node watch's) can
 * overtake what the dead process sent last, which already waits in this
 * process's queues: a message, or the acknowledgement that completes a
 * synchronous send to it. That is taken first, as it would have been had
 * the notice come later. (Only from outside UCX's progress, whose
 * callbacks cannot enter it again.) */
#define MPIDI_FTDEV_TAKE_ARRIVED_MAX_POLLS 64

void MPIDI_FTDEV_take_what_arrived(void)
{
    if (MPIDI_FTDEV_global.ucx.in_worker_progress || MPIDI_FTDEV_global.ucx.worker == NULL ||
        MPIDI_FTDEV_global.finalizing)
        return;
    for (int i = 0; i < MPIDI_FTDEV_TAKE_ARRIVED_MAX_POLLS && MPIDI_FTDEV_worker_progress(); i++);
}

/* "3,5" from the launcher: ranks of the processes it started with the job.
 * A replacement runs in a process group of its own, whose list this is
 * for it; and a rank that was replaced is not the process listed. */
void MPID_FT_launcher_reported_failures(const char *list)
{
    const char *p = list;
    if (MPIDI_FTDEV_global.rebuild.is_replacement)
        return;
    if (*p)
        MPIDI_FTDEV_take_what_arrived();
    while (*p) {
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pid >= 0 && pid < MPIDI_FTDEV_global.world.num_pids && !MPIDI_FTDEV_global.rebuild.replaced[pid])
            MPIDI_FTDEV_peer_failed((int) pid, "its launcher saw it die");
        p = *end == ',' ? end + 1 : end;
    }
}

/* ---- refusing operations after a failure -------------------------------- */

int MPIDI_FTDEV_revoked_error(void)
{
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPIX_ERR_REVOKED, "**revoked", 0);
}

int MPIDI_FTDEV_foreign_failure_error(void)
{
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPIX_ERR_PROC_FAILED, "**proc_failed", 0);
}

int MPIDI_FTDEV_refuse_pt2pt(MPIDI_av_entry_t * av, MPIR_Comm * comm, int comm_wide)
{
    if (MPIDI_FTDEV_halted())
        return MPIDI_FTDEV_failure_error(-1);
    if (comm && unlikely(comm->revoked))
        return MPIDI_FTDEV_revoked_error();
    if (av) {
        switch (MPIDI_FTDEV_global.peers.state[MPIDI_FTDEV_AV(av).pid]) {
            case MPIDI_FTDEV_PEER_FAILED:
                return peer_error(MPIDI_FTDEV_AV(av).pid);
            case MPIDI_FTDEV_PEER_BLANK:
                return MPIDI_FTDEV_BLANK_PEER;
            case MPIDI_FTDEV_PEER_GONE:
                /* a process of another world that finalized: its endpoint
                 * is closed (ch4's copy of its address entry still names it) */
                if (MPIDI_FTDEV_AV(av).pid >= MPIDI_FTDEV_global.world.num_pids)
                    return MPIDI_FTDEV_foreign_failure_error();
        }
    }
    /* IGNORE mode keeps a communicator with a dead member usable for
     * point-to-point, not for its collectives */
    if (comm && comm_wide)
        return MPIDI_FTDEV_refuse_coll(comm);
    return MPI_SUCCESS;
}

int MPIDI_FTDEV_refuse_recv(MPIDI_av_entry_t * av, MPIR_Comm * comm, int comm_wide,
                            ucp_tag_t ucp_tag, ucp_tag_t mask)
{
    int err = MPIDI_FTDEV_refuse_pt2pt(av, comm, comm_wide);
    if (err == MPI_SUCCESS || err == MPIDI_FTDEV_BLANK_PEER || av == NULL)
        return err;
    /* refused only because the peer is a process of another world that left */
    int pid = MPIDI_FTDEV_AV(av).pid;
    if (pid < MPIDI_FTDEV_global.world.num_pids ||
        MPIDI_FTDEV_global.peers.state[pid] != MPIDI_FTDEV_PEER_GONE ||
        MPIDI_FTDEV_refuse_pt2pt(NULL, comm, comm_wide) != MPI_SUCCESS)
        return err;
    ucp_tag_recv_info_t info;
    MPIDI_FTDEV_take_what_arrived();
    if (ucp_tag_probe_nb(MPIDI_FTDEV_global.ucx.worker, ucp_tag, mask, 0, &info) != NULL)
        return MPI_SUCCESS;
    return err;
}

int MPIDI_FTDEV_rma_refuse(MPIR_Win * win, int target)
{
    if (MPIDI_FTDEV_halted())
        return MPIDI_FTDEV_failure_error(-1);
    if (target < 0)
        return MPIDI_FTDEV_refuse_coll(win->comm_ptr);
    int pid = MPIDI_FTDEV_AV(MPIDIU_comm_rank_to_av(win->comm_ptr, target)).pid;
    return MPIDI_FTDEV_global.peers.state[pid] == MPIDI_FTDEV_PEER_ALIVE ? MPI_SUCCESS :
        MPIDI_FTDEV_failure_error(pid);
}

static int failed_member(MPIR_Comm * comm, int size, int remote)
{
    for (int r = 0; r < size; r++) {
        int lpid, avtid;
        if (remote)
            MPIDIU_comm_rank_to_pid(comm, r, &lpid, &avtid);
        else
            MPIDIU_comm_rank_to_pid_local(comm, r, &lpid, &avtid);
        if (avtid == 0 && MPIDI_FTDEV_peer_is_failed(lpid))
            return lpid;
    }
    return -1;
}

/* Asked at every collective entry once a job outlived a failure: the
 * answer is kept until a process's state or the registry changes. */
int MPIDI_FTDEV_comm_failed_member(MPIR_Comm * comm)
{
    MPIDI_FTDEV_comm_t *c = &MPIDI_FTDEV_COMM(comm);
    if (c->failed_member_generation == MPIDI_FTDEV_global.failures.generation)
        return c->failed_member;
    int pid = failed_member(comm, comm->remote_size, 1);
    if (pid < 0 && comm->comm_kind == MPIR_COMM_KIND__INTERCOMM)
        pid = failed_member(comm, comm->local_size, 0);
    MPIR_Comm *carried = pid < 0 ? carried_comm(comm) : NULL;
    if (carried)
        pid = MPIDI_FTDEV_comm_failed_member(carried);
    c->failed_member = pid;
    c->failed_member_generation = MPIDI_FTDEV_global.failures.generation;
    return pid;
}

int MPIDI_FTDEV_refuse_coll_at_entry(MPIR_Comm * comm)
{
    int err = MPIDI_FTDEV_refuse_coll(comm);
    /* the revocation may be waiting in this process's queues: a program
     * looping on a collective that fails at its entry never progresses
     * otherwise (the entry, above MPICH's waits, may progress) */
    if (err != MPI_SUCCESS && err != MPIDI_FTDEV_BLANK_PEER &&
        MPIDI_FTDEV_global.upper.policy.ulfm && !comm->revoked) {
        int mpi_errno = MPID_Progress_test(NULL);
        if (mpi_errno != MPI_SUCCESS)
            return mpi_errno;
        err = MPIDI_FTDEV_refuse_coll(comm);
    }
    return err;
}

int MPIDI_FTDEV_refuse_coll(MPIR_Comm * comm)
{
    if (MPIDI_FTDEV_halted())
        return MPIDI_FTDEV_failure_error(-1);
    if (comm->revoked)
        return MPIDI_FTDEV_revoked_error();

    int pid = MPIDI_FTDEV_comm_failed_member(comm);
    return pid < 0 ? MPI_SUCCESS : MPIDI_FTDEV_failure_error(pid);
}
