/* SPDX-License-Identifier: MIT */
/* test_ctm_build.c - building the CTM from traces: transitions and their
 * program order, variable interning and sharedness, the operations each
 * event kind becomes, must-HB from fork/join, merging of local
 * transitions, slicing, heap lifetimes, and clear errors on bad input. */
#include "check.h"
#include "gen.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

static void test_transitions_follow_events(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        gen_params p;
        gen_small_params(seed, &p);
        p.ops = 8;
        evbuf b = {0};
        gen_run(seed, &p, &b);
        ft_ctm *c = load_events(&b, "build");
        assert_non_null(c);
        assert_int_equal(c->nevents, b.n);
        /* every transition comes from one event of its thread, in order */
        uint32_t last[8];
        memset(last, 0xff, sizeof last);
        for (uint32_t x = 0; x < c->ntrans; x++) {
            const ft_event *e = &b.ev[c->event[x]];
            assert_int_equal(e->tid, c->tid[x]);
            assert_int_equal(ft_ctm_at(c, c->tid[x], c->pos[x]), x);
            if (c->pos[x])
                assert_int_equal(ft_ctm_at(c, c->tid[x], c->pos[x] - 1),
                                 last[c->tid[x]]);
            last[c->tid[x]] = x;
            if (c->obj[x] != FT_CTM_NONE)
                assert_int_equal(c->vars[c->obj[x]].addr, e->addr);
            if (e->kind == FT_EV_READ)
                assert_int_equal(c->op[x], FT_OP_READ);
            if (e->kind == FT_EV_MUTEX_LOCK)
                assert_int_equal(c->op[x],
                                 e->rc ? FT_OP_LOCK_FAIL : FT_OP_LOCK);
            if (e->kind == FT_EV_SEM_WAIT)
                assert_int_equal(c->op[x],
                                 e->rc ? FT_OP_SEM_FAIL : FT_OP_SEM_WAIT);
        }
        /* shared = touched by two or more threads */
        for (uint32_t v = 0; v < c->nvars; v++) {
            uint32_t mask = 0;
            for (uint32_t x = 0; x < c->ntrans; x++)
                if (c->obj[x] == v || c->obj2[x] == v)
                    mask |= 1u << c->tid[x];
            assert_int_equal(c->vars[v].shared, __builtin_popcount(mask) > 1);
        }
        evbuf_free(&b);
        ft_ctm_free(c);
    }
}

static void test_fork_join_must_happen_before(void **state)
{
    (void)state;
    evbuf b = {0};
    evbuf_add(&b, FT_EV_WRITE, 0, 0x10, 0, 1, 0, 0);        /* 0 */
    evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, 1, 0, 0);   /* 1 fork */
    evbuf_add(&b, FT_EV_THREAD_START, 1, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 0, 0x18, 0, 1, 0, 0);        /* 2 */
    evbuf_add(&b, FT_EV_READ, 1, 0x10, 0, 1, 0, 0);         /* 3 */
    evbuf_add(&b, FT_EV_WRITE, 1, 0x20, 0, 5, 0, 0);        /* 4 */
    evbuf_add(&b, FT_EV_THREAD_EXIT, 1, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_JOIN, 0, 0, 0, 1, 0, 0);     /* 5 join */
    evbuf_add(&b, FT_EV_READ, 0, 0x20, 0, 5, 0, 0);         /* 6 */
    ft_ctm *c = load_events(&b, "hb");
    evbuf_free(&b);
    assert_non_null(c);
    assert_int_equal(ft_ctm_hb_prepare(c), 0);
    assert_int_equal(c->ntrans, 7);
    assert_true(ft_ctm_must_hb(c, 1, 3));  /* fork before child */
    assert_true(ft_ctm_must_hb(c, 0, 4));  /* transitively */
    assert_false(ft_ctm_must_hb(c, 2, 3)); /* after the fork: unordered */
    assert_false(ft_ctm_must_hb(c, 3, 2));
    assert_true(ft_ctm_must_hb(c, 4, 5));  /* child before join */
    assert_true(ft_ctm_must_hb(c, 3, 6));
    assert_false(ft_ctm_must_hb(c, 6, 3));
    assert_int_equal(ft_ctm_hb_before(c, 6, 1), 2);
    assert_int_equal(ft_ctm_hb_before(c, 3, 0), 2);
    /* 0x18 is local to thread 0: its write merges into the join */
    ft_reduced *r = ft_reduce(c, 0);
    assert_non_null(r);
    assert_int_equal(r->stats.trans_before_merge, 7);
    assert_true(r->stats.trans_after_merge < 7);
    assert_int_equal(ft_block_of(r, 2), ft_block_of(r, 5));
    /* lockset/HB: nothing of thread 1 can run before the fork */
    assert_false(ft_switch_feasible(r, 0, 0, 1, 0));
    ft_reduced_free(r);
    ft_ctm_free(c);
}

