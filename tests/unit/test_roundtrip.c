/* SPDX-License-Identifier: MIT */
/* test_roundtrip.c - what the writer writes, the reader reads back field
 * by field: every event kind with the extreme values of every field,
 * address deltas across the whole 64-bit range, thread switches, traces
 * spanning many chunks, the header, sites, symbols and END; SOURCE and
 * INLINED chunks of the same site merged into it (kinds 8 and 9); paired
 * reads (opcodes 14 and 15) decoded, encoded and printed. */
#include "fixture.h"
#include "recorder/encode.h"
#include "recorder/event_format.h"
#include "recorder/reader_internal.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes n events, reads them back, compares; frees nothing the caller
 * owns. */
static void roundtrip(const ft_event *evs, size_t n)
{
    char path[256];
    fx_temp_path(path, sizeof path, "rt");
    assert_int_equal(fx_write_trace(path, evs, n, 5, "exit"), 0);
    ft_error err;
    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    for (int pass = 0; pass < 2; pass++) { /* second pass: after rewind */
        ft_event ev;
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(ft_reader_next(r, &ev), 1);
            assert_int_equal(ev.index, i);
            fx_assert_event_eq(&evs[i], &ev);
        }
        assert_int_equal(ft_reader_next(r, &ev), 0);
        assert_int_equal(ft_reader_damage(r, NULL), 0);
        ft_reader_rewind(r);
    }
    const ft_end *e = ft_reader_end(r);
    assert_true(e->present);
    assert_int_equal(e->events, n);
    assert_string_equal(e->reason, "exit");
    ft_reader_close(r);
    unlink(path);
}

static void test_every_kind_with_extremes(void **state)
{
    (void)state;
    rng g = {1};
    enum { PER_KIND = 300 };
    size_t n = fx_nkinds * PER_KIND;
    ft_event *evs = calloc(n, sizeof *evs);
    uint8_t *bufs = malloc(n * 4096);
    assert_non_null(evs);
    assert_non_null(bufs);
    for (size_t i = 0; i < n; i++) {
        fx_random_event(&g, fx_kinds[i % fx_nkinds], &evs[i], bufs + i * 4096);
        /* thread ids: small, switching, and the largest there is */
        evs[i].tid = rng_below(&g, 5) ? (uint32_t)rng_below(&g, 4)
                                      : rng_tid(&g);
    }
    roundtrip(evs, n);
    free(evs);
    free(bufs);
}

static void test_address_deltas_span_64_bits(void **state)
{
    (void)state;
    static const uint64_t addrs[] = {
        0, UINT64_MAX, 0, 0x8000000000000000ull, 0x7fffffffffffffffull,
        1, UINT64_MAX - 1, 0x8000000000000001ull, 0x7ffffffffffffffeull,
        0x7fff00001000ull, 0x7fff00001008ull, 0x7fff00000ff8ull, 0x1000,
        UINT64_MAX, UINT64_MAX, 0,
    };
    size_t n = sizeof addrs / sizeof addrs[0];
    rng g = {7};
    ft_event evs[64 + 1000];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        evs[k++] = (ft_event){.kind = FT_EV_WRITE, .site = 1,
                              .addr = addrs[i], .size = 8,
                              .value = addrs[i]};
    /* cond wait/wake and realloc carry two delta-coded objects */
    for (size_t i = 0; i < 1000; i++) {
        ft_event *e = &evs[k++];
        *e = (ft_event){.kind = i % 2 ? FT_EV_COND_WAIT : FT_EV_REALLOC,
                        .site = 2, .addr = rng_edge(&g), .obj2 = rng_edge(&g)};
        if (e->kind == FT_EV_REALLOC) {
            e->value = 16;
            e->value2 = i;
        }
    }
    roundtrip(evs, k);
}

