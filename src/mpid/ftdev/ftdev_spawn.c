/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Dynamic processes: what ch4's MPI_Comm_spawn, connect and accept need
 * of a netmod. A process is named across worlds by its tag pid, the id its
 * messages carry: a world's processes hold consecutive tag pids from the
 * world's base, and a spawned world takes its base from the first tag pid
 * its parent knew unused, and its parent's tag layout. A process of another
 * world gets a pid here from num_pids on, an endpoint that reports its
 * failure, and an entry in an address table of its own (the ones ch4's
 * communicators point to are copies).
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_rebuild.h"
#include "ftdev_spawn.h"

/* A process's upid: MPIDI_FTDEV_upid_header_t (ftdev_wire.h), then its
 * worker address. */
_Static_assert(MPIDI_FTDEV_UPID_MAX_BYTES == MPI_MAX_PORT_NAME, "a upid's room in ch4");
_Static_assert(MPIDI_FTDEV_UPID_MAX_PID_BITS == MPIDI_FTDEV_MAX_PID_BITS, "the tag layout's limit");
typedef MPIDI_FTDEV_upid_header_t upid_header_t;

/* Messages of connect/accept: a context id no communicator takes, and the
 * port's tag in the tag field */
#define DYNPROC_TAG(port_tag_) (MPIDI_FTDEV_CONTEXT_FIELD(0xffff) | MPIDI_FTDEV_EPOCH_MASK | \
                                ((uint64_t) (port_tag_) & 0xffffffffu))
#define DYNPROC_MASK (~(uint64_t) 0 & ~MPIDI_FTDEV_global.tag.pid_mask)

static int pid_bits(void)
{
    int bits = 0;
    while ((1 << bits) < MPIDI_FTDEV_global.world.pid_capacity)
        bits++;
    return bits;
}

