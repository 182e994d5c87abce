/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * REBUILD: what start-up, failure handling and the recovery layer call,
 * and the protocol's messages, which the coordinator's side
 * (ftdev_rebuild.c), the survivors' (ftdev_rebuild_survivor.c) and the
 * replacement's (ftdev_rejoin.c) share.
 * MPID_FT_rebuild_world, the recovery layer's entry point, is declared
 * with the device interface in mpid_ft.h; the launcher's part is in
 * ftdev_launcher.h.
 */

#ifndef FTDEV_REBUILD_H_INCLUDED
#define FTDEV_REBUILD_H_INCLUDED

/* init_world of a replacement: joins the survivors through the coordinator
 * of the rebuild instead of the start-up address exchange. */
int MPIDI_FTDEV_rejoin(void);

/* ftdev_endpoint.c: an endpoint to `pid` whose errors report its failure,
 * unless the filter (REBUILD's) returns 1 for it; and the copy of `pid`'s
 * worker address every process keeps. */
int MPIDI_FTDEV_create_ep(int pid, const ucp_address_t * address, ucp_ep_h * ep);
typedef int (*MPIDI_FTDEV_ep_error_filter_t) (int pid);
void MPIDI_FTDEV_filter_ep_errors(MPIDI_FTDEV_ep_error_filter_t filter);
int MPIDI_FTDEV_save_address(int pid, const void *address, size_t len);
/* *slot becomes a copy of the address (the one it held freed) */
int MPIDI_FTDEV_keep_address_copy(void **slot, size_t * slot_len, const void *address, size_t len);

/* ---- the protocol's messages (MPIDI_FTDEV_CTRL_REBUILD) ------------------ */

/* (the messages' layout and their check: ftdev_wire.h; the state,
 * rb_received and rb_send_received: ftdev_rebuild.c; the rest:
 * ftdev_rebuild_msg.c) */

/* The protocol's state, allocated at its first use (an out-of-memory
 * error when it cannot be). */
int MPIDI_FTDEV_rb_alloc_state(void);

const MPIDI_FTDEV_rb_entry_t *MPIDI_FTDEV_rb_next_entry(const MPIDI_FTDEV_rb_entry_t * e);
/* Writes an entry at e (its node from MPIR_Process.node_map); returns the
 * place of the next one. */
MPIDI_FTDEV_rb_entry_t *MPIDI_FTDEV_rb_put_entry(MPIDI_FTDEV_rb_entry_t * e, int pid, int state,
                                                 const void *address, size_t len,
                                                 const MPIDI_FTDEV_hb_contact_t * heartbeat);
/* A message of `kind` with room for entries_len bytes of entries and this
 * process's modes; *len its whole length. NULL without memory. */
MPIDI_FTDEV_rb_msg_t *MPIDI_FTDEV_rb_new_msg(uint32_t kind, uint32_t epoch, size_t entries_len,
                                             size_t *len);
int MPIDI_FTDEV_rb_send(int to, MPIDI_FTDEV_rb_msg_t * m, size_t len);
/* The last WELCOME or REBUILT received, when it is of that kind and epoch;
 * else NULL. */
const MPIDI_FTDEV_rb_msg_t *MPIDI_FTDEV_rb_received(uint32_t kind, uint32_t epoch);
/* Sends `to` the last WELCOME or REBUILT received (a coordinator's
 * REBUILT, as sent). */
int MPIDI_FTDEV_rb_send_received(int to);

/* ---- between the coordinator's side and the survivors' ------------------- */

/* The epoch of the last READY that named `pid`, and of the last READY
 * `pid` sent here (UINT32_MAX: none). */
uint32_t MPIDI_FTDEV_rb_ready_epoch(int pid);
uint32_t MPIDI_FTDEV_rb_ready_from(int pid);
/* A survivor the coordinator waits for: alive, not leaving, not this
 * process. */
int MPIDI_FTDEV_rb_awaited_survivor(const uint8_t * dead, int pid);
/* Process `pid` is alive again, at `address` (through `ep` where one is
 * made already). */
int MPIDI_FTDEV_rb_install(int pid, const void *address, size_t len, ucp_ep_h ep,
                           const MPIDI_FTDEV_hb_contact_t * heartbeat);
/* Ends the whole job, through the launcher, saying why the rebuild failed. */
void MPIDI_FTDEV_rb_pathological(const char *what);
/* ftdev_rebuild_survivor.c: a survivor's part of the rebuild of `epoch`;
 * *again when the coordinator failed before REBUILT. */
int MPIDI_FTDEV_rb_survivor_wait(uint32_t epoch, int coordinator, const uint8_t * dead, int *again);

#endif /* FTDEV_REBUILD_H_INCLUDED */
