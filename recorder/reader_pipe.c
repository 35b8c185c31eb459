/* SPDX-License-Identifier: MIT */
/* reader_pipe.c - ft_reader_next_batch: events decoded ahead on a second
 * thread, so that a consumer doing real work per event (the CTM builder)
 * overlaps with reading, CRC-checking and decoding the trace.
 *
 * The decoding thread reads chunk after chunk into two bodies of its own
 * and decodes each into batches of FT_BATCH_EVENTS events in a ring of
 * PIPE_SLOTS batches; the consumer takes them in order.  The thread
 * reads only what open set (chunk list, file, size), never the reader's
 * streaming or damage state: where reading must stop, and why, travels in
 * the last batch, and the consumer records it exactly as the sequential
 * reader does (same checks, same messages: ft_chunk_check and
 * FT_MALFORMED_EVENT), after delivering the events before it.  Memory is
 * bounded: two chunk bodies (each at most FT_CHUNK_MAX_BODY) and the
 * ring.  One mutex guards the ring counters and the stop flag; batch and
 * body contents change hands through them.  The consumer stopping early
 * (close, rewind) sets stop and joins the thread, which checks stop
 * whenever it waits. */
#include "recorder/reader_internal.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PIPE_SLOTS 4u

typedef struct pipe_batch {
    uint32_t n;    /* events in ev */
    int last;      /* 0: more follow; 1: the end; -1: damage (below) */
    uint64_t damage_offset;
    char damage_why[200]; /* as r->damage_why */
    ft_event ev[FT_BATCH_EVENTS];
} pipe_batch;

struct ft_pipe {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t filled; /* a batch was published (consumer waits) */
    pthread_cond_t freed;  /* a batch was released (thread waits) */
    /* under mu: batches published and released, stop asked */
    uint64_t produced, released;
    int stop;
    /* the thread's own: chunk bodies, mapped so that stopping gives the
     * memory back; body_users[b] = batches published up to the last one
     * pointing into body b (wide contents), which must be released
     * before b is reused */
    uint8_t *body[2];
    size_t body_cap[2];
    ft_unz unz; /* the thread's, for compressed chunks */
    uint64_t body_users[2];
    /* the consumer's own: the batch it holds, how much of it is out */
    pipe_batch *cur;
    uint32_t next;
    pipe_batch slot[PIPE_SLOTS];
};

/* Room for len bytes in body b (mapped: a body can be 64 MiB). */
static int body_reserve(struct ft_pipe *p, int b, size_t len)
{
    if (len <= p->body_cap[b] && p->body[b])
        return 0;
    if (p->body[b])
        munmap(p->body[b], p->body_cap[b]);
    p->body[b] = NULL;
    p->body_cap[b] = 0;
    size_t cap = len < 4096 ? 4096 : len;
    void *m = mmap(NULL, cap, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    p->body[b] = m;
    p->body_cap[b] = cap;
    return 0;
}

/* Thread: waits until the first upto batches are released; 0, or -1
 * when asked to stop. */
static int wait_released(struct ft_pipe *p, uint64_t upto)
{
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->released < upto)
        pthread_cond_wait(&p->freed, &p->mu);
    int stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    return stop ? -1 : 0;
}

/* Thread: hands batch number p->produced (filled) to the consumer. */
static void publish(struct ft_pipe *p)
{
    pthread_mutex_lock(&p->mu);
    p->produced++;
    pthread_cond_signal(&p->filled);
    pthread_mutex_unlock(&p->mu);
}

/* Thread: the next free slot (its number is p->produced), NULL on stop.
 * produced is only written by the thread, so reading it unlocked here is
 * reading its own writes. */
static pipe_batch *next_slot(struct ft_pipe *p)
{
    uint64_t k = p->produced;
    if (k >= PIPE_SLOTS && wait_released(p, k - PIPE_SLOTS + 1) < 0)
        return NULL;
    pipe_batch *b = &p->slot[k % PIPE_SLOTS];
    b->n = 0;
    b->last = 0;
    return b;
}

/* Thread: publishes the batch that ends the stream (end or damage). */
static void finish(struct ft_pipe *p, pipe_batch *b, int last,
                   uint64_t offset)
{
    b->last = last;
    b->damage_offset = offset;
    publish(p);
}

static void *pipe_main(void *arg)
{
    ft_reader *r = arg;
    struct ft_pipe *p = r->pipe;
    uint64_t decoded = 0;
    int last_body = 1; /* the body the newest published batch points into */
    for (size_t k = 0; k < r->nchunks; k++) {
        /* the other body: its batches are all older than the newest one,
         * so the consumer can release them without waiting for us */
        int bi = !last_body;
        if (wait_released(p, p->body_users[bi]) < 0)
            return NULL;
        pipe_batch *b = next_slot(p);
        if (!b)
            return NULL;
        const ft_chunk_ref *c = &r->chunks[k];
        const uint8_t *pos;
        uint32_t tid;
        uint64_t off;
        if (body_reserve(p, bi, c->raw_len) < 0) {
            snprintf(b->damage_why, sizeof b->damage_why,
                     "cannot read chunk body");
            finish(p, b, -1, c->offset);
            return NULL;
        }
        if (ft_chunk_check(r, k, p->body[bi], &p->unz, decoded, &pos, &tid,
                           &off, b->damage_why, sizeof b->damage_why) < 0) {
            finish(p, b, -1, off);
            return NULL;
        }
        const uint8_t *end = p->body[bi] + c->raw_len;
        ft_addr_regs reg = ft_addr_regs_for(r->header.version);
        for (;;) {
            const char *why = NULL;
            int rc = ft_decode_batch(&pos, end, &reg, &tid, b->ev,
                                     FT_BATCH_EVENTS, decoded, &b->n, &why);
            decoded += b->n;
            if (rc < 0) {
                snprintf(b->damage_why, sizeof b->damage_why,
                         FT_MALFORMED_EVENT, (unsigned long long)c->offset,
                         why);
                finish(p, b, -1,
                       ft_event_offset(c, (size_t)(pos - p->body[bi])));
                return NULL;
            }
            if (b->n == 0)
                break; /* the slot stays ours for the next chunk */
            p->body_users[bi] = p->produced + 1;
            last_body = bi;
            publish(p);
            if (rc == 0)
                break;
            if (!(b = next_slot(p)))
                return NULL;
        }
    }
    pipe_batch *b = next_slot(p);
    if (b)
        finish(p, b, 1, 0);
    return NULL;
}

