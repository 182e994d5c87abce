/*
 * FT-MPICH: ch4 netmod "ftdev".
 *
 * Start-up and shut-down: UCX context and worker, worker-address exchange
 * through PMI business cards, one endpoint per process.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "mpidu_bc.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

categories :
    - name : CH4_FTDEV
      description : A category for the CH4 ftdev (fault-tolerant) netmod

cvars:
    - name        : MPIR_CVAR_CH4_FTDEV_IDLE_POLLS_BEFORE_YIELD
      category    : CH4_FTDEV
      type        : int
      default     : 64
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        After this many consecutive polls of the network that found nothing
        to do, a waiting process yields its core (sched_yield) on every
        further idle poll, so that processes sharing a core reach each other
        in microseconds rather than scheduler time slices. A process alone on
        its core returns from the yield at once. 0 never yields.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

/* UCX settings ftdev depends on, applied unless the user set them.
 * Endpoints use peer-failure error handling; in that mode UCX 1.13 leaves
 * shared memory (and cma for large messages) out, and quietly runs
 * node-local traffic over TCP at ten times the latency, unless told that
 * both may be used with error handling. */
static void set_ucx_defaults(void)
{
    static const char *const defaults[][2] = {
        {"UCX_MM_ERROR_HANDLING", "y"},
        {"UCX_CMA_MEMORY_INVALIDATE", "y"},
    };
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        setenv(defaults[i][0], defaults[i][1], 0 /* keep the user's value */);
}

