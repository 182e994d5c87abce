/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Fuzz target: what mpiexec checks of the fault-tolerance traffic it gets
 * from proxies and processes (Hydra's pm/pmiserv/ft_checks.c, added by
 * mpich-patches/hydra-checked-proxy-commands.patch): the process id in a
 * PMI key such as PMI_declared_failed_ID, and a proxy's command header.
 * The first input byte chooses which; the rest is the key (a string) or
 * the header's command and length.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ft_checks.h"
#include "common.h"

#define FUZZ_ASSERT(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: %s does not hold\n", __FILE__, __LINE__, #cond); \
            abort(); \
        } \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 1) {
        int cmd, buflen;
        if (size < 1 + 2 * sizeof(int))
            return 0;
        memcpy(&cmd, data + 1, sizeof(cmd));
        memcpy(&buflen, data + 1 + sizeof(cmd), sizeof(buflen));
        if (HYD_ft_proxy_hdr_check(cmd, buflen) == NULL) {
            FUZZ_ASSERT(cmd == PID_LIST || cmd == EXIT_STATUS || cmd == PMI_CMD ||
                        cmd == STDOUT || cmd == STDERR || cmd == PROCESS_TERMINATED);
            if (cmd == PMI_CMD || cmd == STDOUT || cmd == STDERR)
                FUZZ_ASSERT(buflen >= 0 && buflen <= HYD_FT_MAX_BUFLEN);
        }
        return 0;
    }
    int limit = data[0] >> 1;
    char *key = malloc(size);
    memcpy(key, data + 1, size - 1);
    key[size - 1] = 0;
    int id = HYD_ft_key_id(key, "PMI_declared_failed_", limit);
    if (id >= 0) {
        FUZZ_ASSERT(id < limit);
        FUZZ_ASSERT(strncmp(key, "PMI_declared_failed_", 20) == 0);
        FUZZ_ASSERT(strtol(key + 20, NULL, 10) == id);
    } else {
        FUZZ_ASSERT(id == -1 || id == -2);
    }
    free(key);
    return 0;
}
