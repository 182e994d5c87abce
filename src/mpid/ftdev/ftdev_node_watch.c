/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What this node sees of its processes. The heartbeat thread asks it
 * before it declares a silent process failed (/proc: ended, stopped by a
 * signal, held by a debugger, running), and watches them end.
 *
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

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_detect.h"
#include "ftdev_heartbeat.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
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

int MPIDI_FTDEV_on_my_node(int pid)
{
    return MPIR_Process.node_map &&
        MPIR_Process.node_map[pid] == MPIR_Process.node_map[MPIDI_FTDEV_global.world.my_pid];
}

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

int32_t MPIDI_FTDEV_visible_ospid(int pid)
{
    const MPIDI_FTDEV_hb_contact_t *c = &MPIDI_FTDEV_global.peers.hb[pid];
    uint64_t mine = MPIDI_FTDEV_global.peers.hb[MPIDI_FTDEV_global.world.my_pid].pid_namespace;

    if (!MPIDI_FTDEV_on_my_node(pid) || c->ospid <= 0 || mine == 0 || c->pid_namespace != mine)
        return 0;
    return c->ospid;
}

MPIDI_FTDEV_proc_condition_t MPIDI_FTDEV_proc_condition(int pid)
{
    int32_t ospid = MPIDI_FTDEV_visible_ospid(pid);
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
    if (pid == MPIDI_FTDEV_global.world.my_pid || !MPIDI_FTDEV_hb_live(pid) ||
        MPIDI_FTDEV_global.peers.finalizing[pid])
        return 0;
    return MPIDI_FTDEV_visible_ospid(pid);
}

static uint64_t watch_tag(int pid, int32_t ospid)
{
    return (uint64_t) (uint32_t) pid << 32 | (uint32_t) ospid;
}

static void watch_drop(int pid)
{
    int fd = MPIDI_FTDEV_hb.watch_fd[pid];
    if (fd >= 0) {
        __atomic_store_n(&MPIDI_FTDEV_hb.watch_fd[pid], -1, __ATOMIC_RELEASE);
        epoll_ctl(MPIDI_FTDEV_hb.watch_epoll, EPOLL_CTL_DEL, fd, NULL);
        close(fd);
    }
}

/* Brings the watched set in line with ftdev's view. */
void MPIDI_FTDEV_watch_update(void)
{
    if (MPIDI_FTDEV_hb.watch_epoll < 0)
        return;
    pthread_mutex_lock(&watch_lock);
    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids; pid++) {
        int32_t ospid = ospid_to_watch(pid);
        if (ospid == MPIDI_FTDEV_hb.watch_ospid[pid])
            continue;
        /* in this order, so that the main thread never pairs an fd with
         * a process it is not of (MPIDI_FTDEV_heartbeat_watches_every_peer) */
        watch_drop(pid);
        __atomic_store_n(&MPIDI_FTDEV_hb.watch_ospid[pid], ospid, __ATOMIC_RELEASE);
        int fd = ospid ? open_pidfd(ospid) : -1;        /* a failed open is not retried */
        if (fd < 0)
            continue;
        struct epoll_event ev = {.events = EPOLLIN,.data.u64 = watch_tag(pid, ospid) };
        if (epoll_ctl(MPIDI_FTDEV_hb.watch_epoll, EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(fd);
            continue;
        }
        __atomic_store_n(&MPIDI_FTDEV_hb.watch_fd[pid], fd, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&watch_lock);
}

/* The processes whose pidfd is readable, from either thread: failed,
 * unless ftdev moved on from that OS process (it finalized, or a
 * replacement took its process id). Returns how many events it read. */
int MPIDI_FTDEV_watch_collect(void)
{
    struct epoll_event ev[16];
    int n = epoll_wait(MPIDI_FTDEV_hb.watch_epoll, ev, 16, 0);
    for (int i = 0; i < n; i++) {
        int pid = (int) (ev[i].data.u64 >> 32);
        int32_t ospid = (int32_t) (uint32_t) ev[i].data.u64;
        if (pid >= 0 && pid < MPIDI_FTDEV_global.world.num_pids && !MPIDI_FTDEV_hb.suspected[pid] &&
            ospid == ospid_to_watch(pid))
            MPIDI_FTDEV_hb_suspect(pid, HB_SUSPECT_ENDED);
    }
    return n;
}

/* The thread's: drops the pidfds of processes that ended. */
void MPIDI_FTDEV_watch_forget_ended(void)
{
    pthread_mutex_lock(&watch_lock);
    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids; pid++)
        if (MPIDI_FTDEV_hb.watch_fd[pid] >= 0 && MPIDI_FTDEV_hb.suspected[pid])
            watch_drop(pid);
    pthread_mutex_unlock(&watch_lock);
}