static void ucp_request_init_cb(void *request)
{
    MPIDI_FTDEV_ucp_request_t *r = request;
    r->req = NULL;
    r->buf = NULL;
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

    set_ucx_defaults();
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
    status = ucp_init(&params, config, &MPIDI_FTDEV_global.context);
    ucp_config_release(config);
    MPIDI_FTDEV_CHK_STATUS(status);

    MPIDI_FTDEV_global.my_pid = MPIR_Process.rank;
    MPIDI_FTDEV_global.num_pids = MPIR_Process.size;
    MPIDI_FTDEV_global.epoch = 0;
    MPIDI_FTDEV_global.peer_reqs = MPL_calloc(MPIR_Process.size, sizeof(MPIR_Request *),
                                              MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(MPIDI_FTDEV_global.peer_reqs == NULL, mpi_errno, MPI_ERR_OTHER,
                        "**nomem");
    MPIDI_FTDEV_global.wildcard_reqs = NULL;

    *tag_bits = MPIDI_FTDEV_TAG_BITS;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static void ep_error_cb(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    MPIR_FTMPI_peer_failed((int) (intptr_t) arg, ucs_status_string(status));
}

/* Every endpoint reports a peer's failure, except the one to this process
 * itself: UCX's loopback transport has no peer-failure support, and a
 * process cannot outlive itself. */
static int create_ep(int pid, const ucp_address_t * address, ucp_ep_h * ep)
{
    int mpi_errno = MPI_SUCCESS;
    ucp_ep_params_t params = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
        .address = address,
    };
    if (pid != MPIDI_FTDEV_global.my_pid) {
        params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
        params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        params.err_handler.cb = ep_error_cb;
        params.err_handler.arg = (void *) (intptr_t) pid;
    }
    ucs_status_t status = ucp_ep_create(MPIDI_FTDEV_global.worker, &params, ep);
    MPIDI_FTDEV_CHK_STATUS(status);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_init_world(void)
{
    int mpi_errno = MPI_SUCCESS;
    ucs_status_t status;
    void *table;
    int bc_len;

    MPIR_ERR_CHKANDJUMP(MPIR_CVAR_CH4_ROOTS_ONLY_PMI, mpi_errno, MPI_ERR_OTHER,
                        "**ftdev_rootsonly");

    ucp_worker_params_t worker_params = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_SERIALIZED,
    };
    status = ucp_worker_create(MPIDI_FTDEV_global.context, &worker_params,
                               &MPIDI_FTDEV_global.worker);
    MPIDI_FTDEV_CHK_STATUS(status);

    ucp_am_handler_param_t am_param = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
            UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        .id = MPIDI_FTDEV_AM_MPIDIG,
        .cb = MPIDI_FTDEV_am_recv_cb,
        .flags = UCP_AM_FLAG_WHOLE_MSG,
    };
    status = ucp_worker_set_am_recv_handler(MPIDI_FTDEV_global.worker, &am_param);
    MPIDI_FTDEV_CHK_STATUS(status);

    status = ucp_worker_get_address(MPIDI_FTDEV_global.worker, &MPIDI_FTDEV_global.address,
                                    &MPIDI_FTDEV_global.address_len);
    MPIDI_FTDEV_CHK_STATUS(status);

    mpi_errno = MPIDU_bc_table_create(MPIR_Process.rank, MPIR_Process.size,
                                      MPIR_Process.node_map, MPIDI_FTDEV_global.address,
                                      (int) MPIDI_FTDEV_global.address_len, FALSE, FALSE,
                                      &table, &bc_len);
    MPIR_ERR_CHECK(mpi_errno);

    for (int pid = 0; pid < MPIR_Process.size; pid++) {
        MPIDI_FTDEV_addr_t *addr = &MPIDI_FTDEV_AV(&MPIDIU_get_av(0, pid));
        addr->pid = pid;
        mpi_errno = create_ep(pid, (ucp_address_t *) ((char *) table + pid * bc_len), &addr->ep);
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
    return MPI_SUCCESS;
}

/* How long finalize waits for endpoints to flush before it gives up on
 * them: a peer that stopped progressing must not hold this process. */
#define MPIDI_FTDEV_CLOSE_TIMEOUT_SEC 5.0

static void close_all_eps(void)
{
    int n = MPIR_Process.size;
    ucs_status_ptr_t *pending = MPL_malloc(n * sizeof(*pending), MPL_MEM_OTHER);
    ucp_request_param_t param = {.op_attr_mask = 0 };
    int npending = 0;

    for (int pid = 0; pid < n; pid++) {
        MPIDI_FTDEV_addr_t *addr = &MPIDI_FTDEV_AV(&MPIDIU_get_av(0, pid));
        if (addr->ep == NULL)
            continue;
        ucs_status_ptr_t r = ucp_ep_close_nbx(addr->ep, &param);
        addr->ep = NULL;
        if (r != NULL && !UCS_PTR_IS_ERR(r))
            pending[npending++] = r;
    }

    MPL_time_t start, now;
    double elapsed = 0;
    MPL_wtime(&start);
    while (npending > 0 && elapsed < MPIDI_FTDEV_CLOSE_TIMEOUT_SEC) {
        ucp_worker_progress(MPIDI_FTDEV_global.worker);
        for (int i = 0; i < npending; i++) {
            if (ucp_request_check_status(pending[i]) != UCS_INPROGRESS) {
                ucp_request_free(pending[i]);
                pending[i--] = pending[--npending];
            }
        }
        MPL_wtime(&now);
        MPL_wtime_diff(&start, &now, &elapsed);
    }
    for (int i = 0; i < npending; i++)
        ucp_request_free(pending[i]);
    MPL_free(pending);
}

int MPIDI_FTDEV_mpi_finalize_hook(void)
{
    int mpi_errno = MPI_SUCCESS;

    /* Everyone stops sending and treats endpoint errors as departures
     * before anyone closes an endpoint. */
    MPIR_FTMPI_begin_finalize();
    mpi_errno = MPIR_pmi_barrier();
    MPIR_ERR_CHECK(mpi_errno);

    close_all_eps();

    /* No worker disappears while a peer may still be flushing to it. */
    mpi_errno = MPIR_pmi_barrier();
    MPIR_ERR_CHECK(mpi_errno);

    ucp_worker_release_address(MPIDI_FTDEV_global.worker, MPIDI_FTDEV_global.address);
    ucp_worker_destroy(MPIDI_FTDEV_global.worker);
    ucp_cleanup(MPIDI_FTDEV_global.context);
    MPL_free(MPIDI_FTDEV_global.peer_reqs);
    MPIDI_FTDEV_global.peer_reqs = NULL;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
