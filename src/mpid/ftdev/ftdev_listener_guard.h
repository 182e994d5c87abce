/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * UCX's TCP listeners against connections that never speak. UCX 1.13
 * accepts every connection to its listening sockets (in its own thread)
 * and keeps each open until the other side sends its handshake; one that
 * never does holds a descriptor of this process, and the accept() that
 * finds none left makes UCX close its listening socket for the rest of
 * the process's life (uct_tcp_iface_connect_handler). Nothing new could
 * then reach the process over TCP: no spawned child, no connect/accept
 * peer, no REBUILD replacement. Anyone who can reach the port could do
 * that within seconds at the common limit of 1,024 descriptors.
 *
 * The guard gives the process every descriptor it may have (the soft
 * limit raised to the hard one), learns which listening sockets are
 * UCX's (those ucp_worker_create opened) and shortens their queues of
 * connections not yet accepted to a sixteenth of the limit together.
 * From the heartbeat thread (or where none runs from one of its own), when
 * descriptors run short (the descriptor at half the limit in use), it
 * shuts down, four times a second, the connections accepted on them that
 * have not delivered UCX's handshake: every one silent for a second, and
 * more of the longest silent (20 ms at least) until three quarters of
 * the limit are free. UCX closes each at its next progress, one a call;
 * while it has not closed those that ended, none is shut down, since the
 * flood would only open others in their place. When three quarters of
 * the limit are in use all the same (the process makes no MPI call, or
 * has little CPU), a gate closes: a socket filter on each listener drops
 * connection requests (SYN), and silent connections are shut down
 * whatever is still open, until fewer than half the descriptors are in
 * use. A genuine UCX peer sends its whole handshake (magic number and
 * connection request) in one send as soon as its connection is up, and
 * one that finds the gate closed is retried by its kernel. Each
 * connection shut down is counted and traced (ftdev_counters.h,
 * MPIDI_FTDEV_REJECT_CONNECTION); a listening socket of UCX's that is
 * gone all the same is reported once on stderr.
 */

#ifndef FTDEV_LISTENER_GUARD_H_INCLUDED
#define FTDEV_LISTENER_GUARD_H_INCLUDED

/* Around ucp_worker_create: before it, raises the descriptor limit and
 * notes the listening sockets that exist; after it, takes the new ones
 * for UCX's. */
void MPIDI_FTDEV_listener_guard_before_worker(void);
void MPIDI_FTDEV_listener_guard_after_worker(void);

/* Called by the heartbeat thread at each of its turns (now_ms: its
 * clock); cheap unless descriptors run short or a second has passed. */
void MPIDI_FTDEV_listener_guard_check(double now_ms);

/* How long the thread that runs the checks may wait for its next turn:
 * usual_ms, or a few milliseconds while descriptors run short and the
 * gate is open (a flood can fill the rest of the limit within a turn). */
int MPIDI_FTDEV_listener_guard_wait_ms(int usual_ms);

/* Where no heartbeat thread runs (ABORT mode, or heartbeats turned off),
 * the checks run in a thread of their own, ten times a second, from the
 * end of MPI_Init until MPI_Finalize: progress cannot run them, since a
 * flood keeps it busy. One that cannot start says so on stderr. */
void MPIDI_FTDEV_listener_guard_start(void);
void MPIDI_FTDEV_listener_guard_stop(void);

#endif /* FTDEV_LISTENER_GUARD_H_INCLUDED */
