/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: ch4 netmod "ftdev".
 *
 * Heartbeat: a process that stops without dying (SIGSTOP, a frozen node)
 * closes no connection and UCX never reports it; everyone waiting for it
 * would wait forever. Each process runs a thread that sends a datagram to
 * its successor on the ring of live processes (the next live process id)
 * every period, and watches its predecessor. A predecessor silent for the
 * timeout is only suspected: silence also comes from a process that is
 * slow (a loaded node: its thread waits for a core) or held by a debugger,
 * and declaring either failed would throw a live process's work away for
 * good. So the watcher asks whoever can see the suspect's operating-system
 * process (verify_suspect): itself when the suspect runs on its node, else
 * the suspect's node-mates over this socket. Only a process that has ended,
 * is stopped by a signal (SIGSTOP, a frozen node), or whose whole node is
 * silent too is declared failed; one that runs, sleeps or is traced by a
 * debugger is heard again and watched anew. The watcher kills a declared
 * process when it runs on its node (so that it cannot wake up and write
 * into the recovered job), tells every live process and the declared one,
 * and its main thread handles the failure like any other at its next
 * progress call. A process told it was declared failed (by a datagram it
 * finds on waking up, or a survivor's failure notice naming it) ends
 * itself: the others have gone on without it.
 *
 * The same thread sees a process of its own node die the moment it does:
 * it holds a pidfd of each live peer on its node and sleeps on them with
 * its socket (below), so a death there costs no heartbeat timeout and no
 * round trip through the launcher.
 *
 * The same threads back the check that a process still receives after a
 * death on its node (below): a process can run and beat and yet receive
 * nothing.
 *
 * The thread works on its own UDP socket with plain system calls, so that
 * beats go out while the application computes and touches nothing of MPI's;
 * it only reads ftdev's view of who is alive. Off in ABORT mode (a failure
 * ends the job anyway) and with MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT=0.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_counters.h"
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <fcntl.h>
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
      default     : 3000
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Milliseconds of silence after which a process is suspected. A
        suspect is declared failed (and killed when it runs on the node of
        the process that noticed) only when its node says it has ended or
        is stopped by a signal, or its whole node stays silent for half as
        long again; one that runs slowly or is held by a debugger is not.
        Dead processes are found in milliseconds by other means (UCX, the
        node watch, the launcher): this only bounds how long a frozen
        process or node holds the others up. 0 turns the heartbeat off.

    - name        : MPIR_CVAR_CH4_FTDEV_WATCH_NODE_PEERS
      category    : CH4_FTDEV
      type        : boolean
      default     : true
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        The heartbeat thread holds a pidfd (Linux 5.3 and later) of each
        process of its node and learns of its death the moment it happens,
        instead of from the launcher's notice (a few milliseconds later,
        more under load). False leaves detection to the launcher, UCX and
        the heartbeat. Needs the heartbeat (fault-tolerant modes,
        MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT above 0).

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

#define HB_MAGIC 0x46544842     /* "FTHB" */

enum { HB_BEAT = 1, HB_PROBE, HB_FAILED, HB_ECHO_ASK, HB_ECHO_STATE, HB_VERIFY, HB_VERDICT };

/* What a node sees of one of its processes (HB_VERDICT's `state`). */
typedef enum {
    PROC_UNSEEN = 0,            /* not on this node, or not in its pid namespace */
    PROC_ENDED,                 /* no such process any more, or a zombie */
    PROC_STOPPED,               /* stopped by a signal (SIGSTOP, SIGTSTP, ...) */
    PROC_TRACED,                /* held by a debugger (ptrace) */
    PROC_RUNNING,               /* running, runnable, sleeping or in I/O */
    PROC_NUM_CONDITIONS
} proc_condition_t;

static const char *const condition_name[PROC_NUM_CONDITIONS] = {
    "unseen", "ended", "stopped by a signal", "held by a debugger", "running"
};

/* Why the thread holds a process failed (hb.suspected). */
enum { HB_NOT_SUSPECTED = 0, HB_SUSPECT_SILENT, HB_SUSPECT_ENDED };

typedef struct {
    uint32_t magic;
    uint32_t kind;
    int32_t from;               /* sender's process id */
    int32_t from_ospid;         /* the sender's operating-system process id */
    int32_t about;              /* HB_FAILED: the process declared failed; HB_ECHO_ASK: a
                                 * check number; HB_ECHO_STATE: the last check answered,
                                 * or minus one whose answer could not be written yet;
                                 * HB_VERIFY, HB_VERDICT: the suspect */
    int32_t state;              /* HB_VERDICT: its proc_condition_t */
} hb_msg_t;

