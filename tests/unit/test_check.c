/* SPDX-License-Identifier: MIT */
/* test_check.c - the consistency checker: hand-made consistent and
 * inconsistent traces (with the report a user sees), then thousands of
 * random traces over a tiny address space compared with a brute-force
 * oracle that keeps one plain array slot per byte. */
#include "fixture.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t check_events(const ft_event *evs, size_t n, char *report,
                             size_t cap)
{
    char path[256];
    fx_temp_path(path, sizeof path, "chk");
    assert_int_equal(fx_write_trace(path, evs, n, 5, "exit"), 0);
    ft_error err;
    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    FILE *out = report ? fmemopen(report, cap, "w") : NULL;
    uint64_t v = ft_check_consistency(r, out, 10);
    if (out)
        fclose(out);
    ft_reader_close(r);
    unlink(path);
    return v;
}

#define W(t, a, s, v) {.kind = FT_EV_WRITE, .tid = t, .site = 1, .addr = a, \
                       .size = s, .value = v}
#define R(t, a, s, v) {.kind = FT_EV_READ, .tid = t, .site = 2, .addr = a, \
                       .size = s, .value = v}

static void test_consistent_trace(void **state)
{
    (void)state;
    static const uint8_t wide[4] = {0x11, 0x22, 0x33, 0x44};
    ft_event evs[] = {
        R(0, 0x100, 4, 0xdeadbeef), /* first read: initial value */
        R(1, 0x100, 4, 0xdeadbeef), /* ...which later reads must repeat */
        W(0, 0x100, 4, 0x01020304),
        R(1, 0x101, 2, 0x0203),     /* partial overlap, little-endian */
        W(1, 0x102, 1, 0xff),
        R(0, 0x100, 4, 0x01ff0304),
        {.kind = FT_EV_ATOMIC_RMW, .tid = 1, .addr = 0x200, .size = 8,
         .value = 5, .value2 = 6},  /* reads 5 (initial), writes 6 */
        {.kind = FT_EV_ATOMIC_CAS, .tid = 0, .addr = 0x200, .size = 8,
         .value = 7, .value2 = 9, .value3 = 6, .arg = 0}, /* fails */
        {.kind = FT_EV_ATOMIC_LOAD, .tid = 1, .addr = 0x200, .size = 8,
         .value = 6},
        {.kind = FT_EV_ATOMIC_CAS, .tid = 0, .addr = 0x200, .size = 8,
         .value = 6, .value2 = 9, .value3 = 6, .arg = 1}, /* succeeds */
        R(1, 0x200, 8, 9),
        {.kind = FT_EV_WRITE_WIDE, .tid = 0, .addr = 0x300, .size = 4,
         .value = 4, .bytes = wide, .nbytes = 4},
        R(1, 0x302, 2, 0x4433),
        {.kind = FT_EV_WRITE_WIDE, .tid = 0, .addr = 0x300, .size = 64,
         .value = 64}, /* content elided: bytes become unknown */
        R(1, 0x300, 4, 0xcafef00d),
        {.kind = FT_EV_MALLOC, .tid = 0, .addr = 0x100, .value = 8,
         .value2 = 1}, /* fresh memory: anything goes */
        R(0, 0x100, 8, 0x5555),
        {.kind = FT_EV_FREE, .tid = 0, .addr = 0x100},
        R(1, 0x100, 8, 0x6666),
    };
    char report[4096] = "";
    assert_int_equal(check_events(evs, sizeof evs / sizeof evs[0], report,
                                  sizeof report), 0);
    assert_string_equal(report, "");
}

static void test_stale_read_reported(void **state)
{
    (void)state;
    ft_event evs[] = {
        W(0, 0x1000, 4, 1),
        W(1, 0x1000, 4, 2),
        R(0, 0x1000, 4, 1), /* event 2 should have seen event 1's 2 */
        R(0, 0x1000, 4, 1), /* consistent with what was just read */
    };
    char report[4096] = "";
    assert_int_equal(check_events(evs, 4, report, sizeof report), 1);
    /* compiler-style, with where, who, what and which write */
    assert_non_null(strstr(report, "src/file2.c:6: error: event 2 "
                                   "(thread 0, read) read 4 bytes at "
                                   "0x1000 = 0x00000001, expected "
                                   "0x00000002 written by event 1 in "
                                   "func2"));
}

