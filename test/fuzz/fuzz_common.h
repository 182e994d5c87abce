/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What the fuzz targets share: a fixed job key and its subkeys, and an
 * assertion that aborts (libFuzzer and the replay driver report it).
 */

#ifndef FUZZ_COMMON_H_INCLUDED
#define FUZZ_COMMON_H_INCLUDED

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ftdev_wire.h"

#define FUZZ_ASSERT(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: %s does not hold\n", __FILE__, __LINE__, #cond); \
            abort(); \
        } \
    } while (0)

static inline const MPIDI_FTDEV_wire_keys_t *fuzz_keys(void)
{
    static MPIDI_FTDEV_wire_keys_t keys;
    static int derived;
    if (!derived) {
        uint8_t job_key[MPIDI_FTDEV_KEY_BYTES];
        for (int i = 0; i < MPIDI_FTDEV_KEY_BYTES; i++)
            job_key[i] = (uint8_t) (i * 37 + 11);
        FUZZ_ASSERT(MPIDI_FTDEV_wire_derive(job_key, &keys) == 0);
        derived = 1;
    }
    return &keys;
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

#endif /* FUZZ_COMMON_H_INCLUDED */
