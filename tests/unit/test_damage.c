/* SPDX-License-Identifier: MIT */
/* test_damage.c - the reader against damaged and hostile input: a trace
 * truncated at every byte offset recovers exactly the events of its
 * complete chunks and names where it stopped; random byte flips never
 * crash it and a flipped body is reported as a CRC error; hostile lengths
 * and counts are refused before anything is allocated for them. */
#include "fixture.h"
#include "recorder/encode.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXC 32

typedef struct small_trace {
    uint8_t data[16384];
    size_t len;
    size_t nchunks;
    uint64_t start[MAXC], end[MAXC];
    unsigned kind[MAXC];
    uint64_t events_before[MAXC + 1]; /* events in EVENTS chunks < k */
    uint64_t seq;
} small_trace;

/* The HEADER chunk as ft_writer writes it. */
static void put_header(small_trace *t)
{
    char path[256];
    fx_temp_path(path, sizeof path, "hdr");
    assert_int_equal(fx_write_trace(path, NULL, 0, 0, NULL), 0);
    size_t n;
    uint8_t *d = fx_read_file(path, &n);
    unlink(path);
    memcpy(t->data, d, n);
    free(d);
    t->len = n;
    t->start[0] = 0;
    t->end[0] = n;
    t->kind[0] = FT_CHUNK_HEADER;
    t->nchunks = 1;
    t->seq = 1;
    t->events_before[0] = t->events_before[1] = 0;
}

/* Frames body as a chunk with a correct CRC at the end of the trace. */
static void put_chunk(small_trace *t, unsigned kind, const uint8_t *body,
                      size_t n, uint64_t nevents)
{
    ft_chunk c;
    uint8_t *at = t->data + t->len;
    ft_chunk_open(&c, at, sizeof t->data - t->len);
    memcpy(c.pos, body, n);
    c.pos += n;
    size_t total = ft_chunk_seal(&c, kind, t->seq++);
    size_t k = t->nchunks++;
    t->start[k] = t->len;
    t->len += total;
    t->end[k] = t->len;
    t->kind[k] = kind;
    t->events_before[k + 1] = t->events_before[k] + nevents;
}

/* Header, SITES, five EVENTS chunks (switches, wide content, negative
 * deltas), SYMBOLS and END: about 700 bytes. */
static void build_small(small_trace *t)
{
    put_header(t);
    uint8_t b[2048], *p = b;
    for (unsigned s = 1; s <= 2; s++) {
        p = ft_put_array(p, 3);
        p = ft_put_uint(p, s);
        p = ft_put_uint(p, 0);
        p = ft_put_uint(p, 0x100 * s);
    }
    put_chunk(t, FT_CHUNK_SITES, b, (size_t)(p - b), 0);
    uint64_t index = 0;
    for (unsigned c = 0; c < 5; c++) {
        ft_addr_regs reg = ft_addr_regs_for(FT_FORMAT_VERSION);
        p = ft_put_uint(b, index);
        p = ft_put_uint(p, c % 2);
        uint8_t wide[24];
        memset(wide, (int)c, sizeof wide);
        for (unsigned i = 0; i < 3 + c % 2; i++) {
            ft_event ev = {.kind = FT_EV_WRITE, .site = 1 + i % 2,
                           .addr = 0x7ffff000 - 8 * i, .size = 8,
                           .value = index};
            if (i == 2) {
                ev.kind = FT_EV_WRITE_WIDE;
                ev.size = sizeof wide;
                ev.bytes = wide;
                ev.nbytes = sizeof wide;
                *p++ = FT_EV_SWITCH;
                p = ft_put_uint(p, 7);
            }
            p = ft_encode_event(p, &ev, &reg);
            index++;
        }
        put_chunk(t, FT_CHUNK_EVENTS, b, (size_t)(p - b), 3 + c % 2);
    }
    p = ft_put_array(b, 5);
    p = ft_put_uint(p, 1);
    p = ft_put_str(p, "main", 4);
    p = ft_put_str(p, "a.c", 3);
    p = ft_put_uint(p, 10);
    p = ft_put_uint(p, 2);
    put_chunk(t, FT_CHUNK_SYMBOLS, b, (size_t)(p - b), 0);
    p = ft_put_map(b, 3);
    p = ft_put_str(p, "events", 6);
    p = ft_put_uint(p, index);
    p = ft_put_str(p, "reason", 6);
    p = ft_put_str(p, "exit", 4);
    p = ft_put_str(p, "exit_status", 11);
    p = ft_put_int(p, 0);
    put_chunk(t, FT_CHUNK_END, b, (size_t)(p - b), 0);
}

