/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The control channel (ftdev_control.c): ftdev's own messages between
 * processes (MPIDI_FTDEV_CTRL_*, active-message id MPIDI_FTDEV_AM_CONTROL).
 * Each message type has one owner, which registers what to do when one
 * arrives (and, if it needs to know, when one it sent has left); the
 * channel itself calls nobody by name.
 */

#ifndef FTDEV_CONTROL_H_INCLUDED
#define FTDEV_CONTROL_H_INCLUDED

/* A message of its type arrived from process `from`, about process (or
 * channel, or context id) `about`, with len bytes of payload in an aligned
 * copy (NULL when len is 0). Called from progress. */
typedef void (*MPIDI_FTDEV_ctrl_handler_t) (int from, int about, const void *payload,
                                            size_t len);
/* A message of its type sent to `to` has left: UCX let go of it. */
typedef void (*MPIDI_FTDEV_ctrl_sent_t) (int to, int about, const void *payload, size_t len);

/* Registers type's owner (from a constructor, before any message can
 * arrive); sent may be NULL. */
void MPIDI_FTDEV_ctrl_register(int type, MPIDI_FTDEV_ctrl_handler_t handler,
                               MPIDI_FTDEV_ctrl_sent_t sent);

/* Sends a control message of `type` about `about`, with len bytes of
 * payload, to process `to`. With request non-NULL the caller gets the UCX
 * request to watch (NULL once sent) and must release it. A message the
 * transport refuses at once (the connection to `to` broke), or one to a
 * process whose failure closed its endpoint, is lost like one the
 * transport fails to deliver later: traced, and left to the protocols'
 * resends and to failure detection. The error returned is this process's
 * own (no memory). */
int MPIDI_FTDEV_send_ctrl(int to, int type, int about, const void *payload, size_t len,
                          ucs_status_ptr_t * request);

/* Returns once UCX let go of every control message of `type` sent so far
 * (handed it to the peer's transport, or ended it with the peer's
 * failure): a protocol step that others wait for must leave a process
 * that goes back to the application. */
int MPIDI_FTDEV_ctrl_flush(int type);

/* Passes control message `type` about `about` on to this process's
 * neighbours in the binomial graph of comm's ranks (of process ids when
 * comm is NULL), for news that every process must hear. */
void MPIDI_FTDEV_tell_neighbours(int n, int me, MPIR_Comm * comm, int type, int about);

/* Makes and frees the channel's tables of counters and windows, one entry
 * per process id (MPI_Init, once the tag layout is set; MPI_Finalize). */
int MPIDI_FTDEV_ctrl_init(void);
void MPIDI_FTDEV_ctrl_finalize(void);

/* UCX's receive callback of the channel (registered by ftdev_init.c). */
ucs_status_t MPIDI_FTDEV_ctrl_recv_cb(void *arg, const void *header, size_t header_length,
                                      void *data, size_t length,
                                      const ucp_am_recv_param_t * param);

#endif /* FTDEV_CONTROL_H_INCLUDED */
