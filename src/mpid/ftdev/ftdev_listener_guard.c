/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * UCX's TCP listeners against connections that never speak (why and
 * what: ftdev_listener_guard.h). The checks run in one thread: the
 * heartbeat thread where there is one, else the guard's own; the main
 * thread notes the listeners during MPI_Init.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_counters.h"
#include "ftdev_listener_guard.h"
#include "ftdev_detect.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LISTENERS 16
/* what a UCX 1.13 peer sends first, in one send (its uct/tcp/tcp.h
 * and tcp_cm.c): an 8-byte magic number, a 5-byte active-message header
 * and the connection request, 13 bytes and the connecting interface's
 * socket address */
#define UCX_HANDSHAKE_BYTES(addr_len) (8 + 5 + 13 + (addr_len))
#define SILENT_GRACE_MS 1000
/* a genuine peer's handshake follows its connection within microseconds,
 * or a scheduler's time slice on a loaded node */
#define YOUNGEST_SHUT_MS 20
#define CHECK_INTERVAL_MS 1000.0
#define SHORT_CHECK_INTERVAL_MS 250.0
/* the listeners' queues of connections UCX has yet to accept, all of
 * them together: a sixteenth of the limit, which a flood can still bring
 * in after the gate closes; the rest of the last quarter is for what UCX
 * accepts before the gate is seen to close */
#define BACKLOG_SHARE 16
#define MIN_BACKLOG 16
#define OWN_THREAD_PERIOD_MS 100
/* how often the gate is looked at while descriptors run short and it is
 * open: a flood fills the last quarter of the limit within a
 * heartbeat's turn */
#define GATE_WATCH_MS 5

/* The kernel's struct tcp_info goes on past glibc's (netinet/tcp.h; its
 * linux/tcp.h cannot be included beside it): since Linux 4.1 four 64-bit
 * counters follow tcpi_total_retrans, the last of them the bytes
 * received. A kernel that fills fewer says so by the length it returns. */
typedef struct {
    struct tcp_info base;
    uint64_t pacing_rate, max_pacing_rate, bytes_acked, bytes_received;
} tcp_info_with_bytes_t;

typedef struct {
    int fd;
    ino_t ino;
    int family;
    in_port_t port;             /* network order */
} listener_t;

/* the application's own listening sockets at MPI_Init: at most so many */
#define MAX_LISTENERS_BEFORE 256

static struct {
    ino_t before[MAX_LISTENERS_BEFORE]; /* listening sockets before UCX's worker */
    int num_before;                     /* beyond the array: they cannot be told apart */
    listener_t ucx[MAX_LISTENERS];
    int num_ucx;
    int lost_reported;
    int limit;                  /* of descriptors */
    int probe_fd;               /* in use: descriptors run short */
    int gate_fd;                /* in use: the listener is about to be lost */
    DIR *fds;                   /* /proc/self/fd, opened while there were descriptors */
    double last_check, last_sweep;
    int gated;                  /* the listeners drop connection requests */
    int open_failure_reported;
    unsigned long gate_closings;
    int running;                /* the guard's own thread (no heartbeat thread) */
    pthread_t thread;
} guard = {.probe_fd = -1,.gate_fd = -1 };

/* The port of an IPv4 or IPv6 address (network order); 0 for others. */
static in_port_t port_of(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return ((const struct sockaddr_in *) ss)->sin_port;
    if (ss->ss_family == AF_INET6)
        return ((const struct sockaddr_in6 *) ss)->sin6_port;
    return 0;
}

/* Whether fd is an IPv4 or IPv6 socket; its inode, whether it listens
 * and its local address in *st, *listens and *local. */
static int ip_socket(int fd, struct stat *st, int *listens, struct sockaddr_storage *local)
{
    socklen_t len = sizeof(*listens), local_len = sizeof(*local);
    return fstat(fd, st) == 0 && S_ISSOCK(st->st_mode) &&
        getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, listens, &len) == 0 &&
        getsockname(fd, (struct sockaddr *) local, &local_len) == 0 && port_of(local) != 0;
}

/* fd's listening socket in *l; 0 when fd is none */
static int listening_socket(int fd, listener_t * l)
{
    struct stat st;
    int listens;
    struct sockaddr_storage ss;

    if (!ip_socket(fd, &st, &listens, &ss) || !listens)
        return 0;
    *l = (listener_t) {.fd = fd,.ino = st.st_ino,.family = ss.ss_family,.port = port_of(&ss) };
    return 1;
}

/* Calls fn(fd, arg) for each descriptor of this process but the
 * directory's own. */