static struct {
    int sock;
    pthread_t thread;
    volatile int running;
    uint8_t *suspected;         /* per process id, set by the thread for the main thread */
    uint8_t *tell_launcher;     /* per process id: declared failed by this process, which
                                 * could not see it die; the main thread tells mpiexec */
    int news;                   /* set with a suspicion, taken by the main thread */
    /* the thread's: processes of this node it watches end (pidfds) */
    int watch_epoll;            /* the pidfds; -1: no watch */
    int *watch_fd;              /* per process id; -1: none */
    int32_t *watch_ospid;       /* per process id: the process watch_fd is of (0: none) */
} hb = {.sock = -1,.watch_epoll = -1 };

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

/* Two processes of one node can watch each other's ospid only if they see
 * the same process ids: containers on one host may not. */
static uint64_t own_pid_namespace(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t) st.st_ino : 0;
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
    contact->pid_namespace = own_pid_namespace();
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

static void send_msg(int pid, int kind, int about, int state)
{
    MPIDI_FTDEV_hb_contact_t c = MPIDI_FTDEV_global.peer_hb[pid];
    hb_msg_t m = {.magic = HB_MAGIC,.kind = kind,.from = MPIDI_FTDEV_global.my_pid,
        .from_ospid = (int32_t) getpid(),.about = about,.state = state
    };
    struct sockaddr_in to = {.sin_family = AF_INET,.sin_addr.s_addr = c.ip,.sin_port = c.port };
    if (c.port &&
        sendto(hb.sock, &m, sizeof(m), MSG_DONTWAIT, (struct sockaddr *) &to, sizeof(to)) > 0)
        MPIDI_FTDEV_count_sent(MPIDI_FTDEV_PROTO_HEARTBEAT, sizeof(m));
}

static void send_to(int pid, int kind, int about)
{
    send_msg(pid, kind, about, 0);
}

/* Marks pid failed for the main thread, which handles it at its next
 * progress call (MPIDI_FTDEV_heartbeat_failures). */
static void suspect(int pid, int why)
{
    __atomic_store_n(&hb.suspected[pid], why, __ATOMIC_RELEASE);
    __atomic_store_n(&hb.news, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&MPIDI_FTDEV_global.progress_checks, 1, __ATOMIC_RELEASE);
}

static int on_my_node(int pid);
static int32_t visible_ospid(int pid);

/* `why`: what its node said of it, or that the node said nothing. */
static void declare_failed(int pid, const char *why)
{
    int n = MPIDI_FTDEV_global.num_pids;
    int32_t ospid = MPIDI_FTDEV_global.peer_hb[pid].ospid;
    int32_t seen = visible_ospid(pid);

    if (seen == 0)
        __atomic_store_n(&hb.tell_launcher[pid], 1, __ATOMIC_RELEASE);
    suspect(pid, HB_SUSPECT_SILENT);
    fprintf(stderr, "FT-MPICH: process %d (os pid %d) sent no heartbeat for %d ms and is "
            "declared failed (%s)\n", pid, (int) ospid, MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT, why);
    if (seen > 0)
        kill(seen, SIGKILL);
    for (int p = 0; p < n; p++)
        if (p != MPIDI_FTDEV_global.my_pid && p != pid && live(p))
            send_to(p, HB_FAILED, pid);
    /* and the process itself, which finds it if it ever runs again */
    send_to(pid, HB_FAILED, pid);
}

/* This process was declared failed by the others, who have gone on
 * without it: anything it sent from now on would be dropped, or worse,
 * taken for the recovered job's. */
void MPIDI_FTDEV_fence(const char *how)
{
    fprintf(stderr, "FT-MPICH: process %d (os pid %d) was declared failed by the others (%s); "
            "it ends\n", MPIDI_FTDEV_global.my_pid, (int) getpid(), how);
    _exit(1);
}

/* ---- is a silent process failed? -------------------------------------------
 * Asked of the node the suspect runs on, which can read its state in
 * /proc: this process itself, or a node-mate of the suspect's (HB_VERIFY,
 * answered with HB_VERDICT). A process that has ended or is stopped by a
 * signal is failed; one that runs, sleeps, waits for I/O or is traced by a
 * debugger is not, however long it is silent. */

static int read_proc_file(int32_t ospid, const char *name, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/%s", (int) ospid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return (int) (n > 0 ? n : 0);
}

/* The OS pid of process `pid` when this process can see it (same node,
 * same pid namespace), else 0. */
static int32_t visible_ospid(int pid)
{
    const MPIDI_FTDEV_hb_contact_t *c = &MPIDI_FTDEV_global.peer_hb[pid];
    uint64_t mine = MPIDI_FTDEV_global.peer_hb[MPIDI_FTDEV_global.my_pid].pid_namespace;

    if (!on_my_node(pid) || c->ospid <= 0 || mine == 0 || c->pid_namespace != mine)
        return 0;
    return c->ospid;
}