int ft_pipe_start(ft_reader *r)
{
    struct ft_pipe *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    if (pthread_mutex_init(&p->mu, NULL)) {
        free(p);
        return -1;
    }
    if (pthread_cond_init(&p->filled, NULL)) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return -1;
    }
    if (pthread_cond_init(&p->freed, NULL)) {
        pthread_cond_destroy(&p->filled);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return -1;
    }
    r->pipe = p;
    /* the thread takes no signals: the program's handlers and waits stay
     * on its own threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&p->thread, NULL, pipe_main, r);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        r->pipe = NULL;
        pthread_cond_destroy(&p->freed);
        pthread_cond_destroy(&p->filled);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return -1;
    }
    return 0;
}

void ft_pipe_stop(ft_reader *r)
{
    struct ft_pipe *p = r->pipe;
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->freed);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    for (int b = 0; b < 2; b++)
        if (p->body[b])
            munmap(p->body[b], p->body_cap[b]);
    ft_unz_free(&p->unz);
    pthread_cond_destroy(&p->freed);
    pthread_cond_destroy(&p->filled);
    pthread_mutex_destroy(&p->mu);
    free(p);
    r->pipe = NULL;
}

/* Consumer: releases the batch it holds and waits for the next one. */
static pipe_batch *take(struct ft_pipe *p)
{
    pthread_mutex_lock(&p->mu);
    if (p->cur) {
        p->released++;
        pthread_cond_signal(&p->freed);
    }
    while (p->produced == p->released)
        pthread_cond_wait(&p->filled, &p->mu);
    pipe_batch *b = &p->slot[p->released % PIPE_SLOTS];
    pthread_mutex_unlock(&p->mu);
    p->cur = b;
    p->next = 0;
    return b;
}

/* Consumer: the stream ended with batch b; records it as the sequential
 * reader would and stops the thread (which has returned or is about to). */
static int end_stream(ft_reader *r, const pipe_batch *b)
{
    int last = b->last;
    if (last < 0)
        ft_reader_mark_damage(r, b->damage_offset, "%s", b->damage_why);
    ft_pipe_stop(r);
    r->cur_chunk = r->nchunks;
    r->stream_done = 1;
    if (last > 0 && !r->damaged)
        return 0;
    ft_reader_damage(r, &r->error);
    return -1;
}

long ft_pipe_next_batch(ft_reader *r, const ft_event **evs)
{
    struct ft_pipe *p = r->pipe;
    for (;;) {
        pipe_batch *b = p->cur;
        if (b && p->next < b->n) {
            uint32_t n = b->n - p->next;
            *evs = &b->ev[p->next];
            p->next = b->n;
            r->delivered += n;
            return (long)n;
        }
        if (b && b->last)
            return end_stream(r, b);
        take(p);
    }
}

int ft_pipe_next(ft_reader *r, ft_event *ev)
{
    struct ft_pipe *p = r->pipe;
    for (;;) {
        pipe_batch *b = p->cur;
        if (b && p->next < b->n) {
            *ev = b->ev[p->next++];
            r->delivered++;
            return 1;
        }
        if (b && b->last)
            return end_stream(r, b);
        take(p);
    }
}

/* Without a thread: events from the sequential reader, a batch ending
 * where its chunk does (wide contents point into the current body). */
static long seq_next_batch(ft_reader *r, const ft_event **evs)
{
    if (!r->seq_batch &&
        !(r->seq_batch = malloc(FT_BATCH_EVENTS * sizeof *r->seq_batch)))
        return -1; /* not reached in practice: 88 KiB */
    uint32_t n = 0;
    int rc = 1;
    while (n < FT_BATCH_EVENTS &&
           (rc = ft_reader_next(r, &r->seq_batch[n])) == 1) {
        n++;
        if (!r->pos || r->pos >= r->body_end)
            break;
    }
    *evs = r->seq_batch;
    return n ? (long)n : rc;
}

long ft_reader_next_batch(ft_reader *r, const ft_event **evs)
{
    if (!r->pipe && !r->stream_done && !r->pos && r->cur_chunk == 0 &&
        r->delivered == 0 && r->nchunks > 0)
        (void)ft_pipe_start(r); /* on failure: the sequential reader */
    if (r->pipe)
        return ft_pipe_next_batch(r, evs);
    return seq_next_batch(r, evs);
}