/* Streams everything; returns events delivered, *last = last rc. */
static uint64_t drain(ft_reader *r, int *last)
{
    ft_event ev;
    uint64_t n = 0;
    int rc;
    while ((rc = ft_reader_next(r, &ev)) == 1) {
        assert_int_equal(ev.index, n);
        n++;
    }
    *last = rc;
    /* and once more after a rewind: same result */
    ft_reader_rewind(r);
    uint64_t again = 0;
    while (ft_reader_next(r, &ev) == 1)
        again++;
    assert_int_equal(again, n);
    return n;
}

static void test_truncation_at_every_offset(void **state)
{
    (void)state;
    static small_trace t;
    build_small(&t);
    assert_true(t.nchunks >= 9);
    for (size_t len = 0; len <= t.len; len++) {
        uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees reads
                                                  past the end */
        memcpy(copy, t.data, len);
        ft_error err = {0};
        ft_reader *r = ft_reader_open_mem(copy, len, "cut.ftrace", &err);
        if (len < t.end[0]) {
            assert_null(r);
            assert_string_equal(err.path, "cut.ftrace");
            assert_true(err.message[0] != 0);
            assert_true(err.offset <= len);
            free(copy);
            continue;
        }
        assert_non_null(r);
        size_t complete = 0; /* chunks wholly inside len */
        while (complete < t.nchunks && t.end[complete] <= len)
            complete++;
        int at_boundary = t.end[complete - 1] == len;
        int last;
        uint64_t n = drain(r, &last);
        assert_int_equal(n, t.events_before[complete]);
        ft_error d;
        if (at_boundary) {
            assert_int_equal(last, 0);
            assert_int_equal(ft_reader_damage(r, &d), 0);
        } else {
            assert_int_equal(last, -1);
            assert_int_equal(ft_reader_damage(r, &d), 1);
            assert_int_equal(d.offset, t.start[complete]);
            char want[128];
            snprintf(want, sizeof want, "recovered %llu events; stopped at "
                     "byte %llu: ", (unsigned long long)n,
                     (unsigned long long)t.start[complete]);
            assert_true(strncmp(d.message, want, strlen(want)) == 0);
            assert_non_null(strstr(d.message, "truncated"));
        }
        assert_int_equal(ft_reader_end(r)->present,
                         complete == t.nchunks);
        assert_int_equal(ft_reader_nsites(r), complete >= 2 ? 2 : 0);
        ft_reader_close(r);
        free(copy);
    }
}

static size_t chunk_of(const small_trace *t, size_t pos)
{
    size_t k = 0;
    while (t->end[k] <= pos)
        k++;
    return k;
}

static void test_random_byte_flips(void **state)
{
    (void)state;
    static small_trace t;
    build_small(&t);
    rng g = {99};
    for (int trial = 0; trial < 20000; trial++) {
        uint8_t *copy = malloc(t.len);
        memcpy(copy, t.data, t.len);
        size_t pos = (size_t)rng_below(&g, t.len);
        copy[pos] ^= (uint8_t)(1 + rng_below(&g, 255));
        size_t extra = trial % 4 == 0 ? (size_t)rng_below(&g, t.len) : pos;
        if (extra != pos) /* a second flip of the same byte could undo it */
            copy[extra] ^= (uint8_t)(1 + rng_below(&g, 255));
        size_t k = chunk_of(&t, pos);
        ft_error err;
        ft_reader *r = ft_reader_open_mem(copy, t.len, "flip", &err);
        int last;
        if (k == 0 && extra == pos) {
            if (r)
                fail_msg("flip at %zu of the HEADER was accepted", pos);
            assert_true(err.message[0] != 0);
        }
        if (!r) {
            free(copy);
            continue;
        }
        uint64_t n = drain(r, &last);
        assert_true(n <= t.events_before[t.nchunks]);
        int in_body = pos >= t.start[k] + FT_CHUNK_HEAD;
        if (k > 0 && in_body && extra == pos) {
            /* one flipped byte in a body or CRC: that chunk is refused with
             * a CRC error, all before it are delivered */
            ft_error d;
            assert_int_equal(ft_reader_damage(r, &d), 1);
            assert_non_null(strstr(d.message, "CRC"));
            assert_true(d.offset >= t.start[k] && d.offset < t.end[k]);
            assert_int_equal(n, t.events_before[k]);
        }
        /* the checker and site lookups must cope with whatever was read */
        ft_check_consistency(r, NULL, 0);
        char buf[64];
        for (uint32_t s = 0; s < 4; s++)
            ft_site_format(r, s, buf, sizeof buf);
        ft_reader_close(r);
        free(copy);
    }
}