static void test_many_chunks(void **state)
{
    (void)state;
    /* ~3 MB of events: several 1 MB EVENTS chunks, each with its own
     * address register and start thread */
    size_t n = 400000;
    ft_event *evs = calloc(n, sizeof *evs);
    assert_non_null(evs);
    rng g = {3};
    uint64_t a = 0x7f0000000000ull;
    for (size_t i = 0; i < n; i++) {
        a += (rng_below(&g, 64) - 32) * 8;
        evs[i] = (ft_event){.kind = i % 3 ? FT_EV_READ : FT_EV_WRITE,
                            .tid = (uint32_t)(i / 7 % 3), .site = 1 + i % 5,
                            .addr = a, .size = 8, .value = rng_next(&g)};
    }
    roundtrip(evs, n);
    free(evs);
}

static void test_header_sites_symbols(void **state)
{
    (void)state;
    char path[256];
    fx_temp_path(path, sizeof path, "hdr");
    ft_event ev = {.kind = FT_EV_YIELD, .site = 3};
    assert_int_equal(fx_write_trace(path, &ev, 1, 40, NULL), 0);
    ft_error err;
    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    const ft_header *h = ft_reader_header(r);
    assert_int_equal(h->version, FT_FORMAT_VERSION_PLAIN);
    assert_string_equal(h->program, "/usr/bin/prog");
    assert_int_equal(h->argc, 3);
    assert_string_equal(h->argv[1], "--flag");
    assert_int_equal(h->pid, 1234);
    assert_int_equal(h->start_time_ns, 42);
    assert_int_equal(h->nmodules, 2);
    assert_string_equal(h->modules[0].path, "/usr/bin/prog");
    assert_int_equal(h->modules[1].base, 0x7f0000000000ull);
    assert_string_equal(h->modules[0].build_id, "00ff");
    assert_int_equal(ft_reader_nsites(r), 40);
    const ft_site *s = ft_reader_site(r, 17);
    assert_non_null(s);
    assert_int_equal(s->id, 17);
    assert_int_equal(s->offset, 0x1000 + 16 * 17);
    assert_string_equal(s->function, "func17");
    assert_string_equal(s->file, "src/file3.c");
    assert_int_equal(s->line, 51);
    assert_null(ft_reader_site(r, 0));
    assert_null(ft_reader_site(r, 41));
    char buf[64];
    assert_string_equal(ft_site_format(r, 17, buf, sizeof buf),
                        "src/file3.c:51");
    assert_string_equal(ft_site_format(r, 99, buf, sizeof buf), "?");
    /* no END chunk: the run was cut, which is not damage */
    assert_false(ft_reader_end(r)->present);
    assert_int_equal(ft_reader_next(r, &ev), 1);
    assert_int_equal(ft_reader_next(r, &ev), 0);
    assert_int_equal(ft_reader_damage(r, NULL), 0);
    ft_reader_close(r);
    unlink(path);
}

/* An importer that knows each access's instruction (the Valgrind
 * recorder's, recorder/vgimport.c) hands it to the writer: INSN, and no
 * SYMBOLS entry for a site that has nothing else, so that `symbolize`
 * still names it later. */
