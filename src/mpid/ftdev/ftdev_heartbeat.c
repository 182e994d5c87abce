/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
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
 * the suspect's node-mates over this socket, from half the timeout on so
 * that their answer is in when the timeout ends. Only a process that has
 * ended, is stopped by a signal (SIGSTOP, a frozen node), or whose whole
 * node is silent too is declared failed, and a silent node is declared
 * with every process on it at once; one that runs, sleeps or is traced by
 * a debugger is heard again and watched anew. The watcher kills a declared
 * process when it runs on its node (so that it cannot wake up and write
 * into the recovered job), tells every live process and the declared one,
 * and its main thread handles the failure like any other at its next
 * progress call. A process told it was declared failed (by a datagram it
 * finds on waking up, or a survivor's failure notice naming it) ends
 * itself: the others have gone on without it.
 *
 * The same thread sees a process of its own node die the moment it does:
 * it holds a pidfd of each live peer on its node and sleeps on them with
 * its socket (ftdev_node_watch.c), so a death there costs no heartbeat
 * timeout and no round trip through the launcher. And the threads back
 * the check that a process still receives after a death on its node
 * (ftdev_echo.c): a process can run and beat and yet receive nothing.
 *
 * The thread works on its own UDP socket with plain system calls, so that
 * beats go out while the application computes and touches nothing of MPI's;
 * it only reads ftdev's view of who is alive. Off in ABORT mode (a failure
 * ends the job anyway) and with MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT=0.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_failure.h"
#include "ftdev_detect.h"
#include "ftdev_counters.h"
#include "ftdev_heartbeat.h"
#include "ftdev_key.h"
#include "ftdev_listener_guard.h"
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
        is stopped by a signal, or its whole node has not answered for it
        since half the timeout (then every process of that node is
        declared at once); one that runs slowly or is held by a debugger is
        not.
        Dead processes are found in milliseconds by other means (UCX, the
        node watch, the launcher): this only bounds how long a frozen
        process or node holds the others up. 0 turns the heartbeat off.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

#define HB_RECV_BATCH 256

static const char *const condition_name[PROC_NUM_CONDITIONS] = {
    "unseen", "ended", "stopped by a signal", "held by a debugger", "running"
};

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
        !MPIDI_FTDEV_global.upper.policy.aborts_on_failure;
}

/* Where the heartbeat listens: the address the job's other processes
 * reach this node at, loopback when the whole world runs on this one
 * (its REBUILD replacements are placed here too: ftdev_launcher.c). A
 * replacement does not know the world's nodes yet, and uses the node's. */
static uint32_t listening_address(void)
{
    if (MPIR_Process.num_nodes == 1 && !MPIDI_FTDEV_global.rebuild.is_replacement)
        return htonl(INADDR_LOOPBACK);
    return node_address();
}

