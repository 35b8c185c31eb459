/* SPDX-License-Identifier: MIT */
/* gen_corpus.c - writes the fuzzer's seed corpus with ft_writer: small
 * traces covering every event kind and chunk kind, thread switches, wide
 * content, paired reads, a trace without END, truncated and bit-flipped
 * variants, traces whose chunks are zstd-compressed (format 4) with
 * a flipped variant, and one with DATA and TYPES chunks whose accesses
 * name members, elements and a heap struct's member.
 * Usage: gen_corpus DIR */
#include "recorder/reader_internal.h"
#include "recorder/trace.h"
#include "recorder/typetab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t state = 42;

static uint64_t rnd(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 17;
}

static const unsigned kinds[] = {
    2, 3, 4, 5, 6, 10, 11, 12, 13, 20, 21, 22, 23, 24, 30, 31, 32, 33, 34,
    35, 40, 41, 42, 43, 50, 51, 52, 53, 54, 55, 56, 57, 60, 61, 62, 70, 71,
    72, 73, 74, 75, 80, 81, 82,
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static void random_event(ft_event *ev, unsigned kind, uint8_t *wide)
{
    static const uint16_t sizes[] = {1, 2, 4, 8};
    memset(ev, 0, sizeof *ev);
    ev->kind = (uint16_t)kind;
    ev->tid = (uint32_t)(rnd() % 3);
    ev->site = 1 + (uint32_t)(rnd() % 4);
    ev->addr = 0x7f0000001000ull + (rnd() % 64) * 8;
    ev->size = sizes[rnd() % 4];
    ev->value = rnd() % 4;
    if (kind == 12 || kind == 13) {
        ev->size = (uint16_t)(rnd() % 24);
        ev->value = ev->size;
        if (rnd() % 3) {
            for (unsigned i = 0; i < ev->size; i++)
                wide[i] = (uint8_t)rnd();
            ev->bytes = wide;
            ev->nbytes = ev->size;
        }
    }
    if (kind == 60 || kind == 62) {
        ev->value = 16 + rnd() % 64;
        ev->value2 = 1 + rnd() % 3;
        ev->obj2 = 0x7f0000001000ull + (rnd() % 64) * 8;
    }
    if (kind == 42) {
        ev->arg = (uint32_t)(rnd() % 2);
        ev->value = ev->arg ? rnd() % 3 : 0;
    }
    if (kind == 40 || kind == 41)
        ev->obj2 = 0x7f0000002000ull;
    /* every second read is paired (opcodes 14, 15); no rnd() call, so
     * the rest of each seed stays as it was */
    static unsigned nreads;
    if ((kind == 10 || kind == 12) && nreads++ % 2)
        ev->arg = FT_READ_PAIRED;
}

/* level: zstd level of the chunks (0: plain, format 3). */
static int write_one(const char *dir, const char *name, unsigned nevents,
                     int with_end, int level)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const char *argv[] = {"prog", "arg"};
    ft_module m[2] = {{"/usr/bin/prog", 0x400000, 0x1000, "abcdef"},
                      {"/lib/x.so", 0x7f0000000000ull, 0x1000, ""}};
    ft_header h = {.program = "/usr/bin/prog", .argc = 2, .argv = argv,
                   .pid = 7, .nmodules = 2, .modules = m};
    ft_error err;
    ft_writer *w = ft_writer_open_level(path, &h, level, &err);
    if (!w) {
        fprintf(stderr, "gen_corpus: %s\n", err.message);
        return -1;
    }
    for (uint32_t s = 1; s <= 4; s++) {
        ft_site site = {.id = s, .module = s % 2, .offset = 0x100 * s,
                        .function = s % 2 ? "f" : NULL,
                        .file = s == 1 ? "a.c" : NULL, .line = s};
        ft_writer_site(w, &site);
    }
    uint8_t wide[32];
    for (unsigned i = 0; i < nevents; i++) {
        ft_event ev;
        random_event(&ev, kinds[nevents <= NKINDS ? i % NKINDS
                                                  : rnd() % NKINDS],
                     wide);
        ft_writer_event(w, &ev);
    }
    ft_end end = {.present = with_end, .reason = "exit", .exit_status = 0};
    return ft_writer_close(w, &end);
}

static uint8_t *put_base(uint8_t *p, uint32_t id, uint64_t size,
                         unsigned enc)
{
    p = ft_put_array(p, 5);
    p = ft_put_uint(p, FT_TYPE_BASE);
    p = ft_put_uint(p, id);
    p = ft_put_uint(p, size);
    p = ft_put_nil(p);
    return ft_put_uint(p, enc);
}

/* A trace whose global g (struct { long a; enum e; double d[2]; }) and
 * heap struct (through `q->` at site 1) are described by TYPES. */
