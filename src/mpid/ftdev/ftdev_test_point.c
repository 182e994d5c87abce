/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Fault injection for the tests: the points of FTMPI_TEST_POINT.
 * A test names one point of one process in
 * FTMPI_TEST_POINT=PID:POINT[:N], and the code at that point asks
 * MPID_FT_test_point whether it is the one: the process started first as
 * process id PID (a replacement never is), passing POINT for the N-th time
 * as that point counts (default the first). The points are listed in
 * mpid_ft.h. The points exist only in a build configured with
 * --enable-ft-test-points, which `make check` turns on and `make` does
 * not: a release build has none of this file but the check that nobody
 * asks it for a point it does not have.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include <signal.h>
#include <pthread.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include "ftdev_test_point.h"
#include "ftdev_heartbeat.h"

#define TEST_POINT_ENV "FTMPI_TEST_POINT"

#ifdef HAVE_FT_TEST_POINTS

/* every point the code asks about (mpid_ft.h) */
static const char *const known_points[] = {
    "init", "deaf", "before-vote", "after-vote", "before-decision", "after-commit",
    "part-fails", "after-spawn", "mid-announce", "before-ready", "replay", "mid-decide"
};

static struct {
    long pid;                   /* -1: no point set */
    unsigned long nth;
    char point[32];
} wanted = {.pid = -1 };

static int parse_test_point(const char *spec)
{
    char *end, *colon;

    wanted.pid = strtol(spec, &end, 10);
    if (end == spec || *end != ':' || wanted.pid < 0 ||
        strlen(end + 1) >= sizeof(wanted.point) || end[1] == '\0')
        return 0;
    strcpy(wanted.point, end + 1);
    wanted.nth = 1;
    colon = strchr(wanted.point, ':');
    if (colon) {
        *colon = '\0';
        wanted.nth = strtoul(colon + 1, &end, 10);
        if (end == colon + 1 || *end != '\0' || wanted.nth == 0)
            return 0;
    }
    for (size_t i = 0; i < sizeof(known_points) / sizeof(known_points[0]); i++)
        if (strcmp(wanted.point, known_points[i]) == 0)
            return 1;
    return 0;
}

int MPID_FT_test_point(const char *point, unsigned long number)
{
    return wanted.pid == MPIR_Process.rank && !MPIDI_FTDEV_global.rebuild.is_replacement &&
        number == wanted.nth && strcmp(point, wanted.point) == 0;
}

void MPID_FT_test_death(const char *point, unsigned long number, double linger)
{
    if (!MPID_FT_test_point(point, number))
        return;
    for (double until = MPI_Wtime() + linger; MPI_Wtime() < until;)
        MPID_Progress_test(NULL);
    fflush(stdout);
    raise(SIGKILL);
}

int MPIDI_FTDEV_test_deaf;

void MPIDI_FTDEV_test_deaf_after(int dead)
{
    if (MPIR_Process.node_map &&
        MPIR_Process.node_map[dead] == MPIR_Process.node_map[MPIDI_FTDEV_global.world.my_pid] &&
        MPID_FT_test_point("deaf", 1))
        MPIDI_FTDEV_test_deaf = 1;
}

/* The point "replay" does what anyone who captured the job's traffic
 * could: it sends sealed control messages again, unchanged, to their
 * recipient and to another process, and to a replacement what was sent
 * to the process it replaces (test/ftmpi/scripts/replayed_messages.sh). */
typedef struct {
    size_t len;                 /* 0: none kept */
    char *bytes;
} kept_t;

static int replay_state = -1;
static kept_t replay_last;
static int replay_last_to = -1;
/* per process of this world: the last control message sent to it, and a
 * heartbeat datagram it was sent (the heartbeat thread writes those: a
 * copy of fixed size, no allocation) */
static kept_t *replay_to_pid;
static MPIDI_FTDEV_hb_msg_t *replay_datagram_to_pid;

/* the heartbeat thread may ask first */
static pthread_mutex_t replay_lock = PTHREAD_MUTEX_INITIALIZER;