/* Opens bytes and expects failure at open with msg in the message. */
static void expect_open_error(const uint8_t *d, size_t n, const char *msg)
{
    ft_error err;
    ft_reader *r = ft_reader_open_mem(d, n, "hostile", &err);
    assert_null(r);
    if (!strstr(err.message, msg))
        fail_msg("expected '%s' in '%s'", msg, err.message);
}

/* Expects open to succeed and streaming to stop with msg, delivering
 * `events` events. */
static void expect_damage(const small_trace *t, uint64_t events,
                          const char *msg)
{
    ft_error err;
    ft_reader *r = ft_reader_open_mem(t->data, t->len, "hostile", &err);
    assert_non_null(r);
    int last;
    assert_int_equal(drain(r, &last), events);
    assert_int_equal(last, -1);
    ft_error d;
    assert_int_equal(ft_reader_damage(r, &d), 1);
    if (!strstr(d.message, msg))
        fail_msg("expected '%s' in '%s'", msg, d.message);
    ft_reader_close(r);
}

static void test_hostile_frame_lengths(void **state)
{
    (void)state;
    static small_trace t;
    build_small(&t);
    uint8_t *copy = malloc(t.len);
    /* HEADER claiming a 4 GiB body */
    memcpy(copy, t.data, t.len);
    memset(copy + 12, 0xff, 4);
    expect_open_error(copy, t.len, "exceeds the limit");
    /* an EVENTS chunk claiming 4 GiB: earlier chunks still delivered */
    memcpy(copy, t.data, t.len);
    memset(copy + t.start[3] + 12, 0xff, 4);
    ft_error err;
    ft_reader *r = ft_reader_open_mem(copy, t.len, "hostile", &err);
    assert_non_null(r);
    int last;
    assert_int_equal(drain(r, &last), t.events_before[3]);
    ft_error d;
    assert_int_equal(ft_reader_damage(r, &d), 1);
    assert_non_null(strstr(d.message, "exceeds the limit"));
    assert_int_equal(d.offset, t.start[3]);
    ft_reader_close(r);
    free(copy);
    /* not a trace at all, and an empty file */
    expect_open_error((const uint8_t *)"hello, world\n", 13,
                      "not a foretell trace");
    expect_open_error((const uint8_t *)"", 0, "empty file");
}

/* A trace whose one extra chunk has a valid CRC but hostile content. */
static void hostile_body(unsigned kind, const uint8_t *body, size_t n,
                         const char *msg)
{
    static small_trace t;
    put_header(&t);
    uint8_t b[64], *p = ft_put_uint(b, 0);
    p = ft_put_uint(p, 0);
    ft_event ok = {.kind = FT_EV_YIELD, .site = 0};
    ft_addr_regs reg = ft_addr_regs_for(FT_FORMAT_VERSION);
    p = ft_encode_event(p, &ok, &reg);
    put_chunk(&t, FT_CHUNK_EVENTS, b, (size_t)(p - b), 1);
    put_chunk(&t, kind, body, n, msg ? 0 : 1);
    if (!msg) { /* valid: both events are delivered */
        ft_error err;
        ft_reader *r = ft_reader_open_mem(t.data, t.len, "valid", &err);
        assert_non_null(r);
        int last;
        assert_int_equal(drain(r, &last), 2);
        assert_int_equal(last, 0);
        ft_reader_close(r);
    } else if (kind == FT_CHUNK_EVENTS) {
        expect_damage(&t, 1, msg);
    } else {
        /* metadata is read at open: the damage is known then */
        ft_error err;
        ft_reader *r = ft_reader_open_mem(t.data, t.len, "hostile", &err);
        assert_non_null(r);
        ft_error d;
        int last;
        assert_int_equal(drain(r, &last), 1);
        assert_int_equal(ft_reader_damage(r, &d), 1);
        if (!strstr(d.message, msg))
            fail_msg("expected '%s' in '%s'", msg, d.message);
        ft_reader_close(r);
    }
}