static void each_fd(void (*fn) (int fd, void *arg), void *arg)
{
    struct dirent *e;
    if (guard.fds == NULL)
        return;
    rewinddir(guard.fds);
    while ((e = readdir(guard.fds)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        int fd = atoi(e->d_name);
        if (fd != dirfd(guard.fds))
            fn(fd, arg);
    }
}

static void note_before(int fd, void *arg)
{
    listener_t l;
    if (listening_socket(fd, &l)) {
        if (guard.num_before < MAX_LISTENERS_BEFORE)
            guard.before[guard.num_before] = l.ino;
        guard.num_before++;
    }
}

static void note_ucx(int fd, void *arg)
{
    listener_t l;
    if (guard.num_before > MAX_LISTENERS_BEFORE || guard.num_ucx >= MAX_LISTENERS ||
        !listening_socket(fd, &l))
        return;
    for (int i = 0; i < guard.num_before; i++)
        if (guard.before[i] == l.ino)
            return;
    guard.ucx[guard.num_ucx++] = l;
}

void MPIDI_FTDEV_listener_guard_before_worker(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur <= INT_MAX) {
        guard.limit = (int) rl.rlim_cur;
        guard.probe_fd = guard.limit / 2;
        guard.gate_fd = guard.limit / 4 * 3;
    }
    if (guard.fds == NULL)
        guard.fds = opendir("/proc/self/fd");
    guard.num_before = guard.num_ucx = 0;
    each_fd(note_before, NULL);
}

/* UCX's own thread closes descriptors it has just accepted, and its
 * progress those it gave up on, while the guard runs: a socket is
 * reached through a descriptor of the guard's own that is checked to
 * name the same socket (inode ino), never through a number that may have
 * been reused meanwhile. -1 when fd names another file or none. */
static int own_descriptor(int fd, ino_t ino)
{
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    struct stat st;
    if (own >= 0 && (fstat(own, &st) != 0 || st.st_ino != ino)) {
        close(own);
        own = -1;
    }
    return own;
}

/* Whether descriptor fd (-1: none noted) is open. */
static int in_use(int fd)
{
    return fd > 0 && fcntl(fd, F_GETFD) != -1;
}

/* Calls fn(fd, arg) with a descriptor of the guard's own for each of
 * UCX's listening sockets that is still there. */
static void each_listener(void (*fn) (int fd, void *arg), void *arg)
{
    for (int i = 0; i < guard.num_ucx; i++) {
        int own = own_descriptor(guard.ucx[i].fd, guard.ucx[i].ino);
        if (own >= 0) {
            fn(own, arg);
            close(own);
        }
    }
}

/* UCX asks for the kernel's longest queue (somaxconn, commonly 4,096)
 * on each listener: so many connections could still be accepted after
 * the gate closes, more than the last quarter of a small limit */
static void shorten_backlog(int fd, void *arg)
{
    listen(fd, *(int *) arg);
}

void MPIDI_FTDEV_listener_guard_after_worker(void)
{
    each_fd(note_ucx, NULL);
    int backlog = MPL_MAX(MIN_BACKLOG, guard.limit / BACKLOG_SHARE / MPL_MAX(1, guard.num_ucx));
    if (guard.limit > 0)
        each_listener(shorten_backlog, &backlog);
    MPID_FT_TRACE("connection guard: %d listening socket(s) of UCX's, descriptors run short "
                  "at %d", guard.num_ucx, guard.probe_fd);
}

static const listener_t *ucx_listener_of(const struct sockaddr_storage *ss)
{
    in_port_t port = port_of(ss);
    for (int i = 0; i < guard.num_ucx && port; i++)
        if (guard.ucx[i].family == ss->ss_family && guard.ucx[i].port == port)
            return &guard.ucx[i];
    return NULL;
}

static void peer_name(const struct sockaddr_storage *ss, char *buf, size_t size)
{
    char addr[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *) ss)->sin_addr, addr, sizeof(addr));
    else if (ss->ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) ss)->sin6_addr, addr, sizeof(addr));
    snprintf(buf, size, "%s:%u", addr, (unsigned) ntohs(port_of(ss)));
}

/* A connection accepted on one of UCX's listeners that has not (yet)
 * delivered UCX's handshake. */
typedef struct {
    int fd;
    ino_t ino;
    uint32_t silent_ms;         /* since it was accepted or last brought a byte */
    uint32_t bytes;
    size_t handshake;
} silent_t;