static proc_condition_t proc_condition(int pid)
{
    int32_t ospid = visible_ospid(pid);
    char buf[1024];

    if (ospid == 0)
        return PROC_UNSEEN;
    int n = read_proc_file(ospid, "stat", buf, sizeof(buf));
    if (n == -ENOENT || n == -ESRCH)
        return PROC_ENDED;
    /* the state follows the command name, which may hold ')' itself */
    char *end = n > 0 ? strrchr(buf, ')') : NULL;
    if (end == NULL || end[1] != ' ' || end[2] == '\0')
        return PROC_UNSEEN;
    char state = end[2];
    if (state == 'Z' || state == 'X' || state == 'x')
        return PROC_ENDED;
    if (state == 't')
        return PROC_TRACED;
    /* a debugger may also hold it stopped by a signal, or let it run */
    if (read_proc_file(ospid, "status", buf, sizeof(buf)) > 0) {
        char *tracer = strstr(buf, "TracerPid:");
        if (tracer && atoi(tracer + strlen("TracerPid:")) != 0)
            return PROC_TRACED;
    }
    return state == 'T' ? PROC_STOPPED : PROC_RUNNING;
}

static int is_failed_condition(int cond)
{
    return cond == PROC_ENDED || cond == PROC_STOPPED;
}

/* The node-mates of `pid` that can be asked about it. */
static int ask_node_mates(int pid)
{
    int asked = 0;
    if (MPIR_Process.node_map == NULL)
        return 0;
    for (int p = 0; p < MPIDI_FTDEV_global.num_pids; p++)
        if (p != pid && p != MPIDI_FTDEV_global.my_pid && live(p) &&
            MPIR_Process.node_map[p] == MPIR_Process.node_map[pid]) {
            send_to(p, HB_VERIFY, pid);
            asked++;
        }
    return asked;
}

/* ---- a process that receives nothing --------------------------------------
 * UCX's shared-memory transport hands a message over through a queue the
 * sender writes in place: a sender killed between taking a slot and
 * filling it leaves the slot unfinished, and the reader waits on it
 * forever. From then on the reader receives nothing over shared memory,
 * though it runs, sends and beats, and whoever waits for it hangs (soak
 * runs hung so, in recovery and in plain point-to-point). So after every
 * death on its node a process checks that it still receives: it sends an
 * echo request to a live process of its node, which answers. An answer
 * proves it receives; a missing one proves nothing by itself (the peer may
 * not call MPI for a while), so the heartbeat threads ask each other over
 * UDP whether the answer went out. Once it did, and the main thread kept
 * polling UCX for a heartbeat timeout without receiving it, the process
 * knows it is deaf, says so and ends, and the others recover from its
 * death like from any other. Nothing of this runs while nobody fails. */

#define ECHO_MIN_POLLS 100      /* progress calls that must have found nothing */
#define ECHO_PEER_PATIENCE 4    /* heartbeat timeouts before asking another peer */

static struct {
    /* the main thread's; the heartbeat thread reads them */
    uint32_t seq;               /* the last check started; 0: none */
    uint32_t heard;             /* the last check answered */
    int peer;                   /* the process asked in check `seq` */
    unsigned long polls;        /* progress calls while a check was under way */
    uint32_t *answered;         /* per process id: the last check whose answer went out */
    uint32_t *received;         /* per process id: the last check asked of this process */
    MPL_time_t asked_at;
    /* the heartbeat thread's; the main thread reads `written` */
    uint32_t watching;          /* the check the thread follows */
    uint32_t written;           /* the last check whose answer the peer says went out */
    double watched_since, last_ask, written_at;
    int stuck;                  /* the peer's answer could not even be written */
    unsigned long polls_at_written;
} echo;

static int on_my_node(int pid)
{
    return MPIR_Process.node_map &&
        MPIR_Process.node_map[pid] == MPIR_Process.node_map[MPIDI_FTDEV_global.my_pid];
}

/* Starts a check with the next live process of this node after `after`
 * (process ids, cyclically), or ends the check when there is none. */
