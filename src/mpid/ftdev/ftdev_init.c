/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Start-up and shut-down: UCX context and worker, worker-address exchange
 * through PMI business cards, one endpoint per process.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_upcalls.h"
#include "ftdev_control.h"
#include "ftdev_detect.h"
#include "ftdev_ucx_log.h"
#include "ftdev_ulfm.h"
#include "ftdev_rebuild.h"
#include "ftdev_key.h"
#include "ftdev_listener_guard.h"
#include "ftdev_ucx_settings.h"
#include "ftdev_test_point.h"
#include "ftdev_spawn.h"
#include "ftdev_counters.h"
#include "mpidu_bc.h"
#include "mpidu_init_shm.h"
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

categories :
    - name : CH4_FTDEV
      description : A category for the CH4 ftdev (fault-tolerant) netmod

cvars:
    - name        : MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD
      category    : CH4_FTDEV
      type        : int
      default     : -1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        After this many consecutive polls of the network that found nothing
        to do, a waiting process yields its core (sched_yield) on every
        further idle poll, so that processes sharing a core reach each other
        in microseconds rather than scheduler time slices. -1 (the default)
        yields after 64 idle polls only when this node runs more processes
        of the job than the processes may use cores (their CPU affinity),
        since a yield costs a process that has a core of its own a system
        call per poll. 0 never yields.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

/* Why this process's fault-tolerance modes or ftdev settings were
 * refused, until init_world compares them with everyone's. */
static char settings_error[256];

/* What each process publishes at start-up, in front of its worker
 * address. */
typedef struct {
    int32_t settings_valid;
    int32_t modes[MPID_FT_MODES_WORDS];
    MPIDI_FTDEV_hb_contact_t heartbeat;
    uint64_t world_id;          /* rank 0's is the world's */
    uint32_t address_len;       /* the worker address follows */
    uint32_t net_address_len;   /* then its network part (ftdev_spawn.h) */
    /* rank 0's, where the launcher gave the job no key: the one it drew */
    char job_key[2 * MPIDI_FTDEV_KEY_BYTES + 1];
} business_card_t;

/* A bad setting is refused like a bad mode, in one line. */
static void check_yield_setting(char *error, size_t error_len)
{
    int setting = MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD;
    if (setting < -1)
        snprintf(error, error_len, "MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD=%d: the value "
                 "must be -1 (yield when cores are shared), 0 (never) or a number of idle polls",
                 setting);
}

/* The idle poll after which a waiting process yields its core; 0: never.
 * Decided once the node's processes are known (a replacement learns its
 * node from the survivors when it joins). */
static unsigned polls_before_yield(void)
{
    int setting = MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD;
    if (setting >= 0)
        return setting;
    cpu_set_t allowed;
    long cores = sched_getaffinity(0, sizeof(allowed), &allowed) == 0 ?
        CPU_COUNT(&allowed) : sysconf(_SC_NPROCESSORS_ONLN);
    return (cores > 0 && MPIR_Process.local_size > cores) ? 64 : 0;
}

static void ucp_request_init_cb(void *request)
{
    MPIDI_FTDEV_ucp_request_t *r = request;
    r->req = NULL;
    r->buf = NULL;
}

/* Every process of a job, replacements included (they know the job's
 * size before this), derives the same layout from the same size; a
 * spawned world takes its parent's, and tag pids from the first its parent
 * knew unused (ftdev_spawn.c). */
