/*
 * FT-MPICH: ch4 netmod "ftdev".
 *
 * Heartbeat: a process that stops without dying (SIGSTOP, a frozen node)
 * closes no connection and UCX never reports it; everyone waiting for it
 * would wait forever. Each process runs a thread that sends a datagram to
 * its successor on the ring of live processes (the next live process id)
 * every period, and watches its predecessor. A predecessor silent for the
 * timeout is declared failed: the watcher kills it when it runs on the
 * same node (so that it cannot wake up and write into the recovered job),
 * tells every live process, and its main thread handles the failure like
 * any other at its next progress call. A process that finds on waking up
 * that it could not beat for longer than the timeout knows it has been
 * declared failed and ends itself (a watcher on another node cannot kill
 * it).
 *
 * The thread works on its own UDP socket with plain system calls, so that
 * beats go out while the application computes and touches nothing of MPI's;
 * it only reads ftdev's view of who is alive. Off in ABORT mode (a failure
 * ends the job anyway) and with MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT=0.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_CH4_FTDEV_HEARTBEAT_PERIOD
      category    : CH4_FTDEV
      type        : int
      default     : 100
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Milliseconds between two heartbeats a process sends to the next live
        process (fault-tolerant modes only).

    - name        : MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT
      category    : CH4_FTDEV
      type        : int
      default     : 1000
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Milliseconds of silence after which a process is declared failed
        (and killed when it runs on the node of the process that noticed),
        so that a stopped or frozen process is handled like a dead one.
        0 turns the heartbeat off (a process stopped in a debugger then
        holds the others up instead of being declared failed).

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

#define HB_MAGIC 0x46544842     /* "FTHB" */

enum { HB_BEAT = 1, HB_PROBE, HB_FAILED };

typedef struct {
    uint32_t magic;
    uint32_t kind;
    int32_t from;               /* sender's process id */
    int32_t from_ospid;         /* the sender's operating-system process id */
    int32_t about;              /* HB_FAILED: the process declared failed */
} hb_msg_t;

static struct {
    int sock;
    pthread_t thread;
    volatile int running;
    uint8_t *suspected;         /* per process id, set by the thread for the main thread */
} hb = {.sock = -1 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* An IPv4 address of this node other processes can reach: the first one
 * of an interface that is up and not loopback, else loopback (one node). */
static uint32_t node_address(void)
{
    struct ifaddrs *ifs, *i;
    uint32_t found = htonl(INADDR_LOOPBACK);

    if (getifaddrs(&ifs) != 0)
        return found;
    for (i = ifs; i; i = i->ifa_next) {
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
            !(i->ifa_flags & IFF_LOOPBACK)) {
            found = ((struct sockaddr_in *) i->ifa_addr)->sin_addr.s_addr;
            break;
        }
    }
    freeifaddrs(ifs);
    return found;
}

int MPIDI_FTDEV_heartbeat_enabled(void)
{
    return MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT > 0 && MPIR_CVAR_CH4_FTDEV_HEARTBEAT_PERIOD > 0 &&
        !MPIR_FTMPI_aborts_on_failure();
}