static void test_hostile_bodies(void **state)
{
    (void)state;
    /* wide write claiming a 4 GiB bin */
    static const uint8_t big_bin[] = {1, 0, FT_EV_WRITE_WIDE, 1, 0, 16,
                                      0xc6, 0xff, 0xff, 0xff, 0xff, 1, 2};
    hostile_body(FT_CHUNK_EVENTS, big_bin, sizeof big_bin, "longer than");
    static const uint8_t bad_size[] = {1, 0, FT_EV_READ, 1, 0, 3, 0};
    hostile_body(FT_CHUNK_EVENTS, bad_size, sizeof bad_size,
                 "access size must be");
    static const uint8_t bad_op[] = {1, 0, 99, 1};
    hostile_body(FT_CHUNK_EVENTS, bad_op, sizeof bad_op, "unknown event");
    static const uint8_t wrong_first[] = {5, 0, FT_EV_YIELD, 1};
    hostile_body(FT_CHUNK_EVENTS, wrong_first, sizeof wrong_first,
                 "starting at event 1, found one starting at 5");
    static const uint8_t cut_field[] = {1, 0, FT_EV_READ, 1, 0xcf, 1};
    hostile_body(FT_CHUNK_EVENTS, cut_field, sizeof cut_field,
                 "past the end");
    static const uint8_t neg_site[] = {1, 0, FT_EV_YIELD, 0xff};
    hostile_body(FT_CHUNK_EVENTS, neg_site, sizeof neg_site, "negative");
    static const uint8_t huge_tid[] = {1, 0, FT_EV_SWITCH, 0xcf, 1, 0, 0, 0,
                                       0, 0, 0, 0, FT_EV_YIELD, 1};
    hostile_body(FT_CHUNK_EVENTS, huge_tid, sizeof huge_tid,
                 "thread id beyond");
    /* a SITES array claiming 4 G elements */
    static const uint8_t big_array[] = {0xdd, 0xff, 0xff, 0xff, 0xff, 1, 2, 3};
    hostile_body(FT_CHUNK_SITES, big_array, sizeof big_array,
                 "SITES entry: expected a well-formed");
    /* a SYMBOLS entry with a 4 GiB string */
    static const uint8_t big_str[] = {0x95, 1, 0xdb, 0xff, 0xff, 0xff, 0xf0,
                                      'x'};
    hostile_body(FT_CHUNK_SYMBOLS, big_str, sizeof big_str, "SYMBOLS entry");
    /* sites must be [id > 0, module, offset] */
    static const uint8_t zero_site[] = {0x93, 0, 0, 0};
    hostile_body(FT_CHUNK_SITES, zero_site, sizeof zero_site, "malformed");
    /* deep nesting is refused, not recursed into */
    uint8_t deep[200];
    memset(deep, 0x91, sizeof deep);
    deep[sizeof deep - 1] = 0;
    hostile_body(FT_CHUNK_MODULES, deep, sizeof deep, "MODULES entry");
    static const uint8_t end_not_map[] = {0x93, 1, 2, 3};
    hostile_body(FT_CHUNK_END, end_not_map, sizeof end_not_map, "END");
}

/* A SITES chunk with one entry [id, 0, 0x40] after the header. */
static void site_table(small_trace *t, const uint32_t *ids, size_t n)
{
    put_header(t);
    uint8_t b[256], *p = b;
    for (size_t i = 0; i < n; i++) {
        *p++ = 0x93;
        p = ft_put_uint(p, ids[i]);
        p = ft_put_uint(p, 0);
        p = ft_put_uint(p, 0x40);
    }
    put_chunk(t, FT_CHUNK_SITES, b, (size_t)(p - b), 0);
}

/* Every id a consumer sizes a table by is bounded by what the file holds:
 * a 9 KB trace naming site 100,000,000 made analyze allocate 5.9 GB. */
