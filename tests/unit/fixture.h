/* SPDX-License-Identifier: MIT */
/* fixture.h - shared helpers for the trace tests: a seeded generator of
 * random but valid events of every kind (with the extreme values of every
 * field), writing event arrays as traces with ft_writer, loading files,
 * and field-by-field comparison of decoded events. */
#ifndef FORETELL_TEST_FIXTURE_H
#define FORETELL_TEST_FIXTURE_H

#include "recorder/trace.h"

#include <stddef.h>
#include <stdint.h>

typedef struct rng {
    uint64_t s;
} rng;

uint64_t rng_next(rng *r);
uint64_t rng_below(rng *r, uint64_t n);
/* An "interesting" 64-bit value: encoding boundaries or random. */
uint64_t rng_edge(rng *r);
/* A thread id the format allows (below FT_TRACE_MAX_THREADS), its edges
 * often. */
uint32_t rng_tid(rng *r);

/* Every kind the writer can encode (all but SWITCH). */
extern const unsigned fx_kinds[];
extern const size_t fx_nkinds;

/* A random valid event of kind (tid and index left 0); wide content
 * points into buf, which must hold 4096 bytes. */
void fx_random_event(rng *r, unsigned kind, ft_event *ev, uint8_t *buf);

/* Writes events (with nsites sites 1..nsites, symbolised) to path;
 * returns 0.  end_reason NULL: no END chunk. */
int fx_write_trace(const char *path, const ft_event *evs, size_t n,
                   uint32_t nsites, const char *end_reason);
/* The same with chunks compressed at zstd level (0: plain, version 3). */
int fx_write_trace_level(const char *path, const ft_event *evs, size_t n,
                         uint32_t nsites, const char *end_reason, int level);

/* A fresh temporary file name (the file is created empty). */
void fx_temp_path(char *buf, size_t len, const char *tag);

/* Reads a whole file; caller frees. */
uint8_t *fx_read_file(const char *path, size_t *len);
int fx_write_file(const char *path, const void *data, size_t len);

/* cmocka asserts that b (decoded) equals a (written), field by field. */
void fx_assert_event_eq(const ft_event *want, const ft_event *got);

/* Chunk boundaries of a trace in memory: fills ends[] with the offset just
 * past each chunk and kinds[]; returns the number of chunks. */
size_t fx_chunks(const uint8_t *data, size_t len, uint64_t *ends,
                 unsigned *kinds, size_t max);

#endif
