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
#include <sys/socket.h>
#include <netinet/in.h>
#include "ftdev_test_point.h"
#include "ftdev_heartbeat.h"

#define TEST_POINT_ENV "FTMPI_TEST_POINT"

#ifdef HAVE_FT_TEST_POINTS

/* every point the code asks about (mpid_ft.h) */
static const char *const known_points[] = {
    "init", "deaf", "before-vote", "after-vote", "before-decision", "after-commit",
    "part-fails", "after-spawn", "mid-announce", "before-ready", "replay"
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
#define REPLAY_MAX_BYTES 512

typedef struct {
    size_t len;                 /* 0: none kept */
    char bytes[REPLAY_MAX_BYTES];
} kept_t;

static int replaying = -1;
static kept_t last_sent;
static int last_sent_to = -1;
/* per process of this world: the last control message sent to it, and
 * the last heartbeat datagram declaring it failed that it was sent */
static kept_t *last_sent_to_pid, *datagram_to_pid;

static int replay_on(void)
{
    if (replaying < 0) {
        int n = MPIDI_FTDEV_global.world.num_pids;
        replaying = MPID_FT_test_point("replay", 1);
        if (replaying) {
            last_sent_to_pid = MPL_calloc(n, sizeof(kept_t), MPL_MEM_OTHER);
            datagram_to_pid = MPL_calloc(n, sizeof(kept_t), MPL_MEM_OTHER);
            replaying = last_sent_to_pid && datagram_to_pid;
        }
    }
    return replaying;
}

static void keep(kept_t * k, const void *bytes, size_t len)
{
    k->len = len <= REPLAY_MAX_BYTES ? len : 0;
    if (k->len)
        memcpy(k->bytes, bytes, len);
}

static void send_copy(int to, const kept_t * k)
{
    ucp_ep_h ep = MPIDI_FTDEV_AV(MPIDI_FTDEV_peer_av(to)).ep;
    size_t head = sizeof(MPIDI_FTDEV_ctrl_head_t);
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL,
        .flags = UCP_AM_SEND_FLAG_EAGER,
    };
    if (ep == NULL || k->len == 0)
        return;
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, MPIDI_FTDEV_AM_CONTROL, k->bytes, head,
                                         k->bytes + head, k->len - head, &param);
    MPID_FT_TRACE("test point replay: a control message sent again to %d: %s", to,
                  UCS_PTR_IS_ERR(r) ? ucs_status_string(UCS_PTR_STATUS(r)) : "sent");
}

void MPIDI_FTDEV_test_replay_sent(int to, const void *sealed, size_t len)
{
    if (!replay_on())
        return;
    if (last_sent_to >= 0) {
        kept_t previous = last_sent;
        send_copy(last_sent_to, &previous);
        if (to != last_sent_to)
            send_copy(to, &previous);
    }
    keep(&last_sent, sealed, len);
    last_sent_to = to;
    if (to < MPIDI_FTDEV_global.world.num_pids)
        keep(&last_sent_to_pid[to], sealed, len);
}

/* the datagram kept for a process: one declaring it failed, if it was
 * sent one (the harm a replay could do: its replacement fences itself),
 * else the last it was sent */
void MPIDI_FTDEV_test_replay_keep_datagram(int to, const void *datagram, size_t len)
{
    const MPIDI_FTDEV_hb_msg_t *m = datagram, *kept;
    if (!replay_on() || to >= MPIDI_FTDEV_global.world.num_pids)
        return;
    kept = (const MPIDI_FTDEV_hb_msg_t *) datagram_to_pid[to].bytes;
    if ((m->kind == HB_FAILED && m->about == to) || datagram_to_pid[to].len == 0 ||
        kept->kind != HB_FAILED)
        keep(&datagram_to_pid[to], datagram, len);
}

void MPIDI_FTDEV_test_replay_to_replacement(int pid)
{
    if (!replay_on())
        return;
    send_copy(pid, &last_sent_to_pid[pid]);
    const kept_t *k = &datagram_to_pid[pid];
    MPIDI_FTDEV_hb_contact_t c = MPIDI_FTDEV_global.peers.hb[pid];
    struct sockaddr_in to = {.sin_family = AF_INET,.sin_addr.s_addr = c.ip,.sin_port = c.port };
    if (k->len && c.port) {
        ssize_t n = sendto(MPIDI_FTDEV_hb.sock, k->bytes, k->len, MSG_DONTWAIT,
                           (struct sockaddr *) &to, sizeof(to));
        MPID_FT_TRACE("test point replay: a datagram declaring %d failed sent again to its "
                      "replacement: %s", pid, n > 0 ? "sent" : "not sent");
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
