/* SPDX-License-Identifier: MIT */
/* test_fingerprint.c - the finding fingerprint (predict/finding.c) against
 * its documented key (docs/batch.md, "Fingerprints"): the key built here
 * by hand from the rule, byte for byte; what must not change it (event
 * order, thread ids, event indices, roles, whitespace in the source
 * line, the line number when the text is known, the directory of the
 * file, non-key events, duplicate sites) and what must (kind, module,
 * file name, function, the text, the line when there is no text);
 * escaping that keeps two different site tuples apart; the hash is the
 * first 128 bits of SHA-256 of the key (checked against the FIPS 180-2
 * test vector for "abc"); ft_source_line over files; SOURCE chunks
 * through the writer and the reader. */
#include "predict/predict.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct ev_spec {
    const char *role, *module, *file, *function, *text;
    uint32_t line, tid;
    uint64_t index, offset;
    int key;
} ev_spec;

static ft_finding make(const char *kind, const ev_spec *e, uint32_t n)
{
    ft_finding f;
    memset(&f, 0, sizeof f);
    snprintf(f.kind, sizeof f.kind, "%s", kind);
    f.events = calloc(n, sizeof *f.events);
    f.nevents = n;
    for (uint32_t i = 0; i < n; i++) {
        ft_fevent *x = &f.events[i];
        snprintf(x->role, sizeof x->role, "%s", e[i].role ? e[i].role : "r");
        snprintf(x->kind, sizeof x->kind, "read");
        x->key = (uint8_t)e[i].key;
        x->tid = e[i].tid;
        x->index = e[i].index;
        x->site.module = strdup(e[i].module ? e[i].module : "");
        x->site.file = strdup(e[i].file ? e[i].file : "");
        x->site.function = strdup(e[i].function ? e[i].function : "");
        x->site.text = e[i].text ? strdup(e[i].text) : NULL;
        x->site.line = e[i].line;
        x->site.offset = e[i].offset;
    }
    return f;
}

static void fp_of(const char *kind, const ev_spec *e, uint32_t n,
                  char out[FT_FINGERPRINT_LEN + 1])
{
    ft_finding f = make(kind, e, n);
    assert_int_equal(ft_finding_fingerprint(&f, out), 0);
    ft_finding_clear(&f);
}

static const ev_spec base[] = {
    {"region-begin", "prog", "/src/a/x.c", "worker", "  lock(&m);  ", 10, 1,
     100, 0x40, 1},
    {"region-end", "prog", "/src/a/x.c", "worker", "\tcount = c + 1;", 14, 1,
     120, 0x80, 1},
    {"access", "prog", "/src/a/x.c", "other", "count = 0;", 30, 2, 130, 0,
     0},
};

static void test_key_text(void **state)
{
    (void)state;
    ft_finding f = make("atomicity", base, 3);
    char *key = ft_finding_key(&f);
    assert_non_null(key);
    assert_string_equal(key, "foretell-fingerprint 1\n"
                             "kind atomicity\n"
                             "site prog|x.c|worker|count=c+1;\n"
                             "site prog|x.c|worker|lock(&m);\n");
    char a[FT_FINGERPRINT_LEN + 1], b[FT_FINGERPRINT_LEN + 1];
    assert_int_equal(ft_fingerprint_of_key(key, a), 0);
    assert_int_equal(ft_finding_fingerprint(&f, b), 0);
    assert_string_equal(a, b);
    assert_int_equal(strlen(a), FT_FINGERPRINT_LEN);
    free(key);
    ft_finding_clear(&f);
}

/* SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223 ... (FIPS 180-2) */
static void test_hash_vector(void **state)
{
    (void)state;
    char out[FT_FINGERPRINT_LEN + 1];
    assert_int_equal(ft_fingerprint_of_key("abc", out), 0);
    assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223");
}

