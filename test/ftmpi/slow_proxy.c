/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A proxy slow to answer mpiexec, for scripts/attack_mpiexec_flood.sh:
 * preloaded (LD_PRELOAD) into a job, it makes hydra_pmi_proxy wait
 * FTMPI_TEST_PROXY_DELAY_MS milliseconds after it connected to mpiexec's
 * control port, before it reads the challenge and answers, as a proxy on
 * a loaded node or across a slow network would. Every other program is
 * left alone. Built with plain gcc: gcc -shared -fPIC -o slow_proxy.so
 * slow_proxy.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
    static int (*real_connect)(int, const struct sockaddr *, socklen_t);
    const char *delay = getenv("FTMPI_TEST_PROXY_DELAY_MS");
    int rc, saved;

    if (real_connect == NULL)
        real_connect = (int (*)(int, const struct sockaddr *, socklen_t)) dlsym(RTLD_NEXT, "connect");
    rc = real_connect(fd, addr, len);
    saved = errno;
    if (rc == 0 && delay && !strcmp(program_invocation_short_name, "hydra_pmi_proxy")) {
        long ms = atol(delay);
        struct timespec ts = {.tv_sec = ms / 1000,.tv_nsec = (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR);
    }
    errno = saved;
    return rc;
}
