/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The job's key (ftdev_key.c): where a process gets it, and the subkeys
 * that seal its heartbeat datagrams and control messages.
 */

#ifndef FTDEV_KEY_H_INCLUDED
#define FTDEV_KEY_H_INCLUDED

#include "ftdev_wire.h"

/* The environment variable the launcher's proxies set (Hydra). */
#define MPIDI_FTDEV_KEY_ENV "FTMPI_JOB_KEY"
/* The preput key that carries it to a REBUILD replacement where the
 * launcher does not (srun --mpi=pmi2). */
#define MPIDI_FTDEV_KEY_PREPUT "ftmpi-job-key"

extern MPIDI_FTDEV_wire_keys_t MPIDI_FTDEV_keys;

/* Takes the key from the launcher's environment variable, once (removing
 * it from the environment); an error if it is malformed. */
int MPIDI_FTDEV_key_from_launcher(void);
/* Whether the key is known yet, and whether the launcher gave it. */
int MPIDI_FTDEV_key_known(void);
int MPIDI_FTDEV_key_given_by_launcher(void);
/* A key drawn here (the first process of a world whose launcher gave
 * none), or one taken from another process (hex digits, NUL-ended). */
int MPIDI_FTDEV_key_draw(void);
int MPIDI_FTDEV_key_from_hex(const char *hex, const char *where);
/* The key as hex digits, to hand on (buffer of 2 * MPIDI_FTDEV_KEY_BYTES + 1). */
void MPIDI_FTDEV_key_hex(char *hex);

#endif /* FTDEV_KEY_H_INCLUDED */
