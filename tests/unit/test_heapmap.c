/* SPDX-License-Identifier: MIT */
/* test_heapmap.c - naming addresses by their heap object, against a
 * brute-force list of live blocks: random malloc/free/realloc sequences
 * (including overlapping "lost free" allocations) and lookups of random
 * addresses. */
#include "fixture.h"
#include "recorder/heapmap.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

typedef struct blk {
    uint64_t addr, size;
    uint32_t site;
    uint64_t count;
    int live;
} blk;

static const blk *brute_find(const blk *b, size_t n, uint64_t a)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t sz = b[i].size ? b[i].size : 1;
        if (b[i].live && a >= b[i].addr && a - b[i].addr < sz)
            return &b[i];
    }
    return NULL;
}

static void brute_alloc(blk *b, size_t *n, const ft_event *ev)
{
    uint64_t sz = ev->value ? ev->value : 1;
    for (size_t i = 0; i < *n; i++) { /* overlapping blocks were lost */
        uint64_t bs = b[i].size ? b[i].size : 1;
        if (b[i].live && b[i].addr < ev->addr + sz && ev->addr < b[i].addr + bs)
            b[i].live = 0;
    }
    b[(*n)++] = (blk){ev->addr, ev->value, ev->site, ev->value2, 1};
}

static void brute_free(blk *b, size_t n, uint64_t a)
{
    for (size_t i = 0; i < n; i++)
        if (b[i].live && b[i].addr == a)
            b[i].live = 0;
}

static void test_against_brute_force(void **state)
{
    (void)state;
    enum { OPS = 400 };
    static blk b[OPS];
    for (uint64_t seed = 1; seed <= 300; seed++) {
        rng g = {seed};
        size_t n = 0;
        ft_heapmap *h = ft_heapmap_new();
        assert_non_null(h);
        uint64_t peak = 0;
        for (int op = 0; op < OPS; op++) {
            ft_event ev = {.index = (uint64_t)op, .site = 1 + op % 3,
                           .value2 = (uint64_t)op};
            uint64_t a = 0x1000 + rng_below(&g, 512);
            switch (rng_below(&g, 3)) {
            case 0:
                ev.kind = FT_EV_MALLOC;
                ev.addr = a;
                ev.value = rng_below(&g, 40);
                brute_alloc(b, &n, &ev);
                break;
            case 1:
                ev.kind = FT_EV_FREE;
                /* mostly real block starts, sometimes interior pointers */
                ev.addr = n && rng_below(&g, 4) ? b[rng_below(&g, n)].addr : a;
                brute_free(b, n, ev.addr);
                break;
            default:
                ev.kind = FT_EV_REALLOC;
                ev.obj2 = n ? b[rng_below(&g, n)].addr : a;
                ev.addr = a;
                ev.value = 1 + rng_below(&g, 40);
                brute_free(b, n, ev.obj2);
                brute_alloc(b, &n, &ev);
                break;
            }
            assert_int_equal(ft_heapmap_update(h, &ev), 0);
            uint64_t live = 0;
            for (size_t i = 0; i < n; i++)
                live += (uint64_t)b[i].live;
            assert_int_equal(ft_heapmap_live(h), live);
            if (live > peak)
                peak = live;
            for (int q = 0; q < 8; q++) {
                uint64_t x = 0x1000 + rng_below(&g, 600);
                const blk *want = brute_find(b, n, x);
                const ft_heap_obj *got = ft_heapmap_find(h, x);
                assert_int_equal(want == NULL, got == NULL);
                if (want) {
                    assert_int_equal(got->addr, want->addr);
                    assert_int_equal(got->size, want->size);
                    assert_int_equal(got->site, want->site);
                    assert_int_equal(got->count, want->count);
                }
            }
        }
        assert_int_equal(ft_heapmap_peak(h), peak);
        ft_heapmap_free(h);
    }
}

/* Each allocation keeps its thread's innermost call sites, innermost
 * first, whatever the other threads' calls and returns in between:
 * checked against a stack per thread kept here, on random call trees. */
static void test_callers(void **state)
{
    (void)state;
    enum { NT = 3, DEPTH = 64 };
    for (uint64_t seed = 1; seed <= 200; seed++) {
        rng g = {seed};
        ft_heapmap *h = ft_heapmap_new();
        assert_non_null(h);
        uint32_t stack[NT][DEPTH];
        uint32_t depth[NT] = {0};
        uint64_t addr = 0x1000;
        for (int op = 0; op < 300; op++) {
            ft_event ev = {0};
            ev.tid = (uint32_t)(rng_below(&g, NT));
            uint32_t t = ev.tid, r = (uint32_t)rng_below(&g, 3);
            if (r == 0 && depth[t] < DEPTH) {
                ev.kind = FT_EV_FUNC_ENTRY;
                ev.site = 1;
                ev.value = 100 + rng_below(&g, 1000);
                stack[t][depth[t]++] = (uint32_t)ev.value;
            } else if (r == 1 && depth[t]) {
                ev.kind = FT_EV_FUNC_EXIT;
                depth[t]--;
            } else {
                ev.kind = FT_EV_MALLOC;
                ev.site = 7;
                ev.addr = addr;
                ev.value = 16;
                ev.value2 = (uint64_t)op + 1;
                addr += 64;
            }
            assert_int_equal(ft_heapmap_update(h, &ev), 0);
            if (ev.kind != FT_EV_MALLOC)
                continue;
            const ft_heap_obj *o = ft_heapmap_find(h, ev.addr + 3);
            assert_non_null(o);
            for (uint32_t i = 0; i < FT_HEAP_CALLERS; i++)
                assert_int_equal(o->caller[i],
                                 i < depth[t] ? stack[t][depth[t] - 1 - i] : 0);
        }
        ft_heapmap_free(h);
    }
    /* deeper than the map follows: callers unknown, not outer frames;
     * back within its depth, known again */
    ft_heapmap *h = ft_heapmap_new();
    assert_non_null(h);
    ft_event ev = {.kind = FT_EV_FUNC_ENTRY, .site = 1};
    for (uint32_t d = 0; d < 300; d++) {
        ev.value = 1000 + d;
        assert_int_equal(ft_heapmap_update(h, &ev), 0);
    }
    ft_event m = {.kind = FT_EV_MALLOC, .site = 7, .addr = 0x1000,
                  .value = 8, .value2 = 1};
    assert_int_equal(ft_heapmap_update(h, &m), 0);
    assert_int_equal(ft_heapmap_find(h, 0x1000)->caller[0], 0);
    ft_event x = {.kind = FT_EV_FUNC_EXIT};
    for (int i = 0; i < 100; i++)
        assert_int_equal(ft_heapmap_update(h, &x), 0);
    m.addr = 0x2000;
    assert_int_equal(ft_heapmap_update(h, &m), 0);
    assert_int_equal(ft_heapmap_find(h, 0x2000)->caller[0], 1000 + 199);
    ft_heapmap_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_brute_force),
        cmocka_unit_test(test_callers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
