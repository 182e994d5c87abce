/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* The device's own test points (ftdev_test_point.c); the others are
 * MPID_FT_test_point and MPID_FT_test_death of mpid_ft.h. A build without
 * --enable-ft-test-points compiles none of them. */
#ifndef FTDEV_TEST_POINT_H_INCLUDED
#define FTDEV_TEST_POINT_H_INCLUDED

/* Reads FTMPI_TEST_POINT: an error when it is malformed, or set in a
 * build without test points. */
int MPIDI_FTDEV_fault_injection_init(void);

#ifdef HAVE_FT_TEST_POINTS
/* The point "deaf": the process drops every control message once it
 * learned of the death of process `dead` on its node (test/ftmpi/ft_deaf.c). */
extern int MPIDI_FTDEV_test_deaf;
void MPIDI_FTDEV_test_deaf_after(int dead);
#define MPIDI_FTDEV_TEST_DEAF() unlikely(MPIDI_FTDEV_test_deaf)
/* The point "replay": a sealed control message (len bytes: its header,
 * then the message) was sent to `to`; a sealed heartbeat datagram was sent
 * to `to`; process `pid` was replaced, its replacement installed. */
void MPIDI_FTDEV_test_replay_sent(int to, const void *sealed, size_t len);
void MPIDI_FTDEV_test_replay_keep_datagram(int to, const void *datagram, size_t len);
void MPIDI_FTDEV_test_replay_to_replacement(int pid);
#else
#define MPIDI_FTDEV_test_deaf_after(dead) ((void) 0)
#define MPIDI_FTDEV_TEST_DEAF() 0
#define MPIDI_FTDEV_test_replay_sent(to, sealed, len) ((void) 0)
#define MPIDI_FTDEV_test_replay_keep_datagram(to, datagram, len) ((void) 0)
#define MPIDI_FTDEV_test_replay_to_replacement(pid) ((void) 0)
#endif

#endif /* FTDEV_TEST_POINT_H_INCLUDED */
