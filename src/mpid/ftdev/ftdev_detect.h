/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The failure detectors as the rest of ftdev sees them: the heartbeat
 * thread (ftdev_heartbeat.c), the node watch (ftdev_node_watch.c), the
 * receive check (ftdev_echo.c), and what progress asks of every detector
 * (ftdev_detect.c). What the detectors share among themselves is in
 * ftdev_heartbeat.h; where a detector's findings go, ftdev_failure.h.
 */

#ifndef FTDEV_DETECT_H_INCLUDED
#define FTDEV_DETECT_H_INCLUDED

/* Heartbeat (ftdev_heartbeat.c): whether it runs in this job; this
 * process's socket (its contact, or port 0 when off); the thread, from
 * MPI_Init's end to MPI_Finalize's; the failures it noticed, handled by
 * progress; a process id taken over by a replacement. */
int MPIDI_FTDEV_heartbeat_enabled(void);
int MPIDI_FTDEV_heartbeat_open(MPIDI_FTDEV_hb_contact_t * contact);
int MPIDI_FTDEV_heartbeat_start(void);
void MPIDI_FTDEV_heartbeat_stop(void);
void MPIDI_FTDEV_heartbeat_failures(void);
void MPIDI_FTDEV_heartbeat_revive(int pid);
/* Deaths on this node (ftdev_node_watch.c: pidfds the thread holds): the
 * main thread's look at them, every MPIDI_FTDEV_WATCH_CHECK_IDLE_POLLS
 * progress calls that found nothing (a system call, so not on every one),
 * or every MPIDI_FTDEV_WATCH_CHECK_YIELDS once it yields its core on each; and
 * whether a pidfd of every live process but this one is held (so that any
 * of their deaths will be seen). */
#define MPIDI_FTDEV_WATCH_CHECK_IDLE_POLLS 1024
#define MPIDI_FTDEV_WATCH_CHECK_YIELDS 16
void MPIDI_FTDEV_heartbeat_watch_check(void);
int MPIDI_FTDEV_heartbeat_watches_every_peer(void);

/* The check that this process still receives after a death on its node
 * (ftdev_echo.c): started by the failure of process `dead`;
 * progress's part (each call counts as one that polled UCX); and whether
 * a check is under way. */
void MPIDI_FTDEV_echo_start(int dead);
void MPIDI_FTDEV_echo_progress(void);
int MPIDI_FTDEV_echo_under_way(void);

/* (ftdev_detect.c) After a failure, waits that can no longer end well end with an error:
 * those of the application in CONT mode until the recovery (the requests
 * stay pending, see ftdev_failure.c), and an RMA synchronization that the
 * failure concerns (ftdev_rma.h). Called by progress while
 * MPIDI_FTDEV_global.failures.progress_checks is set; clears it when nothing is
 * left to check. */
int MPIDI_FTDEV_progress_checks(void);

#endif /* FTDEV_DETECT_H_INCLUDED */
