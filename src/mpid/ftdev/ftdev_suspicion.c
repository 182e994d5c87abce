/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Suspicion: what the heartbeat thread (ftdev_heartbeat.c), the echo check
 * (ftdev_echo.c) and the node watch (ftdev_node_watch.c) share, below all
 * three: the table of suspects that the thread fills and the main thread
 * takes from progress, and the datagrams to a peer's thread.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_failure.h"
#include "ftdev_detect.h"
#include "ftdev_counters.h"
#include "ftdev_heartbeat.h"
#include "ftdev_key.h"
#include "ftdev_test_point.h"
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

MPIDI_FTDEV_hb_t MPIDI_FTDEV_hb = {.sock = -1,.watch_epoll = -1 };

int MPIDI_FTDEV_hb_live(int pid)
{
    return MPIDI_FTDEV_global.peers.state[pid] == MPIDI_FTDEV_PEER_ALIVE &&
        !MPIDI_FTDEV_hb.suspected[pid];
}

void MPIDI_FTDEV_hb_send(int pid, int kind, int about, int state)
{
    MPIDI_FTDEV_hb_contact_t c = MPIDI_FTDEV_global.peers.hb[pid];
    MPIDI_FTDEV_hb_msg_t m = {.magic = HB_MAGIC,.kind = kind,.from = MPIDI_FTDEV_global.world.my_pid,
        .from_ospid = (int32_t) getpid(),.about = about,.state = state,.to = pid,.to_ospid = c.ospid,
        /* the main thread sends too (the receive check's questions) */
        .counter = __atomic_add_fetch(&MPIDI_FTDEV_hb.counter, 1, __ATOMIC_RELAXED)
    };
    struct sockaddr_in to = {.sin_family = AF_INET,.sin_addr.s_addr = c.ip,.sin_port = c.port };
    MPIDI_FTDEV_hb_seal(&m, MPIDI_FTDEV_keys.heartbeat);
    MPIDI_FTDEV_test_replay_keep_datagram(pid, &m, sizeof(m));
    if (c.port &&
        sendto(MPIDI_FTDEV_hb.sock, &m, sizeof(m), MSG_DONTWAIT, (struct sockaddr *) &to,
               sizeof(to)) > 0)
        MPIDI_FTDEV_count_sent(MPIDI_FTDEV_PROTO_HEARTBEAT, sizeof(m));
}

void MPIDI_FTDEV_hb_suspect(int pid, int why)
{
    __atomic_store_n(&MPIDI_FTDEV_hb.suspected[pid], why, __ATOMIC_RELEASE);
    /* in this order, seen in this order (progress_checks' clearing) */
    __atomic_store_n(&MPIDI_FTDEV_hb.news, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&MPIDI_FTDEV_global.failures.progress_checks, 1, __ATOMIC_SEQ_CST);
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
    if (MPIDI_FTDEV_global.rebuild.replaced[pid] || MPIDI_FTDEV_global.rebuild.replaced[MPIDI_FTDEV_global.world.my_pid])
        return;
    snprintf(key, sizeof(key), "PMI_declared_failed_%d", pid);
    if (MPIR_pmi_kvs_get(-1, key, val, sizeof(val)) != MPI_SUCCESS)
        MPID_FT_TRACE("heartbeat: the launcher was not told of process %d", pid);
    else
        MPID_FT_TRACE("heartbeat: told the launcher that process %d was declared failed", pid);
}

void MPIDI_FTDEV_hb_tell_launcher_pending(void)
{
    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids; pid++)
        if (__atomic_exchange_n(&MPIDI_FTDEV_hb.tell_launcher[pid], 0, __ATOMIC_ACQ_REL))
            tell_launcher(pid);
}

/* The main thread's part, from progress: failures the thread noticed. */
void MPIDI_FTDEV_heartbeat_failures(void)
{
    char how[96];
    /* (progress calls this on every call once a job outlived a failure:
     * the processes are looked at only when the thread has news) */
    /* (a plain load first: the exchange is a locked instruction) */
    if (MPIDI_FTDEV_hb.suspected == NULL ||
        !__atomic_load_n(&MPIDI_FTDEV_hb.news, __ATOMIC_RELAXED) ||
        !__atomic_exchange_n(&MPIDI_FTDEV_hb.news, 0, __ATOMIC_ACQ_REL))
        return;
    /* even of those whose failure another survivor's notice told first */
    MPIDI_FTDEV_hb_tell_launcher_pending();
    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids; pid++) {
        int why = __atomic_load_n(&MPIDI_FTDEV_hb.suspected[pid], __ATOMIC_ACQUIRE);
        if (why == HB_NOT_SUSPECTED || MPIDI_FTDEV_global.peers.state[pid] != MPIDI_FTDEV_PEER_ALIVE)
            continue;
        MPIDI_FTDEV_take_what_arrived();
        if (MPIDI_FTDEV_global.peers.state[pid] != MPIDI_FTDEV_PEER_ALIVE)
            continue;
        if (why == HB_SUSPECT_ENDED)
            snprintf(how, sizeof(how), "its process ended, seen from its node");
        else
            snprintf(how, sizeof(how), "no heartbeat for %d ms",
                     MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT);
        MPIDI_FTDEV_peer_failed(pid, how);
    }
}