static void test_failed_cas_does_not_write(void **state)
{
    (void)state;
    ft_event evs[] = {
        W(0, 0x10, 8, 3),
        {.kind = FT_EV_ATOMIC_CAS, .tid = 1, .addr = 0x10, .size = 8,
         .value = 4, .value2 = 5, .value3 = 3, .arg = 0},
        R(0, 0x10, 8, 5), /* a failed CAS stored nothing */
    };
    assert_int_equal(check_events(evs, 3, NULL, 0), 1);
}

/* ---- random traces against a brute-force oracle ---- */

#define SPACE 48
#define BASE 0x7000
#define SLOT 12

typedef struct oracle {
    int known[SPACE];
    uint8_t val[SPACE];
    int allocated[SPACE / SLOT];
    uint64_t violations;
} oracle;

static void o_forget(oracle *o, unsigned from, unsigned n)
{
    for (unsigned i = from; i < from + n && i < SPACE; i++)
        o->known[i] = 0;
}

/* Reads n bytes at off; returns the value read, making it wrong with
 * probability 1/8 and counting the violation if it is. */
static void o_read(oracle *o, rng *g, unsigned off, unsigned n, uint8_t *got)
{
    for (unsigned i = 0; i < n; i++)
        got[i] = o->known[off + i] ? o->val[off + i] : (uint8_t)rng_next(g);
    if (rng_below(g, 8) == 0)
        got[rng_below(g, n)] ^= (uint8_t)(1 + rng_below(g, 255));
    int bad = 0;
    for (unsigned i = 0; i < n; i++) {
        if (o->known[off + i] && o->val[off + i] != got[i])
            bad = 1;
        o->known[off + i] = 1;
        o->val[off + i] = got[i];
    }
    o->violations += (uint64_t)bad;
}

static void o_write(oracle *o, unsigned off, unsigned n, const uint8_t *v)
{
    for (unsigned i = 0; i < n; i++) {
        o->known[off + i] = 1;
        o->val[off + i] = v[i];
    }
}

static uint64_t le(const uint8_t *b, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = (v << 8) | b[i];
    return v;
}