static void test_writer_insn(void **state)
{
    (void)state;
    char path[256];
    fx_temp_path(path, sizeof path, "insn");
    ft_module m = {.path = "/usr/bin/prog", .base = 0, .size = 0x10000,
                   .build_id = ""};
    ft_header h = {.version = 4, .program = "/usr/bin/prog", .nmodules = 1,
                   .modules = &m};
    ft_error err;
    ft_writer *w = ft_writer_open(path, &h, &err);
    assert_non_null(w);
    ft_site a = {.id = 1, .module = 0, .offset = 0x1175,
                 .insn = "add qword ptr [rip + 0x2ebb], rdx"};
    ft_site b = {.id = 2, .module = 0, .offset = 0x1200, .function = "f",
                 .file = "f.c", .line = 3, .insn = "mov eax, 1"};
    ft_site c = {.id = 3, .module = 0, .offset = 0x1300};
    assert_int_equal(ft_writer_site(w, &a), 0);
    assert_int_equal(ft_writer_site(w, &b), 0);
    assert_int_equal(ft_writer_site(w, &c), 0);
    ft_event ev = {.kind = FT_EV_READ, .site = 1, .addr = 0x4030, .size = 8};
    assert_int_equal(ft_writer_event(w, &ev), 0);
    assert_int_equal(ft_writer_close(w, NULL), 0);
    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    const ft_site *s = ft_reader_site(r, 1);
    assert_non_null(s);
    assert_non_null(s->insn);
    assert_string_equal(s->insn, "add qword ptr [rip + 0x2ebb], rdx");
    assert_null(s->function);
    assert_null(s->file);
    s = ft_reader_site(r, 2);
    assert_string_equal(s->function, "f");
    assert_string_equal(s->insn, "mov eax, 1");
    assert_null(ft_reader_site(r, 3)->insn);
    ft_reader_close(r);
    unlink(path);
}

/* The symboliser appends a site's source line (SOURCE) and, for code
 * inlined from a system header, where it entered the program (INLINED):
 * two kinds of their own, both merged into the site beside its SYMBOLS. */
static void test_source_and_inlined(void **state)
{
    (void)state;
    char path[256];
    fx_temp_path(path, sizeof path, "inl");
    ft_event ev = {.kind = FT_EV_YIELD, .site = 3};
    assert_int_equal(fx_write_trace(path, &ev, 1, 40, NULL), 0);
    ft_appender ap = {.fd = -1};
    ft_error err;
    assert_int_equal(ft_appender_open(&ap, path, &err), 0);
    static const char text[] = "    v.at(i) = 1;", file[] = "/src/main.cc";
    uint8_t *p = ft_appender_reserve(&ap, FT_CHUNK_SOURCE, 64);
    assert_non_null(p);
    p = ft_put_array(p, 2);
    p = ft_put_uint(p, 17);
    p = ft_put_str(p, text, sizeof text - 1);
    ft_appender_commit(&ap, p);
    p = ft_appender_reserve(&ap, FT_CHUNK_INLINED, 64);
    assert_non_null(p);
    p = ft_put_array(p, 3);
    p = ft_put_uint(p, 17);
    p = ft_put_str(p, file, sizeof file - 1);
    p = ft_put_uint(p, 12);
    ft_appender_commit(&ap, p);
    assert_int_equal(ft_appender_close(&ap, path, &err), 0);
    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    assert_int_equal(ft_reader_nsites(r), 40);
    const ft_site *s = ft_reader_site(r, 17);
    assert_string_equal(s->function, "func17");
    assert_string_equal(s->file, "src/file3.c");
    assert_non_null(s->text);
    assert_string_equal(s->text, text);
    assert_non_null(s->user_file);
    assert_string_equal(s->user_file, file);
    assert_int_equal(s->user_line, 12);
    assert_null(ft_reader_site(r, 16)->text);
    assert_null(ft_reader_site(r, 16)->user_file);
    assert_int_equal(ft_reader_damage(r, NULL), 0);
    ft_reader_close(r);
    unlink(path);
}

