/* SPDX-License-Identifier: MIT */
/* test_typetab.c - the TYPES chunk's type walk (recorder/typetab.c): the
 * path to an offset inside a hand-built description ("g.inner.count",
 * "a[2].count", "s+4"), values printed by type, and hostile tables
 * (reference cycles, absurd array bounds, missing ids, members beyond
 * the member table, tiny buffers) that must end, bounded.  Then the
 * reader: a trace with DATA and TYPES entries appended names a global
 * and a heap member, and a malformed TYPES entry is damage, named. */
#include "fixture.h"
#include "recorder/reader_internal.h"
#include "recorder/typetab.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    T_INT = 1, T_LONG, T_S, T_AS, T_CHAR, T_G, T_ENUM, T_BOOL, T_DOUBLE,
    T_PTR, T_SHORT, T_HIST, T_M, T_LOCKU, T_FLOAT, T_UCHAR,
};

static ft_tmember members[] = {
    /* S: 0, 2 */ {"flag", 0, T_INT}, {"count", 8, T_LONG},
    /* G: 2, 3 */ {"tag", 0, T_CHAR}, {"inner", 8, T_S}, {"hist", 24, T_HIST},
    /* enum: 5, 3 */ {"RED", 0, 0}, {"GREEN", 5, 0},
    {"BLUE", (uint64_t)-2, 0},
    /* M: 8, 1 */ {"__data", 0, T_LOCKU},
    /* LOCKU: 9, 1 */ {"__lock", 0, T_INT},
};

static ft_type types[] = {
    {.id = T_INT, .kind = FT_TYPE_BASE, .enc = FT_ENC_SIGNED, .size = 4},
    {.id = T_LONG, .kind = FT_TYPE_BASE, .enc = FT_ENC_SIGNED, .size = 8},
    {.id = T_S, .kind = FT_TYPE_STRUCT, .size = 16, .first = 0,
     .nmembers = 2},
    {.id = T_AS, .kind = FT_TYPE_ARRAY, .size = 64, .elem = T_S, .count = 4},
    {.id = T_CHAR, .kind = FT_TYPE_BASE, .enc = FT_ENC_CHAR, .size = 1},
    {.id = T_G, .kind = FT_TYPE_STRUCT, .size = 32, .first = 2,
     .nmembers = 3},
    {.id = T_ENUM, .kind = FT_TYPE_ENUM, .enc = 1, .size = 4, .first = 5,
     .nmembers = 3},
    {.id = T_BOOL, .kind = FT_TYPE_BASE, .enc = FT_ENC_BOOL, .size = 1},
    {.id = T_DOUBLE, .kind = FT_TYPE_BASE, .enc = FT_ENC_FLOAT, .size = 8},
    {.id = T_PTR, .kind = FT_TYPE_POINTER, .size = 8},
    {.id = T_SHORT, .kind = FT_TYPE_BASE, .enc = FT_ENC_SIGNED, .size = 2},
    {.id = T_HIST, .kind = FT_TYPE_ARRAY, .size = 8, .elem = T_SHORT,
     .count = 4},
    {.id = T_M, .kind = FT_TYPE_STRUCT, .size = 40, .first = 8,
     .nmembers = 1},
    {.id = T_LOCKU, .kind = FT_TYPE_UNION, .size = 40, .first = 9,
     .nmembers = 1},
    {.id = T_FLOAT, .kind = FT_TYPE_BASE, .enc = FT_ENC_FLOAT, .size = 4},
    {.id = T_UCHAR, .kind = FT_TYPE_BASE, .enc = FT_ENC_UNSIGNED, .size = 1},
};

static ft_typetab table(void)
{
    ft_typetab t = {.types = types,
                    .ntypes = sizeof types / sizeof *types,
                    .members = members,
                    .nmembers = sizeof members / sizeof *members};
    return t;
}