static void test_slice_drops_unrelated(void **state)
{
    (void)state;
    evbuf b = {0};
    evbuf_add(&b, FT_EV_WRITE, 0, 0x10, 0, 1, 0, 0); /* 0 x */
    evbuf_add(&b, FT_EV_WRITE, 1, 0x10, 0, 2, 0, 0); /* 1 x */
    evbuf_add(&b, FT_EV_READ, 0, 0x10, 0, 2, 0, 0);  /* 2 x  (property) */
    evbuf_add(&b, FT_EV_WRITE, 2, 0x30, 0, 1, 0, 0); /* 3 w, threads 2, 1 */
    evbuf_add(&b, FT_EV_READ, 1, 0x30, 0, 1, 0, 0);  /* 4 w */
    evbuf_add(&b, FT_EV_WRITE, 0, 0x40, 0, 1, 0, 0); /* 5 after property */
    ft_ctm *c = load_events(&b, "slice");
    evbuf_free(&b);
    assert_non_null(c);
    uint8_t keep[6];
    uint32_t prop = 2;
    assert_int_equal(ft_slice_mark(c, &prop, 1, keep), 0);
    assert_true(keep[0] && keep[1] && keep[2]);
    /* 4 reads w after thread 1's write of x: not needed; 3 neither */
    assert_false(keep[3]);
    assert_false(keep[4]);
    assert_false(keep[5]);
    ft_reduced *s = ft_reduce_slice(c, &prop, 1, 0);
    assert_non_null(s);
    assert_int_equal(s->ctm->ntrans, 3);
    assert_int_equal(s->orig[2], 2);
    ft_reduced_free(s);
    uint32_t bad = 99;
    assert_null(ft_reduce_slice(c, &bad, 1, 0));
    ft_ctm_free(c);
}

/* A paired read (FT_READ_PAIRED, through the trace writer and reader) is
 * glued to its thread's next transition; a subset keeps the glue when the
 * glued chain reaches the next kept transition; a block whose last
 * transition is glued to the next block's shared one must be followed
 * by it. */