int MPIDI_FTDEV_heartbeat_open(MPIDI_FTDEV_hb_contact_t * contact)
{
    int mpi_errno = MPI_SUCCESS;
    struct sockaddr_in addr = {.sin_family = AF_INET };
    socklen_t len = sizeof(addr);

    memset(contact, 0, sizeof(*contact));
    contact->ospid = (int32_t) getpid();
    contact->pid_namespace = own_pid_namespace();
    if (!MPIDI_FTDEV_heartbeat_enabled())
        goto fn_exit;
    addr.sin_addr.s_addr = listening_address();
    MPIDI_FTDEV_hb.sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    MPIR_ERR_CHKANDJUMP1(MPIDI_FTDEV_hb.sock < 0, mpi_errno, MPI_ERR_OTHER, "**ftdev_heartbeat",
                         "**ftdev_heartbeat %s", strerror(errno));
    MPIR_ERR_CHKANDJUMP1(bind(MPIDI_FTDEV_hb.sock, (struct sockaddr *) &addr, sizeof(addr)) != 0 ||
                         getsockname(MPIDI_FTDEV_hb.sock, (struct sockaddr *) &addr, &len) != 0,
                         mpi_errno, MPI_ERR_OTHER, "**ftdev_heartbeat", "**ftdev_heartbeat %s",
                         strerror(errno));
    contact->ip = addr.sin_addr.s_addr;
    contact->port = addr.sin_port;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- the thread ------------------------------------------------------------ */

/* The next (step 1) or previous (step -1) live process on the ring, or -1. */
static int neighbour(int step)
{
    int n = MPIDI_FTDEV_global.world.num_pids, me = MPIDI_FTDEV_global.world.my_pid;
    for (int i = 1; i < n; i++) {
        int pid = (me + step * i + n) % n;
        if (MPIDI_FTDEV_hb_live(pid))
            return pid;
    }
    return -1;
}

static void send_to(int pid, int kind, int about)
{
    MPIDI_FTDEV_hb_send(pid, kind, about, 0);
}

/* `what`: why it is suspected (NULL: its heartbeat is silent); `why`: what
 * its node said of it, or that the node said nothing. */
static void declare_failed(int pid, const char *what, const char *why)
{
    int n = MPIDI_FTDEV_global.world.num_pids;
    int32_t ospid = MPIDI_FTDEV_global.peers.hb[pid].ospid;
    int32_t seen = MPIDI_FTDEV_visible_ospid(pid);

    if (seen == 0)
        __atomic_store_n(&MPIDI_FTDEV_hb.tell_launcher[pid], 1, __ATOMIC_RELEASE);
    MPIDI_FTDEV_hb_suspect(pid, HB_SUSPECT_SILENT);
    if (what)
        fprintf(stderr, "FT-MPICH: process %d (os pid %d) %s and is declared failed (%s)\n",
                pid, (int) ospid, what, why);
    else
        fprintf(stderr, "FT-MPICH: process %d (os pid %d) sent no heartbeat for %d ms and is "
                "declared failed (%s)\n", pid, (int) ospid,
                MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT, why);
    if (seen > 0)
        kill(seen, SIGKILL);
    for (int p = 0; p < n; p++)
        if (p != MPIDI_FTDEV_global.world.my_pid && p != pid && MPIDI_FTDEV_hb_live(p))
            send_to(p, HB_FAILED, pid);
    /* and the process itself, which finds it if it ever runs again */
    send_to(pid, HB_FAILED, pid);
}

/* ---- is a silent process failed? -------------------------------------------
 * Asked of the node the suspect runs on, which can read its state in
 * /proc: this process itself, or a node-mate of the suspect's (HB_VERIFY,
 * answered with HB_VERDICT). A process that has ended or is stopped by a
 * signal is failed; one that runs, sleeps, waits for I/O or is traced by a
 * debugger is not, however long it is silent. */

static int is_failed_condition(int cond)
{
    return cond == PROC_ENDED || cond == PROC_STOPPED;
}

/* Whether p is a node-mate of `pid` that can answer for it: live, not
 * this process, and not in MPI_Finalize (whose thread stops answering). */
static int answering_node_mate(int p, int pid)
{
    return p != pid && p != MPIDI_FTDEV_global.world.my_pid && MPIDI_FTDEV_hb_live(p) &&
        !MPIDI_FTDEV_global.peers.finalizing[p] &&
        MPIR_Process.node_map[p] == MPIR_Process.node_map[pid];
}

/* The node-mates of `pid` that can be asked about it. */
static int ask_node_mates(int pid)
{
    int asked = 0;
    if (MPIR_Process.node_map == NULL)
        return 0;
    for (int p = 0; p < MPIDI_FTDEV_global.world.num_pids; p++)
        if (answering_node_mate(p, pid)) {
            send_to(p, HB_VERIFY, pid);
            asked++;
        }
    return asked;
}

/* The watcher's view of its predecessor while it is silent. */
typedef struct {
    int pid;                    /* the process watched; -1: none */
    double since;               /* watched from */
    double heard;               /* last heard from (0: never) */
    double node_asked;          /* its node was first asked about it and has not answered
                                 * since (0: no question pending) */
    double asked_at;            /* asked for the verdict that decides (0: not deciding) */
    int excused;                /* found alive though silent, and said so once */
} watch_t;

static void reset_questions(watch_t * w)
{
    w->asked_at = w->node_asked = 0;
}

/* Asks the suspect's node about it, unless this process sees it itself. */
static int ask_its_node(watch_t * w, double now)
{
    if (MPIDI_FTDEV_visible_ospid(w->pid) > 0)
        return -1;
    if (w->node_asked == 0)
        w->node_asked = now;
    return ask_node_mates(w->pid);
}

/* Nobody on pid's node answered for it for half the timeout: that node is
 * frozen, cut off or gone, and each of its processes with it (each was
 * asked and did not answer either). */
static void declare_node_failed(int pid)
{
    int *map = MPIR_Process.node_map;

    declare_failed(pid, NULL, "its node does not answer for it either");
    if (map == NULL || map[pid] == map[MPIDI_FTDEV_global.world.my_pid])
        return;
    for (int p = 0; p < MPIDI_FTDEV_global.world.num_pids; p++)
        if (answering_node_mate(p, pid))
            declare_failed(p, "runs on that node", "its node does not answer");
}

/* What the suspect's node said of it: it failed, or it is alive and gets
 * another timeout. */
static void settle(watch_t * w, int cond, double now)
{
    reset_questions(w);
    if (is_failed_condition(cond)) {
        declare_failed(w->pid, NULL, condition_name[cond]);
        return;
    }
    w->heard = now;
    if (!w->excused) {
        w->excused = 1;
        if (cond == PROC_TRACED)
            fprintf(stderr, "FT-MPICH: process %d is held by a debugger; it is silent but not "
                    "declared failed\n", w->pid);
        MPID_FT_TRACE("heartbeat: process %d silent for %d ms but %s: not failed", w->pid,
                      MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT, condition_name[cond]);
    }
}

/* The predecessor has been silent for the timeout: failed only if its
 * node says so, or has said nothing since it was first asked, half the
 * timeout ago or more. */
static void verify_suspect(watch_t * w, double now, double timeout)
{
    if (w->asked_at == 0) {
        int cond = MPIDI_FTDEV_proc_condition(w->pid);
        if (cond != PROC_UNSEEN) {
            settle(w, cond, now);
            return;
        }
        MPID_FT_TRACE("heartbeat: process %d silent for %.0f ms; %d process(es) of its node "
                      "asked", w->pid, now - MPL_MAX(w->heard, w->since), ask_its_node(w, now));
        w->asked_at = now;
    }
    if (w->node_asked != 0 && now - w->node_asked > timeout / 2)
        declare_node_failed(w->pid);
}

/* Whether a datagram is a genuine, first-seen one of a process of the
 * job (ftdev_wire.c checks its MAC, sender, counter and fields): a forged
 * or replayed one is counted and dropped, and never suspects, fences or
 * kills anything; one of a process since replaced is dropped too. */
static int datagram_opened(const void *buf, size_t len, MPIDI_FTDEV_hb_msg_t * m)
{
    const char *why;
    int me = MPIDI_FTDEV_global.world.my_pid;
    switch (MPIDI_FTDEV_hb_open(buf, len, MPIDI_FTDEV_keys.heartbeat, me,
                                MPIDI_FTDEV_global.peers.hb[me].ospid,
                                MPIDI_FTDEV_global.world.num_pids, MPIDI_FTDEV_global.peers.hb,
                                MPIDI_FTDEV_hb.windows, m, &why)) {
        case HB_OPENED:
            return 1;
        case HB_STALE:
            return 0;
        default:
            MPIDI_FTDEV_reject(MPIDI_FTDEV_REJECT_HEARTBEAT, "a datagram %s", why);
            return 0;
    }
}

/* The launcher's SIGUSR1 (a process of the job died: ch4 then reads the
 * launcher's list) is taken by the heartbeat thread alone. A handled
 * signal cuts short the sleep or wait of whichever thread it lands in;
 * the application's threads, which inherit the main thread's blocked
 * mask from MPI_Init on, must not see that. */
static void launcher_signal(int how)
{
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(how, &usr1, NULL);
}

static void *beat(void *arg)
{
    double period = MPIR_CVAR_CH4_FTDEV_HEARTBEAT_PERIOD;
    double timeout = MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT;
    double last_beat = 0, last_probe = 0;
    double *heard = MPL_calloc(MPIDI_FTDEV_global.world.num_pids, sizeof(double), MPL_MEM_OTHER);
    watch_t w = {.pid = -1 };

    launcher_signal(SIG_UNBLOCK);
    while (MPIDI_FTDEV_hb.running && heard) {
        double now = now_ms();
        int next = neighbour(1), prev = neighbour(-1);
        if (next >= 0 && now - last_beat >= period) {
            send_to(next, HB_BEAT, -1);
            last_beat = now;
        }
        if (prev != w.pid) {
            w = (watch_t) {.pid = prev,.since = now };
        }

        MPIDI_FTDEV_watch_update();
        struct pollfd fds[2] = { {.fd = MPIDI_FTDEV_hb.sock,.events = POLLIN},
        {.fd = MPIDI_FTDEV_hb.watch_epoll,.events = POLLIN}
        };
        poll(fds, MPIDI_FTDEV_hb.watch_epoll >= 0 ? 2 : 1,
             MPIDI_FTDEV_listener_guard_wait_ms((int) (period / 2) + 1));
        if (fds[1].revents) {
            MPIDI_FTDEV_watch_collect();
            MPIDI_FTDEV_watch_forget_ended();
        }
        if (fds[0].revents & POLLIN) {
            MPIDI_FTDEV_hb_msg_t m;
            char buf[sizeof(m) + 1];
            ssize_t got;
            /* a bounded batch: a flood of datagrams must not keep the
             * thread from beating */
            for (int batch = 0; batch < HB_RECV_BATCH &&
                 (got = recv(MPIDI_FTDEV_hb.sock, buf, sizeof(buf), MSG_DONTWAIT)) >= 0; batch++) {
                if (!datagram_opened(buf, (size_t) got, &m))
                    continue;
                MPIDI_FTDEV_count_received(MPIDI_FTDEV_PROTO_HEARTBEAT, sizeof(m), 0);
                if (m.kind == HB_BEAT) {
                    heard[m.from] = now_ms();
                } else if (m.kind == HB_PROBE) {
                    /* its view of the ring differs from ours (a failure
                     * one of us has not seen yet): answer directly */
                    heard[m.from] = now_ms();
                    send_to(m.from, HB_BEAT, -1);
                } else if (m.kind == HB_ECHO_ASK) {
                    send_to(m.from, HB_ECHO_STATE, MPIDI_FTDEV_echo_state_of(m.from));
                } else if (m.kind == HB_ECHO_STATE) {
                    MPIDI_FTDEV_echo_peer_state(m.from, m.about, now_ms());
                } else if (m.kind == HB_VERIFY) {
                    MPIDI_FTDEV_hb_send(m.from, HB_VERDICT, m.about,
                                        MPIDI_FTDEV_proc_condition(m.about));
                } else if (m.kind == HB_VERDICT && m.about == w.pid) {
                    /* an answer to a question asked before the timeout
                     * only shows that the node is there */
                    w.node_asked = 0;
                    if (w.asked_at != 0)
                        settle(&w, m.state, now_ms());
                } else if (m.kind == HB_FAILED && m.about == MPIDI_FTDEV_global.world.my_pid) {
                    MPIDI_FTDEV_fence("its heartbeat went silent");
                } else if (m.kind == HB_FAILED && !MPIDI_FTDEV_hb.suspected[m.about]) {
                    /* one of this node: it must not run on (it would end
                     * itself if it did), and its death lets its launcher
                     * go on */
                    int32_t ospid = MPIDI_FTDEV_visible_ospid(m.about);
                    if (ospid > 0)
                        kill(ospid, SIGKILL);
                    MPIDI_FTDEV_hb_suspect(m.about, HB_SUSPECT_SILENT);
                }
            }
        }
        if (w.pid >= 0 && heard[w.pid] > w.heard)
            w.heard = heard[w.pid], w.excused = 0, reset_questions(&w);

        MPIDI_FTDEV_echo_watch(now_ms(), period, timeout);
        MPIDI_FTDEV_listener_guard_check(now_ms());

        /* a process in MPI_Finalize may stop beating once everyone is there;
         * one silent for half the timeout is asked directly, since it may
         * beat to another successor than us, and its node is asked about
         * it, so that a silent node is known when the timeout ends */
        now = now_ms();
        double silent = w.pid >= 0 ? now - MPL_MAX(w.heard, w.since) : 0;
        if (w.pid >= 0 && !MPIDI_FTDEV_global.peers.finalizing[w.pid] &&
            !MPIDI_FTDEV_hb.suspected[w.pid]) {
            if (silent > timeout)
                verify_suspect(&w, now, timeout);
            else if (silent > timeout / 2 && now - last_probe >= period) {
                send_to(w.pid, HB_PROBE, -1);
                ask_its_node(&w, now);
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
    if (MPIDI_FTDEV_hb.sock < 0 || MPIDI_FTDEV_hb.running)
        goto fn_exit;
    MPIDI_FTDEV_hb.suspected = MPL_calloc(2 * MPIDI_FTDEV_global.world.num_pids, 1, MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(MPIDI_FTDEV_hb.suspected == NULL ||
                        MPIDI_FTDEV_echo_open(MPIDI_FTDEV_global.world.num_pids) != MPI_SUCCESS,
                        mpi_errno, MPI_ERR_OTHER, "**nomem");
    MPIDI_FTDEV_hb.tell_launcher = MPIDI_FTDEV_hb.suspected + MPIDI_FTDEV_global.world.num_pids;
    MPIDI_FTDEV_hb.windows = MPL_calloc(MPIDI_FTDEV_global.world.num_pids,
                                        sizeof(MPIDI_FTDEV_replay_window_t), MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(MPIDI_FTDEV_hb.windows == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    MPIR_ERR_CHKANDJUMP(MPIDI_FTDEV_watch_open() != MPI_SUCCESS, mpi_errno, MPI_ERR_OTHER,
                        "**nomem");
    /* every process of the node is watched when MPI_Init returns, not from
     * whenever the new thread first gets a core */
    MPIDI_FTDEV_watch_update();
    MPIDI_FTDEV_hb.running = 1;
    launcher_signal(SIG_BLOCK);
    int err = pthread_create(&MPIDI_FTDEV_hb.thread, NULL, beat, NULL);
    if (err) {
        launcher_signal(SIG_UNBLOCK);
        MPIDI_FTDEV_hb.running = 0;
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
    if (MPIDI_FTDEV_hb.running) {
        MPIDI_FTDEV_hb.running = 0;
        pthread_join(MPIDI_FTDEV_hb.thread, NULL);
        /* a node the thread declared in its last moments is still given
         * up by mpiexec, which would otherwise wait for it */
        MPIDI_FTDEV_hb_tell_launcher_pending();
    }
    MPIDI_FTDEV_watch_close();
    if (MPIDI_FTDEV_hb.sock >= 0)
        close(MPIDI_FTDEV_hb.sock);
    MPIDI_FTDEV_hb.sock = -1;
    MPL_free(MPIDI_FTDEV_hb.suspected);
    MPIDI_FTDEV_hb.suspected = MPIDI_FTDEV_hb.tell_launcher = NULL;
    MPL_free(MPIDI_FTDEV_hb.windows);
    MPIDI_FTDEV_hb.windows = NULL;
    MPIDI_FTDEV_echo_close();
}

/* A replacement took over process id pid: a process again, watched afresh. */
void MPIDI_FTDEV_heartbeat_revive(int pid)
{
    if (MPIDI_FTDEV_hb.suspected)
        __atomic_store_n(&MPIDI_FTDEV_hb.suspected[pid], 0, __ATOMIC_RELEASE);
    MPIDI_FTDEV_echo_revive(pid);
    if (MPIDI_FTDEV_hb.running)
        MPIDI_FTDEV_watch_update();
}
