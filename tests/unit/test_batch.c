/* SPDX-License-Identifier: MIT */
/* test_batch.c - ft_reader_next_batch, which decodes ahead on a second
 * thread, against ft_reader_next on the same bytes: the same events
 * (fields, indices, wide contents), the same end, the same error (path,
 * offset, message) and the same delivered count, on an intact trace of
 * many chunks (empty ones, ones longer than a batch), truncated at many
 * offsets, with bytes flipped (CRC recomputed, so the decoder meets the
 * damage), and when the consumer stops early, rewinds or mixes the two
 * calls.  Under ASan the early stops also check that nothing leaks. */
#include "fixture.h"
#include "recorder/encode.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A decoded event with its own copy of the wide contents. */
typedef struct owned_ev {
    ft_event ev;
    uint8_t *bytes;
} owned_ev;

typedef struct stream {
    owned_ev *ev;
    size_t n, cap;
    int rc;          /* last return: 0 end, -1 error */
    ft_error err;    /* ft_reader_error after the end */
    int damaged;
    ft_error damage; /* ft_reader_damage */
    uint64_t delivered;
} stream;

static void keep(stream *s, const ft_event *e)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->ev = realloc(s->ev, s->cap * sizeof *s->ev);
        assert_non_null(s->ev);
    }
    owned_ev *o = &s->ev[s->n++];
    o->ev = *e;
    o->bytes = NULL;
    if (e->bytes) {
        o->bytes = malloc(e->nbytes + 1);
        memcpy(o->bytes, e->bytes, e->nbytes);
    }
    o->ev.bytes = NULL;
}

static void stream_free(stream *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->ev[i].bytes);
    free(s->ev);
    memset(s, 0, sizeof *s);
}

static void finish(stream *s, ft_reader *r, int rc)
{
    s->rc = rc;
    s->err = *ft_reader_error(r);
    memset(&s->damage, 0, sizeof s->damage);
    s->damaged = ft_reader_damage(r, &s->damage);
    s->delivered = ft_reader_delivered(r);
}

static void read_seq(ft_reader *r, stream *s)
{
    ft_event ev;
    int rc;
    while ((rc = ft_reader_next(r, &ev)) == 1)
        keep(s, &ev);
    finish(s, r, rc);
}

/* mode 0: batches only; 1: batches and single events alternating */
static void read_batch(ft_reader *r, stream *s, int mode)
{
    long n;
    const ft_event *evs;
    ft_event ev;
    for (unsigned k = 0;; k++) {
        if (mode == 1 && k % 3 == 1) {
            int rc = ft_reader_next(r, &ev);
            if (rc != 1) {
                finish(s, r, rc);
                return;
            }
            keep(s, &ev);
            continue;
        }
        if ((n = ft_reader_next_batch(r, &evs)) <= 0)
            break;
        for (long i = 0; i < n; i++)
            keep(s, &evs[i]);
    }
    finish(s, r, (int)n);
}

static void assert_same(const stream *a, const stream *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const ft_event *x = &a->ev[i].ev, *y = &b->ev[i].ev;
        assert_int_equal(x->index, y->index);
        assert_int_equal(x->tid, y->tid);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->size, y->size);
        assert_int_equal(x->site, y->site);
        assert_int_equal(x->arg, y->arg);
        assert_int_equal(x->addr, y->addr);
        assert_int_equal(x->obj2, y->obj2);
        assert_int_equal(x->value, y->value);
        assert_int_equal(x->value2, y->value2);
        assert_int_equal(x->value3, y->value3);
        assert_int_equal(x->rc, y->rc);
        assert_int_equal(x->mo, y->mo);
        assert_int_equal(x->nbytes, y->nbytes);
        if (a->ev[i].bytes)
            assert_memory_equal(a->ev[i].bytes, b->ev[i].bytes,
                                a->ev[i].ev.nbytes);
        else
            assert_null(b->ev[i].bytes);
    }
    assert_int_equal(a->rc, b->rc);
    assert_int_equal(a->delivered, b->delivered);
    assert_int_equal(a->damaged, b->damaged);
    assert_string_equal(a->damage.message, b->damage.message);
    assert_int_equal(a->damage.offset, b->damage.offset);
    if (a->rc < 0) {
        assert_string_equal(a->err.path, b->err.path);
        assert_string_equal(a->err.message, b->err.message);
        assert_int_equal(a->err.offset, b->err.offset);
    }
}

/* Both ways over the same bytes, each on a reader of its own (damage,
 * once recorded, outlives a rewind), then the batch reader rewound and
 * read again one event at a time. */
static void check_bytes(const uint8_t *data, size_t len, int mode)
{
    ft_error err;
    ft_reader *r = ft_reader_open_mem(data, len, "batch.ftrace", &err);
    if (!r)
        return;
    ft_reader *b = ft_reader_open_mem(data, len, "batch.ftrace", &err);
    assert_non_null(b);
    stream seq = {0}, bat = {0}, again = {0};
    read_seq(r, &seq);
    read_batch(b, &bat, mode);
    assert_same(&seq, &bat);
    ft_reader_rewind(b);
    read_seq(b, &again);
    assert_same(&seq, &again);
    ft_reader_close(r);
    ft_reader_close(b);
    stream_free(&seq);
    stream_free(&bat);
    stream_free(&again);
}

typedef struct big_trace {
    uint8_t *data;
    size_t len, cap;
    uint64_t seq;
} big_trace;