static void test_paired_reads_glue(void **state)
{
    (void)state;
    evbuf b = {0};
    evbuf_add(&b, FT_EV_WRITE, 1, 0x10, 0, 5, 0, 0);             /* 0 x */
    evbuf_add(&b, FT_EV_READ, 0, 0x10, 0, 5, FT_READ_PAIRED, 0); /* 1 x */
    evbuf_add(&b, FT_EV_READ, 0, 0x20, 0, 0, FT_READ_PAIRED, 0); /* 2 y */
    evbuf_add(&b, FT_EV_WRITE, 0, 0x30, 0, 1, 0, 0);             /* 3 z */
    evbuf_add(&b, FT_EV_READ, 1, 0x30, 0, 1, 0, 0);              /* 4 z */
    evbuf_add(&b, FT_EV_READ, 1, 0x20, 0, 0, FT_READ_PAIRED, 0); /* 5 y */
    evbuf_add(&b, FT_EV_READ, 0, 0x20, 0, 0, 0, 0);              /* 6 y */
    evbuf_add(&b, FT_EV_WRITE, 1, 0x40, 0, 1, 0, 0);             /* 7 */
    ft_ctm *c = load_events(&b, "glue");
    evbuf_free(&b);
    assert_non_null(c);
    /* 1 and 2 glued; 5's next event is another thread's: no glue */
    assert_int_equal(c->nglue, 2);
    assert_true(ft_ctm_glued(c, 1) && ft_ctm_glued(c, 2));
    assert_false(ft_ctm_glued(c, 3) || ft_ctm_glued(c, 5));
    /* x (1) glued to z (3) through y (2), which the subset leaves out */
    uint8_t keep[8] = {1, 1, 0, 1, 1, 1, 1, 1};
    uint32_t *map = NULL;
    ft_ctm *s = ft_ctm_subset(c, keep, &map);
    assert_non_null(s);
    assert_int_equal(s->nglue, 1);
    assert_int_equal(map[s->glue_id[0]], 1);
    free(map);
    ft_ctm_free(s);
    /* without z the chain reaches no kept transition (3 is not glued):
     * x would lose its glue, and a schedule of the subset could run
     * another thread between x and y, which no run can; so y (2), the
     * shared read x binds to, is kept, and x stays glued to it */
    uint8_t keep2[8] = {1, 1, 0, 0, 1, 1, 1, 1};
    s = ft_ctm_subset(c, keep2, &map);
    assert_non_null(s);
    assert_int_equal(s->ntrans, 7);
    assert_int_equal(s->nglue, 1);
    assert_int_equal(map[s->glue_id[0]], 1);
    assert_int_equal(map[s->glue_id[0] + 1], 2);
    free(map);
    ft_ctm_free(s);
    /* blocks: thread 0 is x | y | z | y, all shared; x's and y's blocks
     * are glued to the next, z's is not */
    ft_reduced *r = ft_reduce(c, FT_REDUCE_NO_COUNT);
    assert_non_null(r);
    assert_int_equal(r->bcount[0], 4);
    assert_true(ft_block_glued(r, r->bfirst[0]));
    assert_true(ft_block_glued(r, r->bfirst[0] + 1));
    assert_false(ft_block_glued(r, r->bfirst[0] + 2));
    assert_false(ft_block_glued(r, r->bfirst[0] + 3));
    ft_reduced_free(r);
    ft_ctm_free(c);
}

/* Heap lifetimes (ctm/incarnation.c) against the events themselves: on
 * random runs where three threads allocate, touch and free blocks at the
 * same few addresses, two accesses to one address are one variable
 * exactly when no free of a block covering it lies between them; a
 * variable is shared exactly when two threads access it; each free has a
 * heap variable of its own, shared exactly when another thread touched
 * the block in the lifetime it ends. */