void MPIDI_FTDEV_heartbeat_watch_check(void)
{
    if (MPIDI_FTDEV_hb.watch_epoll >= 0 && MPIDI_FTDEV_watch_collect() > 0)
        MPIDI_FTDEV_heartbeat_failures();
}

int MPIDI_FTDEV_heartbeat_watches_every_peer(void)
{
    if (!MPIDI_FTDEV_hb.running || MPIDI_FTDEV_hb.watch_epoll < 0)
        return 0;
    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids; pid++) {
        if (pid == MPIDI_FTDEV_global.world.my_pid ||
            MPIDI_FTDEV_global.peers.state[pid] != MPIDI_FTDEV_PEER_ALIVE)
            continue;
        /* one the thread has found dead and not yet reported was watched;
         * a finalizing process no longer is */
        if (__atomic_load_n(&MPIDI_FTDEV_hb.suspected[pid], __ATOMIC_ACQUIRE))
            continue;
        int32_t ospid = __atomic_load_n(&MPIDI_FTDEV_hb.watch_ospid[pid], __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&MPIDI_FTDEV_hb.watch_fd[pid], __ATOMIC_ACQUIRE) < 0 ||
            __atomic_load_n(&MPIDI_FTDEV_hb.watch_ospid[pid], __ATOMIC_ACQUIRE) != ospid ||
            ospid != MPIDI_FTDEV_global.peers.hb[pid].ospid)
            return 0;
    }
    return 1;
}

int MPIDI_FTDEV_watch_open(void)
{
    int n = MPIDI_FTDEV_global.world.num_pids;
    if (!MPIR_CVAR_CH4_FTDEV_WATCH_NODE_PEERS)
        return MPI_SUCCESS;
    MPIDI_FTDEV_hb.watch_fd = MPL_malloc(n * sizeof(int), MPL_MEM_OTHER);
    MPIDI_FTDEV_hb.watch_ospid = MPL_calloc(n, sizeof(int32_t), MPL_MEM_OTHER);
    if (MPIDI_FTDEV_hb.watch_fd == NULL || MPIDI_FTDEV_hb.watch_ospid == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", 0);
    for (int pid = 0; pid < n; pid++)
        MPIDI_FTDEV_hb.watch_fd[pid] = -1;
    /* no pidfd_open (Linux before 5.3): detection as before */
    int probe = open_pidfd((int32_t) getpid());
    if (probe >= 0) {
        close(probe);
        MPIDI_FTDEV_hb.watch_epoll = epoll_create1(EPOLL_CLOEXEC);
    }
    return MPI_SUCCESS;
}

void MPIDI_FTDEV_watch_close(void)
{
    for (int pid = 0; MPIDI_FTDEV_hb.watch_fd && pid < MPIDI_FTDEV_global.world.num_pids; pid++)
        if (MPIDI_FTDEV_hb.watch_fd[pid] >= 0)
            close(MPIDI_FTDEV_hb.watch_fd[pid]);
    if (MPIDI_FTDEV_hb.watch_epoll >= 0)
        close(MPIDI_FTDEV_hb.watch_epoll);
    MPIDI_FTDEV_hb.watch_epoll = -1;
    MPL_free(MPIDI_FTDEV_hb.watch_fd);
    MPL_free(MPIDI_FTDEV_hb.watch_ospid);
    MPIDI_FTDEV_hb.watch_fd = NULL;
    MPIDI_FTDEV_hb.watch_ospid = NULL;
}