/* "name" then the path to off, as a string; *leaf the leaf type. */
static const char *path(const ft_typetab *t, const char *name, uint32_t ty,
                        uint64_t off, uint64_t size, uint32_t *leaf)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s", name);
    ft_typetab_path(t, ty, off, size, buf, sizeof buf, leaf);
    return buf;
}

static void test_paths(void **state)
{
    (void)state;
    ft_typetab t = table();
    uint32_t leaf;
    assert_string_equal(path(&t, "g", T_G, 16, 8, &leaf), "g.inner.count");
    assert_int_equal(leaf, T_LONG);
    assert_string_equal(path(&t, "g", T_G, 0, 1, &leaf), "g.tag");
    assert_int_equal(leaf, T_CHAR);
    assert_string_equal(path(&t, "g", T_G, 28, 2, &leaf), "g.hist[2]");
    assert_int_equal(leaf, T_SHORT);
    assert_string_equal(path(&t, "a", T_AS, 40, 8, &leaf), "a[2].count");
    /* unknown size: down to the leaf */
    assert_string_equal(path(&t, "a", T_AS, 40, 0, &leaf), "a[2].count");
    assert_int_equal(leaf, T_LONG);
    /* padding, a part of a member, a copy of a whole struct */
    assert_string_equal(path(&t, "s", T_S, 4, 4, &leaf), "s+4");
    assert_int_equal(leaf, 0);
    assert_string_equal(path(&t, "s", T_S, 9, 1, &leaf), "s.count+1");
    assert_int_equal(leaf, 0);
    assert_string_equal(path(&t, "a", T_AS, 16, 16, &leaf), "a[1]");
    assert_int_equal(leaf, 0);
    /* beyond the array's bound: the offset, not an index */
    assert_string_equal(path(&t, "a", T_AS, 64, 8, &leaf), "a+64");
    /* reserved members (pthread_mutex_t's __data.__lock) unnamed */
    assert_string_equal(path(&t, "m", T_M, 0, 4, &leaf), "m");
    assert_int_equal(leaf, T_INT);
    /* the first member name goes back (heap naming checks it) */
    char buf[64] = "p->";
    assert_string_equal(ft_typetab_path(&t, T_G, 16, 8, buf, sizeof buf,
                                        NULL),
                        "inner");
    assert_string_equal(buf, "p->inner.count");
}

static void test_values(void **state)
{
    (void)state;
    ft_typetab t = table();
    char b[64];
    assert_string_equal(ft_typetab_value(&t, T_LONG, (uint64_t)-7, 8, b,
                                         sizeof b), "-7");
    assert_string_equal(ft_typetab_value(&t, T_INT, 0xfffffffe, 4, b,
                                         sizeof b), "-2");
    assert_string_equal(ft_typetab_value(&t, T_SHORT, 300, 0, b, sizeof b),
                        "300");
    assert_string_equal(ft_typetab_value(&t, T_UCHAR, 200, 1, b, sizeof b),
                        "200");
    assert_string_equal(ft_typetab_value(&t, T_ENUM, 0xfffffffe, 4, b,
                                         sizeof b), "BLUE");
    assert_string_equal(ft_typetab_value(&t, T_ENUM, 5, 4, b, sizeof b),
                        "GREEN");
    assert_string_equal(ft_typetab_value(&t, T_ENUM, 0xfffffff9, 4, b,
                                         sizeof b), "-7");
    assert_string_equal(ft_typetab_value(&t, T_BOOL, 1, 1, b, sizeof b),
                        "true");
    assert_string_equal(ft_typetab_value(&t, T_BOOL, 0, 1, b, sizeof b),
                        "false");
    assert_string_equal(ft_typetab_value(&t, T_CHAR, 'Q', 1, b, sizeof b),
                        "'Q'");
    assert_string_equal(ft_typetab_value(&t, T_CHAR, 7, 1, b, sizeof b),
                        "7");
    double d = 2.5, tenth = 0.1;
    uint64_t u;
    memcpy(&u, &d, 8);
    assert_string_equal(ft_typetab_value(&t, T_DOUBLE, u, 8, b, sizeof b),
                        "2.5");
    memcpy(&u, &tenth, 8);
    assert_string_equal(ft_typetab_value(&t, T_DOUBLE, u, 8, b, sizeof b),
                        "0.1");
    float f = 0.75f;
    uint32_t u32;
    memcpy(&u32, &f, 4);
    assert_string_equal(ft_typetab_value(&t, T_FLOAT, u32, 4, b, sizeof b),
                        "0.75");
    assert_string_equal(ft_typetab_value(&t, T_PTR, 0, 8, b, sizeof b),
                        "NULL");
    assert_string_equal(ft_typetab_value(&t, T_PTR, 0x1000, 8, b, sizeof b),
                        "0x1000");
    /* not a scalar of that size: hex is the caller's */
    assert_null(ft_typetab_value(&t, T_LONG, 1, 4, b, sizeof b));
    assert_null(ft_typetab_value(&t, T_S, 1, 16, b, sizeof b));
    assert_null(ft_typetab_value(&t, 999, 1, 8, b, sizeof b));
    assert_null(ft_typetab_value(&t, 0, 1, 8, b, sizeof b));
}

