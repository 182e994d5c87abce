/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What REBUILD asks of the launcher (ftdev_launcher.c).
 */

#ifndef FTDEV_LAUNCHER_H_INCLUDED
#define FTDEV_LAUNCHER_H_INCLUDED

/* What a replacement learns from the launcher's preput key. */
typedef struct {
    uint32_t epoch;             /* the epoch it joins */
    int coordinator;            /* the process id of the rebuild's coordinator */
    int chunks;                 /* name-service entries of the coordinator's address */
    char job[256];              /* the coordinator's job id, in those entries' names */
    long ospid;                 /* the coordinator's operating-system process id ... */
    char host[256];             /* ... and host */
} MPIDI_FTDEV_rejoin_key_t;

extern MPIDI_FTDEV_rejoin_key_t MPIDI_FTDEV_rejoin_key;

/* The coordinator's address in the name service for the rebuild of
 * `epoch` (publish = 0: taken out again); *nchunks: how many entries. */
int MPIDI_FTDEV_publish_address(uint32_t epoch, int publish, int *nchunks);

/* A replacement: the coordinator's address, from the name service
 * (allocated; *len bytes). */
int MPIDI_FTDEV_lookup_coordinator_address(void **address, size_t *len);

/* Asks the launcher for k new processes of this program, replacing
 * pids[k], for the rebuild of `epoch`. */
int MPIDI_FTDEV_spawn_replacements(int k, const int *pids, uint32_t epoch, int nchunks);

#endif /* FTDEV_LAUNCHER_H_INCLUDED */
