/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Trace points of the fault-tolerance protocols: failures as they are
 * learned, agreement rounds, commit votes and decisions, rebuild messages,
 * epoch switches. Off by default; MPIR_CVAR_FTMPI_TRACE=1 prints one line
 * per step on stderr, with the process id and the wall-clock time (seconds
 * within the current 1000 s, so that lines of processes on one node can be
 * put in order).
 *
 * MPIR_CVAR_FTMPI_TRACE_FILE=PREFIX writes, for each process, the file
 * PREFIX.HOST.PID of timestamped events (CLOCK_REALTIME, so that the
 * processes' lines can be put side by side), one per line:
 *
 *     # ftmpi-trace rank=R size=N host=HOST pid=PID
 *     SECONDS.NANOSECONDS EVENT [KEY=VALUE ...]
 *
 * Events: init, failure (pid= how=), recovery-begin, recovery-end (rc=
 * size=), resume (how=comm_dup|errhandler), joined (a REBUILD replacement
 * in the world; epoch=), step (text=, each MPIR_CVAR_FTMPI_TRACE line),
 * exit; the checkpoint library adds ckpt-take, ckpt-restore-begin and
 * ckpt-restore-end. bin/ftmpi-timeline draws them. Each line is one
 * write() on a file opened for appending, so that the checkpoint library
 * can write to it too.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include <stdarg.h>
#include <sys/time.h>
#include <fcntl.h>
#include <unistd.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

categories :
    - name : FT_MPI
      description : FT-MPICH's fault-tolerance protocols

cvars:
    - name        : MPIR_CVAR_FTMPI_TRACE
      category    : FT_MPI
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        1 prints a line on stderr for each step of the fault-tolerance
        protocols (failures learned, agreement rounds, commit votes and
        decisions, rebuild messages, epoch switches), with the process id
        (its first MPI_COMM_WORLD rank) and the wall-clock time.

    - name        : MPIR_CVAR_FTMPI_TRACE_FILE
      category    : FT_MPI
      type        : string
      default     : ""
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        A path prefix: each process writes timestamped events of failures,
        recoveries and protocol steps to PREFIX.HOST.PID, which
        ftmpi-timeline draws as a recovery timeline.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

int MPID_FT_trace_events;
static int trace_fd = -1;

static void write_event(const char *fmt, va_list ap)
{
    struct timespec now;
    char line[640];
    int len;

    clock_gettime(CLOCK_REALTIME, &now);
    len = snprintf(line, sizeof(line), "%ld.%09ld ", (long) now.tv_sec, now.tv_nsec);
    len += vsnprintf(line + len, sizeof(line) - len, fmt, ap);
    if (len > (int) sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    if (write(trace_fd, line, len) < 0) {
        /* a trace that cannot be written stops; the job goes on */
        MPID_FT_trace_events = 0;
    }
}

static void trace_exit(void)
{
    MPID_FT_EVENT("exit");
}

void MPID_FT_trace_open(void)
{
    char path[4096], host[256], head[512];
    int len;

    if (trace_fd >= 0 || MPIR_CVAR_FTMPI_TRACE_FILE == NULL || !*MPIR_CVAR_FTMPI_TRACE_FILE)
        return;
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = 0;
    snprintf(path, sizeof(path), "%s.%s.%ld", MPIR_CVAR_FTMPI_TRACE_FILE, host, (long) getpid());
    /* a name that exists, a link planted there included, is refused: the
     * file is this process's own, new, and readable by its user only */
    trace_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (trace_fd < 0) {
        fprintf(stderr, "FT-MPICH: cannot write the trace file %s (%s); no trace\n", path,
                errno == EEXIST || errno == ELOOP ?
                "something is there already: a trace file is always made new" :
                strerror(errno));
        return;
    }
    len = snprintf(head, sizeof(head), "# ftmpi-trace rank=%d size=%d host=%s pid=%ld\n",
                   MPIR_Process.rank, MPIR_Process.size, host, (long) getpid());
    if (write(trace_fd, head, len) == len) {
        MPID_FT_trace_events = 1;
        MPID_FT_EVENT("init");
        atexit(trace_exit);
    }
}

void MPID_FT_event(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    write_event(fmt, ap);
    va_end(ap);
}

void MPID_FT_trace(const char *fmt, ...)
{
    struct timeval now;
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (MPID_FT_trace_events)
        MPID_FT_event("step text=\"%s\"", line);
    if (!MPIR_CVAR_FTMPI_TRACE)
        return;
    gettimeofday(&now, NULL);
    /* a spawned world's processes say which world: its first tag pid */
    char world[16] = "";
    if (MPIDI_FTDEV_global.world.base)
        snprintf(world, sizeof(world), "@%d", MPIDI_FTDEV_global.world.base);
    fprintf(stderr, "[ftmpi %d%s %03ld.%06ld] %s\n", MPIR_Process.rank, world,
            (long) (now.tv_sec % 1000), (long) now.tv_usec, line);
    fflush(stderr);
}
