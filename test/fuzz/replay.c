/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Runs a fuzz target over files (a corpus) without libFuzzer, for make
 * check: built with gcc and the address and undefined-behaviour
 * sanitizers, each file is one input.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

int main(int argc, char **argv)
{
    int inputs = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (f == NULL) {
            perror(argv[i]);
            return 2;
        }
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0, got;
        do {
            if (len == cap) {
                cap = cap ? 2 * cap : 4096;
                buf = realloc(buf, cap);
                if (buf == NULL)
                    return 2;
            }
            got = fread(buf + len, 1, cap - len, f);
            len += got;
        } while (got > 0);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        inputs++;
    }
    printf("%d inputs\n", inputs);
    return 0;
}
