/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: ch4 netmod "ftdev".
 *
 * REBUILD: failed processes are replaced by new ones, which take over
 * their ranks. After the survivors agree on the dead (ftmpi_agree.c), the
 * process that decided coordinates:
 *   1. every other survivor moves to the new epoch, then sends READY;
 *   2. the coordinator publishes its worker address in the launcher's name
 *      service and asks the launcher for one new process per dead one
 *      (PMI spawn, the path of MPI_Comm_spawn: same executable and
 *      arguments, placed by Hydra); the spawn's preput key tells each new
 *      process which rank it replaces, the epoch and where the coordinator's
 *      address is;
 *   3. each replacement, in MPI_Init, connects to the coordinator and sends
 *      HELLO with its own address;
 *   4. with READY from every survivor and HELLO from every replacement, the
 *      coordinator sends WELCOME (every address, the job's modes) to each
 *      replacement and REBUILT (the replacements' addresses) to each
 *      survivor. Everyone connects to the replacements; MPI_COMM_WORLD has
 *      its size again and every rank a live process.
 * READY comes after the survivor dropped what the dead had sent it, so
 * nothing a replacement sends can be taken for the dead process's.
 *
 * Failures meanwhile: a survivor that dies is left out; a replacement that
 * dies after its HELLO is not installed: either failure is pending after the
 * rebuild, and the next recovery replaces that process. If the coordinator
 * dies before REBUILT, the survivors agree again and the next coordinator
 * starts over; its replacements see it die and leave. WELCOME goes out only
 * after every REBUILT, so if it dies half-way through the REBUILTs, no
 * replacement has joined: those leave, the survivors that installed them
 * see that as a failure, and the next recovery makes every view the same. A replacement that
 * never says HELLO within MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT seconds, or a
 * launcher that refuses the spawn, is a pathological failure: the job ends
 * with a message that says so.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <unistd.h>
#ifdef USE_PMI1_API
#include "pmi.h"
#endif

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

#define REJOIN_KEY "ftmpi-rejoin"
/* hex characters per name-service entry (a port name holds 255) */
#define ADDRESS_CHUNK 240

enum { MSG_READY = 1, MSG_HELLO, MSG_WELCOME, MSG_REBUILT };
/* ENTRY_LEAVING: alive but in MPI_Finalize, where it told the others so
 * before the replacement existed */
enum { ENTRY_ALIVE = 0, ENTRY_DEAD, ENTRY_REPLACED, ENTRY_LEAVING };

typedef struct {
    uint32_t kind;
    uint32_t epoch;
    uint32_t count;             /* entries that follow */
    uint32_t pad;
    MPIR_FTMPI_modes_t modes;   /* the sender's */
} rebuild_msg_t;

typedef struct {
    int32_t pid;
    uint32_t state;             /* ENTRY_* */
    uint32_t address_len;       /* bytes of worker address that follow, padded to 8 */
    int32_t node;               /* WELCOME: its node in MPIR_Process.node_map */
    MPIDI_FTDEV_hb_contact_t heartbeat;
} rebuild_entry_t;

#define NO_EPOCH UINT32_MAX

static struct {
    int allocated;
    /* the coordinator's view of the others, per process id */
    uint32_t *ready_epoch;
    uint32_t *hello_epoch;
    void **hello_address;
    size_t *hello_len;
    MPIDI_FTDEV_hb_contact_t *hello_hb;
    ucp_ep_h *hello_ep;
    uint8_t *hello_died;
    /* the last WELCOME or REBUILT, as received */
    rebuild_msg_t *received;
    /* a replacement, from the spawn's preput key */
    uint32_t rejoin_epoch;
    int rejoin_coordinator;
    int rejoin_chunks;
    char rejoin_job[256];
    /* the coordinator's operating-system process id and host */
    long rejoin_ospid;
    char rejoin_host[256];
} rb;

static int alloc_state(void)
{
    int n = MPIDI_FTDEV_global.num_pids;
    if (rb.allocated)
        return MPI_SUCCESS;
    rb.ready_epoch = MPL_malloc(n * sizeof(uint32_t), MPL_MEM_OTHER);
    rb.hello_epoch = MPL_malloc(n * sizeof(uint32_t), MPL_MEM_OTHER);
    rb.hello_address = MPL_calloc(n, sizeof(void *), MPL_MEM_OTHER);
    rb.hello_len = MPL_calloc(n, sizeof(size_t), MPL_MEM_OTHER);
    rb.hello_hb = MPL_calloc(n, sizeof(MPIDI_FTDEV_hb_contact_t), MPL_MEM_OTHER);
    rb.hello_ep = MPL_calloc(n, sizeof(ucp_ep_h), MPL_MEM_OTHER);
    rb.hello_died = MPL_calloc(n, 1, MPL_MEM_OTHER);
    if (!rb.ready_epoch || !rb.hello_epoch || !rb.hello_address || !rb.hello_len || !rb.hello_hb ||
        !rb.hello_ep || !rb.hello_died)
        return MPI_ERR_NO_MEM;
    for (int p = 0; p < n; p++)
        rb.ready_epoch[p] = rb.hello_epoch[p] = NO_EPOCH;
    rb.allocated = 1;
    return MPI_SUCCESS;
}

/* ---- messages ---------------------------------------------------------------- */

static size_t entry_size(size_t address_len)
{
    return sizeof(rebuild_entry_t) + ((address_len + 7) & ~(size_t) 7);
}

static const rebuild_entry_t *next_entry(const rebuild_entry_t * e)
{
    return (const rebuild_entry_t *) ((const char *) e + entry_size(e->address_len));
}

static rebuild_entry_t *put_entry(rebuild_entry_t * e, int pid, int state, const void *address,
                                  size_t len, const MPIDI_FTDEV_hb_contact_t * heartbeat)
{
    e->pid = pid;
    e->state = state;
    e->address_len = (uint32_t) len;
    e->node = MPIR_Process.node_map[pid];
    e->heartbeat = *heartbeat;
    if (len)
        memcpy(e + 1, address, len);
    return (rebuild_entry_t *) ((char *) e + entry_size(len));
}

static rebuild_msg_t *new_msg(uint32_t kind, uint32_t epoch, size_t entries_len, size_t *len)
{
    *len = sizeof(rebuild_msg_t) + entries_len;
    rebuild_msg_t *m = MPL_calloc(1, *len, MPL_MEM_OTHER);
    if (m) {
        m->kind = kind;
        m->epoch = epoch;
        m->modes = MPIR_FTMPI_modes;
    }
    return m;
}

static int send_msg(int to, rebuild_msg_t * m, size_t len)
{
    return MPIDI_FTDEV_send_ctrl(to, MPIDI_FTDEV_CTRL_REBUILD, MPIDI_FTDEV_global.my_pid, m, len,
                                 NULL);
}

/* A REBUILD control message from process `from` (also from a replacement
 * not installed yet). */
static void rebuild_message(int from, int about, const void *buf, size_t len)
{
    const rebuild_msg_t *m = buf;

    if (alloc_state() != MPI_SUCCESS || len < sizeof(*m) || from < 0 ||
        from >= MPIDI_FTDEV_global.num_pids)
        return;
    MPIR_FTMPI_TRACE("rebuild: %s epoch %u from %d",
                     m->kind == MSG_READY ? "ready" : m->kind == MSG_HELLO ? "hello" :
                     m->kind == MSG_WELCOME ? "welcome" : "rebuilt", m->epoch, from);
    switch (m->kind) {
        case MSG_READY:
            rb.ready_epoch[from] = m->epoch;
            break;
        case MSG_HELLO:{
                const rebuild_entry_t *e = (const rebuild_entry_t *) (m + 1);
                void *address = MPL_malloc(e->address_len, MPL_MEM_ADDRESS);
                if (address == NULL)
                    return;
                memcpy(address, e + 1, e->address_len);
                MPL_free(rb.hello_address[from]);
                rb.hello_address[from] = address;
                rb.hello_len[from] = e->address_len;
                rb.hello_hb[from] = e->heartbeat;
                rb.hello_epoch[from] = m->epoch;
                break;
            }
        case MSG_WELCOME:
        case MSG_REBUILT:{
                rebuild_msg_t *copy = MPL_malloc(len, MPL_MEM_OTHER);
                if (copy == NULL)
                    return;
                memcpy(copy, m, len);
                MPL_free(rb.received);
                rb.received = copy;
                break;
            }
    }
}

__attribute__ ((constructor))
static void register_rebuild_messages(void)
{
    MPIDI_FTDEV_ctrl_register(MPIDI_FTDEV_CTRL_REBUILD, rebuild_message, NULL);
}

static int received(uint32_t kind, uint32_t epoch)
{
    return rb.received && rb.received->kind == kind && rb.received->epoch == epoch;
}

/* ---- addresses and endpoints --------------------------------------------------- */

int MPIDI_FTDEV_save_address(int pid, const void *address, size_t len)
{
    void *copy = MPL_malloc(len, MPL_MEM_ADDRESS);
    if (copy == NULL)
        return MPI_ERR_NO_MEM;
    memcpy(copy, address, len);
    MPL_free(MPIDI_FTDEV_global.peer_address[pid]);
    MPIDI_FTDEV_global.peer_address[pid] = copy;
    MPIDI_FTDEV_global.peer_address_len[pid] = len;
    return MPI_SUCCESS;
}

int MPIDI_FTDEV_replacement_ep_failed(int pid)
{
    if (!rb.allocated || rb.hello_ep[pid] == NULL ||
        MPIDI_FTDEV_global.peer_state[pid] == MPIDI_FTDEV_PEER_ALIVE)
        return 0;
    rb.hello_died[pid] = 1;
    return 1;
}

/* Process `pid` is alive again, at `address`. */
static int install(int pid, const void *address, size_t len, ucp_ep_h ep,
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
    if (MPIDI_FTDEV_global.peer_state[pid] != MPIDI_FTDEV_PEER_ALIVE) {
        MPIDI_FTDEV_global.num_refusal_causes--;
        MPIDI_FTDEV_forget_failure(pid);
    }
    MPIDI_FTDEV_global.peer_state[pid] = MPIDI_FTDEV_PEER_ALIVE;
    MPIDI_FTDEV_global.peer_finalizing[pid] = 0;
    MPIDI_FTDEV_global.replaced[pid] = 1;
    MPIDI_FTDEV_global.peer_hb[pid] = *heartbeat;
    MPIDI_FTDEV_heartbeat_revive(pid);
    MPIR_FTMPI_revive(pid);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static void hex_encode(const uint8_t * in, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * len] = 0;
}

static int hex_value(char c)
{
    return c >= 'a' ? c - 'a' + 10 : c - '0';
}

static void hex_decode(const char *in, size_t len, uint8_t * out)
{
    for (size_t i = 0; i < len; i++)
        out[i] = (uint8_t) (hex_value(in[2 * i]) << 4 | hex_value(in[2 * i + 1]));
}

/* ---- test-only fault injection ------------------------------------------------- */

/* FTMPI_TEST_REBUILD_DEATH=pid:point makes the process started first as
 * rank pid kill itself at that point of a rebuild: "after-spawn" (as
 * coordinator, once the launcher started the replacements),
 * "mid-announce" (as coordinator, once one survivor was told the rebuild
 * is done) or "before-ready" (as a survivor, before it tells the
 * coordinator). Tests use it to fail a rebuild half-way; unset, it does
 * nothing. */
static void test_death_point(const char *point)
{
    const char *spec = getenv("FTMPI_TEST_REBUILD_DEATH");
    char *end;
    if (spec == NULL || MPIDI_FTDEV_global.is_replacement)
        return;
    long pid = strtol(spec, &end, 10);
    if (end != spec && *end == ':' && pid == MPIDI_FTDEV_global.my_pid && !strcmp(end + 1, point))
        raise(SIGKILL);
}

/* ---- the launcher: name service and spawn --------------------------------------- */

/* Names in the launcher's name service, which every process group of the
 * job shares: the coordinator's job id (its process group's) and the
 * epoch make them unique. */
static void service_name(char *buf, size_t len, const char *job, uint32_t epoch, int chunk)
{
    snprintf(buf, len, "ftmpi-%s-%u-%d", job, epoch, chunk);
}

/* The coordinator's address, hex-encoded, in chunks a port name holds. */
static int publish_address(uint32_t epoch, int publish, int *nchunks)
{
    int mpi_errno = MPI_SUCCESS;
#ifdef USE_PMI1_API
    size_t len = MPIDI_FTDEV_global.address_len;
    char *hex = MPL_malloc(2 * len + 1, MPL_MEM_ADDRESS);
    char name[256], chunk[ADDRESS_CHUNK + 1];

    MPIR_ERR_CHKANDJUMP(hex == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    hex_encode((const uint8_t *) MPIDI_FTDEV_global.address, len, hex);
    *nchunks = (int) ((2 * len + ADDRESS_CHUNK - 1) / ADDRESS_CHUNK);
    for (int c = 0; c < *nchunks; c++) {
        service_name(name, sizeof(name), MPIR_pmi_job_id(), epoch, c);
        if (publish) {
            MPL_strncpy(chunk, hex + (size_t) c * ADDRESS_CHUNK, sizeof(chunk));
            int pmi_errno = PMI_Publish_name(name, chunk);
            MPIR_ERR_CHKANDJUMP1(pmi_errno != PMI_SUCCESS, mpi_errno, MPI_ERR_OTHER,
                                 "**ftdev_rebuild_publish", "**ftdev_rebuild_publish %s", name);
        } else {
            PMI_Unpublish_name(name);
        }
    }
  fn_exit:
    MPL_free(hex);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
#else
    MPIR_ERR_SETANDJUMP(mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_pmi");
  fn_fail:
    return mpi_errno;
#endif
}

static int lookup_coordinator_address(void **address, size_t *len)
{
    int mpi_errno = MPI_SUCCESS;
#ifdef USE_PMI1_API
    char *hex = MPL_malloc((size_t) rb.rejoin_chunks * ADDRESS_CHUNK + 1, MPL_MEM_ADDRESS);
    char name[256], chunk[MPI_MAX_PORT_NAME + 1];

    *address = NULL;
    MPIR_ERR_CHKANDJUMP(hex == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    hex[0] = 0;
    for (int c = 0; c < rb.rejoin_chunks; c++) {
        service_name(name, sizeof(name), rb.rejoin_job, rb.rejoin_epoch, c);
        int pmi_errno = PMI_Lookup_name(name, chunk);
        MPIR_ERR_CHKANDJUMP1(pmi_errno != PMI_SUCCESS, mpi_errno, MPI_ERR_OTHER,
                             "**ftdev_rebuild_lookup", "**ftdev_rebuild_lookup %s", name);
        strcat(hex, chunk);
    }
    *len = strlen(hex) / 2;
    *address = MPL_malloc(*len, MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP(*address == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    hex_decode(hex, *len, *address);
  fn_exit:
    MPL_free(hex);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
#else
    MPIR_ERR_SETANDJUMP(mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_pmi");
  fn_fail:
    return mpi_errno;
#endif
}

/* This process's executable and arguments, for its replacements: the job
 * runs one program (SPMD), as FT-MPI's REBUILD assumes. */
static int own_command(char *exe, size_t exe_len, char **cmdline, char ***argv)
{
    int mpi_errno = MPI_SUCCESS;
    size_t cap = 4096, len = 0;
    ssize_t got;
    int fd = -1, argc = 0;

    *cmdline = NULL;
    *argv = NULL;
    got = readlink("/proc/self/exe", exe, exe_len - 1);
    MPIR_ERR_CHKANDJUMP1(got <= 0, mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_cmd",
                         "**ftdev_rebuild_cmd %s", "/proc/self/exe");
    exe[got] = 0;

    fd = open("/proc/self/cmdline", O_RDONLY);
    MPIR_ERR_CHKANDJUMP1(fd < 0, mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_cmd",
                         "**ftdev_rebuild_cmd %s", "/proc/self/cmdline");
    *cmdline = MPL_malloc(cap + 1, MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(*cmdline == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    while ((got = read(fd, *cmdline + len, cap - len)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            char *bigger = MPL_realloc(*cmdline, cap + 1, MPL_MEM_OTHER);
            MPIR_ERR_CHKANDJUMP(bigger == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
            *cmdline = bigger;
        }
    }
    (*cmdline)[len] = 0;
    for (size_t i = 0; i < len; i++)
        argc += (*cmdline)[i] == 0;
    *argv = MPL_calloc(argc + 1, sizeof(char *), MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(*argv == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    /* argv[0] is the executable, which the spawn names apart */
    argc = 0;
    for (size_t i = strlen(*cmdline) + 1; i < len; i += strlen(*cmdline + i) + 1)
        (*argv)[argc++] = *cmdline + i;

  fn_exit:
    if (fd >= 0)
        close(fd);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int spawn_replacements(int k, const int *pids, uint32_t epoch, int nchunks)
{
    int mpi_errno = MPI_SUCCESS;
    char exe[PATH_MAX], rejoin[1024], *cmdline = NULL, **argv = NULL;
    int *errcodes = MPL_malloc(k * sizeof(int), MPL_MEM_OTHER);
    size_t used;

    MPIR_ERR_CHKANDJUMP(errcodes == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = own_command(exe, sizeof(exe), &cmdline, &argv);
    MPIR_ERR_CHECK(mpi_errno);

    /* no spaces: PMI splits values at them */
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    used = snprintf(rejoin, sizeof(rejoin), "%s,%u,%d,%d,%d,%ld,%s", MPIR_pmi_job_id(), epoch,
                    MPIDI_FTDEV_global.num_pids, MPIDI_FTDEV_global.my_pid, nchunks,
                    (long) getpid(), host);
    for (int i = 0; i < k && used < sizeof(rejoin); i++)
        used += snprintf(rejoin + used, sizeof(rejoin) - used, ",%d", pids[i]);
    MPIR_ERR_CHKANDJUMP1(used >= sizeof(rejoin) - 1, mpi_errno, MPI_ERR_OTHER,
                         "**ftdev_rebuild_spawn", "**ftdev_rebuild_spawn %s",
                         "too many processes to replace at once");

    char *commands[1] = { exe };
    char **argvs[1] = { argv };
    struct MPIR_PMI_KEYVAL preput = {.key = REJOIN_KEY,.val = rejoin };
    mpi_errno = MPIR_pmi_spawn_multiple(1, commands, argvs, &k, NULL, 1, &preput, errcodes);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPL_free(errcodes);
    MPL_free(argv);
    MPL_free(cmdline);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- the survivors' side ------------------------------------------------------ */

static void pathological(const char *what)
{
    char msg[512];
    snprintf(msg, sizeof(msg), "FT-MPICH: the rebuild of MPI_COMM_WORLD failed: %s; the job ends",
             what);
    /* through the launcher: the whole job ends, not this process alone */
    MPID_Abort(MPIR_Process.comm_world, MPI_SUCCESS, 1, msg);
}

static int survivor_waits_for_rebuilt(uint32_t epoch, int coordinator, int *again)
{
    int mpi_errno = MPI_SUCCESS;
    size_t len;
    rebuild_msg_t *ready = new_msg(MSG_READY, epoch, 0, &len);

    MPIR_ERR_CHKANDJUMP(ready == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    test_death_point("before-ready");
    mpi_errno = send_msg(coordinator, ready, len);
    MPL_free(ready);
    MPIR_ERR_CHECK(mpi_errno);

    while (!received(MSG_REBUILT, epoch)) {
        if (MPIDI_FTDEV_global.peer_state[coordinator] != MPIDI_FTDEV_PEER_ALIVE) {
            *again = 1;
            goto fn_exit;
        }
        MPID_Progress_test(NULL);
    }
    const rebuild_entry_t *e = (const rebuild_entry_t *) (rb.received + 1);
    for (uint32_t i = 0; i < rb.received->count; i++, e = next_entry(e)) {
        mpi_errno = install(e->pid, e + 1, e->address_len, NULL, &e->heartbeat);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int being_replaced(const uint8_t * dead, int pid)
{
    return (dead[pid / 8] >> (pid % 8)) & 1;
}

/* A survivor the coordinator waits for: alive, not leaving, not itself. */
static int awaited_survivor(const uint8_t * dead, int pid)
{
    return pid != MPIDI_FTDEV_global.my_pid && !being_replaced(dead, pid) &&
        MPIDI_FTDEV_global.peer_state[pid] == MPIDI_FTDEV_PEER_ALIVE &&
        !MPIDI_FTDEV_global.peer_finalizing[pid];
}

/* Everyone answered; or else, with late non-NULL, who did not. */
static int everyone_answered(uint32_t epoch, const uint8_t * dead, char *late, size_t late_len)
{
    int all = 1;
    if (late)
        late[0] = 0;
    for (int pid = 0; pid < MPIDI_FTDEV_global.num_pids; pid++) {
        int missing;
        if (being_replaced(dead, pid))
            missing = !rb.hello_died[pid] &&
                (rb.hello_epoch[pid] != epoch || rb.hello_ep[pid] == NULL);
        else
            missing = awaited_survivor(dead, pid) && rb.ready_epoch[pid] != epoch;
        if (missing && late && strlen(late) + 16 < late_len)
            snprintf(late + strlen(late), late_len - strlen(late), "%s%d", all ? "" : ", ", pid);
        all &= !missing;
    }
    return all;
}

static int welcome_and_announce(uint32_t epoch, const uint8_t * dead)
{
    int mpi_errno = MPI_SUCCESS;
    int n = MPIDI_FTDEV_global.num_pids, me = MPIDI_FTDEV_global.my_pid;
    size_t welcome_len = 0, rebuilt_len = 0, len;
    rebuild_msg_t *welcome = NULL, *rebuilt = NULL;

    /* the replacements that joined, and the world as they will see it */
    for (int pid = 0; pid < n; pid++) {
        if (being_replaced(dead, pid) && !rb.hello_died[pid]) {
            rebuilt_len += entry_size(rb.hello_len[pid]);
            welcome_len += entry_size(rb.hello_len[pid]);
        } else if (pid == me || MPIDI_FTDEV_global.peer_state[pid] == MPIDI_FTDEV_PEER_ALIVE) {
            welcome_len += entry_size(MPIDI_FTDEV_global.peer_address_len[pid]);
        } else {
            welcome_len += entry_size(0);
        }
    }
    welcome = new_msg(MSG_WELCOME, epoch, welcome_len, &len);
    rebuilt = new_msg(MSG_REBUILT, epoch, rebuilt_len, &len);
    MPIR_ERR_CHKANDJUMP(!welcome || !rebuilt, mpi_errno, MPI_ERR_OTHER, "**nomem");
    rebuild_entry_t *w = (rebuild_entry_t *) (welcome + 1), *r = (rebuild_entry_t *) (rebuilt + 1);
    for (int pid = 0; pid < n; pid++) {
        if (being_replaced(dead, pid) && !rb.hello_died[pid]) {
            w = put_entry(w, pid, ENTRY_REPLACED, rb.hello_address[pid], rb.hello_len[pid],
                          &rb.hello_hb[pid]);
            r = put_entry(r, pid, ENTRY_REPLACED, rb.hello_address[pid], rb.hello_len[pid],
                          &rb.hello_hb[pid]);
            rebuilt->count++;
        } else if (pid == me || MPIDI_FTDEV_global.peer_state[pid] == MPIDI_FTDEV_PEER_ALIVE) {
            w = put_entry(w, pid, MPIDI_FTDEV_global.peer_finalizing[pid] ? ENTRY_LEAVING :
                          ENTRY_ALIVE, MPIDI_FTDEV_global.peer_address[pid],
                          MPIDI_FTDEV_global.peer_address_len[pid],
                          &MPIDI_FTDEV_global.peer_hb[pid]);
        } else {
            w = put_entry(w, pid, ENTRY_DEAD, NULL, 0, &MPIDI_FTDEV_global.peer_hb[pid]);
        }
        welcome->count++;
    }

    /* survivors first: they were waiting; then the replacements, which
     * become this process's peers */
    for (int pid = 0; pid < n; pid++) {
        if (awaited_survivor(dead, pid)) {
            mpi_errno = send_msg(pid, rebuilt, sizeof(*rebuilt) + rebuilt_len);
            MPIR_ERR_CHECK(mpi_errno);
            test_death_point("mid-announce");
        }
    }
    for (int pid = 0; pid < n; pid++) {
        if (!being_replaced(dead, pid) || rb.hello_died[pid])
            continue;
        mpi_errno = install(pid, rb.hello_address[pid], rb.hello_len[pid], rb.hello_ep[pid],
                            &rb.hello_hb[pid]);
        MPIR_ERR_CHECK(mpi_errno);
        rb.hello_ep[pid] = NULL;
        mpi_errno = send_msg(pid, welcome, sizeof(*welcome) + welcome_len);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    MPL_free(welcome);
    MPL_free(rebuilt);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int coordinate(uint32_t epoch, const uint8_t * dead)
{
    int mpi_errno = MPI_SUCCESS;
    int n = MPIDI_FTDEV_global.num_pids, k = 0, nchunks = 0;
    int *pids = MPL_malloc(n * sizeof(int), MPL_MEM_OTHER);
    char late[256];

    MPIR_ERR_CHKANDJUMP(pids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    for (int pid = 0; pid < n; pid++) {
        if (!being_replaced(dead, pid))
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
        mpi_errno = publish_address(epoch, 1, &nchunks);
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = spawn_replacements(k, pids, epoch, nchunks);
        if (mpi_errno != MPI_SUCCESS) {
            char what[MPI_MAX_ERROR_STRING];
            MPIR_Err_get_string(mpi_errno, what, sizeof(what), NULL);
            pathological(what);
        }
        test_death_point("after-spawn");
    }

    MPL_time_t start, now;
    double elapsed;
    MPL_wtime(&start);
    while (!everyone_answered(epoch, dead, NULL, 0)) {
        MPID_Progress_test(NULL);
        for (int i = 0; i < k; i++) {
            int pid = pids[i];
            if (rb.hello_epoch[pid] == epoch && rb.hello_ep[pid] == NULL && !rb.hello_died[pid]) {
                mpi_errno = MPIDI_FTDEV_create_ep(pid, (const ucp_address_t *) rb.hello_address[pid],
                                                  &rb.hello_ep[pid]);
                MPIR_ERR_CHECK(mpi_errno);
            }
        }
        MPL_wtime(&now);
        MPL_wtime_diff(&start, &now, &elapsed);
        if (elapsed > MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT) {
            char what[400];
            everyone_answered(epoch, dead, late, sizeof(late));
            snprintf(what, sizeof(what), "rank(s) %s did not join within %d s "
                     "(MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT)", late,
                     MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT);
            pathological(what);
        }
    }

    mpi_errno = welcome_and_announce(epoch, dead);
    MPIR_ERR_CHECK(mpi_errno);
    if (k > 0)
        publish_address(epoch, 0, &nchunks);

  fn_exit:
    MPL_free(pids);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_FT_rebuild_world(uint32_t epoch, const uint8_t * dead, int coordinator, int *again)
{
    int mpi_errno = alloc_state();

    *again = 0;
    MPIR_ERR_CHKANDJUMP(mpi_errno, mpi_errno, MPI_ERR_OTHER, "**nomem");
    if (coordinator == MPIDI_FTDEV_global.my_pid)
        mpi_errno = coordinate(epoch, dead);
    else
        mpi_errno = survivor_waits_for_rebuilt(epoch, coordinator, again);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- the replacement's side ------------------------------------------------------ */

/* Copies the field [from, end) of the rejoin key into to[size]; 0 when
 * there is no end or it does not fit. */
static int copy_field(const char *from, const char *end, char *to, size_t size)
{
    if (end == NULL || end - from >= (ptrdiff_t) size)
        return 0;
    memcpy(to, from, end - from);
    to[end - from] = 0;
    return 1;
}

int MPIDI_FTDEV_take_over_replaced_rank(void)
{
    int mpi_errno = MPI_SUCCESS;
    char val[1024], *p, *end;
    int size, index = MPIR_Process.rank, pid = -1;

    if (!MPIR_Process.has_parent)
        goto fn_exit;
    /* a process spawned by the application, not by a rebuild */
    if (MPIR_pmi_kvs_get(-1, REJOIN_KEY, val, sizeof(val)) != MPI_SUCCESS)
        goto fn_exit;

    p = strchr(val, ',');
    MPIR_ERR_CHKANDJUMP1(!copy_field(val, p, rb.rejoin_job, sizeof(rb.rejoin_job)), mpi_errno,
                         MPI_ERR_OTHER, "**ftdev_rebuild_preput", "**ftdev_rebuild_preput %s",
                         val);
    rb.rejoin_epoch = (uint32_t) strtoul(p + 1, &p, 10);
    size = (int) strtol(p + (*p == ','), &p, 10);
    rb.rejoin_coordinator = (int) strtol(p + (*p == ','), &p, 10);
    rb.rejoin_chunks = (int) strtol(p + (*p == ','), &p, 10);
    rb.rejoin_ospid = strtol(p + (*p == ','), &p, 10);
    p += *p == ',';
    end = strchr(p, ',');
    MPIR_ERR_CHKANDJUMP1(!copy_field(p, end, rb.rejoin_host, sizeof(rb.rejoin_host)), mpi_errno,
                         MPI_ERR_OTHER, "**ftdev_rebuild_preput", "**ftdev_rebuild_preput %s",
                         val);
    p = end;
    for (int i = 0; i <= index; i++, p = end) {
        pid = (int) strtol(p + (*p == ','), &end, 10);
        MPIR_ERR_CHKANDJUMP1(end == p, mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_preput",
                             "**ftdev_rebuild_preput %s", val);
    }
    MPIR_ERR_CHKANDJUMP1(size <= 0 || pid < 0 || pid >= size || rb.rejoin_chunks <= 0,
                         mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_preput",
                         "**ftdev_rebuild_preput %s", val);

    mpi_errno = MPIR_pmi_take_over_rank(pid, size, NULL);
    MPIR_ERR_CHECK(mpi_errno);
    MPIDI_FTDEV_global.is_replacement = 1;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Until WELCOME this process knows only the coordinator; the others are
 * out of reach, as failed ones are. */
static int hello(void)
{
    int mpi_errno = MPI_SUCCESS;
    int me = MPIDI_FTDEV_global.my_pid, coordinator = rb.rejoin_coordinator;
    void *address = NULL;
    size_t address_len, len;
    rebuild_msg_t *m = NULL;

    for (int pid = 0; pid < MPIDI_FTDEV_global.num_pids; pid++) {
        MPIDI_FTDEV_AV(&MPIDIU_get_av(0, pid)).ep = NULL;
        if (pid != me && pid != coordinator)
            MPIDI_FTDEV_global.peer_state[pid] = MPIDI_FTDEV_PEER_FAILED;
    }
    mpi_errno = MPIDI_FTDEV_create_ep(me, (const ucp_address_t *) MPIDI_FTDEV_global.address,
                                      &MPIDI_FTDEV_AV(&MPIDIU_get_av(0, me)).ep);
    MPIR_ERR_CHECK(mpi_errno);

    mpi_errno = lookup_coordinator_address(&address, &address_len);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDI_FTDEV_create_ep(coordinator, (const ucp_address_t *) address,
                                      &MPIDI_FTDEV_AV(&MPIDIU_get_av(0, coordinator)).ep);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDI_FTDEV_save_address(coordinator, address, address_len);
    MPIR_ERR_CHECK(mpi_errno);

    m = new_msg(MSG_HELLO, rb.rejoin_epoch, entry_size(MPIDI_FTDEV_global.address_len), &len);
    MPIR_ERR_CHKANDJUMP(m == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    m->count = 1;
    put_entry((rebuild_entry_t *) (m + 1), me, ENTRY_REPLACED, MPIDI_FTDEV_global.address,
              MPIDI_FTDEV_global.address_len, &MPIDI_FTDEV_global.peer_hb[me]);
    mpi_errno = send_msg(coordinator, m, len);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPL_free(m);
    MPL_free(address);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The coordinator died before it welcomed this process. UCX may never say
 * so: an endpoint to a process that died before it answered the
 * connection is never checked. On the coordinator's host its process id
 * tells; anywhere, the rebuild's time limit does. */
static int coordinator_gone(MPL_time_t * start)
{
    static MPL_time_t last_check;
    MPL_time_t now;
    double elapsed, since_check;
    char host[256] = "";

    if (MPIDI_FTDEV_global.peer_state[rb.rejoin_coordinator] != MPIDI_FTDEV_PEER_ALIVE)
        return 1;
    MPL_wtime(&now);
    MPL_wtime_diff(start, &now, &elapsed);
    if (elapsed > MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT)
        return 1;
    MPL_wtime_diff(&last_check, &now, &since_check);
    if (since_check < 0.05)
        return 0;
    last_check = now;
    gethostname(host, sizeof(host) - 1);
    return !strcmp(host, rb.rejoin_host) && kill((pid_t) rb.rejoin_ospid, 0) != 0 &&
        errno == ESRCH;
}

int MPIDI_FTDEV_rejoin(void)
{
    int mpi_errno = MPI_SUCCESS;
    int me = MPIDI_FTDEV_global.my_pid, coordinator = rb.rejoin_coordinator, nreplaced = 0;
    int *replaced = MPL_malloc(MPIDI_FTDEV_global.num_pids * sizeof(int), MPL_MEM_OTHER);
    int *node_map = MPL_malloc(MPIDI_FTDEV_global.num_pids * sizeof(int), MPL_MEM_OTHER);
    char msg[256];

    MPIR_ERR_CHKANDJUMP(!replaced || !node_map, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = alloc_state();
    MPIR_ERR_CHKANDJUMP(mpi_errno, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = MPIDI_FTDEV_save_address(me, MPIDI_FTDEV_global.address,
                                         MPIDI_FTDEV_global.address_len);
    MPIR_ERR_CHECK(mpi_errno);
    /* a coordinator that cannot be reached has died (its memory went
     * with it), as much as one that fails later */
    if (hello() != MPI_SUCCESS)
        MPIDI_FTDEV_global.peer_state[coordinator] = MPIDI_FTDEV_PEER_FAILED;

    MPL_time_t start;
    MPL_wtime(&start);
    while (!received(MSG_WELCOME, rb.rejoin_epoch)) {
        if (coordinator_gone(&start)) {
            snprintf(msg, sizeof(msg), "FT-MPICH: the process that launched this replacement "
                     "of rank %d (rank %d) failed before it joined; it leaves, and the "
                     "survivors launch another", me, coordinator);
            MPIR_FTMPI_exit_at_init(msg);
        }
        MPID_Progress_test(NULL);
    }
    if (memcmp(&rb.received->modes, &MPIR_FTMPI_modes, sizeof(MPIR_FTMPI_modes))) {
        MPIR_FTMPI_compare_modes(&rb.received->modes, coordinator, msg, sizeof(msg));
        MPIR_FTMPI_exit_at_init(msg);
    }

    MPIDI_FTDEV_global.epoch = rb.rejoin_epoch;
    MPIDI_FTDEV_global.epoch_bits = ((uint64_t) rb.rejoin_epoch << MPIDI_FTDEV_EPOCH_SHIFT) &
        MPIDI_FTDEV_EPOCH_MASK;
    /* the survivors' node map, so that everyone builds the same node-level
     * sub-communicators of MPI_COMM_WORLD */
    const rebuild_entry_t *e = (const rebuild_entry_t *) (rb.received + 1);
    for (uint32_t i = 0; i < rb.received->count; i++, e = next_entry(e))
        node_map[e->pid] = e->node;
    mpi_errno = MPIR_pmi_take_over_rank(me, MPIDI_FTDEV_global.num_pids, node_map);
    MPIR_ERR_CHECK(mpi_errno);

    e = (const rebuild_entry_t *) (rb.received + 1);
    for (uint32_t i = 0; i < rb.received->count; i++, e = next_entry(e)) {
        if (e->state == ENTRY_REPLACED)
            replaced[nreplaced++] = e->pid;
        if (e->pid != me)
            MPIDI_FTDEV_global.peer_hb[e->pid] = e->heartbeat;
        if (e->pid == me || e->pid == coordinator)
            continue;
        /* one the welcome lists as alive may have died since: UCX cannot
         * reach it (measured: "Endpoint timeout" when the peer was killed
         * during the rebuild), and this process learns of that failure now
         * instead of leaving MPI_Init with an error */
        if (e->state == ENTRY_DEAD ||
            MPIDI_FTDEV_create_ep(e->pid, (const ucp_address_t *) (e + 1),
                                  &MPIDI_FTDEV_AV(&MPIDIU_get_av(0, e->pid)).ep) != MPI_SUCCESS) {
            MPIDI_FTDEV_global.failures_learned++;
            MPIDI_FTDEV_global.num_refusal_causes++;
            MPIR_FTMPI_record_failure(e->pid, e->state == ENTRY_DEAD ?
                                      "failed before this process joined" :
                                      "unreachable when this process joined");
            continue;
        }
        mpi_errno = MPIDI_FTDEV_save_address(e->pid, e + 1, e->address_len);
        MPIR_ERR_CHECK(mpi_errno);
        MPIDI_FTDEV_global.peer_state[e->pid] = MPIDI_FTDEV_PEER_ALIVE;
        MPIDI_FTDEV_global.peer_finalizing[e->pid] = e->state == ENTRY_LEAVING;
        MPIDI_FTDEV_global.replaced[e->pid] = e->state == ENTRY_REPLACED;
    }
    MPIR_FTMPI_joined(rb.rejoin_epoch, replaced, nreplaced);

  fn_exit:
    MPL_free(replaced);
    MPL_free(node_map);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
