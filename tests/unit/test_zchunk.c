/* SPDX-License-Identifier: MIT */
/* test_zchunk.c - zstd-compressed chunks (trace format 4,
 * recorder/zchunk.h): the same events written compressed and plain read
 * back identically (event by event, and by batches from the decoding
 * thread); damage inside a compressed chunk (a flipped byte, a cut)
 * delivers the chunks before it and names the chunk; hostile frames (a
 * declared size beyond the limit, no declared size, a size that lies,
 * a compressed HEADER) are refused at the chunk without allocating what
 * they declare; bytes flipped inside compressed bodies with the CRC made
 * right again (what only a hostile writer makes) never crash the reader
 * and never cost the chunks before. */
#include "fixture.h"
#include "recorder/encode.h"
#include "recorder/reader_internal.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NEV = 400000, NRANDOM = 2000, NSITES = 24 };

/* Events like a recorded loop's (sites cycling, addresses stepping, a
 * switch now and then) with random events of every kind among them:
 * enough for several 1 MiB chunks that compress. */
static ft_event *make_events(uint8_t **bufs)
{
    rng g = {7};
    ft_event *evs = calloc(NEV, sizeof *evs);
    *bufs = malloc((size_t)NRANDOM * 4096);
    assert_non_null(evs);
    assert_non_null(*bufs);
    uint32_t tid = 0;
    for (size_t i = 0; i < NEV; i++) {
        if (i % 5000 == 4999)
            tid = (tid + 1) % 3;
        if (i % (NEV / NRANDOM) == 7) {
            size_t k = i / (NEV / NRANDOM);
            fx_random_event(&g, fx_kinds[k % fx_nkinds], &evs[i],
                            *bufs + k * 4096);
            evs[i].site = evs[i].site % NSITES;
        } else {
            evs[i] = (ft_event){.kind = i % 3 ? FT_EV_READ : FT_EV_WRITE,
                                .site = 1 + (uint32_t)(i % NSITES),
                                .addr = 0x55550000 + 8 * (i % 4096),
                                .size = 8, .value = i / 3};
        }
        evs[i].tid = tid;
    }
    return evs;
}

static uint8_t *write_trace(const ft_event *evs, int level, size_t *len)
{
    char path[256];
    fx_temp_path(path, sizeof path, "zc");
    assert_int_equal(fx_write_trace_level(path, evs, NEV, NSITES, "exit",
                                          level), 0);
    uint8_t *d = fx_read_file(path, len);
    unlink(path);
    assert_non_null(d);
    return d;
}

/* Events delivered by a reader over data[0..len); *rc the last result. */
static uint64_t count_events(const uint8_t *data, size_t len, int *rc,
                             ft_error *damage)
{
    ft_error err;
    ft_reader *r = ft_reader_open_mem(data, len, "z.ftrace", &err);
    assert_non_null(r);
    ft_event ev;
    uint64_t n = 0;
    while ((*rc = ft_reader_next(r, &ev)) == 1)
        n++;
    memset(damage, 0, sizeof *damage);
    ft_reader_damage(r, damage);
    ft_reader_close(r);
    return n;
}

static void test_compressed_and_plain_read_the_same(void **state)
{
    (void)state;
    uint8_t *bufs;
    ft_event *evs = make_events(&bufs);
    size_t zlen, plen;
    uint8_t *z = write_trace(evs, 1, &zlen);
    uint8_t *p = write_trace(evs, 0, &plen);
    /* compressed chunks are there, and smaller */
    uint64_t ends[256];
    unsigned kinds[256];
    size_t nz = fx_chunks(z, zlen, ends, kinds, 256), zevents = 0;
    for (size_t k = 0; k < nz; k++)
        zevents += kinds[k] == (FT_CHUNK_EVENTS | FT_CHUNK_ZSTD);
    assert_true(zevents >= 3);
    assert_true(zlen * 2 < plen);
    ft_error err;
    ft_reader *rz = ft_reader_open_mem(z, zlen, "z.ftrace", &err);
    ft_reader *rp = ft_reader_open_mem(p, plen, "p.ftrace", &err);
    assert_non_null(rz);
    assert_non_null(rp);
    assert_int_equal(ft_reader_header(rz)->version, 4);
    assert_int_equal(ft_reader_header(rp)->version, 3);
    assert_int_equal(ft_reader_nsites(rz), NSITES);
    for (uint32_t s = 1; s <= NSITES; s++)
        assert_string_equal(ft_reader_site(rz, s)->function,
                            ft_reader_site(rp, s)->function);
    /* the decoded sizes bound the events, not the stored ones */
    assert_true(ft_reader_event_bytes(rz) >= NEV);
    for (size_t i = 0; i < NEV; i++) {
        ft_event a, b;
        assert_int_equal(ft_reader_next(rz, &a), 1);
        assert_int_equal(ft_reader_next(rp, &b), 1);
        fx_assert_event_eq(&evs[i], &a);
        fx_assert_event_eq(&b, &a);
    }
    ft_event ev;
    assert_int_equal(ft_reader_next(rz, &ev), 0);
    /* batches, from the decoding thread */
    ft_reader_rewind(rz);
    const ft_event *batch;
    long n;
    size_t i = 0;
    while ((n = ft_reader_next_batch(rz, &batch)) > 0)
        for (long k = 0; k < n; k++)
            fx_assert_event_eq(&evs[i++], &batch[k]);
    assert_int_equal(n, 0);
    assert_int_equal(i, NEV);
    assert_int_equal(ft_reader_end(rz)->events, NEV);
    ft_reader_close(rz);
    ft_reader_close(rp);
    free(z);
    free(p);
    free(evs);
    free(bufs);
}

