/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * REBUILD's messages (MPIDI_FTDEV_CTRL_REBUILD; their layout and check:
 * ftdev_wire.h): walking and writing their entries, making one, sending
 * it. Both sides of the protocol make them: the survivors and the
 * coordinator (ftdev_rebuild.c), and the replacement (ftdev_rejoin.c).
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_control.h"
#include "ftdev_rebuild.h"

const MPIDI_FTDEV_rb_entry_t *MPIDI_FTDEV_rb_next_entry(const MPIDI_FTDEV_rb_entry_t * e)
{
    size_t size = MPIDI_FTDEV_rb_entry_size(e->address_len);
    return (const MPIDI_FTDEV_rb_entry_t *) ((const char *) e + size);
}

MPIDI_FTDEV_rb_entry_t *MPIDI_FTDEV_rb_put_entry(MPIDI_FTDEV_rb_entry_t * e, int pid, int state,
                                                 const void *address, size_t len,
                                                 const MPIDI_FTDEV_hb_contact_t * heartbeat)
{
    e->pid = pid;
    e->state = state;
    e->address_len = (uint32_t) len;
    e->node = MPIR_Process.node_map[pid];
    e->heartbeat = *heartbeat;
    if (len)
        memcpy(e + 1, address, len);
    return (MPIDI_FTDEV_rb_entry_t *) ((char *) e + MPIDI_FTDEV_rb_entry_size(len));
}

MPIDI_FTDEV_rb_msg_t *MPIDI_FTDEV_rb_new_msg(uint32_t kind, uint32_t epoch, size_t entries_len,
                                             size_t *len)
{
    *len = sizeof(MPIDI_FTDEV_rb_msg_t) + entries_len;
    MPIDI_FTDEV_rb_msg_t *m = MPL_calloc(1, *len, MPL_MEM_OTHER);
    if (m) {
        m->head = (MPID_FT_msg_head_t) {.kind = kind,.seq = epoch };
        memcpy(m->modes, MPIDI_FTDEV_global.upper.policy.modes, sizeof(m->modes));
    }
    return m;
}

int MPIDI_FTDEV_rb_send(int to, MPIDI_FTDEV_rb_msg_t * m, size_t len)
{
    /* a REBUILT passed on is sent by this process */
    m->head.sender = MPIDI_FTDEV_global.world.my_pid;
    return MPIDI_FTDEV_send_ctrl(to, MPIDI_FTDEV_CTRL_REBUILD, MPIDI_FTDEV_global.world.my_pid, m, len,
                                 NULL);
}