static void test_hostile(void **state)
{
    (void)state;
    ft_tmember m[] = {
        {"self", 0, 20},      /* 20: a struct that holds itself */
        {"gone", 0, 999},     /* 22: a member of a type nobody defines */
        {"next", 6, 0},
    };
    ft_type ty[] = {
        {.id = 20, .kind = FT_TYPE_STRUCT, .size = 8, .first = 0,
         .nmembers = 1},
        {.id = 21, .kind = FT_TYPE_ARRAY, .size = 100, .elem = 21},
        {.id = 22, .kind = FT_TYPE_STRUCT, .size = 8, .first = 1,
         .nmembers = 2},
        {.id = 23, .kind = FT_TYPE_ARRAY, .size = 0, .elem = T_INT,
         .count = UINT64_MAX},
        {.id = 24, .kind = FT_TYPE_ARRAY, .size = 8, .elem = 25,
         .count = 2},
        {.id = 25, .kind = FT_TYPE_STRUCT, .size = 0},
        /* members past the table's end */
        {.id = 26, .kind = FT_TYPE_STRUCT, .size = 8, .first = UINT32_MAX,
         .nmembers = UINT32_MAX},
        {.id = T_INT, .kind = FT_TYPE_BASE, .enc = FT_ENC_SIGNED, .size = 4},
        {.id = 20, .kind = FT_TYPE_BASE, .size = 8}, /* a duplicate id */
    };
    ft_typetab t = {.types = malloc(sizeof ty), .ntypes = 9,
                    .members = m, .nmembers = 3};
    memcpy(t.types, ty, sizeof ty);
    ft_typetab_finish(&t);
    assert_int_equal(t.ntypes, 8);
    const ft_type *s = ft_typetab_get(&t, 20);
    assert_non_null(s);
    uint32_t leaf;
    char buf[512];
    /* a cycle: the walk stops after FT_TYPE_MAX_DEPTH steps */
    if (s->kind == FT_TYPE_STRUCT) {
        snprintf(buf, sizeof buf, "x");
        ft_typetab_path(&t, 20, 0, 4, buf, sizeof buf, &leaf);
        assert_true(strlen(buf) <= 1 + 5 * FT_TYPE_MAX_DEPTH);
        assert_int_equal(leaf, 0);
    }
    snprintf(buf, sizeof buf, "y");
    ft_typetab_path(&t, 21, 50, 1, buf, sizeof buf, &leaf);
    assert_true(strlen(buf) < 200);
    /* a huge bound: the index the offset says */
    assert_string_equal(path(&t, "h", 23, (uint64_t)1 << 40, 4, &leaf),
                        "h[274877906944]");
    assert_int_equal(leaf, T_INT);
    /* elements of size 0: no index */
    assert_string_equal(path(&t, "z", 24, 4, 4, &leaf), "z+4");
    /* a member of an undefined type spans to the next member */
    assert_string_equal(path(&t, "u", 22, 2, 4, &leaf), "u.gone+2");
    assert_string_equal(path(&t, "u", 22, 2, 8, &leaf), "u+2");
    assert_string_equal(path(&t, "w", 26, 0, 4, &leaf), "w");
    /* a tiny buffer is never overrun */
    char tiny[6] = "abc";
    char canary[8] = "CANARY!";
    ft_typetab_path(&t, 23, 4000, 4, tiny, 4, &leaf);
    assert_string_equal(canary, "CANARY!");
    assert_true(strlen(tiny) <= 3);
    ft_typetab_path(&t, 23, 4000, 4, tiny, 0, &leaf);
    free(t.types);
}

