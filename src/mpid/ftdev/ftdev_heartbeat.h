/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Inside the failure detectors: what the heartbeat thread
 * (ftdev_heartbeat.c), the receive check (ftdev_echo.c) and the node
 * watch (ftdev_node_watch.c) share: the thread's state, its datagrams and
 * table of suspects (ftdev_suspicion.c, below the three), and what a node
 * sees of its processes. Included by those files only; the rest of ftdev
 * reaches them through ftdev_detect.h.
 */

#ifndef FTDEV_HEARTBEAT_H_INCLUDED
#define FTDEV_HEARTBEAT_H_INCLUDED

#include <pthread.h>

/* Why the thread holds a process failed (MPIDI_FTDEV_hb.suspected). */
enum { HB_NOT_SUSPECTED = 0, HB_SUSPECT_SILENT, HB_SUSPECT_ENDED };

typedef struct {
    int sock;
    pthread_t thread;
    volatile int running;
    uint8_t *suspected;         /* per process id, set by the thread for the main thread */
    uint8_t *tell_launcher;     /* per process id: declared failed by this process, which
                                 * could not see it die; the main thread tells mpiexec */
    int news;                   /* set with a suspicion, taken by the main thread */
    uint64_t counter;           /* datagrams this process sent (their replay counter) */
    MPIDI_FTDEV_replay_window_t *windows;       /* per process id: the datagrams seen */
    /* the thread's: processes of this node it watches end (pidfds) */
    int watch_epoll;            /* the pidfds; -1: no watch */
    int *watch_fd;              /* per process id; -1: none */
    int32_t *watch_ospid;       /* per process id: the process watch_fd is of (0: none) */
} MPIDI_FTDEV_hb_t;

extern MPIDI_FTDEV_hb_t MPIDI_FTDEV_hb;

/* ftdev_suspicion.c: a datagram to process pid's thread. */
void MPIDI_FTDEV_hb_send(int pid, int kind, int about, int state);
/* Alive in ftdev's view and not suspected by the thread. */
int MPIDI_FTDEV_hb_live(int pid);
/* Marks pid failed for the main thread (why: HB_SUSPECT_*), which handles
 * it at its next progress call. */
void MPIDI_FTDEV_hb_suspect(int pid, int why);
/* Tells mpiexec of each process the thread declared failed without seeing
 * it die, and not told of yet (main thread only: a PMI round trip). */
void MPIDI_FTDEV_hb_tell_launcher_pending(void);

/* ftdev_node_watch.c: this node's view of its processes. */
int MPIDI_FTDEV_on_my_node(int pid);
/* The OS pid of process `pid` when this process can see it (same node,
 * same pid namespace), else 0. */
int32_t MPIDI_FTDEV_visible_ospid(int pid);
MPIDI_FTDEV_proc_condition_t MPIDI_FTDEV_proc_condition(int pid);
/* The pidfd watch of the node's processes: open (MPI_SUCCESS or an
 * out-of-memory error), brought in line with ftdev's view, read (returns how
 * many events it read), cleared of the ended, closed. */
int MPIDI_FTDEV_watch_open(void);
void MPIDI_FTDEV_watch_update(void);
int MPIDI_FTDEV_watch_collect(void);
void MPIDI_FTDEV_watch_forget_ended(void);
void MPIDI_FTDEV_watch_close(void);

/* ftdev_echo.c: the thread's side of the receive check. */
int MPIDI_FTDEV_echo_open(int num_pids);
void MPIDI_FTDEV_echo_close(void);
void MPIDI_FTDEV_echo_revive(int pid);
void MPIDI_FTDEV_echo_watch(double now, double period, double timeout);
int32_t MPIDI_FTDEV_echo_state_of(int from);
void MPIDI_FTDEV_echo_peer_state(int from, int32_t state, double now);

#endif /* FTDEV_HEARTBEAT_H_INCLUDED */