static void test_site_format_fallbacks(void **state)
{
    (void)state;
    char path[256];
    fx_temp_path(path, sizeof path, "fmt");
    ft_module m = {"/opt/app/libfoo.so", 0x7f00, 0x100, ""};
    ft_header h = {.program = "/opt/app/a.out", .nmodules = 1, .modules = &m};
    ft_error err;
    ft_writer *w = ft_writer_open(path, &h, &err);
    assert_non_null(w);
    ft_site plain = {.id = 1, .module = 0, .offset = 0x1a2b};
    ft_site fn_only = {.id = 2, .module = 0, .offset = 5, .function = "f"};
    ft_site bad_mod = {.id = 3, .module = 9, .offset = 0x10};
    assert_int_equal(ft_writer_site(w, &plain), 0);
    assert_int_equal(ft_writer_site(w, &fn_only), 0);
    assert_int_equal(ft_writer_site(w, &bad_mod), 0);
    ft_event ev = {.kind = FT_EV_YIELD, .site = 1};
    assert_int_equal(ft_writer_event(w, &ev), 0);
    assert_int_equal(ft_writer_close(w, NULL), 0);
    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    char buf[64];
    assert_string_equal(ft_site_format(r, 1, buf, sizeof buf),
                        "libfoo.so+0x1a2b");
    assert_string_equal(ft_site_format(r, 2, buf, sizeof buf), "f");
    assert_string_equal(ft_site_format(r, 3, buf, sizeof buf), "?+0x10");
    ft_reader_close(r);
    unlink(path);
}

/* Whether ev's printed fields (event_format.c) include "paired". */
static int shows_paired(const ft_event *ev)
{
    ft_field f[FT_MAX_FIELDS];
    unsigned n = ft_event_fields(ev, f);
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(f[i].name, "paired"))
            return f[i].type == FT_F_UINT && f[i].u == 1 && i == n - 1;
    return 0;
}

/* Paired reads (trace.h, FT_READ_PAIRED): opcodes 14 and 15 with READ's
 * and READ_WIDE's fields, addresses in the read register.  The reader
 * delivers them as READ and READ_WIDE with arg FT_READ_PAIRED; the
 * encoder writes such events back with their opcodes (a rewritten trace
 * keeps the mark); the printers show it. */