/* ---- through the reader ---- */

static void append_entries(const char *path, int hostile)
{
    ft_appender ap = {.fd = -1};
    ft_error err;
    assert_int_equal(ft_appender_open(&ap, path, &err), 0);
    uint8_t *p = ft_appender_reserve(&ap, FT_CHUNK_DATA, 64);
    p = ft_put_array(p, 4);
    p = ft_put_uint(p, 0);
    p = ft_put_uint(p, 0x2000);
    p = ft_put_uint(p, 32);
    p = ft_put_str(p, "g", 1);
    ft_appender_commit(&ap, p);
    p = ft_appender_reserve(&ap, FT_CHUNK_TYPES, 512);
    p = ft_put_array(p, 5); /* long */
    p = ft_put_uint(p, FT_TYPE_BASE);
    p = ft_put_uint(p, 7);
    p = ft_put_uint(p, 8);
    p = ft_put_str(p, "long", 4);
    p = ft_put_uint(p, FT_ENC_SIGNED);
    p = ft_put_array(p, 5); /* struct { long a; long b; } */
    p = ft_put_uint(p, FT_TYPE_STRUCT);
    p = ft_put_uint(p, 8);
    p = ft_put_uint(p, 16);
    p = ft_put_str(p, "pair", 4);
    p = ft_put_array(p, 2);
    p = ft_put_array(p, 3);
    p = ft_put_str(p, "a", 1);
    p = ft_put_uint(p, 0);
    p = ft_put_uint(p, 7);
    p = ft_put_array(p, 3);
    p = ft_put_str(p, "b", 1);
    p = ft_put_uint(p, 8);
    p = ft_put_uint(p, 7);
    p = ft_put_array(p, 6); /* pair[2] */
    p = ft_put_uint(p, FT_TYPE_ARRAY);
    p = ft_put_uint(p, 9);
    p = ft_put_uint(p, 32);
    p = ft_put_nil(p);
    p = ft_put_uint(p, 8);
    p = ft_put_uint(p, 2);
    p = ft_put_array(p, 4); /* g: pair[2] */
    p = ft_put_uint(p, FT_TYPE_VAR);
    p = ft_put_uint(p, 0);
    p = ft_put_uint(p, 0x2000);
    p = ft_put_uint(p, 9);
    p = ft_put_array(p, 5); /* site 1 dereferences q->b */
    p = ft_put_uint(p, FT_TYPE_DEREF);
    p = ft_put_uint(p, 1);
    p = ft_put_str(p, "q", 1);
    p = ft_put_str(p, "b", 1);
    p = ft_put_uint(p, 8);
    p = ft_put_array(p, 5); /* site 2: q->a and r->b, two candidates */
    p = ft_put_uint(p, FT_TYPE_DEREF);
    p = ft_put_uint(p, 2);
    p = ft_put_str(p, "q", 1);
    p = ft_put_str(p, "b", 1);
    p = ft_put_uint(p, 8);
    p = ft_put_array(p, 5);
    p = ft_put_uint(p, FT_TYPE_DEREF);
    p = ft_put_uint(p, 2);
    p = ft_put_str(p, "r", 1);
    p = ft_put_str(p, "b", 1);
    p = ft_put_uint(p, 8);
    p = ft_put_array(p, 3); /* a kind from the future: skipped */
    p = ft_put_uint(p, 40);
    p = ft_put_uint(p, 1);
    p = ft_put_uint(p, 2);
    if (hostile) { /* a struct whose member list is a number */
        p = ft_put_array(p, 5);
        p = ft_put_uint(p, FT_TYPE_STRUCT);
        p = ft_put_uint(p, 10);
        p = ft_put_uint(p, 16);
        p = ft_put_nil(p);
        p = ft_put_uint(p, 3);
    }
    ft_appender_commit(&ap, p);
    assert_int_equal(ft_appender_close(&ap, path, &err), 0);
}