static void test_damage_inside_a_compressed_chunk(void **state)
{
    (void)state;
    uint8_t *bufs;
    ft_event *evs = make_events(&bufs);
    size_t zlen;
    uint8_t *z = write_trace(evs, 1, &zlen);
    uint64_t ends[256];
    unsigned kinds[256];
    size_t nz = fx_chunks(z, zlen, ends, kinds, 256);
    /* the second compressed EVENTS chunk */
    size_t k = 0, seen = 0;
    for (; k < nz; k++)
        if (kinds[k] == (FT_CHUNK_EVENTS | FT_CHUNK_ZSTD) && ++seen == 2)
            break;
    assert_true(k < nz);
    uint64_t start = ends[k - 1], end = ends[k];
    int rc;
    ft_error d;
    /* what the chunks before it hold */
    uint64_t before = count_events(z, start, &rc, &d);
    assert_int_equal(rc, 0);
    assert_true(before > 0 && before < NEV);
    char want[128];
    snprintf(want, sizeof want, "recovered %llu events; stopped at byte "
             "%llu: ", (unsigned long long)before, (unsigned long long)start);

    uint8_t *copy = malloc(zlen);
    memcpy(copy, z, zlen);
    copy[start + FT_CHUNK_HEAD + (end - start) / 2] ^= 0x20;
    assert_int_equal(count_events(copy, zlen, &rc, &d), before);
    assert_int_equal(rc, -1);
    assert_int_equal(d.offset, start);
    assert_true(strncmp(d.message, want, strlen(want)) == 0);
    assert_non_null(strstr(d.message, "CRC mismatch in compressed EVENTS"));

    /* cut in the middle of its body */
    assert_int_equal(count_events(z, (start + end) / 2, &rc, &d), before);
    assert_int_equal(rc, -1);
    assert_int_equal(d.offset, start);
    assert_non_null(strstr(d.message, "truncated chunk"));
    free(copy);
    free(z);
    free(evs);
    free(bufs);
}

/* A trace: HEADER, an EVENTS chunk of 3 writes, then a compressed EVENTS
 * chunk whose body is frame[0..n) (its CRC right). */
static size_t hostile_trace(uint8_t *out, size_t cap, const uint8_t *frame,
                            size_t n, uint64_t *zchunk_at)
{
    char path[256];
    fx_temp_path(path, sizeof path, "zh");
    ft_event evs[3];
    for (int i = 0; i < 3; i++)
        evs[i] = (ft_event){.kind = FT_EV_WRITE, .site = 1,
                            .addr = 0x1000 + 8 * (uint64_t)i, .size = 8};
    assert_int_equal(fx_write_trace(path, evs, 3, 1, NULL), 0);
    size_t len;
    uint8_t *d = fx_read_file(path, &len);
    unlink(path);
    uint64_t ends[16];
    unsigned kinds[16];
    size_t nc = fx_chunks(d, len, ends, kinds, 16);
    assert_true(len + n + FT_CHUNK_HEAD + FT_CHUNK_TAIL <= cap);
    memcpy(out, d, len);
    free(d);
    ft_chunk c;
    ft_chunk_open(&c, out + len, cap - len);
    memcpy(c.pos, frame, n);
    c.pos += n;
    *zchunk_at = len;
    return len + ft_chunk_seal(&c, FT_CHUNK_EVENTS | FT_CHUNK_ZSTD, nc);
}

/* A zstd frame declaring `declared` bytes (none when UINT64_MAX) whose
 * one raw block holds the prologue of a chunk starting at event 3. */
static size_t frame_declaring(uint8_t *f, uint64_t declared)
{
    size_t n = 0;
    f[n++] = 0x28, f[n++] = 0xb5, f[n++] = 0x2f, f[n++] = 0xfd;
    if (declared == UINT64_MAX) {
        f[n++] = 0x00; /* no content size, a window descriptor */
        f[n++] = 0x00;
    } else {
        f[n++] = 0xe0; /* single segment, 8-byte content size */
        for (int i = 0; i < 8; i++)
            f[n++] = (uint8_t)(declared >> (8 * i));
    }
    f[n++] = (3 << 3) | 1, f[n++] = 0, f[n++] = 0; /* last raw block of 3 */
    f[n++] = 3, f[n++] = 0, f[n++] = FT_EV_THREAD_EXIT;
    return n;
}