static void test_paired_reads(void **state)
{
    (void)state;
    static const uint8_t body[] = {
        FT_EV_READ, 5, 0x7f, 8, 0x2a,        /* addr 0x7f, value 42 */
        FT_OP_READ_PAIRED, 6, 0x08, 4, 0x07, /* read register: 0x87 */
        FT_EV_WRITE, 7, 0x10, 1, 0x01,       /* general register: 0x10 */
        FT_OP_READ_WIDE_PAIRED, 9, 0x01, 3, 0xc4, 3, 1, 2, 3, /* 0x88 */
        FT_EV_READ_WIDE, 9, 0x01, 2, 0xc0,   /* 0x89, elided */
    };
    ft_event ev[5];
    const uint8_t *p = body, *end = body + sizeof body;
    ft_addr_regs regs = ft_addr_regs_for(3);
    uint32_t tid = 2;
    const char *why = NULL;
    for (int i = 0; i < 5; i++)
        assert_int_equal(ft_decode_event(&p, end, &regs, &tid, &ev[i], &why),
                         1);
    ft_event more;
    assert_int_equal(ft_decode_event(&p, end, &regs, &tid, &more, &why), 0);
    assert_int_equal(ev[0].kind, FT_EV_READ);
    assert_int_equal(ev[0].arg, 0);
    assert_int_equal(ev[1].kind, FT_EV_READ);
    assert_int_equal(ev[1].arg, FT_READ_PAIRED);
    assert_int_equal(ev[1].tid, 2);
    assert_int_equal(ev[1].site, 6);
    assert_int_equal(ev[1].addr, 0x87);
    assert_int_equal(ev[1].size, 4);
    assert_int_equal(ev[1].value, 7);
    assert_int_equal(ev[2].kind, FT_EV_WRITE);
    assert_int_equal(ev[2].addr, 0x10);
    assert_int_equal(ev[3].kind, FT_EV_READ_WIDE);
    assert_int_equal(ev[3].arg, FT_READ_PAIRED);
    assert_int_equal(ev[3].site, 9);
    assert_int_equal(ev[3].addr, 0x88);
    assert_int_equal(ev[3].value, 3);
    assert_int_equal(ev[3].nbytes, 3);
    assert_int_equal(ev[3].bytes[2], 3);
    assert_int_equal(ev[4].kind, FT_EV_READ_WIDE);
    assert_int_equal(ev[4].arg, 0);
    assert_int_equal(ev[4].addr, 0x89);
    assert_null(ev[4].bytes);

    /* encoding what was decoded gives the same bytes back */
    uint8_t out[sizeof body + 5 * FT_EVENT_MAX_FIXED];
    uint8_t *q = out;
    ft_addr_regs wregs = ft_addr_regs_for(3);
    for (int i = 0; i < 5; i++) {
        q = ft_encode_event(q, &ev[i], &wregs);
        assert_non_null(q);
    }
    assert_int_equal(q - out, sizeof body);
    assert_memory_equal(out, body, sizeof body);
    /* the mark is a read's: a write with that arg is an ordinary write */
    ft_event w = ev[2];
    w.arg = FT_READ_PAIRED;
    wregs = ft_addr_regs_for(3);
    assert_non_null(ft_encode_event(out, &w, &wregs));
    assert_int_equal(out[0], FT_EV_WRITE);

    /* an opcode beyond them is still unknown */
    static const uint8_t op16[] = {16, 1, 0, 1, 0};
    p = op16;
    assert_int_equal(ft_decode_event(&p, op16 + sizeof op16, &regs, &tid,
                                     &more, &why),
                     -1);
    assert_string_equal(why, "unknown event opcode");

    /* through the writer and the reader, among unmarked reads */
    static const uint8_t bytes[4] = {9, 8, 7, 6};
    ft_event evs[] = {
        {.kind = FT_EV_WRITE, .site = 1, .addr = 0x1000, .size = 4, .value = 2},
        {.kind = FT_EV_READ, .site = 2, .addr = 0x2000, .size = 4, .value = 5,
         .arg = FT_READ_PAIRED},
        {.kind = FT_EV_READ_WIDE, .site = 3, .addr = 0x3000, .size = 4,
         .value = 4, .bytes = bytes, .nbytes = 4, .arg = FT_READ_PAIRED},
        {.kind = FT_EV_READ, .tid = 1, .site = 2, .addr = 0x2000, .size = 4,
         .value = 5},
        {.kind = FT_EV_READ_WIDE, .tid = 1, .site = 3, .addr = 0x3000,
         .size = 4, .value = 4, .bytes = bytes, .nbytes = 4},
    };
    roundtrip(evs, sizeof evs / sizeof evs[0]);

    /* printed: "paired=1" last on a paired read only */
    assert_false(shows_paired(&ev[0]));
    assert_true(shows_paired(&ev[1]));
    assert_false(shows_paired(&w));
    assert_true(shows_paired(&ev[3]));
    assert_false(shows_paired(&ev[4]));
}

static void test_kind_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < fx_nkinds; i++) {
        const char *name = ft_kind_name(fx_kinds[i]);
        assert_string_not_equal(name, "?");
        assert_int_equal(ft_kind_from_name(name), (int)fx_kinds[i]);
        for (const char *p = name; *p; p++)
            assert_true((*p >= 'a' && *p <= 'z') || *p == '_');
    }
    assert_string_equal(ft_kind_name(FT_EV_MUTEX_LOCK), "mutex_lock");
    assert_string_equal(ft_kind_name(FT_EV_READ), "read");
    assert_string_equal(ft_kind_name(99), "?");
    assert_int_equal(ft_kind_from_name("no_such_kind"), -1);
    assert_int_equal(ft_kind_from_name("READ"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_with_extremes),
        cmocka_unit_test(test_address_deltas_span_64_bits),
        cmocka_unit_test(test_many_chunks),
        cmocka_unit_test(test_header_sites_symbols),
        cmocka_unit_test(test_writer_insn),
        cmocka_unit_test(test_source_and_inlined),
        cmocka_unit_test(test_site_format_fallbacks),
        cmocka_unit_test(test_paired_reads),
        cmocka_unit_test(test_kind_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
