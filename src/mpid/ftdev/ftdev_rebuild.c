/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * REBUILD: failed processes are replaced by new ones, which take over
 * their ranks. After the survivors agree on the dead (ftmpi_agree.c), the
 * process that decided coordinates:
 *   1. every other survivor moves to the new epoch, then sends READY up a
 *      tree of the survivors rooted at the coordinator, once the survivors
 *      of its subtree did (the binomial tree of the process ids counted
 *      from the coordinator's; a process's parent is its nearest ancestor
 *      that is a live survivor, and it sends READY again when that one
 *      fails); a READY names every survivor it stands for;
 *   2. the coordinator publishes its worker address in the launcher's name
 *      service and asks the launcher for one new process per dead one
 *      (PMI spawn, the path of MPI_Comm_spawn: same executable and
 *      arguments, placed by Hydra); the spawn's preput key tells each new
 *      process which rank it replaces, the epoch and where the coordinator's
 *      address is;
 *   3. each replacement, in MPI_Init, connects to the coordinator and sends
 *      HELLO with its own address;
 *   4. with READY for every survivor and HELLO from every replacement, the
 *      coordinator sends REBUILT (the replacements' addresses) to each
 *      survivor whose READY came to it directly, each of which passes it on
 *      the same way, and WELCOME (every address, the job's modes) to each
 *      replacement. A process holding REBUILT answers a late READY with it.
 *      Everyone connects to the replacements; MPI_COMM_WORLD has its size
 *      again and every rank a live process.
 * READY comes after the survivor dropped what the dead had sent it, so
 * nothing a replacement sends can be taken for the dead process's.
 *
 * Failures meanwhile: a survivor that dies is left out; a replacement that
 * dies after its HELLO is not installed: either failure is pending after the
 * rebuild, and the next recovery replaces that process. If the coordinator
 * dies before REBUILT, the survivors agree again and the next coordinator
 * starts over; its replacements see it die and leave. WELCOME goes out only
 * after the coordinator's REBUILTs, so if it dies half-way through them, no
 * replacement has joined: those leave, the survivors that installed them
 * see that as a failure, and the next recovery makes every view the same.
 * A replacement that never says HELLO within
 * MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT seconds, or a launcher that refuses
 * the spawn, is a pathological failure: the job ends with a message that
 * says so.
 *
 * This file: the protocol's state and its messages as they arrive, and
 * the coordinator's side. The survivors' side is ftdev_rebuild_survivor.c,
 * the messages are made in ftdev_rebuild_msg.c, the replacement's side is
 * ftdev_rejoin.c, what the launcher does for it ftdev_launcher.c.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_control.h"
#include "ftdev_failure.h"
#include "ftdev_detect.h"
#include "ftdev_rebuild.h"
#include "ftdev_launcher.h"
#include "mpid_ft_tree.h"
#include "ftdev_counters.h"
#include "ftdev_test_point.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT
      category    : CH4_FTDEV
      type        : int
      default     : 60
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        FTMPI_COMM_MODE=rebuild: seconds the coordinator of a rebuild waits
        for the replacement processes it asked the launcher for to start and
        join. A replacement that has not joined by then ends the job.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

#define NO_EPOCH UINT32_MAX

static struct {
    int allocated;
    /* per process id: the epoch of the last READY that named it (a
     * survivor stands for its subtree, the coordinator for everyone), and
     * of the last it sent here (REBUILT goes back to it) */
    uint32_t *ready_epoch;
    uint32_t *ready_from;
    uint32_t *hello_epoch;
    void **hello_address;
    size_t *hello_len;
    MPIDI_FTDEV_hb_contact_t *hello_hb;
    ucp_ep_h *hello_ep;
    uint8_t *hello_died;
} rb;

/* the last WELCOME or REBUILT, as received (a coordinator's REBUILT, as
 * sent) */
static MPIDI_FTDEV_rb_msg_t *last_received;
static size_t last_received_len;

int MPIDI_FTDEV_rb_alloc_state(void)
{
    int n = MPIDI_FTDEV_global.world.num_pids;
    if (rb.allocated)
        return MPI_SUCCESS;
    rb.ready_epoch = MPL_malloc(n * sizeof(uint32_t), MPL_MEM_OTHER);
    rb.ready_from = MPL_malloc(n * sizeof(uint32_t), MPL_MEM_OTHER);
    rb.hello_epoch = MPL_malloc(n * sizeof(uint32_t), MPL_MEM_OTHER);
    rb.hello_address = MPL_calloc(n, sizeof(void *), MPL_MEM_OTHER);
    rb.hello_len = MPL_calloc(n, sizeof(size_t), MPL_MEM_OTHER);
    rb.hello_hb = MPL_calloc(n, sizeof(MPIDI_FTDEV_hb_contact_t), MPL_MEM_OTHER);
    rb.hello_ep = MPL_calloc(n, sizeof(ucp_ep_h), MPL_MEM_OTHER);
    rb.hello_died = MPL_calloc(n, 1, MPL_MEM_OTHER);
    if (!rb.ready_epoch || !rb.ready_from || !rb.hello_epoch || !rb.hello_address ||
        !rb.hello_len || !rb.hello_hb || !rb.hello_ep || !rb.hello_died)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", 0);
    for (int p = 0; p < n; p++)
        rb.ready_epoch[p] = rb.ready_from[p] = rb.hello_epoch[p] = NO_EPOCH;
    rb.allocated = 1;
    return MPI_SUCCESS;
}

/* ---- messages (made in ftdev_rebuild_msg.c) ------------------------------------ */

/* A REBUILD control message from process `from` (also from a replacement
 * not installed yet). */
static void rebuild_message(int from, int about, const void *buf, size_t len)
{
    const MPIDI_FTDEV_rb_msg_t *m = buf;
    const char *wrong = MPIDI_FTDEV_rb_check(buf, len, from, MPIDI_FTDEV_global.world.num_pids);

    if (wrong) {
        MPIDI_FTDEV_reject(MPIDI_FTDEV_REJECT_CONTROL, "a rebuild message from rank %d: %s",
                           from, wrong);
        return;
    }
    if (MPIDI_FTDEV_rb_alloc_state() != MPI_SUCCESS)
        return;
    MPID_FT_MSG_TRACE(&MPIDI_FTDEV_rb_kinds, &m->head, from, "%s", "");
    switch (m->head.kind) {
        case MPIDI_FTDEV_RB_READY:{
                const uint8_t *ready = (const uint8_t *) (m + 1);
                for (int p = 0; p < MPIDI_FTDEV_global.world.num_pids; p++)
                    if (MPID_FT_set_has(ready, p) &&
                        (rb.ready_epoch[p] == NO_EPOCH || rb.ready_epoch[p] < m->head.seq))
                        rb.ready_epoch[p] = m->head.seq;
                rb.ready_from[from] = m->head.seq;
                /* its parent failed after passing READY on, or this one is
                 * done: the REBUILT of that epoch, if this process holds it */
                if (MPIDI_FTDEV_rb_received(MPIDI_FTDEV_RB_REBUILT, m->head.seq)) {
                    MPID_FT_TRACE("rebuild: rebuilt epoch %u again for %d", m->head.seq, from);
                    MPIDI_FTDEV_rb_send_received(from);
                }
                break;
            }
        case MPIDI_FTDEV_RB_HELLO:{
                const MPIDI_FTDEV_rb_entry_t *e = (const MPIDI_FTDEV_rb_entry_t *) (m + 1);
                void *address = MPL_malloc(e->address_len, MPL_MEM_ADDRESS);
                if (address == NULL)
                    return;
                memcpy(address, e + 1, e->address_len);
                MPL_free(rb.hello_address[from]);
                rb.hello_address[from] = address;
                rb.hello_len[from] = e->address_len;
                rb.hello_hb[from] = e->heartbeat;
                rb.hello_epoch[from] = m->head.seq;
                break;
            }
        case MPIDI_FTDEV_RB_WELCOME:
        case MPIDI_FTDEV_RB_REBUILT:{
                /* (a copy of one held is left alone: it may be being read) */
                if (MPIDI_FTDEV_rb_received(m->head.kind, m->head.seq))
                    return;
                MPIDI_FTDEV_rb_msg_t *copy = MPL_malloc(len, MPL_MEM_OTHER);
                if (copy == NULL)
                    return;
                memcpy(copy, m, len);
                MPL_free(last_received);
                last_received = copy;
                last_received_len = len;
                break;
            }
    }
}

__attribute__ ((constructor))
static void register_rebuild_messages(void)
{
    MPIDI_FTDEV_ctrl_register(MPIDI_FTDEV_CTRL_REBUILD, rebuild_message, NULL);
}

const MPIDI_FTDEV_rb_msg_t *MPIDI_FTDEV_rb_received(uint32_t kind, uint32_t epoch)
{
    if (last_received && last_received->head.kind == kind && last_received->head.seq == epoch)
        return last_received;
    return NULL;
}

int MPIDI_FTDEV_rb_send_received(int to)
{
    return MPIDI_FTDEV_rb_send(to, last_received, last_received_len);
}

uint32_t MPIDI_FTDEV_rb_ready_epoch(int pid)
{
    return rb.ready_epoch[pid];
}

uint32_t MPIDI_FTDEV_rb_ready_from(int pid)
{
    return rb.ready_from[pid];
}

/* ---- addresses and endpoints --------------------------------------------------- */

/* The endpoint to `pid` broke: when that endpoint leads to a replacement
 * not installed yet, it counts as not joined, and the error is no failure
 * of the process `pid` names now. */
static int replacement_ep_failed(int pid)
{
    if (!rb.allocated || rb.hello_ep[pid] == NULL ||
        MPIDI_FTDEV_global.peers.state[pid] == MPIDI_FTDEV_PEER_ALIVE)
        return 0;
    rb.hello_died[pid] = 1;
    return 1;
}

__attribute__ ((constructor))
static void register_replacement_eps(void)
{
    MPIDI_FTDEV_filter_ep_errors(replacement_ep_failed);
}

int MPIDI_FTDEV_rb_install(int pid, const void *address, size_t len, ucp_ep_h ep,
                   const MPIDI_FTDEV_hb_contact_t * heartbeat)
{
    int mpi_errno = MPI_SUCCESS;

    if (ep == NULL) {
        mpi_errno = MPIDI_FTDEV_create_ep(pid, (const ucp_address_t *) address, &ep);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = MPIDI_FTDEV_save_address(pid, address, len);
    MPIR_ERR_CHECK(mpi_errno);
    MPIDI_FTDEV_AV(&MPIDIU_get_av(0, pid)).ep = ep;
    if (MPIDI_FTDEV_global.peers.state[pid] != MPIDI_FTDEV_PEER_ALIVE) {
        MPIDI_FTDEV_global.failures.num_refusal_causes--;
        MPIDI_FTDEV_forget_failure(pid);
    }
    MPIDI_FTDEV_set_peer_state(pid, MPIDI_FTDEV_PEER_ALIVE);
    MPIDI_FTDEV_global.peers.finalizing[pid] = 0;
    MPIDI_FTDEV_global.rebuild.replaced[pid] = 1;
    MPIDI_FTDEV_global.peers.hb[pid] = *heartbeat;
    MPIDI_FTDEV_heartbeat_revive(pid);
    MPIDI_FTDEV_test_replay_to_replacement(pid);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- what both sides use --------------------------------------------------------- */

void MPIDI_FTDEV_rb_pathological(const char *what)
{
    char msg[512];
    snprintf(msg, sizeof(msg), "FT-MPICH: the rebuild of MPI_COMM_WORLD failed: %s; the job ends",
             what);
    /* through the launcher: the whole job ends, not this process alone */
    MPID_Abort(MPIR_Process.comm_world, MPI_SUCCESS, 1, msg);
}

int MPIDI_FTDEV_rb_awaited_survivor(const uint8_t * dead, int pid)
{
    return pid != MPIDI_FTDEV_global.world.my_pid && !MPID_FT_set_has(dead, pid) &&
        MPIDI_FTDEV_global.peers.state[pid] == MPIDI_FTDEV_PEER_ALIVE &&
        !MPIDI_FTDEV_global.peers.finalizing[pid];
}

/* ---- the coordinator's side ------------------------------------------------------ */

/* Everyone answered; or else, with late non-NULL, who did not. */
static int everyone_answered(uint32_t epoch, const uint8_t * dead, char *late, size_t late_len)
{
    int all = 1;
    if (late)
        late[0] = 0;
    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids; pid++) {
        int missing;
        if (MPID_FT_set_has(dead, pid))
            missing = !rb.hello_died[pid] &&
                (rb.hello_epoch[pid] != epoch || rb.hello_ep[pid] == NULL);
        else
            missing = MPIDI_FTDEV_rb_awaited_survivor(dead, pid) && rb.ready_epoch[pid] != epoch;
        if (missing && late && strlen(late) + 16 < late_len)
            snprintf(late + strlen(late), late_len - strlen(late), "%s%d", all ? "" : ", ", pid);
        all &= !missing;
    }
    return all;
}

static int welcome_and_announce(uint32_t epoch, const uint8_t * dead)
{
    int mpi_errno = MPI_SUCCESS;
    int n = MPIDI_FTDEV_global.world.num_pids, me = MPIDI_FTDEV_global.world.my_pid;
    size_t welcome_len = 0, rebuilt_len = 0, len;
    MPIDI_FTDEV_rb_msg_t *welcome = NULL, *rebuilt = NULL;

    /* the replacements that joined, and the world as they will see it */
    for (int pid = 0; pid < n; pid++) {
        if (MPID_FT_set_has(dead, pid) && !rb.hello_died[pid]) {
            rebuilt_len += MPIDI_FTDEV_rb_entry_size(rb.hello_len[pid]);
            welcome_len += MPIDI_FTDEV_rb_entry_size(rb.hello_len[pid]);
        } else if (pid == me || MPIDI_FTDEV_global.peers.state[pid] == MPIDI_FTDEV_PEER_ALIVE) {
            welcome_len += MPIDI_FTDEV_rb_entry_size(MPIDI_FTDEV_global.rebuild.peer_address_len[pid]);
        } else {
            welcome_len += MPIDI_FTDEV_rb_entry_size(0);
        }
    }
    welcome = MPIDI_FTDEV_rb_new_msg(MPIDI_FTDEV_RB_WELCOME, epoch, welcome_len, &len);
    rebuilt = MPIDI_FTDEV_rb_new_msg(MPIDI_FTDEV_RB_REBUILT, epoch, rebuilt_len, &len);
    MPIR_ERR_CHKANDJUMP(!welcome || !rebuilt, mpi_errno, MPI_ERR_OTHER, "**nomem");
    MPIDI_FTDEV_rb_entry_t *w = (MPIDI_FTDEV_rb_entry_t *) (welcome + 1);
    MPIDI_FTDEV_rb_entry_t *r = (MPIDI_FTDEV_rb_entry_t *) (rebuilt + 1);
    for (int pid = 0; pid < n; pid++) {
        if (MPID_FT_set_has(dead, pid) && !rb.hello_died[pid]) {
            w = MPIDI_FTDEV_rb_put_entry(w, pid, MPIDI_FTDEV_RB_REPLACED, rb.hello_address[pid],
                                         rb.hello_len[pid], &rb.hello_hb[pid]);
            r = MPIDI_FTDEV_rb_put_entry(r, pid, MPIDI_FTDEV_RB_REPLACED, rb.hello_address[pid],
                                         rb.hello_len[pid], &rb.hello_hb[pid]);
            rebuilt->count++;
        } else if (pid == me || MPIDI_FTDEV_global.peers.state[pid] == MPIDI_FTDEV_PEER_ALIVE) {
            int state = MPIDI_FTDEV_global.peers.finalizing[pid] ? MPIDI_FTDEV_RB_LEAVING :
                MPIDI_FTDEV_RB_ALIVE;
            w = MPIDI_FTDEV_rb_put_entry(w, pid, state, MPIDI_FTDEV_global.rebuild.peer_address[pid],
                                         MPIDI_FTDEV_global.rebuild.peer_address_len[pid],
                                         &MPIDI_FTDEV_global.peers.hb[pid]);
        } else {
            w = MPIDI_FTDEV_rb_put_entry(w, pid, MPIDI_FTDEV_RB_DEAD, NULL, 0,
                                         &MPIDI_FTDEV_global.peers.hb[pid]);
        }
        welcome->count++;
    }

    /* survivors first (those whose READY came here; they pass it on):
     * they were waiting; then the replacements, which become this
     * process's peers */
    for (int pid = 0; pid < n; pid++) {
        if (rb.ready_from[pid] == epoch && MPIDI_FTDEV_rb_awaited_survivor(dead, pid)) {
            mpi_errno = MPIDI_FTDEV_rb_send(pid, rebuilt, sizeof(*rebuilt) + rebuilt_len);
            MPIR_ERR_CHECK(mpi_errno);
            MPID_FT_test_death("mid-announce", 1, 0);
        }
    }
    for (int pid = 0; pid < n; pid++) {
        if (!MPID_FT_set_has(dead, pid) || rb.hello_died[pid])
            continue;
        mpi_errno = MPIDI_FTDEV_rb_install(pid, rb.hello_address[pid], rb.hello_len[pid], rb.hello_ep[pid],
                            &rb.hello_hb[pid]);
        MPIR_ERR_CHECK(mpi_errno);
        rb.hello_ep[pid] = NULL;
        mpi_errno = MPIDI_FTDEV_rb_send(pid, welcome, sizeof(*welcome) + welcome_len);
        MPIR_ERR_CHECK(mpi_errno);
    }

    /* kept to answer a READY that comes late */
    MPL_free(last_received);
    last_received = rebuilt;
    last_received_len = sizeof(*rebuilt) + rebuilt_len;
    rebuilt = NULL;

  fn_exit:
    MPL_free(welcome);
    MPL_free(rebuilt);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

typedef struct {
    uint32_t epoch;
    const uint8_t *dead;
    const int *pids;
    int k;
    MPL_time_t start;
    int mpi_errno;
} answers_wait_t;

/* The coordinator's wait for every survivor's READY and every
 * replacement's HELLO: it connects to each replacement that said hello,
 * and gives up the job past MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT. */
static int answers_step(void *arg)
{
    answers_wait_t *w = arg;
    MPL_time_t now;
    double elapsed;

    if (everyone_answered(w->epoch, w->dead, NULL, 0))
        return 1;
    for (int i = 0; i < w->k; i++) {
        int pid = w->pids[i];
        if (rb.hello_epoch[pid] == w->epoch && rb.hello_ep[pid] == NULL && !rb.hello_died[pid]) {
            w->mpi_errno = MPIDI_FTDEV_create_ep(pid, rb.hello_address[pid], &rb.hello_ep[pid]);
            if (w->mpi_errno != MPI_SUCCESS)
                return 1;
        }
    }
    MPL_wtime(&now);
    MPL_wtime_diff(&w->start, &now, &elapsed);
    if (elapsed > MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT) {
        char late[256], what[400];
        everyone_answered(w->epoch, w->dead, late, sizeof(late));
        snprintf(what, sizeof(what), "rank(s) %s did not join within %d s "
                 "(MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT)", late, MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT);
        MPIDI_FTDEV_rb_pathological(what);
    }
    return 0;
}

static int coordinate(uint32_t epoch, const uint8_t * dead)
{
    int mpi_errno = MPI_SUCCESS;
    int n = MPIDI_FTDEV_global.world.num_pids, k = 0, nchunks = 0;
    int *pids = MPL_malloc(n * sizeof(int), MPL_MEM_OTHER);

    MPIR_ERR_CHKANDJUMP(pids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    for (int pid = 0; pid < n; pid++) {
        if (!MPID_FT_set_has(dead, pid))
            continue;
        pids[k++] = pid;
        rb.hello_died[pid] = 0;
        if (rb.hello_ep[pid]) {
            /* a replacement of an earlier attempt that never joined */
            ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                .flags = UCP_EP_CLOSE_FLAG_FORCE
            };
            ucs_status_ptr_t r = ucp_ep_close_nbx(rb.hello_ep[pid], &param);
            if (r && !UCS_PTR_IS_ERR(r))
                ucp_request_free(r);
            rb.hello_ep[pid] = NULL;
        }
    }

    if (k > 0) {
        /* mpiexec places replacements away from the nodes it gave up: what
         * this process's heartbeat declared reaches it first */
        MPIDI_FTDEV_heartbeat_failures();
        mpi_errno = MPIDI_FTDEV_publish_address(epoch, 1, &nchunks);
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = MPIDI_FTDEV_spawn_replacements(k, pids, epoch, nchunks);
        if (mpi_errno != MPI_SUCCESS) {
            char what[MPI_MAX_ERROR_STRING];
            MPIR_Err_get_string(mpi_errno, what, sizeof(what), NULL);
            MPIDI_FTDEV_rb_pathological(what);
        }
        MPID_FT_test_death("after-spawn", 1, 0);
    }

    answers_wait_t w = {.epoch = epoch,.dead = dead,.pids = pids,.k = k };
    MPL_wtime(&w.start);
    mpi_errno = MPID_FT_wait(answers_step, &w, "the replacements' and survivors' answers");
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = w.mpi_errno;
    MPIR_ERR_CHECK(mpi_errno);

    mpi_errno = welcome_and_announce(epoch, dead);
    MPIR_ERR_CHECK(mpi_errno);
    if (k > 0)
        MPIDI_FTDEV_publish_address(epoch, 0, &nchunks);
    mpi_errno = MPIDI_FTDEV_ctrl_flush(MPIDI_FTDEV_CTRL_REBUILD);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPL_free(pids);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_FT_rebuild_world(uint32_t epoch, const uint8_t * dead, int coordinator, int *again)
{
    int mpi_errno = MPIDI_FTDEV_rb_alloc_state();

    *again = 0;
    MPIR_ERR_CHECK(mpi_errno);
    if (coordinator == MPIDI_FTDEV_global.world.my_pid)
        mpi_errno = coordinate(epoch, dead);
    else
        mpi_errno = MPIDI_FTDEV_rb_survivor_wait(epoch, coordinator, dead, again);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