static void test_invariant(void **state)
{
    (void)state;
    char ref[FT_FINGERPRINT_LEN + 1], got[FT_FINGERPRINT_LEN + 1];
    fp_of("atomicity", base, 3, ref);
    /* order, thread ids, indices, roles, offsets, whitespace, line numbers
     * (text known), directories, the non-key event */
    ev_spec v[3];
    memcpy(v, base, sizeof v);
    ev_spec t = v[0];
    v[0] = v[1];
    v[1] = t;
    v[0].tid = 7;
    v[1].tid = 9;
    v[0].index = 5;
    v[1].role = "begin";
    v[0].offset = 0x1234;
    v[1].text = "lock ( & m ) ;";
    v[0].line = 99;
    v[1].line = 1;
    v[0].file = "/home/ci/build-2/a/x.c";
    v[1].file = "x.c";
    v[2].function = "elsewhere";
    v[2].text = "anything";
    fp_of("atomicity", v, 3, got);
    assert_string_equal(ref, got);
    /* a duplicate key site changes nothing */
    ev_spec d[4];
    memcpy(d, base, sizeof base);
    d[3] = base[0];
    d[3].tid = 3;
    fp_of("atomicity", d, 4, got);
    assert_string_equal(ref, got);
}

static void expect_differs(const char *kind, const ev_spec *v, uint32_t n,
                           const char *ref)
{
    char got[FT_FINGERPRINT_LEN + 1];
    fp_of(kind, v, n, got);
    assert_string_not_equal(ref, got);
}

static void test_sensitive(void **state)
{
    (void)state;
    char ref[FT_FINGERPRINT_LEN + 1];
    fp_of("atomicity", base, 3, ref);
    expect_differs("atomicity-pair", base, 3, ref);
    ev_spec v[3];
    memcpy(v, base, sizeof v);
    v[0].module = "libother.so";
    expect_differs("atomicity", v, 3, ref);
    memcpy(v, base, sizeof v);
    v[0].file = "/src/a/y.c";
    expect_differs("atomicity", v, 3, ref);
    memcpy(v, base, sizeof v);
    v[1].function = "worker2";
    expect_differs("atomicity", v, 3, ref);
    memcpy(v, base, sizeof v);
    v[1].text = "count = c + 2;";
    expect_differs("atomicity", v, 3, ref);
    /* a non-key event made key */
    memcpy(v, base, sizeof v);
    v[2].key = 1;
    expect_differs("atomicity", v, 3, ref);
    /* without the text, the line number is what there is */
    memcpy(v, base, sizeof v);
    v[0].text = v[1].text = NULL;
    char noline[FT_FINGERPRINT_LEN + 1];
    fp_of("atomicity", v, 3, noline);
    assert_string_not_equal(ref, noline);
    v[0].line = 11;
    expect_differs("atomicity", v, 3, noline);
}

static void test_fallbacks(void **state)
{
    (void)state;
    /* no text: "#line"; not symbolised at all: the module offset */
    ev_spec v[2] = {
        {"a", "prog", "/s/x.c", "f", NULL, 12, 0, 0, 0x99, 1},
        {"b", "prog", "", "", NULL, 0, 0, 0, 0x4f0, 1},
    };
    ft_finding f = make("k", v, 2);
    char *key = ft_finding_key(&f);
    assert_string_equal(key, "foretell-fingerprint 1\nkind k\n"
                             "site prog|x.c|f|#12\n"
                             "site prog|||+0x4f0\n");
    free(key);
    ft_finding_clear(&f);
}

/* "a|b" in one field and "a" + "b" in two must not give the same key. */
static void test_escaping(void **state)
{
    (void)state;
    ev_spec x[1] = {{"r", "m", "/d/f.c", "g|h", "t", 1, 0, 0, 0, 1}};
    ev_spec y[1] = {{"r", "m", "/d/f.c|g", "h", "t", 1, 0, 0, 0, 1}};
    char a[FT_FINGERPRINT_LEN + 1], b[FT_FINGERPRINT_LEN + 1];
    fp_of("k", x, 1, a);
    fp_of("k", y, 1, b);
    assert_string_not_equal(a, b);
    ft_finding f = make("k", x, 1);
    char *key = ft_finding_key(&f);
    assert_non_null(strstr(key, "site m|f.c|g\\|h|t\n"));
    free(key);
    ft_finding_clear(&f);
    /* a newline inside a field cannot forge a second site line */
    ev_spec z[1] = {{"r", "m", "/d/f.c", "g", "a\nsite x|y|z|w", 1, 0, 0, 0,
                     1}};
    f = make("k", z, 1);
    key = ft_finding_key(&f);
    assert_non_null(strstr(key, "site m|f.c|g|a\\nsitex\\|y\\|z\\|w\n"));
    free(key);
    ft_finding_clear(&f);
}