int MPIDI_FTDEV_heartbeat_open(MPIDI_FTDEV_hb_contact_t * contact)
{
    int mpi_errno = MPI_SUCCESS;
    struct sockaddr_in addr = {.sin_family = AF_INET,.sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t len = sizeof(addr);

    memset(contact, 0, sizeof(*contact));
    contact->ospid = (int32_t) getpid();
    if (!MPIDI_FTDEV_heartbeat_enabled())
        goto fn_exit;
    hb.sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    MPIR_ERR_CHKANDJUMP1(hb.sock < 0, mpi_errno, MPI_ERR_OTHER, "**ftdev_heartbeat",
                         "**ftdev_heartbeat %s", strerror(errno));
    MPIR_ERR_CHKANDJUMP1(bind(hb.sock, (struct sockaddr *) &addr, sizeof(addr)) != 0 ||
                         getsockname(hb.sock, (struct sockaddr *) &addr, &len) != 0,
                         mpi_errno, MPI_ERR_OTHER, "**ftdev_heartbeat", "**ftdev_heartbeat %s",
                         strerror(errno));
    contact->ip = node_address();
    contact->port = addr.sin_port;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- the thread ------------------------------------------------------------ */

static int live(int pid)
{
    return MPIDI_FTDEV_global.peer_state[pid] == MPIDI_FTDEV_PEER_ALIVE && !hb.suspected[pid];
}

/* The next (step 1) or previous (step -1) live process on the ring, or -1. */
static int neighbour(int step)
{
    int n = MPIDI_FTDEV_global.num_pids, me = MPIDI_FTDEV_global.my_pid;
    for (int i = 1; i < n; i++) {
        int pid = (me + step * i + n) % n;
        if (live(pid))
            return pid;
    }
    return -1;
}

static void send_to(int pid, int kind, int about)
{
    MPIDI_FTDEV_hb_contact_t c = MPIDI_FTDEV_global.peer_hb[pid];
    hb_msg_t m = {.magic = HB_MAGIC,.kind = kind,.from = MPIDI_FTDEV_global.my_pid,
        .from_ospid = (int32_t) getpid(),.about = about
    };
    struct sockaddr_in to = {.sin_family = AF_INET,.sin_addr.s_addr = c.ip,.sin_port = c.port };
    if (c.port)
        sendto(hb.sock, &m, sizeof(m), MSG_DONTWAIT, (struct sockaddr *) &to, sizeof(to));
}

/* Marks pid failed for the main thread, which handles it at its next
 * progress call (MPIDI_FTDEV_heartbeat_failures). */
static void suspect(int pid)
{
    __atomic_store_n(&hb.suspected[pid], 1, __ATOMIC_RELEASE);
    __atomic_store_n(&MPIDI_FTDEV_global.progress_checks, 1, __ATOMIC_RELEASE);
}

static void declare_failed(int pid)
{
    int n = MPIDI_FTDEV_global.num_pids;
    int32_t ospid = MPIDI_FTDEV_global.peer_hb[pid].ospid;

    suspect(pid);
    fprintf(stderr, "FT-MPICH: process %d sent no heartbeat for %d ms and is declared failed\n",
            pid, MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT);
    if (MPIR_Process.node_map &&
        MPIR_Process.node_map[pid] == MPIR_Process.node_map[MPIDI_FTDEV_global.my_pid] &&
        ospid > 0)
        kill(ospid, SIGKILL);
    for (int p = 0; p < n; p++)
        if (p != MPIDI_FTDEV_global.my_pid && p != pid && live(p))
            send_to(p, HB_FAILED, pid);
}

static void *beat(void *arg)
{
    double period = MPIR_CVAR_CH4_FTDEV_HEARTBEAT_PERIOD;
    double timeout = MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT;
    double last_beat = 0, last_probe = 0, last_loop = now_ms(), watched_since = last_loop;
    double *heard = MPL_calloc(MPIDI_FTDEV_global.num_pids, sizeof(double), MPL_MEM_OTHER);
    int watched = -1;

    while (hb.running && heard) {
        double now = now_ms();
        /* stopped for longer than a watcher waits: declared failed already */
        if (now - last_loop > timeout + period) {
            fprintf(stderr, "FT-MPICH: process %d was stopped for %.0f ms, longer than the "
                    "heartbeat timeout; the others have declared it failed, so it ends\n",
                    MPIDI_FTDEV_global.my_pid, now - last_loop);
            _exit(1);
        }
        last_loop = now;

        int next = neighbour(1), prev = neighbour(-1);
        if (next >= 0 && now - last_beat >= period) {
            send_to(next, HB_BEAT, -1);
            last_beat = now;
        }
        if (prev != watched) {
            watched = prev;
            watched_since = now;
        }

        struct pollfd pfd = {.fd = hb.sock,.events = POLLIN };
        if (poll(&pfd, 1, (int) (period / 2) + 1) > 0) {
            hb_msg_t m;
            while (recv(hb.sock, &m, sizeof(m), MSG_DONTWAIT) == sizeof(m)) {
                if (m.magic != HB_MAGIC || m.from < 0 || m.from >= MPIDI_FTDEV_global.num_pids ||
                    m.from_ospid != MPIDI_FTDEV_global.peer_hb[m.from].ospid)
                    continue;   /* not ours, or a process that was replaced */
                if (m.kind == HB_BEAT)
                    heard[m.from] = now_ms();
                else if (m.kind == HB_PROBE) {
                    /* its view of the ring differs from ours (a failure
                     * one of us has not seen yet): answer directly */
                    heard[m.from] = now_ms();
                    send_to(m.from, HB_BEAT, -1);
                }
                else if (m.kind == HB_FAILED && m.about >= 0 &&
                         m.about < MPIDI_FTDEV_global.num_pids &&
                         m.about != MPIDI_FTDEV_global.my_pid && !hb.suspected[m.about])
                    suspect(m.about);
            }
        }

        /* a process in MPI_Finalize may stop beating once everyone is there;
         * one silent for half the timeout is asked directly, since it may
         * beat to another successor than us */
        now = now_ms();
        double silent = watched >= 0 ? now - MPL_MAX(heard[watched], watched_since) : 0;
        if (watched >= 0 && !MPIDI_FTDEV_global.peer_finalizing[watched]) {
            if (silent > timeout)
                declare_failed(watched);
            else if (silent > timeout / 2 && now - last_probe >= period) {
                send_to(watched, HB_PROBE, -1);
                last_probe = now;
            }
        }
    }
    MPL_free(heard);
    return NULL;
}

int MPIDI_FTDEV_heartbeat_start(void)
{
    int mpi_errno = MPI_SUCCESS;

    /* MPI_COMM_WORLD is committed again by a recovery (SHRINK) */
    if (hb.sock < 0 || hb.running)
        goto fn_exit;
    hb.suspected = MPL_calloc(MPIDI_FTDEV_global.num_pids, 1, MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(hb.suspected == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    hb.running = 1;
    int err = pthread_create(&hb.thread, NULL, beat, NULL);
    if (err) {
        hb.running = 0;
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**ftdev_heartbeat",
                             "**ftdev_heartbeat %s", strerror(err));
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void MPIDI_FTDEV_heartbeat_stop(void)
{
    if (hb.running) {
        hb.running = 0;
        pthread_join(hb.thread, NULL);
    }
    if (hb.sock >= 0)
        close(hb.sock);
    hb.sock = -1;
    MPL_free(hb.suspected);
    hb.suspected = NULL;
}

/* The main thread's part, from progress: failures the thread noticed. */
void MPIDI_FTDEV_heartbeat_failures(void)
{
    char how[96];
    if (hb.suspected == NULL)
        return;
    for (int pid = 0; pid < MPIDI_FTDEV_global.num_pids; pid++) {
        if (!__atomic_load_n(&hb.suspected[pid], __ATOMIC_ACQUIRE) ||
            MPIDI_FTDEV_global.peer_state[pid] != MPIDI_FTDEV_PEER_ALIVE)
            continue;
        snprintf(how, sizeof(how), "no heartbeat for %d ms", MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT);
        MPIDI_FTDEV_peer_failed(pid, how);
    }
}

/* A replacement took over process id pid: a process again, watched afresh. */
void MPIDI_FTDEV_heartbeat_revive(int pid)
{
    if (hb.suspected)
        __atomic_store_n(&hb.suspected[pid], 0, __ATOMIC_RELEASE);
}
