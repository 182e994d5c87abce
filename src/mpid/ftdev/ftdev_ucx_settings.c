/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The UCX settings ftdev depends on (API: ftdev_ucx_settings.h).
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_ucx_settings.h"
#include <sys/mman.h>
#include <sys/random.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* UCX opens both of its shared-memory transports, POSIX and SysV, and
 * uses one. UCX 1.13 makes its SysV segments mode 0660, so that any member
 * of the job owner's group can attach them and read or write every
 * message between the node's processes; its POSIX segments are created
 * 0600 and unlinked at once, and a peer maps them through
 * /proc/PID/fd, which only the same user may open. So ftdev leaves SysV
 * out wherever this process can make a POSIX segment; a node without
 * POSIX shared memory keeps SysV rather than falling back to TCP. */
static int posix_shm_works(void)
{
    /* an unpredictable name: another user who plants the name first must
     * not make this process fall back to SysV */
    for (int tries = 0; tries < 8; tries++) {
        uint32_t r = 0;
        char name[64];
        if (getrandom(&r, sizeof(r), 0) != sizeof(r))
            r = (uint32_t) tries;
        snprintf(name, sizeof(name), "/ftmpi-probe-%d-%08x", (int) getpid(), (unsigned) r);
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0) {
            shm_unlink(name);
            close(fd);
            return 1;
        }
        if (errno != EEXIST)
            return 0;
    }
    return 0;
}

/* Endpoints use peer-failure error handling; in that mode UCX 1.13 leaves
 * shared memory (and cma for large messages) out, and quietly runs
 * node-local traffic over TCP at ten times the latency, unless told that
 * both may be used with error handling. Without cma, large messages go
 * through shared memory in fragments, twice as fast where it was
 * measured, but then a rendezvous send that a failure cuts short can stay
 * in UCX until the end (its request is never returned). */
void MPIDI_FTDEV_set_ucx_defaults(void)
{
    static const char *const defaults[][2] = {
        {"UCX_MM_ERROR_HANDLING", "y"},
        {"UCX_CMA_MEMORY_INVALIDATE", "y"},
        /* shared memory notices a dead peer only through keepalive,
         * which checks every endpoint each interval */
        {"UCX_KEEPALIVE_INTERVAL", "100ms"},
        {"UCX_KEEPALIVE_NUM_EPS", "inf"},
        /* UCX 1.13's TCP transport asserts on the next event of a batch
         * for a connection that an earlier one closed (a peer's node died:
         * tcp_iface.c "conn_state != CLOSED"); one socket event per poll
         * leaves no stale one behind */
        {"UCX_TCP_MAX_POLL", "1"},
    };
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        setenv(defaults[i][0], defaults[i][1], 0 /* keep the user's value */);
    if (getenv("UCX_TLS") == NULL && posix_shm_works())
        setenv("UCX_TLS", "^sysv", 0);
}
