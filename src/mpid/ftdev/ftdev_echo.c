/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The receive check: does a process still receive after a death on its
 * node?
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

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_control.h"
#include "ftdev_failure.h"
#include "ftdev_detect.h"
#include "ftdev_heartbeat.h"
#include <stdlib.h>
#include <unistd.h>

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

/* Starts a check with the next live process of this node after `after`
 * (process ids, cyclically), or ends the check when there is none. */
static void echo_ask(int after)
{
    int n = MPIDI_FTDEV_global.world.num_pids, peer = -1;
    uint32_t seq = echo.seq + 1;

    for (int i = 1; i <= n && peer < 0; i++) {
        int p = (after + i) % n;
        if (p != MPIDI_FTDEV_global.world.my_pid && MPIDI_FTDEV_on_my_node(p) &&
            MPIDI_FTDEV_global.peers.state[p] == MPIDI_FTDEV_PEER_ALIVE &&
            !MPIDI_FTDEV_global.peers.finalizing[p] && !MPIDI_FTDEV_hb.suspected[p])
            peer = p;
    }
    if (peer < 0) {
        __atomic_store_n(&echo.heard, echo.seq, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(&echo.peer, peer, __ATOMIC_RELAXED);
    __atomic_store_n(&echo.seq, seq, __ATOMIC_RELEASE);
    MPL_wtime(&echo.asked_at);
    MPID_FT_TRACE("echo: check %u asks process %d whether this process still receives", seq,
                  peer);
    MPIDI_FTDEV_send_ctrl(peer, MPIDI_FTDEV_CTRL_ECHO, MPIDI_FTDEV_global.world.my_pid, &seq,
                          sizeof(seq), NULL);
    MPIDI_FTDEV_global.failures.progress_checks = 1;
}

void MPIDI_FTDEV_echo_start(int dead)
{
    if (MPIDI_FTDEV_hb.running && MPIDI_FTDEV_on_my_node(dead))
        echo_ask(MPIDI_FTDEV_global.world.my_pid);
}

/* The check number an echo message from `from` carries; 0 (no check)
 * for a malformed one, which is reported and dropped. */
static uint32_t echo_number(int from, const char *what, const void *payload, size_t len)
{
    uint32_t seq = 0;
    if (len != sizeof(seq))
        fprintf(stderr, "FT-MPICH: rank %d: dropped an echo %s of %zu bytes from rank %d\n",
                MPIDI_FTDEV_global.world.my_pid, what, len, from);
    else
        memcpy(&seq, payload, sizeof(seq));
    return seq;
}

/* ECHO from `from`, payload its check number: answered at once; the
 * answer's leaving is noted (echo_reply_sent) for the asker's thread. */
static void echo_request(int from, int about, const void *payload, size_t len)
{
    uint32_t seq = echo_number(from, "request", payload, len);
    if (seq == 0 || MPIDI_FTDEV_global.peers.state[from] != MPIDI_FTDEV_PEER_ALIVE)
        return;
    if (echo.received)
        __atomic_store_n(&echo.received[from], seq, __ATOMIC_RELEASE);
    MPIDI_FTDEV_send_ctrl(from, MPIDI_FTDEV_CTRL_ECHO_REPLY, from, &seq, sizeof(seq), NULL);
}

static void echo_reply_sent(int to, int about, const void *payload, size_t len)
{
    uint32_t seq;
    memcpy(&seq, payload, sizeof(seq));
    if (echo.answered && to >= 0 && to < MPIDI_FTDEV_global.world.num_pids)
        __atomic_store_n(&echo.answered[to], seq, __ATOMIC_RELEASE);
}

static void echo_reply(int from, int about, const void *payload, size_t len)
{
    uint32_t seq = echo_number(from, "answer", payload, len);
    if (seq != 0 && seq == echo.seq && from == echo.peer) {
        __atomic_store_n(&echo.heard, seq, __ATOMIC_RELEASE);
        MPID_FT_TRACE("echo: check %u answered by process %d", seq, from);
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
    if (!MPIDI_FTDEV_hb.running) {          /* MPI_Finalize stopped the thread */
        __atomic_store_n(&echo.heard, echo.seq, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(&echo.polls, echo.polls + 1, __ATOMIC_RELAXED);
    MPL_wtime(&now);
    MPL_wtime_diff(&echo.asked_at, &now, &waited);
    /* a peer that does not answer, and whose thread does not say it did,
     * may be busy outside MPI, or deaf itself: ask another */
    if (MPIDI_FTDEV_global.peers.state[echo.peer] != MPIDI_FTDEV_PEER_ALIVE ||
        MPIDI_FTDEV_global.peers.finalizing[echo.peer] ||
        (__atomic_load_n(&echo.written, __ATOMIC_ACQUIRE) != echo.seq &&
         waited * 1e3 > ECHO_PEER_PATIENCE * MPIR_CVAR_CH4_FTDEV_HEARTBEAT_TIMEOUT))
        echo_ask(echo.peer);
}

/* The heartbeat thread's part while a check is under way: it asks the
 * peer's thread whether the answer went out, and ends the process once it
 * did and the main thread, polling all along, never received it. */
void MPIDI_FTDEV_echo_watch(double now, double period, double timeout)
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
            MPIDI_FTDEV_hb_send(peer, HB_ECHO_ASK, (int32_t) seq, 0);
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
                MPIDI_FTDEV_global.world.my_pid, peer, echo.stuck ?
                "found its answer to the check could not be written into that queue" :
                "answered its check", now - echo.written_at);
        _exit(1);
    }
}

/* What this process's thread tells `from`'s of its checks (HB_ECHO_STATE):
 * the last one answered, or minus the last one asked whose answer could
 * not be written yet: from's queue takes nothing (it is full, behind an
 * element a killed writer left unfinished). */
int32_t MPIDI_FTDEV_echo_state_of(int from)
{
    if (!echo.answered)
        return 0;
    uint32_t answered = __atomic_load_n(&echo.answered[from], __ATOMIC_ACQUIRE);
    uint32_t received = __atomic_load_n(&echo.received[from], __ATOMIC_ACQUIRE);
    return received != 0 && received != answered ? -(int32_t) received : (int32_t) answered;
}

/* HB_ECHO_STATE from `from`: the last check of ours it answered, or
 * minus one it could not answer (echo_state_of). */
void MPIDI_FTDEV_echo_peer_state(int from, int32_t state, double now)
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

int MPIDI_FTDEV_echo_open(int num_pids)
{
    echo.answered = MPL_calloc(2 * num_pids, sizeof(uint32_t), MPL_MEM_OTHER);
    if (echo.answered == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", 0);
    echo.received = echo.answered + num_pids;
    return MPI_SUCCESS;
}

void MPIDI_FTDEV_echo_close(void)
{
    MPL_free(echo.answered);
    echo.answered = echo.received = NULL;
}

/* A replacement took over process id pid: none of its checks are known. */
void MPIDI_FTDEV_echo_revive(int pid)
{
    if (echo.answered) {
        __atomic_store_n(&echo.answered[pid], 0, __ATOMIC_RELEASE);
        __atomic_store_n(&echo.received[pid], 0, __ATOMIC_RELEASE);
    }
}

__attribute__ ((constructor))
static void register_echo_start(void)
{
    MPIDI_FTDEV_observe_failures(MPIDI_FTDEV_echo_start);
}