static int parse_upid(const char *upid, int len, upid_header_t * h, const void **address)
{
    int mpi_errno = MPI_SUCCESS;
    const char *wrong = MPIDI_FTDEV_upid_open(upid, len, h, address);
    MPIR_ERR_CHKANDJUMP1(wrong, mpi_errno, MPI_ERR_OTHER, "**ftdev_upid", "**ftdev_upid %s",
                         wrong);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_spawned_world_layout(int num_pids, int *base, int *bits)
{
    int mpi_errno = MPI_SUCCESS;
    char *port = MPL_malloc(MPI_MAX_PORT_NAME, MPL_MEM_OTHER);
    char *upid = MPL_malloc(MPI_MAX_PORT_NAME, MPL_MEM_OTHER);
    int len;
    upid_header_t h;
    const void *address;

    MPIR_ERR_CHKANDJUMP(port == NULL || upid == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = MPIR_pmi_kvs_get(-1, MPIDI_PARENT_PORT_KVSKEY, port, MPI_MAX_PORT_NAME);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP1(MPL_str_get_binary_arg(port, "connentry", upid, MPI_MAX_PORT_NAME,
                                                &len) != MPL_SUCCESS, mpi_errno, MPI_ERR_OTHER,
                         "**ftdev_upid", "**ftdev_upid %s", "the parent's port names no process");
    mpi_errno = parse_upid(upid, len, &h, &address);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP3(h.pid_bits < *bits || h.tag_pid_next + num_pids > (1 << h.pid_bits),
                         mpi_errno, MPI_ERR_SPAWN, "**ftdev_spawnroom",
                         "**ftdev_spawnroom %d %d %d", num_pids, h.tag_pid_next,
                         1 << h.pid_bits);
    *base = h.tag_pid_next;
    *bits = h.pid_bits;

  fn_exit:
    MPL_free(port);
    MPL_free(upid);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- upids ------------------------------------------------------------------ */

/* per pid, its network address (ftdev_spawn.h) */
static void **net_address;
static size_t *net_address_len;

int MPIDI_FTDEV_save_net_address(int pid, const void *address, size_t len)
{
    int mpi_errno = MPI_SUCCESS;
    int n = MPIDI_FTDEV_global.world.pid_capacity;

    if (net_address == NULL) {
        net_address = MPL_calloc(n, sizeof(void *), MPL_MEM_ADDRESS);
        net_address_len = MPL_calloc(n, sizeof(size_t), MPL_MEM_ADDRESS);
        MPIR_ERR_CHKANDJUMP(net_address == NULL || net_address_len == NULL, mpi_errno,
                            MPI_ERR_OTHER, "**nomem");
    }
    mpi_errno = MPIDI_FTDEV_keep_address_copy(&net_address[pid], &net_address_len[pid], address,
                                              len);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_open_net_address(const void **address, size_t * len)
{
    int mpi_errno = MPI_SUCCESS;
    int me = MPIDI_FTDEV_global.world.my_pid;

    if (net_address == NULL || net_address[me] == NULL) {
        ucp_worker_attr_t attr = {
            .field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS | UCP_WORKER_ATTR_FIELD_ADDRESS_FLAGS,
            /* a port name holds about 120 bytes of it: the network
             * transports' part of an address is that short, all of it is not */
            .address_flags = UCP_WORKER_ADDRESS_FLAG_NET_ONLY,
        };
        ucs_status_t status = ucp_worker_query(MPIDI_FTDEV_global.ucx.worker, &attr);
        MPIDI_FTDEV_CHK_STATUS(status);
        mpi_errno = MPIDI_FTDEV_save_net_address(me, attr.address, attr.address_length);
        ucp_worker_release_address(MPIDI_FTDEV_global.ucx.worker, attr.address);
        MPIR_ERR_CHECK(mpi_errno);
    }
    *address = net_address[me];
    *len = net_address_len[me];

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void MPIDI_FTDEV_close_net_addresses(void)
{
    for (int pid = 0; net_address && pid < MPIDI_FTDEV_global.world.pid_capacity; pid++)
        MPL_free(net_address[pid]);
    MPL_free(net_address);
    MPL_free(net_address_len);
    net_address = NULL;
    net_address_len = NULL;
}

static int upid_of(int pid, char **upid, int *len)
{
    int mpi_errno = MPI_SUCCESS;
    const void *address;
    size_t address_len;

    *upid = NULL;
    if (pid == MPIDI_FTDEV_global.world.my_pid) {
        mpi_errno = MPIDI_FTDEV_open_net_address(&address, &address_len);
        MPIR_ERR_CHECK(mpi_errno);
    } else {
        address = net_address ? net_address[pid] : NULL;
        address_len = net_address ? net_address_len[pid] : 0;
        /* a REBUILD replacement learns no other's */
        MPIR_ERR_CHKANDJUMP1(address == NULL, mpi_errno, MPI_ERR_OTHER, "**ftdev_upid",
                             "**ftdev_upid %s", "a member's address is not known here");
    }
    /* its padding too goes to the other side */
    upid_header_t h;
    memset(&h, 0, sizeof(h));
    h.magic = MPIDI_FTDEV_UPID_MAGIC;
    h.tag_pid = MPIDI_FTDEV_AV(MPIDI_FTDEV_peer_av(pid)).tag_pid;
    h.pid_bits = pid_bits();
    h.tag_pid_next = MPIDI_FTDEV_global.world.tag_pid_next;
    h.world_id = pid < MPIDI_FTDEV_global.world.num_pids ? MPIDI_FTDEV_global.world.id :
        MPIDI_FTDEV_global.world.foreign_world_id[pid];
    h.address_len = (uint32_t) address_len;
    *len = (int) (sizeof(h) + address_len);
    *upid = MPL_malloc(*len, MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP(*upid == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    memcpy(*upid, &h, sizeof(h));
    memcpy(*upid + sizeof(h), address, address_len);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int local_pid(MPIR_Comm * comm, int rank)
{
    int avtid, lpid;
    if (comm->comm_kind == MPIR_COMM_KIND__INTERCOMM)
        MPIDIU_comm_rank_to_pid_local(comm, rank, &lpid, &avtid);
    else
        MPIDIU_comm_rank_to_pid(comm, rank, &lpid, &avtid);
    return MPIDI_FTDEV_AV(&MPIDIU_get_av(avtid, lpid)).pid;
}

int MPIDI_FTDEV_get_local_upids(MPIR_Comm * comm, int **local_upid_size, char **local_upids)
{
    int mpi_errno = MPI_SUCCESS;
    int n = comm->local_size, total = 0;
    char **each = MPL_calloc(n, sizeof(char *), MPL_MEM_ADDRESS);

    *local_upid_size = MPL_malloc(n * sizeof(int), MPL_MEM_ADDRESS);
    *local_upids = NULL;
    MPIR_ERR_CHKANDJUMP(each == NULL || *local_upid_size == NULL, mpi_errno, MPI_ERR_OTHER,
                        "**nomem");
    for (int i = 0; i < n; i++) {
        mpi_errno = upid_of(local_pid(comm, i), &each[i], &(*local_upid_size)[i]);
        MPIR_ERR_CHECK(mpi_errno);
        total += (*local_upid_size)[i];
    }
    *local_upids = MPL_malloc(total, MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP(*local_upids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    for (int i = 0, at = 0; i < n; at += (*local_upid_size)[i], i++)
        memcpy(*local_upids + at, each[i], (*local_upid_size)[i]);

  fn_exit:
    for (int i = 0; each && i < n; i++)
        MPL_free(each[i]);
    MPL_free(each);
    return mpi_errno;
  fn_fail:
    MPL_free(*local_upid_size);
    MPL_free(*local_upids);
    *local_upid_size = NULL;
    *local_upids = NULL;
    goto fn_exit;
}

/* The pid of the process a upid names, made here if it is new. */
static int pid_of_upid(const upid_header_t * h, const void *address, int *pid)
{
    int mpi_errno = MPI_SUCCESS;
    int in_world = h->tag_pid - MPIDI_FTDEV_global.world.base;
    int bits = pid_bits();

    /* then h->tag_pid, below 2^h->pid_bits (parse_upid), indexes the
     * tables of pid_capacity entries */
    MPIR_ERR_CHKANDJUMP2(h->pid_bits != bits, mpi_errno, MPI_ERR_OTHER, "**ftdev_pidbits",
                         "**ftdev_pidbits %d %d", h->pid_bits, bits);
    if (in_world >= 0 && in_world < MPIDI_FTDEV_global.world.num_pids) {
        /* two jobs launched apart both number from 0 */
        MPIR_ERR_CHKANDJUMP1(h->world_id && MPIDI_FTDEV_global.world.id &&
                             h->world_id != MPIDI_FTDEV_global.world.id, mpi_errno,
                             MPI_ERR_OTHER, "**ftdev_pidclash", "**ftdev_pidclash %d",
                             h->tag_pid);
        *pid = in_world;
        goto fn_exit;
    }
    *pid = MPIDI_FTDEV_global.world.pid_of_foreign_tag_pid[h->tag_pid];
    if (*pid >= 0) {
        MPIR_ERR_CHKANDJUMP1(h->world_id && MPIDI_FTDEV_global.world.foreign_world_id[*pid] &&
                             h->world_id != MPIDI_FTDEV_global.world.foreign_world_id[*pid], mpi_errno,
                             MPI_ERR_OTHER, "**ftdev_pidclash", "**ftdev_pidclash %d",
                             h->tag_pid);
        goto fn_exit;
    }

    int new_pid = MPIDI_FTDEV_global.world.num_pids + MPIDI_FTDEV_global.world.num_foreign;
    MPIR_ERR_CHKANDJUMP1(new_pid >= MPIDI_FTDEV_global.world.pid_capacity, mpi_errno, MPI_ERR_OTHER,
                         "**ftdev_foreignfull", "**ftdev_foreignfull %d",
                         MPIDI_FTDEV_global.world.pid_capacity);
    MPIDI_av_entry_t *av = MPL_calloc(1, sizeof(*av), MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP(av == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    MPIDI_FTDEV_global.world.foreign_av[new_pid] = av;
    MPIDI_FTDEV_AV(av).pid = new_pid;
    MPIDI_FTDEV_AV(av).tag_pid = h->tag_pid;
    mpi_errno = MPIDI_FTDEV_save_net_address(new_pid, address, h->address_len);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDI_FTDEV_create_ep(new_pid, address, &MPIDI_FTDEV_AV(av).ep);
    MPIR_ERR_CHECK(mpi_errno);
    MPIDI_FTDEV_global.world.foreign_world_id[new_pid] = h->world_id;
    MPIDI_FTDEV_global.world.pid_of_foreign_tag_pid[h->tag_pid] = new_pid;
    MPIDI_FTDEV_global.world.num_foreign++;
    MPIDI_FTDEV_set_peer_state(new_pid, MPIDI_FTDEV_PEER_ALIVE);
    MPID_FT_TRACE("spawn: process of tag pid %d (another world) is pid %d here", h->tag_pid,
                  new_pid);
    *pid = new_pid;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The (table, index) of pid in an address table other than the world's */
static int find_in_tables(int pid, uint64_t * gpid)
{
    for (int avtid = 1; avtid < MPIDIU_get_n_avts(); avtid++) {
        MPIDI_av_table_t *t = MPIDIU_get_av_table(avtid);
        for (int i = 0; t && i < t->size; i++)
            if (MPIDI_FTDEV_AV(&t->table[i]).pid == pid) {
                *gpid = MPIDIU_GPID_CREATE(avtid, i);
                return 1;
            }
    }
    return 0;
}

int MPIDI_FTDEV_upids_to_gpids(int size, int *remote_upid_size, char *remote_upids,
                               uint64_t * remote_gpids)
{
    int mpi_errno = MPI_SUCCESS;
    int *unplaced = NULL, *pid = NULL;
    int n_unplaced = 0;
    const char *upid = remote_upids;

    /* the sizes and the names are the other side's word: all of them are
     * checked before this process takes in any */
    const char *wrong = MPIDI_FTDEV_upids_check(size, remote_upid_size, remote_upids);
    MPIR_ERR_CHKANDJUMP1(wrong, mpi_errno, MPI_ERR_OTHER, "**ftdev_upid", "**ftdev_upid %s",
                         wrong);
    unplaced = MPL_malloc(size * sizeof(int), MPL_MEM_ADDRESS);
    pid = MPL_malloc(size * sizeof(int), MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP(unplaced == NULL || pid == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    for (int i = 0; i < size; upid += remote_upid_size[i], i++) {
        upid_header_t h;
        const void *address;
        mpi_errno = parse_upid(upid, remote_upid_size[i], &h, &address);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = pid_of_upid(&h, address, &pid[i]);
        MPIR_ERR_CHECK(mpi_errno);
        MPIDI_FTDEV_global.world.tag_pid_next = MPL_MAX(MPIDI_FTDEV_global.world.tag_pid_next,
                                                  MPL_MAX(h.tag_pid + 1, h.tag_pid_next));
        if (pid[i] < MPIDI_FTDEV_global.world.num_pids)
            remote_gpids[i] = MPIDIU_GPID_CREATE(0, pid[i]);
        else if (!find_in_tables(pid[i], &remote_gpids[i]))
            unplaced[n_unplaced++] = i;
    }
    if (n_unplaced > 0) {
        int avtid;
        mpi_errno = MPIDIU_new_avt(n_unplaced, &avtid);
        MPIR_ERR_CHECK(mpi_errno);
        for (int k = 0; k < n_unplaced; k++) {
            int i = unplaced[k];
            MPIDIU_get_av(avtid, k) = *MPIDI_FTDEV_global.world.foreign_av[pid[i]];
            remote_gpids[i] = MPIDIU_GPID_CREATE(avtid, k);
        }
    }

  fn_exit:
    MPL_free(unplaced);
    MPL_free(pid);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- the messages of connect/accept ------------------------------------------ */

typedef struct {
    int done;
    ucs_status_t status;
} dynproc_wait_t;

static void dynproc_sent(void *request, ucs_status_t status, void *user_data)
{
    dynproc_wait_t *w = user_data;
    w->status = status;
    w->done = 1;
}

static void dynproc_received(void *request, ucs_status_t status, const ucp_tag_recv_info_t * info,
                             void *user_data)
{
    dynproc_sent(request, status, user_data);
}

/* Until the transfer ends, timeout seconds (0: no limit) have passed, or
 * the launcher says that the children a spawn waits for have ended; then
 * it is cancelled. */
static int dynproc_wait(ucs_status_ptr_t r, dynproc_wait_t * w, int timeout, const char *what)
{
    int mpi_errno = MPI_SUCCESS;
    MPL_time_t start, now;
    double waited = 0;

    MPIDI_FTDEV_CHK_REQUEST(r);
    if (r == NULL)
        goto fn_exit;
    MPL_wtime(&start);
    int children_ended = 0;
    while (!w->done && (timeout == 0 || waited < timeout) && !children_ended) {
        mpi_errno = MPID_Progress_test(NULL);
        MPIR_ERR_CHECK(mpi_errno);
        MPL_wtime(&now);
        MPL_wtime_diff(&start, &now, &waited);
        children_ended = !w->done && MPIDIU_spawned_children_ended();
    }
    if (!w->done) {
        ucp_request_cancel(MPIDI_FTDEV_global.ucx.worker, r);
        while (!w->done)
            MPIDI_FTDEV_worker_progress();
        ucp_request_free(r);
        MPIR_ERR_CHKANDJUMP(children_ended, mpi_errno, MPI_ERR_SPAWN, "**spawn_died");
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_PORT, "**ftdev_dynproc_timeout",
                             "**ftdev_dynproc_timeout %s %d", what, timeout);
    }
    ucp_request_free(r);
    MPIR_ERR_CHKANDJUMP2(w->status != UCS_OK, mpi_errno, MPI_ERR_PORT, "**ftdev_dynproc",
                         "**ftdev_dynproc %s %s", what, ucs_status_string(w->status));

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_dynamic_send(uint64_t remote_gpid, int tag, const void *buf, int size, int timeout)
{
    int mpi_errno = MPI_SUCCESS;
    dynproc_wait_t w = { 0 };
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = dynproc_sent,
        .user_data = &w,
    };
    /* ftdev's own entry of the process: ch4's copy keeps a closed endpoint */
    int pid = MPIDI_FTDEV_AV(&MPIDIU_get_av(MPIDIU_GPID_GET_AVTID(remote_gpid),
                                            MPIDIU_GPID_GET_LPID(remote_gpid))).pid;
    MPIDI_av_entry_t *av = MPIDI_FTDEV_peer_av(pid);

    MPIR_ERR_CHKANDJUMP2(MPIDI_FTDEV_AV(av).ep == NULL, mpi_errno, MPI_ERR_PORT,
                         "**ftdev_dynproc", "**ftdev_dynproc %s %s", "connect/accept",
                         "the other side has failed");
    ucs_status_ptr_t r = ucp_tag_send_nbx(MPIDI_FTDEV_AV(av).ep, buf, size, DYNPROC_TAG(tag),
                                          &param);
    mpi_errno = dynproc_wait(r, &w, timeout, "sending to the other side");

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_dynamic_recv(int tag, void *buf, int size, int timeout)
{
    dynproc_wait_t w = { 0 };
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.recv = dynproc_received,
        .user_data = &w,
    };
    ucs_status_ptr_t r = ucp_tag_recv_nbx(MPIDI_FTDEV_global.ucx.worker, buf, size, DYNPROC_TAG(tag),
                                          DYNPROC_MASK, &param);
    return dynproc_wait(r, &w, timeout, "waiting for the other side");
}
