/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The UCX settings ftdev depends on (ftdev_ucx_settings.c), applied to
 * the environment before ucp_init reads it, each unless the user set it:
 * shared memory and cma with peer-failure error handling, keepalive,
 * one TCP event per poll, and UCX's SysV segments (open to the owner's
 * group) left out where POSIX shared memory works (DESIGN section 4).
 */

#ifndef FTDEV_UCX_SETTINGS_H_INCLUDED
#define FTDEV_UCX_SETTINGS_H_INCLUDED

void MPIDI_FTDEV_set_ucx_defaults(void);

#endif /* FTDEV_UCX_SETTINGS_H_INCLUDED */
