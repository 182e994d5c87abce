/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * UCX's error lines about peers that just died. A process that connects
 * to a peer, or unpacks a peer's memory key, right after that peer died
 * finds its shared-memory segments gone: UCX's shared-memory transports
 * print an error (e.g. "shmat(shmid=...) failed") before ftdev can know
 * why. In a fault-tolerant job that is what a failure looks like from
 * inside UCX, and ftdev handles the failure itself. Those lines are held
 * back; if the job never had a failure to explain them, MPI_Finalize
 * prints them after all, so a real shared-memory problem is still seen.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_ucx_log.h"
#include <ucs/debug/log_def.h>

static struct {
    int installed;
    int held;                   /* lines held back */
    char first[256];            /* the first of them */
} ucx_log;

/* UCX's shared-memory transports: mm (sysv, posix), cma and the
 * single-copy base they share. */
static int from_shared_memory_transport(const char *file)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    return !strncmp(base, "mm_", 3) || !strncmp(base, "cma_", 4) || !strncmp(base, "scopy_", 6);
}

static ucs_log_func_rc_t hold_back_dead_peer_errors(const char *file, unsigned line,
                                                    const char *function, ucs_log_level_t level,
                                                    const ucs_log_component_config_t * comp_conf,
                                                    const char *message, va_list ap)
{
    if (level > UCS_LOG_LEVEL_WARN || !from_shared_memory_transport(file))
        return UCS_LOG_FUNC_RC_CONTINUE;
    /* UCX may log from its own progress thread */
    if (__atomic_fetch_add(&ucx_log.held, 1, __ATOMIC_RELAXED) == 0) {
        va_list copy;
        va_copy(copy, ap);
        vsnprintf(ucx_log.first, sizeof(ucx_log.first), message, copy);
        va_end(copy);
    }
    MPID_FT_TRACE("ucx: held back %s:%u %s", file, line, ucx_log.first);
    return UCS_LOG_FUNC_RC_STOP;
}

void MPIDI_FTDEV_ucx_log_hold_back(void)
{
    if (MPIDI_FTDEV_global.upper.policy.aborts_on_failure)
        return;
    /* handlers pushed later run first, before UCX's own printing one */
    ucs_log_push_handler(hold_back_dead_peer_errors);
    ucx_log.installed = 1;
}

void MPIDI_FTDEV_ucx_log_release(void)
{
    if (!ucx_log.installed)
        return;
    ucs_log_pop_handler();
    ucx_log.installed = 0;
    if (ucx_log.held && MPIDI_FTDEV_global.failures.learned == 0)
        fprintf(stderr, "FT-MPICH: rank %d: UCX reported %d shared-memory error(s) although no "
                "process failed; the first: %s\n", MPIDI_FTDEV_global.world.my_pid, ucx_log.held,
                ucx_log.first);
}