static void test_hostile_ids(void **state)
{
    (void)state;
    static const uint32_t far[][2] = {{1, 100000000}, {1, 0xffffffffu}};
    for (int i = 0; i < 2; i++) {
        small_trace t;
        site_table(&t, far[i], 2);
        ft_error err;
        assert_null(ft_reader_open_mem(t.data, t.len, "hostile", &err));
        char want[80];
        snprintf(want, sizeof want, "site id %u, but site 2 is not defined",
                 far[i][1]);
        if (!strstr(err.message, want))
            fail_msg("expected '%s' in '%s'", want, err.message);
        /* the offset of the entry naming it: the second of the body */
        assert_int_equal(err.offset, t.start[1] + FT_CHUNK_HEAD + 4);
    }
    /* dense ids in any order are a table */
    static const uint32_t shuffled[] = {3, 1, 2, 2};
    small_trace t;
    site_table(&t, shuffled, 4);
    ft_error err;
    ft_reader *r = ft_reader_open_mem(t.data, t.len, "ok", &err);
    assert_non_null(r);
    assert_int_equal(ft_reader_nsites(r), 3);
    assert_int_equal(ft_reader_site(r, 3)->id, 3);
    assert_null(ft_reader_site(r, 4));
    ft_reader_close(r);

    /* thread ids: the last one allowed, then one beyond, as the running
     * thread and as a created child */
    static const uint8_t last_tid[] = {1, 0, FT_EV_SWITCH, 0xcd, 0x03, 0xff,
                                       FT_EV_YIELD, 1};
    hostile_body(FT_CHUNK_EVENTS, last_tid, sizeof last_tid, NULL);
    static const uint8_t one_more[] = {1, 0, FT_EV_SWITCH, 0xcd, 0x04, 0x00,
                                       FT_EV_YIELD, 1};
    hostile_body(FT_CHUNK_EVENTS, one_more, sizeof one_more,
                 "thread id beyond the format's limit of 1024 threads");
    static const uint8_t child[] = {1, 0, FT_EV_THREAD_CREATE, 1, 0xcd, 0x04,
                                    0x00};
    hostile_body(FT_CHUNK_EVENTS, child, sizeof child, "thread id beyond");
}

/* A HEADER chunk with the given body (valid CRC). */
static void hostile_header(const uint8_t *body, size_t n, const char *msg)
{
    static small_trace t;
    t.len = 0;
    t.nchunks = 0;
    t.seq = 0;
    put_chunk(&t, FT_CHUNK_HEADER, body, n, 0);
    expect_open_error(t.data, t.len, msg);
}

static void test_hostile_headers(void **state)
{
    (void)state;
    static const uint8_t big_map[] = {0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'a',
                                      1};
    hostile_header(big_map, sizeof big_map, "HEADER: expected one msgpack map");
    uint8_t deep[300];
    memset(deep, 0x81, sizeof deep); /* {{{... */
    hostile_header(deep, sizeof deep, "HEADER: expected one msgpack map");
    uint8_t b[128], *p;
    /* versions this reader does not know: after the newest, and 0 */
    static const uint64_t unknown[] = {FT_FORMAT_VERSION + 1, 0};
    for (size_t i = 0; i < 2; i++) {
        p = ft_put_map(b, 2);
        p = ft_put_str(p, "format", 6);
        p = ft_put_str(p, "foretell-trace", 14);
        p = ft_put_str(p, "version", 7);
        p = ft_put_uint(p, unknown[i]);
        char want[64];
        snprintf(want, sizeof want, "unsupported trace version %llu",
                 (unsigned long long)unknown[i]);
        hostile_header(b, (size_t)(p - b), want);
    }
    p = ft_put_map(b, 1);
    p = ft_put_str(p, "version", 7);
    p = ft_put_uint(p, 1);
    hostile_header(b, (size_t)(p - b), "no \"format\"");
    p = ft_put_map(b, 2);
    p = ft_put_str(p, "format", 6);
    p = ft_put_str(p, "foretell-trace", 14);
    p = ft_put_str(p, "argv", 4);
    p = ft_put_uint(p, 5);
    hostile_header(b, (size_t)(p - b), "bad value for key 'argv'");
}

/* A chunk whose CRC is right but whose third event is malformed (a
 * hostile or broken writer): the two events before it and every earlier
 * chunk are delivered, then reading stops with the offset of the bad
 * byte and what was wrong; nothing after it is delivered. */
/* Version 2 traces have one address register; version 3 gives READ its
 * own.  The same events, each encoded as its version says, read back to
 * the same addresses, and the split encoding is the shorter one. */