typedef struct {
    silent_t *list;
    int n, cap;
    int fds;                    /* descriptors in use, these included */
    int unclosed;               /* accepted ones that ended, which UCX has not closed */
} sweep_t;

static void watch_gate(void);

/* a sweep of thousands of descriptors takes long on a busy node: the
 * gate is looked at every so many of them meanwhile */
#define GATE_WATCH_EVERY 256

static void note_if_silent(int fd, void *arg)
{
    sweep_t *sw = arg;
    struct stat st;
    struct sockaddr_storage local;
    tcp_info_with_bytes_t info;
    socklen_t info_len = sizeof(info);
    int listens;

    if (++sw->fds % GATE_WATCH_EVERY == 0)
        watch_gate();
    if (!ip_socket(fd, &st, &listens, &local) || listens)
        return;
    const listener_t *l = ucx_listener_of(&local);
    if (l == NULL)
        return;
    memset(&info, 0, sizeof(info));
    /* one shut down already (FIN sent) or closed by its peer waits for
     * UCX's progress to close it */
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &info_len) != 0 || info_len < sizeof(info))
        return;
    if (info.base.tcpi_state != TCP_ESTABLISHED) {
        sw->unclosed++;
        return;
    }
    size_t handshake = UCX_HANDSHAKE_BYTES(l->family == AF_INET ? sizeof(struct sockaddr_in) :
                                           sizeof(struct sockaddr_in6));
    if (info.bytes_received >= handshake || info.base.tcpi_last_data_recv < YOUNGEST_SHUT_MS)
        return;
    if (sw->n == sw->cap) {
        int cap = sw->cap ? 2 * sw->cap : 1024;
        silent_t *list = MPL_realloc(sw->list, cap * sizeof(*list), MPL_MEM_OTHER);
        if (list == NULL)
            return;
        sw->list = list, sw->cap = cap;
    }
    sw->list[sw->n++] = (silent_t) {
        .fd = fd,.ino = st.st_ino,.silent_ms = info.base.tcpi_last_data_recv,
        .bytes = (uint32_t) info.bytes_received,.handshake = handshake
    };
}

static int longest_silent_first(const void *a, const void *b)
{
    const silent_t *x = a, *y = b;
    return (x->silent_ms < y->silent_ms) - (x->silent_ms > y->silent_ms);
}

static void shut_down(const silent_t * c)
{
    int own = own_descriptor(c->fd, c->ino);
    if (own < 0)
        return;
    struct sockaddr_storage peer;
    socklen_t peer_len = sizeof(peer);
    char who[INET6_ADDRSTRLEN + 8] = "?";
    if (getpeername(own, (struct sockaddr *) &peer, &peer_len) == 0)
        peer_name(&peer, who, sizeof(who));
    shutdown(own, SHUT_RDWR);
    MPIDI_FTDEV_reject(MPIDI_FTDEV_REJECT_CONNECTION,
                       "a connection to UCX's listener from %s that sent %u of the %zu "
                       "bytes of a handshake in %u ms (descriptors run short)", who,
                       c->bytes, c->handshake, c->silent_ms);
    close(own);
}

/* The gate: a socket filter on each listener that drops every segment
 * with SYN set (the filter sees the TCP header first), so that no new
 * connection is made while it is closed. Those made before it closed
 * keep working: they inherit the filter, but an established connection
 * receives no SYN. A peer's connection request is retried by its kernel
 * (after about 1, 2, 4 s ...) and goes through once the gate opens. */
static void attach_syn_filter(int fd, void *arg)
{
    static struct sock_filter drop_syn[] = {
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 13), /* TCP flags */
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x02, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 0),
        BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
    };
    struct sock_fprog prog = {.len = sizeof(drop_syn) / sizeof(drop_syn[0]),.filter = drop_syn };
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) != 0)
        ++*(int *) arg;
}

static void detach_filter(int fd, void *arg)
{
    /* the kernel checks an int's length before it looks at the option */
    int unused = 0;
    if (setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &unused, sizeof(unused)) != 0 &&
        errno != ENOENT)
        *(int *) arg = errno;
}

static void close_gate(void)
{
    int failed = 0;
    each_listener(attach_syn_filter, &failed);
    guard.gated = 1;
    guard.gate_closings++;
    /* the first closing, then the 2nd, 4th, 8th ...: a flood that comes
     * back again and again adds few lines */
    if ((guard.gate_closings & (guard.gate_closings - 1)) == 0)
        MPID_FT_TRACE("connection guard: UCX's listeners take no new connections until half of "
                      "the %d descriptors are free (closing %lu%s)", guard.limit,
                      guard.gate_closings, failed ? "; a listener refused the filter" : "");
}