static void echo_ask(int after)
{
    int n = MPIDI_FTDEV_global.num_pids, peer = -1;
    uint32_t seq = echo.seq + 1;

    for (int i = 1; i <= n && peer < 0; i++) {
        int p = (after + i) % n;
        if (p != MPIDI_FTDEV_global.my_pid && on_my_node(p) &&
            MPIDI_FTDEV_global.peer_state[p] == MPIDI_FTDEV_PEER_ALIVE &&
            !MPIDI_FTDEV_global.peer_finalizing[p] && !hb.suspected[p])
            peer = p;
    }
    if (peer < 0) {
        __atomic_store_n(&echo.heard, echo.seq, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(&echo.peer, peer, __ATOMIC_RELAXED);
    __atomic_store_n(&echo.seq, seq, __ATOMIC_RELEASE);
    MPL_wtime(&echo.asked_at);
    MPIR_FTMPI_TRACE("echo: check %u asks process %d whether this process still receives", seq,
                     peer);
    MPIDI_FTDEV_send_ctrl(peer, MPIDI_FTDEV_CTRL_ECHO, MPIDI_FTDEV_global.my_pid, &seq,
                          sizeof(seq), NULL);
    MPIDI_FTDEV_global.progress_checks = 1;
}

void MPIDI_FTDEV_echo_start(int dead)
{
    if (hb.running && on_my_node(dead))
        echo_ask(MPIDI_FTDEV_global.my_pid);
}

/* The check number an echo message from `from` carries; 0 (no check)
 * for a malformed one, which is reported and dropped. */
static uint32_t echo_number(int from, const char *what, const void *payload, size_t len)
{
    uint32_t seq = 0;
    if (len != sizeof(seq))
        fprintf(stderr, "FT-MPICH: rank %d: dropped an echo %s of %zu bytes from rank %d\n",
                MPIDI_FTDEV_global.my_pid, what, len, from);
    else
        memcpy(&seq, payload, sizeof(seq));
    return seq;
}

/* ECHO from `from`, payload its check number: answered at once; the
 * answer's leaving is noted (echo_reply_sent) for the asker's thread. */
static void echo_request(int from, int about, const void *payload, size_t len)
{
    uint32_t seq = echo_number(from, "request", payload, len);
    if (seq == 0 || MPIDI_FTDEV_global.peer_state[from] != MPIDI_FTDEV_PEER_ALIVE)
        return;
    if (echo.received)
        __atomic_store_n(&echo.received[from], seq, __ATOMIC_RELEASE);
    MPIDI_FTDEV_send_ctrl(from, MPIDI_FTDEV_CTRL_ECHO_REPLY, from, &seq, sizeof(seq), NULL);
}

static void echo_reply_sent(int to, int about, const void *payload, size_t len)
{
    uint32_t seq;
    memcpy(&seq, payload, sizeof(seq));
    if (echo.answered && to >= 0 && to < MPIDI_FTDEV_global.num_pids)
        __atomic_store_n(&echo.answered[to], seq, __ATOMIC_RELEASE);
}

static void echo_reply(int from, int about, const void *payload, size_t len)
{
    uint32_t seq = echo_number(from, "answer", payload, len);
    if (seq != 0 && seq == echo.seq && from == echo.peer) {
        __atomic_store_n(&echo.heard, seq, __ATOMIC_RELEASE);
        MPIR_FTMPI_TRACE("echo: check %u answered by process %d", seq, from);
    }
}

__attribute__ ((constructor))
static void register_echo_messages(void)
{
    MPIDI_FTDEV_ctrl_register(MPIDI_FTDEV_CTRL_ECHO, echo_request, NULL);
    MPIDI_FTDEV_ctrl_register(MPIDI_FTDEV_CTRL_ECHO_REPLY, echo_reply, echo_reply_sent);
}

int MPIDI_FTDEV_echo_under_way(void)
{
    return __atomic_load_n(&echo.heard, __ATOMIC_ACQUIRE) != echo.seq;
}

void MPIDI_FTDEV_echo_progress(void)
{
    MPL_time_t now;
    double waited;

    if (!MPIDI_FTDEV_echo_under_way())
        return;
    if (!hb.running) {          /* MPI_Finalize stopped the thread */
        __atomic_store_n(&echo.heard, echo.seq, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(&echo.polls, echo.polls + 1, __ATOMIC_RELAXED);
    MPL_wtime(&now);
    MPL_wtime_diff(&echo.asked_at, &now, &waited);
    /* a peer that does not answer, and whose thread does not say it did,
     * may be busy outside MPI, or deaf itself: ask another */
    if (MPIDI_FTDEV_global.peer_state[echo.peer] != MPIDI_FTDEV_PEER_ALIVE ||
        MPIDI_FTDEV_global.peer_finalizing[echo.peer] ||
        (__atomic_load_n(&echo.written, __ATOMIC_ACQUIRE) != echo.seq &&
         waited * 1e3 > ECHO_PEER_PATIENCE * MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT))
        echo_ask(echo.peer);
}

/* The heartbeat thread's part while a check is under way: it asks the
 * peer's thread whether the answer went out, and ends the process once it
 * did and the main thread, polling all along, never received it. */
static void echo_watch(double now, double period, double timeout)
{
    uint32_t seq = __atomic_load_n(&echo.seq, __ATOMIC_ACQUIRE);
    if (seq == __atomic_load_n(&echo.heard, __ATOMIC_ACQUIRE))
        return;
    int peer = __atomic_load_n(&echo.peer, __ATOMIC_RELAXED);
    if (seq != echo.watching) {
        echo.watching = seq;
        echo.watched_since = now;
        echo.last_ask = 0;
        echo.written_at = 0;
    }
    if (echo.written_at == 0) {
        /* the answer over UCX usually comes first */
        if (now - echo.watched_since >= period && now - echo.last_ask >= period) {
            send_to(peer, HB_ECHO_ASK, (int32_t) seq);
            echo.last_ask = now;
        }
        return;
    }
    unsigned long polls = __atomic_load_n(&echo.polls, __ATOMIC_RELAXED);
    /* an answer that could not be written may only wait for a queue that
     * a flood filled: it gets longer */
    double patience = echo.stuck ? ECHO_PEER_PATIENCE * timeout : timeout;
    if (now - echo.written_at > patience && polls - echo.polls_at_written >= ECHO_MIN_POLLS) {
        fprintf(stderr, "FT-MPICH: process %d receives nothing since a process of its node died "
                "(process %d %s %.0f ms ago: a process killed while writing into "
                "its shared-memory queue leaves the queue blocked); it leaves the job as failed\n",
                MPIDI_FTDEV_global.my_pid, peer, echo.stuck ?
                "found its answer to the check could not be written into that queue" :
                "answered its check", now - echo.written_at);
        _exit(1);
    }
}

/* What this process's thread tells `from`'s of its checks (HB_ECHO_STATE):
 * the last one answered, or minus the last one asked whose answer could
 * not be written yet: from's queue takes nothing (it is full, behind an
 * element a killed writer left unfinished). */
static int32_t echo_state_of(int from)
{
    if (!echo.answered)
        return 0;
    uint32_t answered = __atomic_load_n(&echo.answered[from], __ATOMIC_ACQUIRE);
    uint32_t received = __atomic_load_n(&echo.received[from], __ATOMIC_ACQUIRE);
    return received != 0 && received != answered ? -(int32_t) received : (int32_t) answered;
}

/* HB_ECHO_STATE from `from`: the last check of ours it answered, or
 * minus one it could not answer (echo_state_of). */
static void echo_peer_state(int from, int32_t state, double now)
{
    uint32_t answered = (uint32_t) (state < 0 ? -state : state);
    if (answered != 0 && answered == echo.watching && echo.written_at == 0 &&
        from == __atomic_load_n(&echo.peer, __ATOMIC_RELAXED)) {
        echo.stuck = state < 0;
        echo.written_at = now;
        echo.polls_at_written = __atomic_load_n(&echo.polls, __ATOMIC_RELAXED);
        __atomic_store_n(&echo.written, answered, __ATOMIC_RELEASE);
    }
}

/* ---- deaths on this node --------------------------------------------------
 * A pidfd becomes readable when its process ends, whoever's child it is,
 * so a death on this node is known as soon as the kernel has it. The
 * thread keeps one pidfd per process that is alive in ftdev's view, not
 * finalizing, of this node and of this pid namespace, in an epoll set
 * whose entries name the process id and the OS process; a replacement is
 * watched from the moment its contact arrives: the main thread makes the
 * first set before it starts the heartbeat thread, and brings the set in
 * line itself when it installs a replacement, since the thread may wait
 * for a core, or sleep for half a period, before it looks (a process
 * killed right after MPI_Init, or a replacement right after it joined, was
 * seen to die by UCX or the launcher alone). Both threads look: the
 * heartbeat thread sleeps on the set, and the main thread checks it now
 * and then while it waits for messages (MPIDI_FTDEV_heartbeat_watch_check),
 * since on a busy node the heartbeat thread may wait milliseconds for a
 * core. A pidfd opened on a process that has died already (ESRCH) watches
 * nothing: the launcher's notice covers that. */

/* Held by whichever thread changes the watched set. */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;

static int open_pidfd(int32_t ospid)
{
#ifdef SYS_pidfd_open
    return (int) syscall(SYS_pidfd_open, (pid_t) ospid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

static int32_t ospid_to_watch(int pid)
{
    if (pid == MPIDI_FTDEV_global.my_pid || !live(pid) || MPIDI_FTDEV_global.peer_finalizing[pid])
        return 0;
    return visible_ospid(pid);
}

static uint64_t watch_tag(int pid, int32_t ospid)
{
    return (uint64_t) (uint32_t) pid << 32 | (uint32_t) ospid;
}

static void watch_drop(int pid)
{
    int fd = hb.watch_fd[pid];
    if (fd >= 0) {
        __atomic_store_n(&hb.watch_fd[pid], -1, __ATOMIC_RELEASE);
        epoll_ctl(hb.watch_epoll, EPOLL_CTL_DEL, fd, NULL);
        close(fd);
    }
}

/* Brings the watched set in line with ftdev's view. */
static void watch_update(void)
{
    if (hb.watch_epoll < 0)
        return;
    pthread_mutex_lock(&watch_lock);
    for (int pid = 0; pid < MPIDI_FTDEV_global.num_pids; pid++) {
        int32_t ospid = ospid_to_watch(pid);
        if (ospid == hb.watch_ospid[pid])
            continue;
        /* in this order, so that the main thread never pairs an fd with
         * a process it is not of (MPIDI_FTDEV_heartbeat_watches_every_peer) */
        watch_drop(pid);
        __atomic_store_n(&hb.watch_ospid[pid], ospid, __ATOMIC_RELEASE);
        int fd = ospid ? open_pidfd(ospid) : -1;        /* a failed open is not retried */
        if (fd < 0)
            continue;
        struct epoll_event ev = {.events = EPOLLIN,.data.u64 = watch_tag(pid, ospid) };
        if (epoll_ctl(hb.watch_epoll, EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(fd);
            continue;
        }
        __atomic_store_n(&hb.watch_fd[pid], fd, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&watch_lock);
}

/* The processes whose pidfd is readable, from either thread: failed,
 * unless ftdev moved on from that OS process (it finalized, or a
 * replacement took its process id). Returns how many events it read. */
static int watch_collect(void)
{
    struct epoll_event ev[16];
    int n = epoll_wait(hb.watch_epoll, ev, 16, 0);
    for (int i = 0; i < n; i++) {
        int pid = (int) (ev[i].data.u64 >> 32);
        int32_t ospid = (int32_t) (uint32_t) ev[i].data.u64;
        if (pid >= 0 && pid < MPIDI_FTDEV_global.num_pids && !hb.suspected[pid] &&
            ospid == ospid_to_watch(pid))
            suspect(pid, HB_SUSPECT_ENDED);
    }
    return n;
}

/* The thread's: drops the pidfds of processes that ended. */
static void watch_forget_ended(void)
{
    pthread_mutex_lock(&watch_lock);
    for (int pid = 0; pid < MPIDI_FTDEV_global.num_pids; pid++)
        if (hb.watch_fd[pid] >= 0 && hb.suspected[pid])
            watch_drop(pid);
    pthread_mutex_unlock(&watch_lock);
}

void MPIDI_FTDEV_heartbeat_watch_check(void)
{
    if (hb.watch_epoll >= 0 && watch_collect() > 0)
        MPIDI_FTDEV_heartbeat_failures();
}

int MPIDI_FTDEV_heartbeat_watches_every_peer(void)
{
    if (!hb.running || hb.watch_epoll < 0)
        return 0;
    for (int pid = 0; pid < MPIDI_FTDEV_global.num_pids; pid++) {
        if (pid == MPIDI_FTDEV_global.my_pid ||
            MPIDI_FTDEV_global.peer_state[pid] != MPIDI_FTDEV_PEER_ALIVE)
            continue;
        /* one the thread has found dead and not yet reported was watched;
         * a finalizing process no longer is */
        if (__atomic_load_n(&hb.suspected[pid], __ATOMIC_ACQUIRE))
            continue;
        int32_t ospid = __atomic_load_n(&hb.watch_ospid[pid], __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&hb.watch_fd[pid], __ATOMIC_ACQUIRE) < 0 ||
            __atomic_load_n(&hb.watch_ospid[pid], __ATOMIC_ACQUIRE) != ospid ||
            ospid != MPIDI_FTDEV_global.peer_hb[pid].ospid)
            return 0;
    }
    return 1;
}

static int watch_open(void)
{
    int n = MPIDI_FTDEV_global.num_pids;
    if (!MPIR_CVAR_CH4_FTDEV_WATCH_NODE_PEERS)
        return MPI_SUCCESS;
    hb.watch_fd = MPL_malloc(n * sizeof(int), MPL_MEM_OTHER);
    hb.watch_ospid = MPL_calloc(n, sizeof(int32_t), MPL_MEM_OTHER);
    if (hb.watch_fd == NULL || hb.watch_ospid == NULL)
        return MPI_ERR_NO_MEM;
    for (int pid = 0; pid < n; pid++)
        hb.watch_fd[pid] = -1;
    /* no pidfd_open (Linux before 5.3): detection as before */
    int probe = open_pidfd((int32_t) getpid());
    if (probe >= 0) {
        close(probe);
        hb.watch_epoll = epoll_create1(EPOLL_CLOEXEC);
    }
    return MPI_SUCCESS;
}

static void watch_close(void)
{
    for (int pid = 0; hb.watch_fd && pid < MPIDI_FTDEV_global.num_pids; pid++)
        if (hb.watch_fd[pid] >= 0)
            close(hb.watch_fd[pid]);
    if (hb.watch_epoll >= 0)
        close(hb.watch_epoll);
    hb.watch_epoll = -1;
    MPL_free(hb.watch_fd);
    MPL_free(hb.watch_ospid);
    hb.watch_fd = NULL;
    hb.watch_ospid = NULL;
}

/* The watcher's view of its predecessor while it is silent. */
typedef struct {
    int pid;                    /* the process watched; -1: none */
    double since;               /* watched from */
    double heard;               /* last heard from (0: never) */
    double asked_at;            /* its node-mates were asked (0: not under verification) */
    int excused;                /* found alive though silent, and said so once */
} watch_t;

/* What the suspect's node said of it: it failed, or it is alive and gets
 * another timeout. */
static void settle(watch_t * w, int cond, double now)
{
    w->asked_at = 0;
    if (is_failed_condition(cond)) {
        declare_failed(w->pid, condition_name[cond]);
        return;
    }
    w->heard = now;
    if (!w->excused) {
        w->excused = 1;
        if (cond == PROC_TRACED)
            fprintf(stderr, "FT-MPICH: process %d is held by a debugger; it is silent but not "
                    "declared failed\n", w->pid);
        MPIR_FTMPI_TRACE("heartbeat: process %d silent for %d ms but %s: not failed", w->pid,
                         MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT, condition_name[cond]);
    }
}

/* The predecessor has been silent for the timeout: failed only if its
 * node says so, or says nothing for half as long again. */
static void verify_suspect(watch_t * w, double now, double timeout)
{
    if (w->asked_at == 0) {
        int cond = proc_condition(w->pid);
        if (cond != PROC_UNSEEN) {
            settle(w, cond, now);
            return;
        }
        MPIR_FTMPI_TRACE("heartbeat: process %d silent for %.0f ms; %d process(es) of its node "
                         "asked", w->pid, now - MPL_MAX(w->heard, w->since),
                         ask_node_mates(w->pid));
        w->asked_at = now;
    } else if (now - w->asked_at > timeout / 2) {
        declare_failed(w->pid, "its node does not answer for it either");
    }
}

static void *beat(void *arg)
{
    double period = MPIR_CVAR_CH4_FTDEV_HEARTBEAT_PERIOD;
    double timeout = MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT;
    double last_beat = 0, last_probe = 0;
    double *heard = MPL_calloc(MPIDI_FTDEV_global.num_pids, sizeof(double), MPL_MEM_OTHER);
    watch_t w = {.pid = -1 };

    while (hb.running && heard) {
        double now = now_ms();
        int next = neighbour(1), prev = neighbour(-1);
        if (next >= 0 && now - last_beat >= period) {
            send_to(next, HB_BEAT, -1);
            last_beat = now;
        }
        if (prev != w.pid) {
            w = (watch_t) {.pid = prev,.since = now };
        }

        watch_update();
        struct pollfd fds[2] = { {.fd = hb.sock,.events = POLLIN},
        {.fd = hb.watch_epoll,.events = POLLIN}
        };
        poll(fds, hb.watch_epoll >= 0 ? 2 : 1, (int) (period / 2) + 1);
        if (fds[1].revents) {
            watch_collect();
            watch_forget_ended();
        }
        if (fds[0].revents & POLLIN) {
            hb_msg_t m;
            while (recv(hb.sock, &m, sizeof(m), MSG_DONTWAIT) == sizeof(m)) {
                if (m.magic != HB_MAGIC || m.from < 0 || m.from >= MPIDI_FTDEV_global.num_pids ||
                    m.from_ospid != MPIDI_FTDEV_global.peer_hb[m.from].ospid)
                    continue;   /* not ours, or a process that was replaced */
                MPIDI_FTDEV_count_received(MPIDI_FTDEV_PROTO_HEARTBEAT, sizeof(m), 0);
                int about_valid = m.about >= 0 && m.about < MPIDI_FTDEV_global.num_pids;
                if (m.kind == HB_BEAT) {
                    heard[m.from] = now_ms();
                } else if (m.kind == HB_PROBE) {
                    /* its view of the ring differs from ours (a failure
                     * one of us has not seen yet): answer directly */
                    heard[m.from] = now_ms();
                    send_to(m.from, HB_BEAT, -1);
                } else if (m.kind == HB_ECHO_ASK) {
                    send_to(m.from, HB_ECHO_STATE, echo_state_of(m.from));
                } else if (m.kind == HB_ECHO_STATE) {
                    echo_peer_state(m.from, m.about, now_ms());
                } else if (m.kind == HB_VERIFY && about_valid) {
                    send_msg(m.from, HB_VERDICT, m.about, proc_condition(m.about));
                } else if (m.kind == HB_VERDICT && about_valid && m.about == w.pid &&
                           w.asked_at != 0 && m.state > PROC_UNSEEN &&
                           m.state < PROC_NUM_CONDITIONS) {
                    settle(&w, m.state, now_ms());
                } else if (m.kind == HB_FAILED && m.about == MPIDI_FTDEV_global.my_pid) {
                    MPIDI_FTDEV_fence("its heartbeat went silent");
                } else if (m.kind == HB_FAILED && about_valid && !hb.suspected[m.about]) {
                    /* one of this node: it must not run on (it would end
                     * itself if it did), and its death lets its launcher
                     * go on */
                    int32_t ospid = visible_ospid(m.about);
                    if (ospid > 0)
                        kill(ospid, SIGKILL);
                    suspect(m.about, HB_SUSPECT_SILENT);
                }
            }
        }
        if (w.pid >= 0 && heard[w.pid] > w.heard)
            w.heard = heard[w.pid], w.excused = 0, w.asked_at = 0;

        echo_watch(now_ms(), period, timeout);

        /* a process in MPI_Finalize may stop beating once everyone is there;
         * one silent for half the timeout is asked directly, since it may
         * beat to another successor than us */
        now = now_ms();
        double silent = w.pid >= 0 ? now - MPL_MAX(w.heard, w.since) : 0;
        if (w.pid >= 0 && !MPIDI_FTDEV_global.peer_finalizing[w.pid] && !hb.suspected[w.pid]) {
            if (silent > timeout)
                verify_suspect(&w, now, timeout);
            else if (silent > timeout / 2 && now - last_probe >= period) {
                send_to(w.pid, HB_PROBE, -1);
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
    hb.suspected = MPL_calloc(2 * MPIDI_FTDEV_global.num_pids, 1, MPL_MEM_OTHER);
    echo.answered = MPL_calloc(2 * MPIDI_FTDEV_global.num_pids, sizeof(uint32_t), MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(hb.suspected == NULL || echo.answered == NULL, mpi_errno, MPI_ERR_OTHER,
                        "**nomem");
    hb.tell_launcher = hb.suspected + MPIDI_FTDEV_global.num_pids;
    echo.received = echo.answered + MPIDI_FTDEV_global.num_pids;
    MPIR_ERR_CHKANDJUMP(watch_open() != MPI_SUCCESS, mpi_errno, MPI_ERR_OTHER, "**nomem");
    /* every process of the node is watched when MPI_Init returns, not from
     * whenever the new thread first gets a core */
    watch_update();
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
    watch_close();
    if (hb.sock >= 0)
        close(hb.sock);
    hb.sock = -1;
    MPL_free(hb.suspected);
    hb.suspected = hb.tell_launcher = NULL;
    MPL_free(echo.answered);
    echo.answered = echo.received = NULL;
}

/* mpiexec waits for the processes of every node to end; one declared
 * failed without being seen to die (its node froze or was cut off) may
 * never end. Told of each (a PMI get of a key that only mpiexec answers,
 * PMI_declared_failed_ID), mpiexec gives up a node once all its processes
 * are declared. Only processes of the job's first launch are told of: a
 * replacement, and a process told of by a replacement, are of another
 * launch (REBUILD), whose ids mpiexec numbers apart. */
static void tell_launcher(int pid)
{
    char key[64], val[64];
    if (MPIDI_FTDEV_global.replaced[pid] || MPIDI_FTDEV_global.replaced[MPIDI_FTDEV_global.my_pid])
        return;
    snprintf(key, sizeof(key), "PMI_declared_failed_%d", pid);
    if (MPIR_pmi_kvs_get(-1, key, val, sizeof(val)) != MPI_SUCCESS)
        MPIR_FTMPI_TRACE("heartbeat: the launcher was not told of process %d", pid);
}

/* The main thread's part, from progress: failures the thread noticed. */
void MPIDI_FTDEV_heartbeat_failures(void)
{
    char how[96];
    /* (progress calls this on every call once a job outlived a failure:
     * the processes are looked at only when the thread has news) */
    if (hb.suspected == NULL || !__atomic_exchange_n(&hb.news, 0, __ATOMIC_ACQ_REL))
        return;
    for (int pid = 0; pid < MPIDI_FTDEV_global.num_pids; pid++) {
        /* even when another survivor's notice came first */
        if (__atomic_exchange_n(&hb.tell_launcher[pid], 0, __ATOMIC_ACQ_REL))
            tell_launcher(pid);
        int why = __atomic_load_n(&hb.suspected[pid], __ATOMIC_ACQUIRE);
        if (why == HB_NOT_SUSPECTED || MPIDI_FTDEV_global.peer_state[pid] != MPIDI_FTDEV_PEER_ALIVE)
            continue;
        MPIDI_FTDEV_take_what_arrived();
        if (MPIDI_FTDEV_global.peer_state[pid] != MPIDI_FTDEV_PEER_ALIVE)
            continue;
        if (why == HB_SUSPECT_ENDED)
            snprintf(how, sizeof(how), "its process ended, seen from its node");
        else
            snprintf(how, sizeof(how), "no heartbeat for %d ms",
                     MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT);
        MPIDI_FTDEV_peer_failed(pid, how);
    }
}

/* A replacement took over process id pid: a process again, watched afresh. */
void MPIDI_FTDEV_heartbeat_revive(int pid)
{
    if (hb.suspected)
        __atomic_store_n(&hb.suspected[pid], 0, __ATOMIC_RELEASE);
    if (echo.answered) {
        __atomic_store_n(&echo.answered[pid], 0, __ATOMIC_RELEASE);
        __atomic_store_n(&echo.received[pid], 0, __ATOMIC_RELEASE);
    }
    if (hb.running)
        watch_update();
}