static void test_reader(void **state)
{
    (void)state;
    char path[256];
    fx_temp_path(path, sizeof path, "typetab");
    assert_int_equal(fx_write_trace(path, NULL, 0, 3, "exit"), 0);
    append_entries(path, 0);
    ft_error err;
    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    char buf[128], val[64];
    uint32_t type;
    /* module 0 is based at 0x400000 */
    assert_string_equal(ft_reader_mem_name(r, 0x402018, 8, buf, sizeof buf,
                                           &type),
                        "g[1].b");
    assert_string_equal(ft_reader_value_text(r, type, (uint64_t)-3, 8, val,
                                             sizeof val),
                        "-3");
    assert_string_equal(ft_reader_data_name(r, 0x402008, buf, sizeof buf),
                        "g[0].b");
    /* a heap object of two pairs at 0x9000: q->b in either */
    assert_string_equal(ft_reader_heap_name(r, 1, 0x9000, 32, 0x9018, 8,
                                            buf, sizeof buf, &type),
                        "q->b");
    assert_int_equal(type, 7);
    /* q->a is not on the line: no name */
    assert_null(ft_reader_heap_name(r, 1, 0x9000, 32, 0x9010, 8, buf,
                                    sizeof buf, &type));
    /* two expressions of the line fit: neither is said */
    assert_null(ft_reader_heap_name(r, 2, 0x9000, 32, 0x9008, 8, buf,
                                    sizeof buf, &type));
    /* a site without dereferences, an address outside the object */
    assert_null(ft_reader_heap_name(r, 3, 0x9000, 32, 0x9008, 8, buf,
                                    sizeof buf, &type));
    assert_null(ft_reader_heap_name(r, 1, 0x9000, 32, 0x9020, 8, buf,
                                    sizeof buf, &type));
    /* an object that is not a whole number of the type */
    assert_null(ft_reader_heap_name(r, 1, 0x9000, 20, 0x9018, 8, buf,
                                    sizeof buf, &type));
    ft_reader_close(r);

    assert_int_equal(fx_write_trace(path, NULL, 0, 3, "exit"), 0);
    append_entries(path, 1);
    r = ft_reader_open(path, &err); /* the reader stops there, as damage */
    assert_non_null(r);
    assert_true(ft_reader_damage(r, &err));
    assert_non_null(strstr(err.message, "TYPES entry"));
    ft_reader_close(r);
    unlink(path);
}

/* foretell check names the variable and prints both values by type */
static void test_check_typed(void **state)
{
    (void)state;
    char path[256];
    fx_temp_path(path, sizeof path, "typecheck");
    ft_event ev[2] = {
        {.kind = FT_EV_WRITE, .site = 1, .addr = 0x402008, .size = 8,
         .value = (uint64_t)-5},
        {.index = 1, .kind = FT_EV_READ, .site = 2, .addr = 0x402008,
         .size = 8, .value = 6},
    };
    assert_int_equal(fx_write_trace(path, ev, 2, 3, "exit"), 0);
    append_entries(path, 0);
    ft_error err;
    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    assert_int_equal(ft_check_consistency(r, m, 10), 1);
    fclose(m);
    assert_non_null(strstr(out, "at 0x402008 (g[0].b) = 0x0000000000000006 "
                                "(6), expected 0xfffffffffffffffb (-5)"));
    free(out);
    ft_reader_close(r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_reader),
        cmocka_unit_test(test_check_typed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