static void test_source_lines(void **state)
{
    (void)state;
    char dir[] = "/tmp/ft-fp-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[20][64];
    for (int i = 0; i < 20; i++) {
        snprintf(path[i], sizeof path[i], "%s/f%d.c", dir, i);
        FILE *f = fopen(path[i], "w");
        assert_non_null(f);
        fprintf(f, "first %d\r\nsecond\n\nlast without newline", i);
        fclose(f);
    }
    ft_source_cache *c = ft_source_cache_new();
    char buf[64], want[32];
    /* more files than the cache keeps, twice: evictions reread */
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 20; i++) {
            snprintf(want, sizeof want, "first %d", i);
            assert_int_equal(ft_source_line(c, path[i], 1, buf, sizeof buf),
                             1);
            assert_string_equal(buf, want);
            assert_int_equal(ft_source_line(c, path[i], 2, buf, sizeof buf),
                             1);
            assert_string_equal(buf, "second");
            assert_int_equal(ft_source_line(c, path[i], 3, buf, sizeof buf),
                             1);
            assert_string_equal(buf, "");
            assert_int_equal(ft_source_line(c, path[i], 4, buf, sizeof buf),
                             1);
            assert_string_equal(buf, "last without newline");
            assert_int_equal(ft_source_line(c, path[i], 5, buf, sizeof buf),
                             0);
            assert_int_equal(ft_source_line(c, path[i], 0, buf, sizeof buf),
                             0);
        }
    /* truncated to the buffer; missing files and directories: none */
    assert_int_equal(ft_source_line(c, path[0], 4, buf, 5), 1);
    assert_string_equal(buf, "last");
    assert_int_equal(ft_source_line(c, "/nonexistent/x.c", 1, buf,
                                    sizeof buf),
                     0);
    assert_int_equal(ft_source_line(c, dir, 1, buf, sizeof buf), 0);
    ft_source_cache_free(c);
    for (int i = 0; i < 20; i++)
        unlink(path[i]);
    rmdir(dir);
}

/* SOURCE chunks through the writer and the reader: the text comes back
 * with its site, merged with the site's SITES and SYMBOLS entries. */
static void test_source_chunk(void **state)
{
    (void)state;
    char path[] = "/tmp/ft-src-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    ft_module mod = {"/bin/prog", 0x1000, 0x1000, ""};
    ft_header h = {.program = "/bin/prog", .nmodules = 1, .modules = &mod};
    ft_error err;
    ft_writer *w = ft_writer_open(path, &h, &err);
    assert_non_null(w);
    ft_site s[3] = {
        {.id = 1, .offset = 0x10, .function = "f", .file = "/s/x.c",
         .line = 3, .text = "  x = 1; /* | */"},
        {.id = 2, .offset = 0x20, .function = "g", .file = "/s/x.c",
         .line = 4},
        {.id = 3, .offset = 0x30, .text = "only text"},
    };
    for (int i = 0; i < 3; i++)
        assert_int_equal(ft_writer_site(w, &s[i]), 0);
    ft_event ev = {.kind = FT_EV_YIELD, .site = 1};
    assert_int_equal(ft_writer_event(w, &ev), 0);
    assert_int_equal(ft_writer_close(w, NULL), 0);
    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    const ft_site *a = ft_reader_site(r, 1), *b = ft_reader_site(r, 2),
                  *c = ft_reader_site(r, 3);
    assert_string_equal(a->function, "f");
    assert_int_equal(a->line, 3);
    assert_string_equal(a->text, "  x = 1; /* | */");
    assert_string_equal(b->function, "g");
    assert_null(b->text);
    assert_null(c->function);
    assert_string_equal(c->text, "only text");
    assert_int_equal(c->offset, 0x30);
    ft_reader_close(r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_text),
        cmocka_unit_test(test_hash_vector),
        cmocka_unit_test(test_invariant),
        cmocka_unit_test(test_sensitive),
        cmocka_unit_test(test_fallbacks),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_source_lines),
        cmocka_unit_test(test_source_chunk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