static int write_typed(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/typed", dir);
    ft_module m = {"/usr/bin/prog", 0x400000, 0x1000, "abcdef"};
    ft_header h = {.program = "/usr/bin/prog", .pid = 7, .nmodules = 1,
                   .modules = &m};
    ft_error err;
    ft_writer *w = ft_writer_open(path, &h, &err);
    if (!w)
        return -1;
    for (uint32_t s = 1; s <= 2; s++) {
        ft_site site = {.id = s, .offset = 0x100 * s, .function = "f",
                        .file = "t.c", .line = s};
        ft_writer_site(w, &site);
    }
    ft_event evs[] = {
        {.kind = FT_EV_WRITE, .site = 2, .addr = 0x400100, .size = 8,
         .value = (uint64_t)-3},
        {.kind = FT_EV_WRITE, .site = 2, .addr = 0x400108, .size = 4,
         .value = 1},
        {.kind = FT_EV_WRITE, .site = 2, .addr = 0x400118, .size = 8,
         .value = 0x4004000000000000ull},
        {.kind = FT_EV_MALLOC, .site = 2, .addr = 0x9000, .value = 48,
         .value2 = 1},
        {.kind = FT_EV_WRITE, .site = 1, .addr = 0x9008, .size = 4,
         .value = 2},
        {.kind = FT_EV_READ, .site = 1, .addr = 0x9020, .size = 8},
    };
    for (size_t i = 0; i < sizeof evs / sizeof *evs; i++)
        ft_writer_event(w, &evs[i]);
    ft_end end = {.present = 1, .reason = "exit", .exit_status = 0};
    if (ft_writer_close(w, &end) < 0)
        return -1;
    ft_appender ap = {.fd = -1};
    if (ft_appender_open(&ap, path, &err) < 0)
        return -1;
    uint8_t *p = ft_appender_reserve(&ap, FT_CHUNK_DATA, 64);
    p = ft_put_array(p, 4);
    p = ft_put_uint(p, 0);
    p = ft_put_uint(p, 0x100);
    p = ft_put_uint(p, 32);
    p = ft_put_str(p, "g", 1);
    ft_appender_commit(&ap, p);
    p = ft_appender_reserve(&ap, FT_CHUNK_TYPES, 1024);
    p = put_base(p, 1, 8, FT_ENC_SIGNED);
    p = put_base(p, 2, 8, FT_ENC_FLOAT);
    p = ft_put_array(p, 6); /* enum e { A, B = -1 } */
    p = ft_put_uint(p, FT_TYPE_ENUM);
    p = ft_put_uint(p, 3);
    p = ft_put_uint(p, 4);
    p = ft_put_str(p, "e", 1);
    p = ft_put_uint(p, 1);
    p = ft_put_array(p, 2);
    p = ft_put_array(p, 2);
    p = ft_put_str(p, "A", 1);
    p = ft_put_int(p, 0);
    p = ft_put_array(p, 2);
    p = ft_put_str(p, "B", 1);
    p = ft_put_int(p, -1);
    p = ft_put_array(p, 6); /* double[2] */
    p = ft_put_uint(p, FT_TYPE_ARRAY);
    p = ft_put_uint(p, 4);
    p = ft_put_uint(p, 16);
    p = ft_put_nil(p);
    p = ft_put_uint(p, 2);
    p = ft_put_uint(p, 2);
    p = ft_put_array(p, 5); /* struct s { long a; enum e e; double d[2]; } */
    p = ft_put_uint(p, FT_TYPE_STRUCT);
    p = ft_put_uint(p, 5);
    p = ft_put_uint(p, 32);
    p = ft_put_str(p, "s", 1);
    p = ft_put_array(p, 3);
    const char *names[] = {"a", "e", "d"};
    const unsigned offs[] = {0, 8, 16}, tys[] = {1, 3, 4};
    for (int i = 0; i < 3; i++) {
        p = ft_put_array(p, 3);
        p = ft_put_str(p, names[i], 1);
        p = ft_put_uint(p, offs[i]);
        p = ft_put_uint(p, tys[i]);
    }
    p = ft_put_array(p, 4);
    p = ft_put_uint(p, FT_TYPE_VAR);
    p = ft_put_uint(p, 0);
    p = ft_put_uint(p, 0x100);
    p = ft_put_uint(p, 5);
    p = ft_put_array(p, 5);
    p = ft_put_uint(p, FT_TYPE_DEREF);
    p = ft_put_uint(p, 1);
    p = ft_put_str(p, "q", 1);
    p = ft_put_str(p, "e", 1);
    p = ft_put_uint(p, 5);
    ft_appender_commit(&ap, p);
    return ft_appender_close(&ap, path, &err);
}

/* Writes a variant of an existing seed: truncated or with a flipped byte. */
static void variant(const char *dir, const char *from, const char *name,
                    int truncate_to, int flip_at)
{
    char src[4096], dst[4096];
    snprintf(src, sizeof src, "%s/%s", dir, from);
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    FILE *f = fopen(src, "rb");
    if (!f)
        return;
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (truncate_to >= 0 && (size_t)truncate_to < n)
        n = (size_t)truncate_to;
    if (flip_at >= 0 && (size_t)flip_at < n)
        buf[flip_at] ^= 0x20;
    f = fopen(dst, "wb");
    if (f) {
        fwrite(buf, 1, n, f);
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_corpus DIR\n");
        return 2;
    }
    if (mkdir(argv[1], 0755) < 0 && errno != EEXIST) {
        perror(argv[1]);
        return 2;
    }
    int rc = 0;
    rc |= write_one(argv[1], "every_kind", NKINDS, 1, 0);
    rc |= write_one(argv[1], "random_200", 200, 1, 0);
    rc |= write_one(argv[1], "no_end", 30, 0, 0);
    rc |= write_one(argv[1], "empty", 0, 1, 0);
    rc |= write_typed(argv[1]);
    variant(argv[1], "random_200", "truncated", 900, -1);
    variant(argv[1], "every_kind", "flipped", -1, 300);
    /* format 4: compressed chunks (after the others: their bytes stay) */
    rc |= write_one(argv[1], "zstd_every_kind", NKINDS, 1, 1);
    rc |= write_one(argv[1], "zstd_random_200", 200, 1, 1);
    variant(argv[1], "zstd_random_200", "zstd_flipped", -1, 400);
    return rc ? 1 : 0;
}
