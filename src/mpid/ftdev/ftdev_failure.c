/*
 * FT-MPICH: ch4 netmod "ftdev".
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
#include "ftdev_request.h"
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
    return !(MPIDI_FTDEV_global.unmatched_bits && MPIDI_FTDEV_REQ(req).blocking &&
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
    ucp_request_cancel(MPIDI_FTDEV_global.worker, ucp_request);
}

static int comm_has_pid(MPIR_Comm * comm, int pid)
{
    return comm && MPIDI_FTDEV_rank_of_pid(comm, pid) != MPI_UNDEFINED;
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
        return comm_has_pid(coll_comm, dead_pid);
    /* ULFM: a wildcard receive waits; MPICH's waits report the failure
     * as pending until it is acknowledged (MPID_Comm_AS_enabled) */
    return list == &MPIDI_FTDEV_global.wildcard_reqs && !MPIR_FTMPI_ulfm() &&
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
    if (!MPIR_FTMPI_halts_on_failure())
        return involves(req, dead_pid);
    if (!MPIDI_FTDEV_global.unmatched_bits)
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

/* Fails every tracked request for which ends(req, dead_pid) holds, with
 * err (or, when err is MPI_SUCCESS, the failure of dead_pid). */
static void fail_tracked(int (*ends) (MPIR_Request *, int), int dead_pid, int err)
{
    for (int pid = 0; pid <= MPIDI_FTDEV_global.num_pids; pid++) {
        MPIR_Request **list = pid < MPIDI_FTDEV_global.num_pids ? MPIDI_FTDEV_peer_list(pid) :
            &MPIDI_FTDEV_global.wildcard_reqs;
        MPIR_Request *req = *list, *next;
        for (; req; req = next) {
            next = MPIDI_FTDEV_REQ(req).next;
            if (ends(req, dead_pid))
                fail_request(req, err != MPI_SUCCESS ? err : MPIR_FTMPI_failure_error(dead_pid),
                             dead_pid);
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

/* ---- control messages ------------------------------------------------- */

static void ctrl_sent_cb(void *request, ucs_status_t status, void *user_data)
{
    /* a control message lost on the way is recovered from by the
     * protocols' own resends; the trace says that it happened */
    MPIDI_FTDEV_ctrl_msg_t *msg = user_data;
    if (status != UCS_OK)
        MPIR_FTMPI_TRACE("control message (type %d) not delivered: %s", msg->type,
                         ucs_status_string(status));
    else if (msg->type == MPIDI_FTDEV_CTRL_ECHO_REPLY) {
        uint32_t seq;
        memcpy(&seq, msg + 1, sizeof(seq));
        MPIDI_FTDEV_echo_answer_written(msg->pid, seq);
    }
    MPL_free(user_data);
}

int MPIDI_FTDEV_send_ctrl(int to, int type, int pid, const void *payload, size_t len,
                          ucs_status_ptr_t * request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_FTDEV_ctrl_msg_t *msg = MPL_malloc(sizeof(*msg) + len, MPL_MEM_OTHER);
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
            UCP_OP_ATTR_FIELD_FLAGS,
        .cb.send = ctrl_sent_cb,
        .user_data = msg,
        .flags = UCP_AM_SEND_FLAG_EAGER,
    };
    ucs_status_ptr_t r;

    MPIR_ERR_CHKANDJUMP(msg == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    msg->type = type;
    msg->pid = pid;
    msg->from = MPIDI_FTDEV_global.my_pid;
    if (len)
        memcpy(msg + 1, payload, len);
    r = ucp_am_send_nbx(MPIDI_FTDEV_AV(&MPIDIU_get_av(0, to)).ep, MPIDI_FTDEV_AM_CONTROL,
                        NULL, 0, msg, sizeof(*msg) + len, &param);
    if (r == NULL || UCS_PTR_IS_ERR(r))
        MPL_free(msg);
    MPIDI_FTDEV_CHK_REQUEST(r);
    if (request)
        *request = r;
    else if (r)
        ucp_request_release(r);

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (request)
        *request = NULL;
    goto fn_exit;
}

/* Hands the payload after a control message's header to `handler`, in an
 * aligned copy (UCX gives no alignment). */
static void deliver_payload(void (*handler) (int, const void *, size_t), int from,
                            const void *data, size_t length)
{
    size_t len = length - sizeof(MPIDI_FTDEV_ctrl_msg_t);
    void *copy = MPL_malloc(len ? len : 1, MPL_MEM_OTHER);
    if (copy == NULL) {
        fprintf(stderr, "FT-MPICH: rank %d: out of memory for a control message from rank %d\n",
                MPIDI_FTDEV_global.my_pid, from);
        return;
    }
    memcpy(copy, (const char *) data + sizeof(MPIDI_FTDEV_ctrl_msg_t), len);
    handler(from, copy, len);
    MPL_free(copy);
}

/* What arrives from the network is checked: a malformed control message
 * is reported on one line and dropped, since there is no caller to return
 * an error to. */
static void bad_message(int from, const char *what)
{
    fprintf(stderr, "FT-MPICH: rank %d: dropped a %s from rank %d\n",
            MPIDI_FTDEV_global.my_pid, what, from);
}

/* Tests only: FTMPI_TEST_DEAF=pid makes that process drop every control
 * message once it learned of a death on its node, as a process whose
 * shared-memory queue a dying sender blocked receives nothing
 * (test/ftmpi/ft_deaf.c; see ftdev_heartbeat.c). */
static int test_deaf;

static void test_deaf_after(int dead)
{
    const char *deaf = getenv("FTMPI_TEST_DEAF");
    if (deaf && atoi(deaf) == MPIDI_FTDEV_global.my_pid && MPIR_Process.node_map &&
        MPIR_Process.node_map[dead] == MPIR_Process.node_map[MPIDI_FTDEV_global.my_pid])
        test_deaf = 1;
}

ucs_status_t MPIDI_FTDEV_ctrl_recv_cb(void *arg, const void *header, size_t header_length,
                                      void *data, size_t length,
                                      const ucp_am_recv_param_t * param)
{
    MPIDI_FTDEV_ctrl_msg_t msg;
    uint32_t seq;
    char how[64];

    if (unlikely(test_deaf))
        return UCS_OK;
    if (length < sizeof(msg)) {
        bad_message(-1, "truncated control message");
        return UCS_OK;
    }
    memcpy(&msg, data, sizeof(msg));
    if (msg.from < 0 || msg.from >= MPIDI_FTDEV_global.num_pids) {
        bad_message(msg.from, "control message from no process of the job");
        return UCS_OK;
    }
    switch (msg.type) {
        case MPIDI_FTDEV_CTRL_FAILED:
            snprintf(how, sizeof(how), "reported by rank %d", msg.from);
            MPIDI_FTDEV_peer_failed(msg.pid, how);
            break;
        case MPIDI_FTDEV_CTRL_FINALIZING:
            MPIDI_FTDEV_global.peer_finalizing[msg.from] = 1;
            break;
        case MPIDI_FTDEV_CTRL_REBUILD:
            /* also from a replacement not yet installed */
            deliver_payload(MPIDI_FTDEV_rebuild_message, msg.from, data, length);
            break;
        case MPIDI_FTDEV_CTRL_CHANNEL:
            if (msg.pid < 0 || msg.pid >= MPID_FT_NUM_CHANNELS ||
                !MPIDI_FTDEV_global.channel_handler[msg.pid]) {
                bad_message(msg.from, "control message on an unknown channel");
                break;
            }
            if (MPIDI_FTDEV_global.peer_state[msg.from] == MPIDI_FTDEV_PEER_ALIVE)
                deliver_payload(MPIDI_FTDEV_global.channel_handler[msg.pid], msg.from, data,
                                length);
            break;
        case MPIDI_FTDEV_CTRL_REVOKE:
            MPIDI_FTDEV_revoke_received((uint32_t) msg.pid);
            break;
        case MPIDI_FTDEV_CTRL_ECHO:
        case MPIDI_FTDEV_CTRL_ECHO_REPLY:
            if (length != sizeof(msg) + sizeof(seq)) {
                bad_message(msg.from, "echo message of the wrong length");
                break;
            }
            memcpy(&seq, (const char *) data + sizeof(msg), sizeof(seq));
            MPIDI_FTDEV_echo_received(msg.from, msg.type, seq);
            break;
        default:
            bad_message(msg.from, "control message of an unknown type");
    }
    return UCS_OK;
}

/* Each process that learns a piece of news first passes it on to its
 * neighbours in a binomial graph of n members, those at distance 1, 2, 4,
 * ... on either side: everyone hears it after about log2(n) steps, with
 * 2 log2(n) messages per process instead of n, and the survivors' graph
 * stays connected unless a process loses half its neighbours. `me` and
 * the neighbours are ranks of comm (process ids with comm NULL). */
void MPIDI_FTDEV_tell_neighbours(int n, int me, MPIR_Comm * comm, int type, int about)
{
    for (int d = 1; d < n; d *= 2) {
        int side[2] = { (me + d) % n, (me - d % n + n) % n };
        for (int i = 0; i < (side[0] == side[1] ? 1 : 2); i++) {
            int pid = comm ? MPID_FT_comm_pid(comm, side[i]) : side[i];
            if (pid != MPIDI_FTDEV_global.my_pid &&
                MPIDI_FTDEV_global.peer_state[pid] == MPIDI_FTDEV_PEER_ALIVE)
                MPIDI_FTDEV_send_ctrl(pid, type, about, NULL, 0, NULL);
        }
    }
}

/* ---- the one entry point for failures ----------------------------------- */

static void close_ep(int pid)
{
    MPIDI_FTDEV_addr_t *addr = &MPIDI_FTDEV_AV(&MPIDIU_get_av(0, pid));
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
        .flags = UCP_EP_CLOSE_FLAG_FORCE,
    };
    if (addr->ep) {
        ucs_status_ptr_t r = ucp_ep_close_nbx(addr->ep, &param);
        addr->ep = NULL;
        if (r && !UCS_PTR_IS_ERR(r))
            ucp_request_free(r);
    }
}

/* A replacement took over `pid`: its failure leaves the log, which thus
 * never holds a pid twice. */
void MPIDI_FTDEV_forget_failure(int pid)
{
    int j = 0;
    for (int i = 0; i < MPIDI_FTDEV_global.failure_log_len; i++)
        if (MPIDI_FTDEV_global.failure_log[i] != pid)
            MPIDI_FTDEV_global.failure_log[j++] = MPIDI_FTDEV_global.failure_log[i];
    MPIDI_FTDEV_global.failure_log_len = j;
}

void MPIDI_FTDEV_peer_failed(int pid, const char *how)
{
    if (pid < 0 || pid >= MPIDI_FTDEV_global.num_pids || pid == MPIDI_FTDEV_global.my_pid ||
        MPIDI_FTDEV_global.peer_state[pid] != MPIDI_FTDEV_PEER_ALIVE)
        return;
    MPIDI_FTDEV_global.failures_learned++;

    /* While this process finalizes, peers leave as they finish: whether
     * one left or died, there is nothing more to wait for from it. */
    if (MPIDI_FTDEV_global.finalizing) {
        MPIDI_FTDEV_global.peer_state[pid] = MPIDI_FTDEV_PEER_GONE;
        close_ep(pid);
        return;
    }

    MPIR_FTMPI_TRACE("failure: process %d (%s)", pid, how);
    MPIDI_FTDEV_global.doomed_epoch_bits = MPIDI_FTDEV_global.epoch_bits;
    MPIDI_FTDEV_global.peer_state[pid] = MPIDI_FTDEV_PEER_FAILED;
    MPIDI_FTDEV_global.num_refusal_causes++;
    MPIDI_FTDEV_forget_failure(pid);    /* an earlier process with this pid */
    MPIDI_FTDEV_global.failure_log[MPIDI_FTDEV_global.failure_log_len++] = pid;
    MPIR_FTMPI_record_failure(pid, how);
    MPIDI_FTDEV_global.progress_checks = 1;

    MPIDI_FTDEV_tell_neighbours(MPIDI_FTDEV_global.num_pids, MPIDI_FTDEV_global.my_pid, NULL,
                                MPIDI_FTDEV_CTRL_FAILED, pid);

    fail_tracked(ends_now, pid, MPI_SUCCESS);
    MPIDI_FTDEV_wake_waits();
    close_ep(pid);
    test_deaf_after(pid);
    MPIDI_FTDEV_echo_start(pid);
}

/* "3,5" from the launcher: ranks of the processes it started with the job.
 * A replacement runs in a process group of its own, whose list this is
 * for it; and a rank that was replaced is not the process listed. */
void MPIDI_FTDEV_launcher_reported_failures(const char *list)
{
    const char *p = list;
    if (MPIDI_FTDEV_global.is_replacement)
        return;
    while (*p) {
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pid >= 0 && pid < MPIDI_FTDEV_global.num_pids && !MPIDI_FTDEV_global.replaced[pid])
            MPIDI_FTDEV_peer_failed((int) pid, "its launcher saw it die");
        p = *end == ',' ? end + 1 : end;
    }
}

/* ---- refusing operations after a failure -------------------------------- */

int MPIDI_FTDEV_refuse_pt2pt(MPIDI_av_entry_t * av, MPIR_Comm * comm, int comm_wide)
{
    if (MPIR_FTMPI_halts_on_failure() && MPIR_FTMPI_failure_pending())
        return MPIR_FTMPI_failure_error(-1);
    if (comm && unlikely(comm->revoked))
        return MPIDI_FTDEV_revoked_error();
    if (av) {
        switch (MPIDI_FTDEV_global.peer_state[MPIDI_FTDEV_AV(av).pid]) {
            case MPIDI_FTDEV_PEER_FAILED:
                return MPIR_FTMPI_failure_error(MPIDI_FTDEV_AV(av).pid);
            case MPIDI_FTDEV_PEER_BLANK:
                return MPIDI_FTDEV_BLANK_PEER;
        }
    }
    /* IGNORE mode keeps a communicator with a dead member usable for
     * point-to-point, not for its collectives */
    if (comm && comm_wide)
        return MPIDI_FTDEV_refuse_coll(comm);
    return MPI_SUCCESS;
}

int MPIDI_FTDEV_rma_refuse(MPIR_Win * win, int target)
{
    if (MPIR_FTMPI_halts_on_failure() && MPIR_FTMPI_failure_pending())
        return MPIR_FTMPI_failure_error(-1);
    if (target < 0)
        return MPIDI_FTDEV_refuse_coll(win->comm_ptr);
    int pid = MPIDI_FTDEV_AV(MPIDIU_comm_rank_to_av(win->comm_ptr, target)).pid;
    return MPIDI_FTDEV_global.peer_state[pid] == MPIDI_FTDEV_PEER_ALIVE ? MPI_SUCCESS :
        MPIR_FTMPI_failure_error(pid);
}

int MPIDI_FTDEV_progress_checks(void)
{
    MPIDI_FTDEV_echo_progress();
    if (MPIDI_global.sigusr1_count != MPIDI_global.my_sigusr1_count) {
        MPIDI_global.my_sigusr1_count = MPIDI_global.sigusr1_count;
        int err = MPIDI_check_for_failed_procs();
        if (err != MPI_SUCCESS)
            return err;
    }
    int pending = MPIR_FTMPI_halts_on_failure() && MPIR_FTMPI_failure_pending();

    /* CONT keeps the application's requests pending across a failure; its
     * waits and tests return MPI_ERR_OTHER until the survivors recover */
    if (pending && MPIDI_FTDEV_global.unmatched_bits && MPID_in_application_wait)
        return MPIR_FTMPI_failure_error(-1);
    if (MPIDI_FTDEV_global.rma_watch_win) {
        int err = MPIDI_FTDEV_rma_refuse(MPIDI_FTDEV_global.rma_watch_win,
                                         MPIDI_FTDEV_global.rma_watch_target);
        if (err != MPI_SUCCESS)
            return err;
    }
    MPIDI_FTDEV_heartbeat_failures();
    /* the senders of what nobody can receive any more wait for it to be
     * taken; IGNORE mode has such messages for as long as it runs */
    int stale = MPIDI_FTDEV_drain_stale(pending);
    if (!pending && !stale && !MPIDI_FTDEV_echo_under_way())
        MPIDI_FTDEV_global.progress_checks = 0;
    return MPI_SUCCESS;
}

static int failed_member(MPIR_Comm * comm, int size, int remote)
{
    for (int r = 0; r < size; r++) {
        int lpid, avtid;
        if (remote)
            MPIDIU_comm_rank_to_pid(comm, r, &lpid, &avtid);
        else
            MPIDIU_comm_rank_to_pid_local(comm, r, &lpid, &avtid);
        /* blanks take no part (src/ftmpi/coll_atomic) */
        if (avtid == 0 && MPIDI_FTDEV_global.peer_state[lpid] != MPIDI_FTDEV_PEER_ALIVE &&
            MPIDI_FTDEV_global.peer_state[lpid] != MPIDI_FTDEV_PEER_BLANK)
            return lpid;
    }
    return -1;
}

int MPIDI_FTDEV_comm_failed_member(MPIR_Comm * comm)
{
    int pid = failed_member(comm, comm->remote_size, 1);
    if (pid < 0 && comm->comm_kind == MPIR_COMM_KIND__INTERCOMM)
        pid = failed_member(comm, comm->local_size, 0);
    return pid;
}

int MPIDI_FTDEV_refuse_coll(MPIR_Comm * comm)
{
    if (MPIR_FTMPI_halts_on_failure() && MPIR_FTMPI_failure_pending())
        return MPIR_FTMPI_failure_error(-1);
    if (comm->revoked)
        return MPIDI_FTDEV_revoked_error();

    int pid = MPIDI_FTDEV_comm_failed_member(comm);
    return pid < 0 ? MPI_SUCCESS : MPIR_FTMPI_failure_error(pid);
}