#define HL_BASE 0x7000u
#define HL_SLOTS 3  /* blocks of 16 bytes at HL_BASE + 16 * i */
static void test_heap_lifetimes(void **state)
{
    (void)state;
    unsigned frees_split = 0, kept = 0;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        uint64_t s = seed * 0x9e3779b97f4a7c15ull;
        evbuf b = {0};
        for (uint32_t t = 1; t < 3; t++) {
            evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, t, 0, 0);
            evbuf_add(&b, FT_EV_THREAD_START, t, 0, 0, 0, 0, 0);
        }
        int live[HL_SLOTS] = {0};
        for (int i = 0; i < 60; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            uint32_t t = (uint32_t)(s % 3), k = (uint32_t)(s >> 8) % HL_SLOTS;
            uint64_t a = HL_BASE + 16u * k;
            unsigned what = (unsigned)(s >> 16) % 6;
            if (!live[k] || what == 5) {
                if (live[k]) {
                    evbuf_add(&b, FT_EV_FREE, t, a, 0, 0, 0, 0);
                    live[k] = 0;
                } else {
                    evbuf_add(&b, FT_EV_MALLOC, t, a, 0, 16, 0, 0);
                    live[k] = 1;
                }
                continue;
            }
            uint64_t at = a + 8u * ((s >> 24) & 1);
            evbuf_add(&b, what < 3 ? FT_EV_READ : FT_EV_WRITE, t, at, 0,
                      (s >> 32) % 3, 0, 0);
        }
        ft_ctm *c = load_events(&b, "heap");
        assert_non_null(c);
        for (uint32_t x = 0; x < c->ntrans; x++) {
            if (c->op[x] != FT_OP_READ && c->op[x] != FT_OP_WRITE)
                continue;
            const ft_event *ex = &b.ev[c->event[x]];
            for (uint32_t y = x + 1; y < c->ntrans; y++) {
                if (c->op[y] != FT_OP_READ && c->op[y] != FT_OP_WRITE)
                    continue;
                const ft_event *ey = &b.ev[c->event[y]];
                if (ey->addr != ex->addr)
                    continue;
                int freed = 0;
                for (uint64_t i = c->event[x] + 1; i < c->event[y]; i++)
                    freed |= b.ev[i].kind == FT_EV_FREE &&
                             b.ev[i].addr <= ex->addr &&
                             ex->addr < b.ev[i].addr + 16;
                assert_int_equal(c->obj[x] == c->obj[y], !freed);
                kept += !freed;
                frees_split += freed;
            }
        }
        for (uint32_t v = 0; v < c->nvars; v++) {
            uint32_t mask = 0;
            for (uint32_t x = 0; x < c->ntrans; x++)
                if (c->obj[x] == v && c->op[x] != FT_OP_FREE)
                    mask |= 1u << c->tid[x];
            if (c->vars[v].kind == FT_VAR_MEMORY)
                assert_int_equal(c->vars[v].shared,
                                 __builtin_popcount(mask) > 1);
        }
        /* each free: its own heap variable; shared iff another thread
         * accessed the block since the previous free there */
        for (uint32_t x = 0; x < c->ntrans; x++) {
            if (c->op[x] != FT_OP_FREE)
                continue;
            uint32_t h = c->obj[x];
            int other = 0;
            for (uint32_t y = 0; y < c->ntrans; y++) {
                if (y != x && c->op[y] == FT_OP_FREE)
                    assert_int_not_equal(c->obj[y], h);
                if (c->op[y] == FT_OP_FREE && y < x &&
                    c->vars[c->obj[y]].addr == c->vars[h].addr)
                    other = 0; /* an earlier lifetime */
                if ((c->op[y] == FT_OP_READ || c->op[y] == FT_OP_WRITE) &&
                    y < x && c->vars[c->obj[y]].addr >= c->vars[h].addr &&
                    c->vars[c->obj[y]].addr < c->vars[h].addr + 16 &&
                    c->tid[y] != c->tid[x])
                    other = 1;
            }
            assert_int_equal(c->vars[h].shared, other);
        }
        evbuf_free(&b);
        ft_ctm_free(c);
    }
    /* both sides of the rule were exercised */
    assert_true(frees_split > 100 && kept > 100);
}

static void test_bad_input(void **state)
{
    (void)state;
    ft_ctm *c = ft_ctm_new();
    assert_non_null(c);
    ft_event e;
    memset(&e, 0, sizeof e);
    e.kind = FT_EV_WRITE;
    e.tid = 5u << 20;
    char msg[200];
    assert_int_equal(ft_ctm_add(c, &e, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "thread id"));
    e.tid = 0;
    e.kind = FT_EV_THREAD_JOIN;
    e.value = 0; /* joins itself */
    assert_int_equal(ft_ctm_add(c, &e, msg, sizeof msg), -1);
    /* the model keeps event indices in 32 bits: a longer trace is refused
     * with the event named, not wrapped around */
    e.kind = FT_EV_WRITE;
    e.index = UINT32_MAX;
    assert_int_equal(ft_ctm_add(c, &e, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "event 4294967295: a model holds at most"));
    e.index = UINT32_MAX - 1;
    assert_int_equal(ft_ctm_add(c, &e, msg, sizeof msg), 0);
    assert_int_equal(c->event[c->ntrans - 1], UINT32_MAX - 1);
    ft_ctm_free(c);

    char path[512];
    temp_trace_path(path, sizeof path, "bad");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("this is not a trace at all, just text\n", f);
    fclose(f);
    ft_error err;
    memset(&err, 0, sizeof err);
    assert_null(ft_ctm_load(path, &err));
    assert_true(err.message[0] != 0);
    unlink(path);
    assert_null(ft_ctm_load("/nonexistent/trace.ftrace", &err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transitions_follow_events),
        cmocka_unit_test(test_fork_join_must_happen_before),
        cmocka_unit_test(test_slice_drops_unrelated),
        cmocka_unit_test(test_paired_reads_glue),
        cmocka_unit_test(test_heap_lifetimes),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