static uint8_t *room(big_trace *t, size_t need)
{
    if (t->len + need > t->cap) {
        t->cap = 2 * (t->len + need);
        t->data = realloc(t->data, t->cap);
        assert_non_null(t->data);
    }
    return t->data + t->len;
}

static void put_chunk(big_trace *t, unsigned kind, const uint8_t *body,
                      size_t n)
{
    uint8_t *at = room(t, n + FT_CHUNK_HEAD + FT_CHUNK_TAIL);
    ft_chunk c;
    ft_chunk_open(&c, at, n + FT_CHUNK_HEAD + FT_CHUNK_TAIL);
    memcpy(c.pos, body, n);
    c.pos += n;
    t->len += ft_chunk_seal(&c, kind, t->seq++);
}

/* Header, then EVENTS chunks of 0 to 3000 random events of every kind
 * (switches between threads, wide contents), some of them empty. */
static void build(big_trace *t, unsigned nchunks, uint64_t seed)
{
    char path[256];
    fx_temp_path(path, sizeof path, "batch");
    assert_int_equal(fx_write_trace(path, NULL, 0, 0, NULL), 0);
    size_t n;
    uint8_t *d = fx_read_file(path, &n);
    unlink(path);
    memset(t, 0, sizeof *t);
    memcpy(room(t, n), d, n);
    t->len = n;
    t->seq = 1;
    free(d);
    rng g = {seed};
    size_t bodycap = 3000 * (FT_EVENT_MAX_FIXED + 4096 + 16) + 64;
    uint8_t *body = malloc(bodycap), wide[4096];
    uint64_t index = 0;
    for (unsigned c = 0; c < nchunks; c++) {
        unsigned nev = c % 4 == 1 ? 0 : (unsigned)rng_below(&g, 3000);
        uint8_t *p = ft_put_uint(body, index);
        p = ft_put_uint(p, rng_below(&g, 4));
        ft_addr_regs reg = ft_addr_regs_for(FT_FORMAT_VERSION);
        for (unsigned i = 0; i < nev; i++) {
            if (rng_below(&g, 8) == 0) {
                *p++ = FT_EV_SWITCH;
                p = ft_put_uint(p, rng_below(&g, 6));
            }
            ft_event ev;
            unsigned kind = fx_kinds[rng_below(&g, fx_nkinds)];
            fx_random_event(&g, kind, &ev, wide);
            if (ev.nbytes > 64) /* keep bodies small */
                continue;
            p = ft_encode_event(p, &ev, &reg);
            assert_non_null(p);
            index++;
        }
        put_chunk(t, FT_CHUNK_EVENTS, body, (size_t)(p - body));
    }
    free(body);
}

static void test_intact(void **state)
{
    (void)state;
    big_trace t;
    build(&t, 12, 7);
    check_bytes(t.data, t.len, 0);
    check_bytes(t.data, t.len, 1);
    free(t.data);
}

static void test_truncated(void **state)
{
    (void)state;
    big_trace t;
    build(&t, 9, 11);
    for (size_t len = 0; len <= t.len; len += 1 + len % 997)
        check_bytes(t.data, len, (int)(len % 2));
    free(t.data);
}

/* Flips a byte inside an EVENTS body and fixes the chunk's CRC, so the
 * decoder (not the CRC) meets the damage; or leaves the CRC wrong. */
static void test_flipped(void **state)
{
    (void)state;
    big_trace t;
    build(&t, 6, 13);
    uint64_t ends[64];
    unsigned kinds[64];
    size_t nc = fx_chunks(t.data, t.len, ends, kinds, 64);
    uint8_t *copy = malloc(t.len);
    rng g = {99};
    for (unsigned trial = 0; trial < 300; trial++) {
        memcpy(copy, t.data, t.len);
        size_t k = 1 + rng_below(&g, nc - 1);
        uint64_t start = ends[k - 1] + FT_CHUNK_HEAD;
        uint64_t end = ends[k] - FT_CHUNK_TAIL;
        if (end <= start)
            continue;
        uint64_t at = start + rng_below(&g, end - start);
        copy[at] ^= (uint8_t)(1 + rng_below(&g, 255));
        if (trial % 4)
            ft_put_be32(copy + end + 1,
                        ft_crc32c(0, copy + start, (size_t)(end - start)));
        check_bytes(copy, t.len, (int)(trial % 2));
    }
    free(copy);
    free(t.data);
}

/* The consumer stops after a batch or two, while the decoding thread is
 * waiting for room: close and rewind must stop it (no hang, no leak). */
static void test_early_stop(void **state)
{
    (void)state;
    big_trace t;
    build(&t, 12, 17);
    for (unsigned taken = 0; taken < 4; taken++) {
        ft_error err;
        ft_reader *r = ft_reader_open_mem(t.data, t.len, "stop", &err);
        assert_non_null(r);
        const ft_event *evs;
        for (unsigned k = 0; k < taken; k++)
            assert_true(ft_reader_next_batch(r, &evs) > 0);
        if (taken == 2) {
            usleep(20000); /* let the thread fill the ring and wait */
            ft_reader_rewind(r);
            stream s = {0};
            read_seq(r, &s);
            assert_int_equal(s.rc, 0);
            assert_int_equal(s.delivered, s.n);
            stream_free(&s);
        }
        ft_reader_close(r);
    }
    free(t.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intact),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_flipped),
        cmocka_unit_test(test_early_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
