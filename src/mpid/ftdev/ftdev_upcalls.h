/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The device's side of what the layers above hand it (mpid_ft.h): the
 * policy and events are kept in MPIDI_FTDEV_global; these helpers stand in
 * for an event the layers above did not register.
 */

#ifndef FTDEV_UPCALLS_H_INCLUDED
#define FTDEV_UPCALLS_H_INCLUDED

/* The error of an operation refused or ended by the failure of `pid`
 * (pid < 0: by a failure that awaits recovery), as the layers above word
 * it (their failure_error event). */
int MPIDI_FTDEV_failure_error(int pid);

/* A failure awaits recovery and the policy stops every call until then
 * (they get MPIDI_FTDEV_failure_error(-1)). */
int MPIDI_FTDEV_halted(void);

/* Whether process `pid`'s modes (from its business card or a rebuild
 * message) differ from this process's; when they do, msg says how. */
int MPIDI_FTDEV_modes_differ(const int32_t * theirs, int pid, char *msg, size_t len);

/* Ends this process during MPI_Init, the same way on every process of a
 * job whose configuration is refused: prints msg (when not NULL) as one
 * line, leaves PMI and exits with status 1. */
void MPIDI_FTDEV_exit_at_init(const char *msg) __attribute__ ((noreturn));

#endif /* FTDEV_UPCALLS_H_INCLUDED */
