/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The addresses processes of other worlds reach a process by
 * (ftdev_spawn.c): the network transports' part of its worker address.
 * Endpoints between two worlds are made from these on both sides; UCX
 * cannot join two endpoints of one pair of workers made from different
 * parts of an address.
 */

#ifndef FTDEV_SPAWN_H_INCLUDED
#define FTDEV_SPAWN_H_INCLUDED

/* This process's, made once */
int MPIDI_FTDEV_open_net_address(const void **address, size_t * len);
/* Another process's, kept by pid */
int MPIDI_FTDEV_save_net_address(int pid, const void *address, size_t len);
void MPIDI_FTDEV_close_net_addresses(void);

/* ch4's (ch4_spawn.c, patch ch4-spawn-fails-instead-of-waiting): whether
 * the children this process's MPI_Comm_spawn waits for ended before they
 * connected, as the launcher says; asked at most every 100 ms, 0 when no
 * spawn waits. A wait for a dynamic connection asks it. */
int MPIDIU_spawned_children_ended(void);

#endif /* FTDEV_SPAWN_H_INCLUDED */
