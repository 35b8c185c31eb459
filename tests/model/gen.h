/* SPDX-License-Identifier: MIT */
/* gen.h - random small traces for the model tests: a random program is
 * executed under the exact pthread semantics by a random scheduler and
 * its events are written with ft_writer, so every test goes through the
 * real trace writer and reader. */
#ifndef FORETELL_TEST_GEN_H
#define FORETELL_TEST_GEN_H

#include "recorder/trace.h"

#include <stddef.h>
#include <stdint.h>

typedef struct gen_params {
    unsigned nthreads;     /* 2 .. 4 */
    unsigned ops;          /* operations per thread (before cleanup) */
    unsigned nvars, nlocks, nconds, nsems, nrw;
    int fork_join;         /* main forks and joins the others */
    int recursive;         /* some mutexes are recursive */
    int sync_heavy;        /* half the operations are lock, wait, notify
                              or semaphore ones: nested locks in random
                              orders, so lock cycles and lost wake-ups
                              are common (tests/predict/
                              test_kinds_random.c) */
} gen_params;

/* An event list being built. */
typedef struct evbuf {
    ft_event *ev;
    size_t n, cap;
} evbuf;

void evbuf_push(evbuf *b, const ft_event *e);
/* A memory or sync event in a few words: kind, tid, addr, value fields. */
void evbuf_add(evbuf *b, unsigned kind, uint32_t tid, uint64_t addr,
               uint64_t obj2, uint64_t value, uint32_t arg, int32_t rc);
void evbuf_free(evbuf *b);

/* Writes the events as a trace file; 0 ok. */
int trace_write(const char *path, const evbuf *b);

/* Random run for seed into b.  Returns 0. */
int gen_run(uint64_t seed, const gen_params *p, evbuf *b);

/* Marks half the reads that their thread's next read or write directly
 * follows as paired (FT_READ_PAIRED: the model glues the two). */
void gen_pair_reads(evbuf *b, uint64_t seed);

/* Random parameters of a small case for seed (2 or 3 threads). */
void gen_small_params(uint64_t seed, gen_params *p);

/* A run of lock-protected counter updates (gen_counter.c): 2-3 workers,
 * 1-2 counters, each update in one critical section or split in two,
 * each preceded by a read of a bound only main writes (at
 * gen_counters_bound_addr()), recorded under a quantum scheduler.
 * Returns 1 when rwlocks guard the counters (with read-only peeks under
 * read holds), 0 when mutexes do. */
int gen_counters(uint64_t seed, evbuf *b);
/* The same with the counter read again in its critical section, half the
 * time after the read (or, split, at the start of the second section),
 * half the time after the write. */
int gen_counters_reread(uint64_t seed, evbuf *b);
uint64_t gen_counters_bound_addr(void);

/* A run of nested critical sections (gen_locks.c): two workers take two
 * or three locks nested in random orders around shared accesses; every
 * run passed (one that deadlocked while generated is drawn again). */
void gen_locks(uint64_t seed, evbuf *b);

/* A run around a heap object (gen_heap.c): three threads access its
 * fields, a flag, a mutex and a semaphore; one frees it after its work;
 * no run uses it after the free. */
void gen_heap(uint64_t seed, evbuf *b);

/* A run of a bounded queue (gen_condq.c): main produces two items, one
 * or two workers consume them, under one mutex and one or two condition
 * variables, the notifies placed and chosen by the seed; every run
 * passed.  No events (b->n 0) when none could be drawn. */
void gen_condq(uint64_t seed, evbuf *b);

/* A fresh temporary file path (under $TMPDIR) ending in .ftrace. */
void temp_trace_path(char *buf, size_t len, const char *tag);

#endif