static void expect_refused(uint64_t declared, const char *why,
                           uint64_t max_event_bytes)
{
    static uint8_t t[8192];
    uint8_t f[32];
    size_t fn = frame_declaring(f, declared);
    uint64_t at;
    size_t len = hostile_trace(t, sizeof t, f, fn, &at);
    ft_error err;
    ft_reader *r = ft_reader_open_mem(t, len, "hostile.ftrace", &err);
    assert_non_null(r);
    assert_true(ft_reader_event_bytes(r) <= max_event_bytes);
    ft_event ev;
    int rc, n = 0;
    while ((rc = ft_reader_next(r, &ev)) == 1)
        n++;
    ft_error d;
    if (!why) {
        assert_int_equal(rc, 0);
        assert_int_equal(n, 4);
        ft_reader_close(r);
        return;
    }
    assert_int_equal(rc, -1);
    assert_int_equal(n, 3); /* the plain chunk before it */
    assert_int_equal(ft_reader_damage(r, &d), 1);
    assert_int_equal(d.offset, at);
    if (!strstr(d.message, why))
        fail_msg("expected '%s' in: %s", why, d.message);
    char where[64];
    snprintf(where, sizeof where, "at byte %llu", (unsigned long long)at);
    assert_non_null(strstr(d.message, where));
    ft_reader_close(r);
}

static void test_hostile_declared_sizes(void **state)
{
    (void)state;
    /* honest: 3 bytes declared, 3 decoded; one event */
    expect_refused(3, NULL, 1u << 20);
    /* a bomb: 1 GiB declared, refused before anything is allocated */
    expect_refused(1ull << 30, "declares 1073741824 decompressed bytes, "
                   "beyond the limit", 1u << 20);
    expect_refused(UINT64_MAX, "does not declare its decompressed size",
                   1u << 20);
    /* the limit itself is allowed, but counts as the stored bytes times
     * the ratio bound only, and decompresses to 3 bytes: refused */
    expect_refused(FT_CHUNK_MAX_BODY, "does not decompress to the 67108864",
                   4096);
    expect_refused(2, "does not decompress to the 2", 1u << 20);
}

static void test_flips_behind_a_right_crc(void **state)
{
    (void)state;
    uint8_t *bufs;
    ft_event *evs = make_events(&bufs);
    size_t zlen;
    uint8_t *z = write_trace(evs, 1, &zlen);
    uint64_t ends[256];
    unsigned kinds[256];
    size_t nz = fx_chunks(z, zlen, ends, kinds, 256);
    uint8_t *copy = malloc(zlen);
    rng g = {11};
    int damaged = 0;
    for (int round = 0; round < 60; round++) {
        /* a compressed EVENTS chunk (a flipped SITES chunk may make the
         * site table hostile, and open refuses the whole trace) */
        size_t k;
        do
            k = 1 + (size_t)rng_below(&g, nz - 1);
        while (kinds[k] != (FT_CHUNK_EVENTS | FT_CHUNK_ZSTD));
        uint64_t start = ends[k - 1], body = start + FT_CHUNK_HEAD;
        uint32_t blen = (uint32_t)(ends[k] - body - FT_CHUNK_TAIL);
        memcpy(copy, z, zlen);
        for (int f = 0; f < 1 + round % 3; f++)
            copy[body + rng_below(&g, blen)] ^= (uint8_t)(1 + rng_below(&g,
                                                                      255));
        ft_put_be32(copy + body + blen + 1, ft_crc32c(0, copy + body, blen));
        int rc;
        ft_error d;
        uint64_t n = count_events(copy, zlen, &rc, &d);
        /* what the chunks before it hold is delivered in any case */
        int before_rc;
        ft_error none;
        uint64_t before = count_events(z, start, &before_rc, &none);
        assert_true(n >= before);
        if (rc < 0) {
            assert_true(d.offset >= start);
            damaged++;
        }
    }
    /* zstd refused some (the seed is fixed: this does not vary) */
    assert_true(damaged > 0);
    free(copy);
    free(z);
    free(evs);
    free(bufs);
}

static void test_compressed_header_refused(void **state)
{
    (void)state;
    char path[256];
    fx_temp_path(path, sizeof path, "zhd");
    assert_int_equal(fx_write_trace(path, NULL, 0, 0, NULL), 0);
    size_t len;
    uint8_t *d = fx_read_file(path, &len);
    unlink(path);
    d[1] |= FT_CHUNK_ZSTD;
    ft_error err;
    assert_null(ft_reader_open_mem(d, len, "h.ftrace", &err));
    assert_non_null(strstr(err.message, "of kind HEADER (1), found chunk 0 "
                                        "of kind 65"));
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compressed_and_plain_read_the_same),
        cmocka_unit_test(test_damage_inside_a_compressed_chunk),
        cmocka_unit_test(test_hostile_declared_sizes),
        cmocka_unit_test(test_flips_behind_a_right_crc),
        cmocka_unit_test(test_compressed_header_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