static int set_tag_layout(int num_pids)
{
    int mpi_errno = MPI_SUCCESS;
    int pid_bits = MPIDI_FTDEV_MIN_PID_BITS;
    while ((1 << pid_bits) < num_pids)
        pid_bits++;
    MPIDI_FTDEV_global.world.base = 0;
    if (MPIR_Process.has_parent && !MPIDI_FTDEV_global.rebuild.is_replacement) {
        mpi_errno = MPIDI_FTDEV_spawned_world_layout(num_pids, &MPIDI_FTDEV_global.world.base,
                                                     &pid_bits);
        MPIR_ERR_CHECK(mpi_errno);
    }
    MPIDI_FTDEV_global.world.pid_capacity = 1 << pid_bits;
    MPIDI_FTDEV_global.world.my_tag_pid = MPIDI_FTDEV_global.world.base + MPIDI_FTDEV_global.world.my_pid;
    MPIDI_FTDEV_global.world.tag_pid_next = MPIDI_FTDEV_global.world.base + num_pids;
    MPIDI_FTDEV_global.tag.bits = MPIDI_FTDEV_PID_AND_TAG_BITS - pid_bits;
    MPIDI_FTDEV_global.tag.mask = MPIDI_FTDEV_FIELD_MASK(MPIDI_FTDEV_global.tag.bits, 0);
    MPIDI_FTDEV_global.tag.pid_mask = MPIDI_FTDEV_FIELD_MASK(pid_bits, MPIDI_FTDEV_global.tag.bits);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_init_local(int *tag_bits)
{
    int mpi_errno = MPI_SUCCESS;
    ucp_config_t *config;
    ucs_status_t status;

    MPIR_ERR_CHKANDJUMP2(MPIR_Process.size > MPIDI_FTDEV_MAX_PROCS, mpi_errno, MPI_ERR_OTHER,
                         "**ftdev_toomany", "**ftdev_toomany %d %d", MPIR_Process.size,
                         MPIDI_FTDEV_MAX_PROCS);
    MPIR_ERR_CHKANDJUMP(MPIDI_global.n_vcis != 1, mpi_errno, MPI_ERR_OTHER, "**ftdev_vcis");
    MPIDI_FTDEV_counters_register();
    MPID_FT_trace_open();
    mpi_errno = MPIDI_FTDEV_key_from_launcher();
    MPIR_ERR_CHECK(mpi_errno);
    snprintf(settings_error, sizeof(settings_error), "%s", MPIDI_FTDEV_global.upper.policy.refused);
    if (!settings_error[0])
        check_yield_setting(settings_error, sizeof(settings_error));

    MPIDI_FTDEV_set_ucx_defaults();
    status = ucp_config_read(NULL, NULL, &config);
    MPIDI_FTDEV_CHK_STATUS(status);

    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_REQUEST_SIZE |
            UCP_PARAM_FIELD_REQUEST_INIT | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS,
        .features = UCP_FEATURE_TAG | UCP_FEATURE_AM,
        .request_size = sizeof(MPIDI_FTDEV_ucp_request_t),
        .request_init = ucp_request_init_cb,
        .estimated_num_eps = MPIR_Process.size,
    };
    status = ucp_init(&params, config, &MPIDI_FTDEV_global.ucx.context);
    ucp_config_release(config);
    MPIDI_FTDEV_CHK_STATUS(status);
    MPIDI_FTDEV_ucx_log_hold_back();

    MPIDI_FTDEV_global.world.my_pid = MPIR_Process.rank;
    MPIDI_FTDEV_global.world.num_pids = MPIR_Process.size;
    mpi_errno = set_tag_layout(MPIR_Process.size);
    MPIR_ERR_CHECK(mpi_errno);
    int capacity = MPIDI_FTDEV_global.world.pid_capacity;
    MPIDI_FTDEV_global.epoch.current = 0;
    MPIDI_FTDEV_global.epoch.bits = 0;
    MPIDI_FTDEV_global.epoch.unmatched_bits =
        MPIDI_FTDEV_global.upper.policy.keeps_messages ? MPIDI_FTDEV_EPOCH_MASK : 0;
    MPIDI_FTDEV_global.upper.coll_divert = MPIDI_FTDEV_global.upper.policy.atomic_collectives;
    /* per pid: this world's processes, then other worlds' */
    MPIDI_FTDEV_global.peers.reqs = MPL_calloc(capacity, sizeof(MPIR_Request *), MPL_MEM_OTHER);
    MPIDI_FTDEV_global.peers.wildcard_reqs = NULL;
    MPIDI_FTDEV_global.peers.state = MPL_calloc(capacity, 1, MPL_MEM_OTHER);
    MPIDI_FTDEV_global.peers.finalizing = MPL_calloc(capacity, 1, MPL_MEM_OTHER);
    MPIDI_FTDEV_global.rebuild.peer_address = MPL_calloc(capacity, sizeof(void *), MPL_MEM_ADDRESS);
    MPIDI_FTDEV_global.rebuild.peer_address_len = MPL_calloc(capacity, sizeof(size_t), MPL_MEM_ADDRESS);
    MPIDI_FTDEV_global.world.foreign_av = MPL_calloc(capacity, sizeof(MPIDI_av_entry_t *),
                                               MPL_MEM_ADDRESS);
    MPIDI_FTDEV_global.world.foreign_world_id = MPL_calloc(capacity, sizeof(uint64_t), MPL_MEM_ADDRESS);
    MPIDI_FTDEV_global.world.pid_of_foreign_tag_pid = MPL_malloc(capacity * sizeof(int),
                                                           MPL_MEM_ADDRESS);
    /* per pid of this world */
    MPIDI_FTDEV_global.rebuild.replaced = MPL_calloc(MPIR_Process.size, 1, MPL_MEM_OTHER);
    MPIDI_FTDEV_global.failures.log = MPL_malloc(MPIR_Process.size * sizeof(int), MPL_MEM_OTHER);
    MPIDI_FTDEV_global.peers.hb = MPL_calloc(MPIR_Process.size, sizeof(MPIDI_FTDEV_hb_contact_t),
                                            MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(!MPIDI_FTDEV_global.peers.reqs || !MPIDI_FTDEV_global.peers.state ||
                        !MPIDI_FTDEV_global.peers.finalizing || !MPIDI_FTDEV_global.rebuild.peer_address ||
                        !MPIDI_FTDEV_global.rebuild.peer_address_len || !MPIDI_FTDEV_global.world.foreign_av ||
                        !MPIDI_FTDEV_global.world.foreign_world_id ||
                        !MPIDI_FTDEV_global.world.pid_of_foreign_tag_pid ||
                        !MPIDI_FTDEV_global.rebuild.replaced || !MPIDI_FTDEV_global.peers.hb ||
                        !MPIDI_FTDEV_global.failures.log, mpi_errno, MPI_ERR_OTHER, "**nomem");
    for (int i = 0; i < capacity; i++)
        MPIDI_FTDEV_global.world.pid_of_foreign_tag_pid[i] = -1;
    MPIDI_FTDEV_global.world.num_foreign = 0;
    mpi_errno = MPIDI_FTDEV_ctrl_init();
    MPIR_ERR_CHECK(mpi_errno);

    *tag_bits = MPIDI_FTDEV_global.tag.bits;
    /* processes of this node may die: finalize must not wait for them */
    MPIDU_Init_shm_finalize_barrier = 0;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Every process takes the same decision from the same cards: a bad mode
 * anywhere, or two processes with different modes, and all of them leave
 * MPI_Init (the lowest such rank, or rank 0, says why). */
static void check_everyones_modes(void *table, int bc_len)
{
    char msg[256];
    const business_card_t *card0 = table;

    for (int pid = 0; pid < MPIR_Process.size; pid++) {
        const business_card_t *card = (business_card_t *) ((char *) table + pid * bc_len);
        if (!card->settings_valid)
            MPIDI_FTDEV_exit_at_init(pid == MPIDI_FTDEV_global.world.my_pid ? settings_error : NULL);
    }
    for (int pid = 1; pid < MPIR_Process.size; pid++) {
        const business_card_t *card = (business_card_t *) ((char *) table + pid * bc_len);
        if (memcmp(card->modes, card0->modes, sizeof(card->modes))) {
            MPIDI_FTDEV_modes_differ(card->modes, pid, msg, sizeof(msg));
            MPIDI_FTDEV_exit_at_init(MPIDI_FTDEV_global.world.my_pid == 0 ? msg : NULL);
        }
    }
}

/* Different for jobs launched apart, which connect/accept may join (their
 * tag pids both start from 0) */
static uint64_t world_id_candidate(void)
{
    char host[64] = "";
    MPL_time_t now;
    double t;
    uint64_t id = 1469598103934665603ULL;      /* FNV-1a */

    gethostname(host, sizeof(host) - 1);
    MPL_wtime(&now);
    MPL_wtime_todouble(&now, &t);
    for (const char *c = host; *c; c++)
        id = (id ^ (unsigned char) *c) * 1099511628211ULL;
    id = (id ^ (uint64_t) getpid()) * 1099511628211ULL;
    id = (id ^ (uint64_t) (t * 1e6)) * 1099511628211ULL;
    return id ? id : 1;
}

int MPIDI_FTDEV_init_world(void)
{
    int mpi_errno = MPI_SUCCESS;
    ucs_status_t status;
    void *table;
    int bc_len;

    MPIR_ERR_CHKANDJUMP(MPIR_CVAR_CH4_ROOTS_ONLY_PMI, mpi_errno, MPI_ERR_OTHER,
                        "**ftdev_rootsonly");
    mpi_errno = MPIDI_FTDEV_fault_injection_init();
    MPIR_ERR_CHECK(mpi_errno);
    /* past the launcher's first barrier, before the node's shared-memory ones */
    MPID_FT_test_death("init", 1, 0);

    ucp_worker_params_t worker_params = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_SERIALIZED,
    };
    MPIDI_FTDEV_listener_guard_before_worker();
    status = ucp_worker_create(MPIDI_FTDEV_global.ucx.context, &worker_params,
                               &MPIDI_FTDEV_global.ucx.worker);
    MPIDI_FTDEV_CHK_STATUS(status);
    MPIDI_FTDEV_listener_guard_after_worker();

    ucp_am_handler_param_t am_param = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
            UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        .id = MPIDI_FTDEV_AM_MPIDIG,
        .cb = MPIDI_FTDEV_am_recv_cb,
        .flags = UCP_AM_FLAG_WHOLE_MSG,
    };
    status = ucp_worker_set_am_recv_handler(MPIDI_FTDEV_global.ucx.worker, &am_param);
    MPIDI_FTDEV_CHK_STATUS(status);
    am_param.id = MPIDI_FTDEV_AM_CONTROL;
    am_param.cb = MPIDI_FTDEV_ctrl_recv_cb;
    status = ucp_worker_set_am_recv_handler(MPIDI_FTDEV_global.ucx.worker, &am_param);
    MPIDI_FTDEV_CHK_STATUS(status);

    status = ucp_worker_get_address(MPIDI_FTDEV_global.ucx.worker, &MPIDI_FTDEV_global.ucx.address,
                                    &MPIDI_FTDEV_global.ucx.address_len);
    MPIDI_FTDEV_CHK_STATUS(status);

    for (int pid = 0; pid < MPIR_Process.size; pid++) {
        MPIDI_FTDEV_AV(&MPIDIU_get_av(0, pid)).pid = pid;
        MPIDI_FTDEV_AV(&MPIDIU_get_av(0, pid)).tag_pid = MPIDI_FTDEV_global.world.base + pid;
    }
    mpi_errno = MPIDI_FTDEV_heartbeat_open(&MPIDI_FTDEV_global.peers.hb[MPIR_Process.rank]);
    MPIR_ERR_CHECK(mpi_errno);
    if (MPIDI_FTDEV_global.rebuild.is_replacement) {
        if (settings_error[0])
            MPIDI_FTDEV_exit_at_init(settings_error);
        mpi_errno = MPIDI_FTDEV_rejoin();
        goto fn_exit;
    }

    const void *net_address;
    size_t net_address_len;
    mpi_errno = MPIDI_FTDEV_open_net_address(&net_address, &net_address_len);
    MPIR_ERR_CHECK(mpi_errno);
    size_t card_len = sizeof(business_card_t) + MPIDI_FTDEV_global.ucx.address_len + net_address_len;
    business_card_t *card = MPL_malloc(card_len, MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP(card == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    card->settings_valid = settings_error[0] == 0;
    memcpy(card->modes, MPIDI_FTDEV_global.upper.policy.modes, sizeof(card->modes));
    card->heartbeat = MPIDI_FTDEV_global.peers.hb[MPIR_Process.rank];
    card->world_id = world_id_candidate();
    memset(card->job_key, 0, sizeof(card->job_key));
    if (!MPIDI_FTDEV_key_known() && MPIR_Process.rank == 0) {
        mpi_errno = MPIDI_FTDEV_key_draw();
        MPIR_ERR_CHECK(mpi_errno);
        MPIDI_FTDEV_key_hex(card->job_key);
    }
    card->address_len = MPIDI_FTDEV_global.ucx.address_len;
    card->net_address_len = net_address_len;
    memcpy(card + 1, MPIDI_FTDEV_global.ucx.address, MPIDI_FTDEV_global.ucx.address_len);
    memcpy((char *) (card + 1) + card->address_len, net_address, net_address_len);
    mpi_errno = MPIDU_bc_table_create(MPIR_Process.rank, MPIR_Process.size,
                                      MPIR_Process.node_map, card, (int) card_len, FALSE, FALSE,
                                      &table, &bc_len);
    MPL_free(card);
    MPIR_ERR_CHECK(mpi_errno);

    check_everyones_modes(table, bc_len);
    MPIDI_FTDEV_global.world.id = ((business_card_t *) table)->world_id;
    if (!MPIDI_FTDEV_key_known()) {
        business_card_t *card0 = table;
        card0->job_key[sizeof(card0->job_key) - 1] = 0;
        mpi_errno = MPIDI_FTDEV_key_from_hex(card0->job_key, "process 0's business card");
        MPIR_ERR_CHECK(mpi_errno);
    }
    for (int pid = 0; pid < MPIR_Process.size; pid++) {
        MPIDI_FTDEV_addr_t *addr = &MPIDI_FTDEV_AV(&MPIDIU_get_av(0, pid));
        business_card_t *peer = (business_card_t *) ((char *) table + pid * bc_len);
        MPIR_ERR_CHKANDJUMP1(sizeof(business_card_t) + peer->address_len + peer->net_address_len >
                             (size_t) bc_len, mpi_errno, MPI_ERR_OTHER, "**ftdev_upid",
                             "**ftdev_upid %s", "a business card's addresses overrun it");
        MPIDI_FTDEV_global.peers.hb[pid] = peer->heartbeat;
        mpi_errno = MPIDI_FTDEV_create_ep(pid, (ucp_address_t *) (peer + 1), &addr->ep);
        MPIR_ERR_CHECK(mpi_errno);
        /* only a rebuild hands addresses on */
        if (MPIDI_FTDEV_global.upper.policy.rebuilds) {
            mpi_errno = MPIDI_FTDEV_save_address(pid, peer + 1, peer->address_len);
            MPIR_ERR_CHECK(mpi_errno);
        }
        mpi_errno = MPIDI_FTDEV_save_net_address(pid, (char *) (peer + 1) + peer->address_len,
                                                 peer->net_address_len);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = MPIDU_bc_table_destroy();
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_post_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    char key[32];

    MPIDI_FTDEV_global.ucx.polls_before_yield = polls_before_yield();
    /* Until every process of its node has said this, the launcher ends the
     * job at a death (hydra-end-job-on-startup-death): the others may be
     * waiting for the dead one in a barrier of MPI_Init. */
    snprintf(key, sizeof(key), "ftmpi-init-done-%d", MPIR_Process.rank);
    mpi_errno = MPIR_pmi_kvs_put(key, "1");
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDI_FTDEV_heartbeat_start();
    MPIR_ERR_CHECK(mpi_errno);
    MPIDI_FTDEV_listener_guard_start();

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* FINALIZING from a peer: it is in MPI_Finalize. */
static void peer_finalizing(int from, int about, const void *payload, size_t len)
{
    MPIDI_FTDEV_global.peers.finalizing[from] = 1;
}

__attribute__ ((constructor))
static void register_finalizing_messages(void)
{
    MPIDI_FTDEV_ctrl_register(MPIDI_FTDEV_CTRL_FINALIZING, peer_finalizing, NULL);
}

/* Finalize without a PMI barrier, which would wait forever for a dead
 * process: every process tells every live peer that it is finalizing and
 * waits until each peer has said so too or is known to be gone (the
 * failure sources keep working meanwhile), and until its own notices have
 * left. Then no more traffic can come from or go to anyone, and each
 * process may close its endpoints and leave at its own pace. */
static int all_peers_finalizing(void *arg)
{
    ucs_status_ptr_t *notices = arg;
    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids + MPIDI_FTDEV_global.world.num_foreign; pid++) {
        if (pid == MPIDI_FTDEV_global.world.my_pid ||
            MPIDI_FTDEV_global.peers.state[pid] != MPIDI_FTDEV_PEER_ALIVE)
            continue;
        /* of other worlds' processes, only that the notice left */
        if (pid < MPIDI_FTDEV_global.world.num_pids && !MPIDI_FTDEV_global.peers.finalizing[pid])
            return 0;
        if (notices[pid] && ucp_request_check_status(notices[pid]) == UCS_INPROGRESS)
            return 0;
    }
    return 1;
}

/* Closing an endpoint cancels what is still under way on it (sends to a
 * receiver that a failure took away, or whose receive a failure
 * cancelled); UCX completes those requests while it closes, and the
 * worker must not be destroyed before (it would report them as leaked). */
static void close_all_eps(ucs_status_ptr_t * closing)
{
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
        .flags = UCP_EP_CLOSE_FLAG_FORCE,
    };
    int n = 0;
    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids + MPIDI_FTDEV_global.world.num_foreign; pid++) {
        MPIDI_FTDEV_addr_t *addr = &MPIDI_FTDEV_AV(MPIDI_FTDEV_peer_av(pid));
        if (addr->ep == NULL)
            continue;
        ucs_status_ptr_t r = ucp_ep_close_nbx(addr->ep, &param);
        addr->ep = NULL;
        if (r && !UCS_PTR_IS_ERR(r))
            closing[n++] = r;
    }
    MPL_time_t start, now;
    double elapsed = 0;
    MPL_wtime(&start);
    for (int i = 0; i < n; i++) {
        while (ucp_request_check_status(closing[i]) == UCS_INPROGRESS && elapsed < 1.0) {
            MPIDI_FTDEV_worker_progress();
            MPL_wtime(&now);
            MPL_wtime_diff(&start, &now, &elapsed);
        }
        ucp_request_free(closing[i]);
    }
}

int MPIDI_FTDEV_mpi_finalize_hook(void)
{
    int mpi_errno = MPI_SUCCESS;
    /* per process, the UCX request of the finalize notice to it, then that
     * of the closing of its endpoint */
    ucs_status_ptr_t *pending = NULL;

    /* without MPI_COMM_WORLD (sessions) the transport never started */
    if (MPIDI_FTDEV_global.ucx.worker == NULL)
        goto release;

    int num_known = MPIDI_FTDEV_global.world.num_pids + MPIDI_FTDEV_global.world.num_foreign;
    pending = MPL_calloc(num_known, sizeof(*pending), MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(pending == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    MPIDI_FTDEV_counters_trace();
    MPIDI_FTDEV_global.finalizing = 1;
    /* processes of other worlds are told too: this one's leaving is no
     * failure to them */
    for (int pid = 0; pid < num_known; pid++)
        if (pid != MPIDI_FTDEV_global.world.my_pid &&
            MPIDI_FTDEV_global.peers.state[pid] == MPIDI_FTDEV_PEER_ALIVE)
            MPIDI_FTDEV_send_ctrl(pid, MPIDI_FTDEV_CTRL_FINALIZING, MPIDI_FTDEV_global.world.my_pid,
                                  NULL, 0, &pending[pid]);
    mpi_errno = MPID_FT_wait(all_peers_finalizing, pending, "every peer in MPI_Finalize");
    for (int pid = 0; pid < num_known; pid++)
        if (pending[pid])
            ucp_request_release(pending[pid]);
    MPIR_ERR_CHECK(mpi_errno);
    /* everyone is here: nobody needs watching any more */
    MPIDI_FTDEV_heartbeat_stop();
    MPIDI_FTDEV_listener_guard_stop();
    /* nothing can match what is still unexpected (sent to a receive that
     * a failure cancelled, or of an epoch before a recovery) */
    mpi_errno = MPIDI_FTDEV_drain(0, 0);
    MPIR_ERR_CHECK(mpi_errno);
    /* and sends of such messages finish once their receivers have drained
     * them (as they do now), or when they leave */
    MPL_time_t start, now;
    double waited = 0;
    MPL_wtime(&start);
    while (MPIDI_FTDEV_global.ucx.sends_in_flight > 0 && waited < 1.0) {
        MPIDI_FTDEV_worker_progress();
        MPL_wtime(&now);
        MPL_wtime_diff(&start, &now, &waited);
    }

    close_all_eps(pending);
    ucp_worker_release_address(MPIDI_FTDEV_global.ucx.worker, MPIDI_FTDEV_global.ucx.address);
    ucp_worker_destroy(MPIDI_FTDEV_global.ucx.worker);
    MPIDI_FTDEV_global.ucx.worker = NULL;

  release:
    MPIDI_FTDEV_release_held_contexts();
    ucp_cleanup(MPIDI_FTDEV_global.ucx.context);
    MPIDI_FTDEV_ucx_log_release();
    MPIDI_FTDEV_ctrl_finalize();
    MPL_free(MPIDI_FTDEV_global.peers.reqs);
    MPL_free(MPIDI_FTDEV_global.peers.state);
    MPL_free(MPIDI_FTDEV_global.failures.log);
    MPL_free(MPIDI_FTDEV_global.peers.finalizing);
    for (int pid = 0; MPIDI_FTDEV_global.rebuild.peer_address && pid < MPIDI_FTDEV_global.world.pid_capacity;
         pid++)
        MPL_free(MPIDI_FTDEV_global.rebuild.peer_address[pid]);
    for (int pid = MPIDI_FTDEV_global.world.num_pids;
         MPIDI_FTDEV_global.world.foreign_av && pid < MPIDI_FTDEV_global.world.pid_capacity; pid++)
        MPL_free(MPIDI_FTDEV_global.world.foreign_av[pid]);
    MPIDI_FTDEV_close_net_addresses();
    MPL_free(MPIDI_FTDEV_global.world.foreign_av);
    MPL_free(MPIDI_FTDEV_global.world.foreign_world_id);
    MPIDI_FTDEV_global.world.foreign_world_id = NULL;
    MPL_free(MPIDI_FTDEV_global.world.pid_of_foreign_tag_pid);
    MPIDI_FTDEV_global.world.foreign_av = NULL;
    MPIDI_FTDEV_global.world.pid_of_foreign_tag_pid = NULL;
    MPL_free(MPIDI_FTDEV_global.rebuild.peer_address);
    MPL_free(MPIDI_FTDEV_global.rebuild.peer_address_len);
    MPL_free(MPIDI_FTDEV_global.rebuild.replaced);
    MPL_free(MPIDI_FTDEV_global.peers.hb);
    MPIDI_FTDEV_global.peers.reqs = NULL;

  fn_exit:
    MPL_free(pending);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