static void random_op(oracle *o, rng *g, ft_event *ev, uint8_t *wide)
{
    static const uint16_t sizes[] = {1, 2, 4, 8};
    unsigned size = sizes[rng_below(g, 4)];
    unsigned off = (unsigned)rng_below(g, SPACE - size + 1);
    uint8_t a[8], b[8];
    memset(ev, 0, sizeof *ev);
    ev->tid = (uint32_t)rng_below(g, 3);
    ev->site = 1 + (uint32_t)rng_below(g, 5);
    ev->addr = BASE + off;
    ev->size = (uint16_t)size;
    switch (rng_below(g, 10)) {
    case 0:
    case 1:
        ev->kind = FT_EV_WRITE;
        for (unsigned i = 0; i < size; i++)
            a[i] = (uint8_t)rng_below(g, 4); /* few values: collisions */
        o_write(o, off, size, a);
        ev->value = le(a, size);
        break;
    case 2:
    case 3:
        ev->kind = rng_below(g, 2) ? FT_EV_READ : FT_EV_ATOMIC_LOAD;
        o_read(o, g, off, size, a);
        ev->value = le(a, size);
        break;
    case 4:
        ev->kind = FT_EV_ATOMIC_RMW;
        o_read(o, g, off, size, a);
        for (unsigned i = 0; i < size; i++)
            b[i] = (uint8_t)rng_below(g, 4);
        o_write(o, off, size, b);
        ev->value = le(a, size);
        ev->value2 = le(b, size);
        break;
    case 5:
        ev->kind = FT_EV_ATOMIC_CAS;
        o_read(o, g, off, size, a);
        ev->arg = (uint32_t)rng_below(g, 2);
        for (unsigned i = 0; i < size; i++)
            b[i] = (uint8_t)rng_below(g, 4);
        if (ev->arg)
            o_write(o, off, size, b);
        ev->value3 = le(a, size);
        ev->value2 = le(b, size);
        ev->value = rng_below(g, 4);
        break;
    case 6: {
        unsigned n = 1 + (unsigned)rng_below(g, 16);
        off = (unsigned)rng_below(g, SPACE - n + 1);
        ev->addr = BASE + off;
        ev->size = (uint16_t)n;
        ev->value = n;
        if (rng_below(g, 2)) {
            ev->kind = FT_EV_WRITE_WIDE;
            if (rng_below(g, 3)) {
                for (unsigned i = 0; i < n; i++)
                    wide[i] = (uint8_t)rng_below(g, 4);
                o_write(o, off, n, wide);
                ev->bytes = wide;
                ev->nbytes = n;
            } else {
                o_forget(o, off, n); /* elided */
            }
        } else {
            ev->kind = FT_EV_READ_WIDE;
            o_read(o, g, off, n, wide);
            ev->bytes = wide;
            ev->nbytes = n;
        }
        break;
    }
    case 7:
    case 8: {
        unsigned s = (unsigned)rng_below(g, SPACE / SLOT);
        unsigned n = 1 + (unsigned)rng_below(g, SLOT);
        ev->addr = BASE + s * SLOT;
        ev->size = 0;
        if (!o->allocated[s]) {
            ev->kind = FT_EV_MALLOC;
            ev->value = n;
            ev->value2 = 1;
            o->allocated[s] = (int)n;
            o_forget(o, s * SLOT, n);
        } else {
            ev->kind = FT_EV_FREE;
            o_forget(o, s * SLOT, (unsigned)o->allocated[s]);
            o->allocated[s] = 0;
        }
        break;
    }
    default: {
        unsigned s = (unsigned)rng_below(g, SPACE / SLOT);
        unsigned d = (unsigned)rng_below(g, SPACE / SLOT);
        if (!o->allocated[s] || (o->allocated[d] && d != s)) {
            ev->kind = FT_EV_YIELD;
            ev->size = 0;
            ev->addr = 0;
            break;
        }
        unsigned n = 1 + (unsigned)rng_below(g, SLOT);
        ev->kind = FT_EV_REALLOC;
        ev->size = 0;
        ev->obj2 = BASE + s * SLOT;
        ev->addr = BASE + d * SLOT;
        ev->value = n;
        ev->value2 = 1;
        o_forget(o, s * SLOT, (unsigned)o->allocated[s]);
        o->allocated[s] = 0;
        o->allocated[d] = (int)n;
        o_forget(o, d * SLOT, n);
        break;
    }
    }
}

static void test_random_against_oracle(void **state)
{
    (void)state;
    enum { CASES = 2000, MAXEV = 150 };
    static ft_event evs[MAXEV];
    static uint8_t wides[MAXEV][16];
    uint64_t total = 0;
    for (uint64_t seed = 1; seed <= CASES; seed++) {
        rng g = {seed};
        oracle o;
        memset(&o, 0, sizeof o);
        size_t n = 1 + (size_t)rng_below(&g, MAXEV);
        for (size_t i = 0; i < n; i++)
            random_op(&o, &g, &evs[i], wides[i]);
        uint64_t got = check_events(evs, n, NULL, 0);
        if (got != o.violations)
            fail_msg("seed %llu: checker found %llu violations, oracle %llu",
                     (unsigned long long)seed, (unsigned long long)got,
                     (unsigned long long)o.violations);
        total += got;
    }
    /* the generator must exercise both outcomes */
    assert_true(total > CASES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_consistent_trace),
        cmocka_unit_test(test_stale_read_reported),
        cmocka_unit_test(test_failed_cas_does_not_write),
        cmocka_unit_test(test_random_against_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