static size_t one_version(uint64_t version, ft_event *evs, size_t n)
{
    static small_trace t;
    t.len = 0;
    t.nchunks = 0;
    t.seq = 0;
    uint8_t b[256], *p;
    p = ft_put_map(b, 2);
    p = ft_put_str(p, "format", 6);
    p = ft_put_str(p, "foretell-trace", 14);
    p = ft_put_str(p, "version", 7);
    p = ft_put_uint(p, version);
    put_chunk(&t, FT_CHUNK_HEADER, b, (size_t)(p - b), 0);
    ft_addr_regs reg = ft_addr_regs_for(version);
    p = ft_put_uint(b, 0);
    p = ft_put_uint(p, 0);
    uint8_t *first = p;
    for (size_t i = 0; i < n; i++)
        p = ft_encode_event(p, &evs[i], &reg);
    size_t body = (size_t)(p - first);
    put_chunk(&t, FT_CHUNK_EVENTS, b, (size_t)(p - b), n);
    ft_error err = {0};
    ft_reader *r = ft_reader_open_mem(t.data, t.len, "v.ftrace", &err);
    assert_non_null(r);
    ft_event ev;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(ft_reader_next(r, &ev), 1);
        assert_int_equal(ev.kind, evs[i].kind);
        assert_int_equal(ev.addr, evs[i].addr);
        assert_int_equal(ev.value, evs[i].value);
    }
    assert_int_equal(ft_reader_next(r, &ev), 0);
    ft_reader_close(r);
    return body;
}

static void test_address_registers_by_version(void **state)
{
    (void)state;
    ft_event evs[12];
    for (unsigned i = 0; i < 6; i++) { /* out[i] = table[i] ^ k */
        evs[2 * i] = (ft_event){.kind = FT_EV_READ, .site = 1,
                                .addr = 0x404000 + 4 * i, .size = 4,
                                .value = i};
        evs[2 * i + 1] = (ft_event){.kind = FT_EV_WRITE, .site = 2,
                                    .addr = 0x7ff0001000 + 8 * i, .size = 8,
                                    .value = i};
    }
    size_t v2 = one_version(2, evs, 12), v3 = one_version(3, evs, 12);
    assert_true(v3 < v2);
}

static void test_malformed_event_in_valid_chunk(void **state)
{
    (void)state;
    static small_trace t;
    put_header(&t);
    uint8_t b[256], *p;
    ft_addr_regs reg = ft_addr_regs_for(FT_FORMAT_VERSION);
    p = ft_put_uint(b, 0);
    p = ft_put_uint(p, 0);
    for (unsigned i = 0; i < 2; i++) {
        ft_event ev = {.kind = FT_EV_WRITE, .addr = 0x1000 + 8 * i, .size = 8,
                       .value = i};
        p = ft_encode_event(p, &ev, &reg);
    }
    size_t bad_at = (size_t)(p - b);
    *p++ = FT_EV_WRITE;
    *p++ = 0xc1; /* never used by msgpack: not an integer */
    put_chunk(&t, FT_CHUNK_EVENTS, b, (size_t)(p - b), 2);
    p = ft_put_uint(b, 3);
    p = ft_put_uint(p, 0);
    ft_event ev = {.kind = FT_EV_FUNC_EXIT};
    p = ft_encode_event(p, &ev, &reg);
    put_chunk(&t, FT_CHUNK_EVENTS, b, (size_t)(p - b), 1);
    ft_error err = {0};
    ft_reader *r = ft_reader_open_mem(t.data, t.len, "bad.ftrace", &err);
    assert_non_null(r);
    int last;
    assert_int_equal(drain(r, &last), 2);
    assert_int_equal(last, -1);
    ft_error d;
    assert_int_equal(ft_reader_damage(r, &d), 1);
    /* body = chunk start + frame head; the opcode is fine, the field after
     * it is the bad byte */
    assert_int_equal(d.offset, t.start[1] + FT_CHUNK_HEAD + bad_at + 1);
    assert_non_null(strstr(d.message, "recovered 2 events"));
    assert_non_null(strstr(d.message, "malformed event"));
    ft_reader_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncation_at_every_offset),
        cmocka_unit_test(test_random_byte_flips),
        cmocka_unit_test(test_hostile_frame_lengths),
        cmocka_unit_test(test_hostile_bodies),
        cmocka_unit_test(test_hostile_ids),
        cmocka_unit_test(test_hostile_headers),
        cmocka_unit_test(test_malformed_event_in_valid_chunk),
        cmocka_unit_test(test_address_registers_by_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
