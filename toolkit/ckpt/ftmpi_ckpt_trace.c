/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/*
 * libftmpi_ckpt's trace: its takes and restores, written into the file
 * FT-MPICH traces the process into (read by ftmpi-timeline).
 */

#include "ftmpi_ckpt_impl.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

/* The file FT-MPICH traces this process into (MPI_Init created it, new and
 * private): PREFIX.HOST.PID with the PREFIX of MPIR_CVAR_FTMPI_TRACE_FILE.
 * MPICH 4.0.2's MPI_T cannot read a string control variable
 * (MPI_T_cvar_read copies the bytes of the variable, a char pointer, not
 * the string it points to), so the prefix comes from the environment, as
 * MPI_Init takes it: the MPICH_ and MPIR_PARAM_ spellings count too,
 * MPIR_CVAR_ before MPIR_PARAM_ before MPICH_. */
static int open_trace(void)
{
    static const char *const names[] = { "MPIR_CVAR_FTMPI_TRACE_FILE",
        "MPIR_PARAM_FTMPI_TRACE_FILE", "MPICH_FTMPI_TRACE_FILE"
    };
    const char *prefix = NULL;
    char path[4096], host[256];
    struct stat st;
    int fd;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && prefix == NULL; i++)
        prefix = getenv(names[i]);
    if (prefix == NULL || !*prefix)
        return -1;
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = 0;
    snprintf(path, sizeof(path), "%s.%s.%ld", prefix, host, (long) getpid());
    /* the file FT-MPICH created for this process, and only that: never
     * through a link, never one of another user's or with other names */
    fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
                    st.st_nlink != 1 || (st.st_mode & 077))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

void ckpt_trace(FTMPI_Ckpt ckpt, const char *fmt, ...)
{
    struct timespec now;
    char line[256];
    va_list ap;
    int len;

    if (ckpt->trace_fd == -2)
        ckpt->trace_fd = open_trace();
    if (ckpt->trace_fd < 0)
        return;
    clock_gettime(CLOCK_REALTIME, &now);
    len = snprintf(line, sizeof(line), "%ld.%09ld ", (long) now.tv_sec, now.tv_nsec);
    va_start(ap, fmt);
    len += vsnprintf(line + len, sizeof(line) - len, fmt, ap);
    va_end(ap);
    if (len < (int) sizeof(line) - 1) {
        line[len++] = '\n';
        /* one write per line: lines of the library and of MPI interleave whole */
        if (write(ckpt->trace_fd, line, len) < 0)
            ckpt->trace_fd = -1;
    }
}
