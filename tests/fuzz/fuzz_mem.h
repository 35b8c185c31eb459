/* SPDX-License-Identifier: MIT */
/* fuzz_mem.h - the fuzz targets' way to hand bytes to a parser: a trace
 * reader over them (fuzz_trace), a read-only stdio stream over them
 * (fmemopen; an empty input gets an empty stream, which fmemopen cannot
 * give), or a stream over a real file holding them (memfd), for parsers
 * that fstat it. */
#ifndef FORETELL_FUZZ_MEM_H
#define FORETELL_FUZZ_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "recorder/trace.h"

/* Each target defines it (libFuzzer's entry point; replay_main.c calls it). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes opened as a trace, or NULL when the reader refuses them. */
static inline ft_reader *fuzz_trace(const uint8_t *data, size_t size)
{
    ft_error err;
    return ft_reader_open_mem(data, size, "fuzz", &err);
}

static inline FILE *fuzz_stream(const uint8_t *data, size_t size)
{
    if (size == 0)
        return fopen("/dev/null", "r");
    return fmemopen((void *)data, size, "r");
}

/* Needs _GNU_SOURCE (memfd_create) before the first include. */
#ifdef _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

static inline FILE *fuzz_file(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            close(fd);
            return NULL;
        }
        done += (size_t)n;
    }
    FILE *f = lseek(fd, 0, SEEK_SET) == 0 ? fdopen(fd, "r") : NULL;
    if (!f)
        close(fd);
    return f;
}
#endif

#endif
