/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: ch4 netmod "ftdev".
 *
 * REBUILD (ftdev_rebuild.c): what start-up, failure handling and the
 * recovery layer call. MPID_FT_rebuild_world, the recovery layer's entry
 * point, is declared with the device interface in ftmpi_recovery.h.
 */

#ifndef FTDEV_REBUILD_H_INCLUDED
#define FTDEV_REBUILD_H_INCLUDED

/* In MPID_Init right after PMI start-up: a process the launcher started to
 * replace a failed one becomes that rank of the original job. */
int MPIDI_FTDEV_take_over_replaced_rank(void);

/* init_world of a replacement: joins the survivors through the coordinator
 * of the rebuild instead of the start-up address exchange. */
int MPIDI_FTDEV_rejoin(void);

/* The endpoint to `pid` broke: returns 1 when that endpoint leads to a
 * replacement not installed yet (which then counts as not joined). */
int MPIDI_FTDEV_replacement_ep_failed(int pid);

int MPIDI_FTDEV_create_ep(int pid, const ucp_address_t * address, ucp_ep_h * ep);
int MPIDI_FTDEV_save_address(int pid, const void *address, size_t len);

#endif /* FTDEV_REBUILD_H_INCLUDED */