/* closes the gate once three quarters of the limit are in use */
static void watch_gate(void)
{
    if (!guard.gated && in_use(guard.gate_fd))
        close_gate();
}

static void open_gate(void)
{
    int failed = 0;
    each_listener(detach_filter, &failed);
    guard.gated = 0;
    if (failed && !guard.open_failure_reported) {
        guard.open_failure_reported = 1;
        fprintf(stderr, "FT-MPICH: rank %d: cannot take the connection guard's filter off a "
                "listening socket of UCX's (%s): it may take no new connections\n",
                MPIDI_FTDEV_global.world.my_pid, strerror(failed));
    }
}

/* Shuts down every connection silent for SILENT_GRACE_MS, and more of
 * the longest silent ones until three quarters of the limit are free.
 * With the gate open, nothing while UCX has not closed those that ended
 * (the process makes no MPI call, or UCX frees one connection a call and
 * falls behind): the flood would only open others in their place. */
static void sweep(void)
{
    sweep_t sw = { 0 };
    each_fd(note_if_silent, &sw);
    if (guard.gated && sw.fds < guard.limit / 2)
        open_gate();
    if (!guard.gated && sw.unclosed > 0) {
        MPL_free(sw.list);
        return;
    }
    qsort(sw.list, sw.n, sizeof(*sw.list), longest_silent_first);
    int excess = sw.fds - guard.limit / 4;
    for (int i = 0; i < sw.n && (i < excess || sw.list[i].silent_ms >= SILENT_GRACE_MS); i++) {
        shut_down(&sw.list[i]);
        if (i % GATE_WATCH_EVERY == 0)
            watch_gate();
    }
    MPL_free(sw.list);
}

static void report_lost_listeners(void)
{
    for (int i = 0; i < guard.num_ucx && !guard.lost_reported; i++) {
        struct stat st;
        if (fstat(guard.ucx[i].fd, &st) == 0 && st.st_ino == guard.ucx[i].ino)
            continue;
        guard.lost_reported = 1;
        fprintf(stderr, "FT-MPICH: rank %d: UCX closed its TCP listening socket (port %u), most "
                "likely when no descriptor was left to accept a connection: new processes "
                "can no longer reach this one over TCP\n", MPIDI_FTDEV_global.world.my_pid,
                ntohs(guard.ucx[i].port));
    }
}

void MPIDI_FTDEV_listener_guard_check(double now_ms)
{
    if (guard.num_ucx == 0)
        return;
    int short_of_fds = in_use(guard.probe_fd);
    if (guard.gated && !short_of_fds)
        open_gate();
    watch_gate();
    if (short_of_fds && now_ms - guard.last_sweep >= SHORT_CHECK_INTERVAL_MS) {
        guard.last_sweep = now_ms;
        sweep();
    }
    if (now_ms - guard.last_check >= CHECK_INTERVAL_MS) {
        guard.last_check = now_ms;
        report_lost_listeners();
    }
}

int MPIDI_FTDEV_listener_guard_wait_ms(int usual_ms)
{
    if (guard.num_ucx > 0 && !guard.gated && in_use(guard.probe_fd))
        return MPL_MIN(usual_ms, GATE_WATCH_MS);
    return usual_ms;
}

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void *guard_thread(void *arg)
{
    while (__atomic_load_n(&guard.running, __ATOMIC_ACQUIRE)) {
        MPIDI_FTDEV_listener_guard_check(wall_ms());
        poll(NULL, 0, MPIDI_FTDEV_listener_guard_wait_ms(OWN_THREAD_PERIOD_MS));
    }
    return NULL;
}

void MPIDI_FTDEV_listener_guard_start(void)
{
    if (guard.num_ucx == 0 || MPIDI_FTDEV_heartbeat_enabled() || guard.running)
        return;
    guard.running = 1;
    /* the launcher's SIGUSR1 is for the main thread */
    sigset_t usr1, old;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, &old);
    int err = pthread_create(&guard.thread, NULL, guard_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        guard.running = 0;
        fprintf(stderr, "FT-MPICH: rank %d: cannot start the thread that guards UCX's TCP "
                "listeners (%s): a flood of idle connections may close them\n",
                MPIDI_FTDEV_global.world.my_pid, strerror(err));
    }
}

void MPIDI_FTDEV_listener_guard_stop(void)
{
    if (guard.running) {
        __atomic_store_n(&guard.running, 0, __ATOMIC_RELEASE);
        pthread_join(guard.thread, NULL);
    }
}