static int replay_on(void)
{
    if (__atomic_load_n(&replay_state, __ATOMIC_ACQUIRE) >= 0)
        return replay_state;
    pthread_mutex_lock(&replay_lock);
    if (replay_state < 0) {
        int n = MPIDI_FTDEV_global.world.num_pids, on = MPID_FT_test_point("replay", 1);
        if (on) {
            replay_to_pid = MPL_calloc(n, sizeof(kept_t), MPL_MEM_OTHER);
            replay_datagram_to_pid = MPL_calloc(n, sizeof(MPIDI_FTDEV_hb_msg_t), MPL_MEM_OTHER);
            on = replay_to_pid && replay_datagram_to_pid;
        }
        __atomic_store_n(&replay_state, on, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&replay_lock);
    return replay_state;
}

static void keep(kept_t * k, const void *bytes, size_t len)
{
    char *copy = MPL_realloc(k->bytes, len, MPL_MEM_OTHER);
    k->len = copy ? len : 0;
    if (copy) {
        memcpy(copy, bytes, len);
        k->bytes = copy;
    }
}

static void copy_sent(void *request, ucs_status_t status, void *user_data)
{
    MPL_free(user_data);
}

/* from a copy of its own: UCX may keep it past this call (a large one) */
static void send_copy(int to, const kept_t * k)
{
    ucp_ep_h ep = MPIDI_FTDEV_AV(MPIDI_FTDEV_peer_av(to)).ep;
    size_t head = sizeof(MPIDI_FTDEV_ctrl_head_t);
    char *copy;
    if (ep == NULL || k->len == 0 || (copy = MPL_malloc(k->len, MPL_MEM_OTHER)) == NULL)
        return;
    memcpy(copy, k->bytes, k->len);
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK |
            UCP_OP_ATTR_FIELD_USER_DATA,
        .flags = UCP_AM_SEND_FLAG_EAGER,
        .cb.send = copy_sent,
        .user_data = copy,
    };
    const MPIDI_FTDEV_ctrl_msg_t *m = (const MPIDI_FTDEV_ctrl_msg_t *) (copy + head);
    MPID_FT_TRACE("test point replay: a control message (type %u, to tag pid %d, epoch %u, "
                  "counter %llu) sent again to %d", m->type, m->to, m->epoch,
                  (unsigned long long) m->counter, to);
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, MPIDI_FTDEV_AM_CONTROL, copy, head, copy + head,
                                         k->len - head, &param);
    if (UCS_PTR_IS_PTR(r))
        ucp_request_release(r);
    else
        MPL_free(copy);
}

void MPIDI_FTDEV_test_replay_sent(int to, const void *sealed, size_t len)
{
    if (!replay_on())
        return;
    if (replay_last_to >= 0) {
        send_copy(replay_last_to, &replay_last);
        if (to != replay_last_to)
            send_copy(to, &replay_last);
    }
    keep(&replay_last, sealed, len);
    replay_last_to = to;
    if (to < MPIDI_FTDEV_global.world.num_pids)
        keep(&replay_to_pid[to], sealed, len);
}

/* the datagram kept for a process: one declaring it failed, if it was
 * sent one (the harm a replay could do: its replacement fences itself),
 * else the last it was sent */
void MPIDI_FTDEV_test_replay_keep_datagram(int to, const void *datagram, size_t len)
{
    const MPIDI_FTDEV_hb_msg_t *m = datagram;
    MPIDI_FTDEV_hb_msg_t *kept;
    if (!replay_on() || to >= MPIDI_FTDEV_global.world.num_pids || len != sizeof(*m))
        return;
    kept = &replay_datagram_to_pid[to];
    if ((m->kind == HB_FAILED && m->about == to) || kept->kind != HB_FAILED)
        *kept = *m;
}

void MPIDI_FTDEV_test_replay_to_replacement(int pid)
{
    if (!replay_on())
        return;
    send_copy(pid, &replay_to_pid[pid]);
    MPIDI_FTDEV_hb_msg_t kept = replay_datagram_to_pid[pid];
    MPIDI_FTDEV_hb_contact_t c = MPIDI_FTDEV_global.peers.hb[pid];
    struct sockaddr_in to = {.sin_family = AF_INET,.sin_addr.s_addr = c.ip,.sin_port = c.port };
    if (kept.kind != 0 && c.port) {
        ssize_t n = sendto(MPIDI_FTDEV_hb.sock, &kept, sizeof(kept), MSG_DONTWAIT,
                           (struct sockaddr *) &to, sizeof(to));
        MPID_FT_TRACE("test point replay: the datagram kept for %d (kind %u) sent again to its "
                      "replacement: %s", pid, kept.kind, n > 0 ? "sent" : "not sent");
    }
}

#endif /* HAVE_FT_TEST_POINTS */

int MPIDI_FTDEV_fault_injection_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    const char *spec = getenv(TEST_POINT_ENV);

    if (spec == NULL)
        goto fn_exit;
#ifdef HAVE_FT_TEST_POINTS
    if (!parse_test_point(spec)) {
        wanted.pid = -1;
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**ftdev_testpoint_spec",
                             "**ftdev_testpoint_spec %s", spec);
    }
#else
    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**ftdev_testpoint_none",
                         "**ftdev_testpoint_none %s", spec);
#endif

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
