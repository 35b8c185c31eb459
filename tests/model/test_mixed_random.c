/* SPDX-License-Identifier: MIT */
/* test_mixed_random.c - the model's mixed-size split (ctm/mixed.c)
 * against byte-level memory.  Thousands of generated runs of 2-3 threads
 * make narrow (1, 2, 4, 8 bytes, aligned or not), atomic read-modify-write
 * and wide (9-16 bytes, memset-like or elided) accesses to one 16-byte
 * block, with few distinct byte values so that values repeat.  For every
 * interleaving of every run, each read is judged twice: by simulating the
 * block byte by byte (the oracle: a read is consistent when each byte it
 * reads is the byte it recorded; a byte never written and first read in
 * the recording has the value read) and by simulating the model's
 * variables with its transitions' values (the data rule's notion).  They
 * must agree where every content is known, and the model must never
 * accept a read the bytes refuse (elided contents).  Also: an event's
 * transitions are consecutive, glued, and tile its bytes; the memory
 * variables are disjoint; two events of different threads conflict in
 * the model exactly when their bytes overlap and one writes; and the
 * model built through the in-memory trace (fi_trace, what analyze uses)
 * equals the one built from the events.  FT_MIXED_SEEDS sets the count. */
#include "ctm/ctm.h"
#include "infer/infer.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* cmocka needs the headers above first */
#include <cmocka.h>

#define BASE 0x10000ull
#define BLOCK 16
#define MAXEV 9
#define MAXT 3

typedef struct gev {
    uint32_t tid;
    int reads, writes; /* reads the block, writes it */
    uint32_t off, size;
    uint8_t rd[BLOCK]; /* bytes read (recorded) */
    uint8_t wr[BLOCK]; /* bytes written */
    int wide, elided, uniform;
} gev;

typedef struct run {
    gev ev[MAXEV];
    uint32_t n, nthreads;
    uint32_t order[MAXEV]; /* recorded order: indices into ev */
    uint8_t init[BLOCK];
    int has_elided;
} run;

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint8_t byte_value(uint64_t *s)
{
    return (uint8_t)(rng(s) % 3); /* few values: they repeat */
}

static void gen(uint64_t seed, run *r)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    memset(r, 0, sizeof *r);
    r->nthreads = 2 + (uint32_t)(rng(&s) % 2);
    uint32_t per = r->nthreads == 2 ? 3 + (uint32_t)(rng(&s) % 2) : 3;
    r->n = r->nthreads * per;
    for (uint32_t i = 0; i < r->n; i++) {
        gev *e = &r->ev[i];
        e->tid = i / per;
        unsigned k = (unsigned)(rng(&s) % 10);
        if (k < 6) { /* narrow */
            static const uint32_t sizes[] = {1, 2, 4, 8};
            e->size = sizes[rng(&s) % 4];
            e->off = rng(&s) % 2
                         ? (uint32_t)(rng(&s) % (BLOCK / e->size)) * e->size
                         : (uint32_t)(rng(&s) % (BLOCK - e->size + 1));
            e->reads = k < 3;
            e->writes = !e->reads;
        } else if (k < 8) { /* atomic RMW */
            e->size = rng(&s) % 2 ? 4 : 8;
            e->off = (uint32_t)(rng(&s) % (BLOCK / e->size)) * e->size;
            e->reads = e->writes = 1;
        } else { /* wide */
            e->wide = 1;
            e->size = 9 + (uint32_t)(rng(&s) % 8);
            e->off = (uint32_t)(rng(&s) % (BLOCK - e->size + 1));
            e->reads = k == 8 && rng(&s) % 2;
            e->writes = !e->reads;
            e->uniform = e->writes && rng(&s) % 2;
            e->elided = e->writes && !e->uniform && rng(&s) % 4 == 0;
        }
        uint8_t u = byte_value(&s);
        for (uint32_t b = 0; b < e->size; b++)
            e->wr[b] = e->uniform ? u : byte_value(&s);
        r->has_elided |= e->elided;
    }
    for (uint32_t b = 0; b < BLOCK; b++)
        r->init[b] = byte_value(&s);
    /* a recorded order: random interleaving */
    uint32_t next[MAXT] = {0}, k = 0;
    while (k < r->n) {
        uint32_t t = (uint32_t)(rng(&s) % r->nthreads);
        if (next[t] < per)
            r->order[k++] = t * per + next[t]++;
    }
    uint8_t mem[BLOCK];
    memcpy(mem, r->init, BLOCK);
    for (uint32_t i = 0; i < r->n; i++) {
        gev *e = &r->ev[r->order[i]];
        if (e->reads)
            memcpy(e->rd, mem + e->off, e->size);
        if (e->writes)
            memcpy(mem + e->off, e->wr, e->size);
    }
}

static uint64_t le(const uint8_t *b, uint32_t n)
{
    uint64_t v = 0;
    for (uint32_t i = n; i-- > 0;)
        v = (v << 8) | b[i];
    return v;
}

/* The run's events in recorded order as trace events. */
static void events(const run *r, ft_event *out)
{
    for (uint32_t i = 0; i < r->n; i++) {
        const gev *e = &r->ev[r->order[i]];
        ft_event *v = &out[i];
        memset(v, 0, sizeof *v);
        v->index = i;
        v->tid = e->tid;
        v->addr = BASE + e->off;
        v->size = (uint16_t)e->size;
        v->site = r->order[i] + 1;
        if (e->wide) {
            v->kind = e->reads ? FT_EV_READ_WIDE : FT_EV_WRITE_WIDE;
            v->value = e->size;
            if (!e->elided) {
                v->bytes = e->reads ? e->rd : e->wr;
                v->nbytes = e->size;
            }
        } else if (e->reads && e->writes) {
            v->kind = FT_EV_ATOMIC_RMW;
            v->value = le(e->rd, e->size);
            v->value2 = le(e->wr, e->size);
        } else {
            v->kind = e->reads ? FT_EV_READ : FT_EV_WRITE;
            v->value = le(e->reads ? e->rd : e->wr, e->size);
        }
    }
}

static ft_ctm *build(const ft_event *ev, uint32_t n)
{
    ft_ctm *c = ft_ctm_new();
    assert_non_null(c);
    char msg[200];
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(ft_ctm_add(c, &ev[i], msg, sizeof msg), 0);
    assert_int_equal(ft_ctm_finish(c), 0);
    return c;
}

/* The same events through the in-memory trace analyze builds from. */
static ft_ctm *build_via_fi(const ft_event *ev, uint32_t n)
{
    fi_trace t;
    fi_trace_init(&t);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(fi_trace_add(&t, &ev[i]), 0);
    ft_ctm *c = ft_ctm_new();
    assert_non_null(c);
    char msg[200];
    for (uint32_t i = 0; i < n; i++) {
        ft_event e;
        fi_trace_get(&t, i, &e);
        assert_int_equal(ft_ctm_add(c, &e, msg, sizeof msg), 0);
    }
    assert_int_equal(ft_ctm_finish(c), 0);
    fi_trace_free(&t);
    return c;
}

typedef struct ctx {
    const run *r;
    const ft_ctm *c;
    uint32_t first[MAXEV], count[MAXEV]; /* by recorded position */
    uint32_t pos_of[MAXEV];              /* event -> recorded position */
    uint64_t checked, agreed_refusals;
} ctx;

/* Judges every read of the interleaving seq (event indices) both ways. */
static void judge(ctx *x, const uint32_t *seq)
{
    const run *r = x->r;
    const ft_ctm *c = x->c;
    /* bytes: known[] from the recording (first access a read) */
    uint8_t mem[BLOCK], known[BLOCK];
    uint8_t seen[BLOCK] = {0};
    for (uint32_t i = 0; i < r->n; i++) {
        const gev *e = &r->ev[r->order[i]];
        for (uint32_t b = e->off; b < e->off + e->size; b++)
            if (!seen[b]) {
                seen[b] = 1;
                known[b] = e->reads;
            }
    }
    memcpy(mem, r->init, BLOCK);
    /* the model's variables: current value and whether any */
    uint64_t *val = calloc(c->nvars + 1, sizeof *val);
    uint8_t *has = calloc(c->nvars + 1, 1);
    assert_true(val && has);
    for (uint32_t v = 0; v < c->nvars; v++)
        if (c->vars[v].has_init) {
            has[v] = 1;
            val[v] = c->vars[v].init;
        }
    for (uint32_t i = 0; i < r->n; i++) {
        uint32_t ei = seq[i], p = x->pos_of[ei];
        const gev *e = &r->ev[ei];
        if (e->reads) {
            int byte_ok = 1, model_ok = 1;
            for (uint32_t b = 0; b < e->size; b++)
                if (!known[e->off + b] || mem[e->off + b] != e->rd[b])
                    byte_ok = 0;
            for (uint32_t k = 0; k < x->count[p]; k++) {
                uint32_t t = x->first[p] + k, v = c->obj[t];
                if (!has[v] || val[v] != c->value[t])
                    model_ok = 0;
            }
            x->checked++;
            if (model_ok && !byte_ok)
                fail_msg("the model accepts a read the bytes refuse "
                         "(event %u)",
                         ei);
            if (!r->has_elided && model_ok != byte_ok)
                fail_msg("the model refuses a read the bytes accept "
                         "(event %u)",
                         ei);
            x->agreed_refusals += !byte_ok && !model_ok;
        }
        if (e->writes) {
            memcpy(mem + e->off, e->wr, e->size);
            for (uint32_t b = 0; b < e->size; b++)
                known[e->off + b] = 1;
            for (uint32_t k = 0; k < x->count[p]; k++) {
                uint32_t t = x->first[p] + k, v = c->obj[t];
                has[v] = 1;
                val[v] = ft_ctm_written(c, t);
            }
        }
    }
    free(val);
    free(has);
}

static void interleave(ctx *x, uint32_t *seq, uint32_t k, uint32_t *next,
                       uint32_t per)
{
    const run *r = x->r;
    if (k == r->n) {
        judge(x, seq);
        return;
    }
    for (uint32_t t = 0; t < r->nthreads; t++)
        if (next[t] < per) {
            seq[k] = t * per + next[t]++;
            interleave(x, seq, k + 1, next, per);
            next[t]--;
        }
}

/* Transitions tile their event's bytes, glued; variables are disjoint. */
static void check_shape(ctx *x)
{
    const run *r = x->r;
    const ft_ctm *c = x->c;
    uint32_t t = 0;
    for (uint32_t p = 0; p < r->n; p++) {
        const gev *e = &r->ev[r->order[p]];
        x->first[p] = t;
        x->pos_of[r->order[p]] = p;
        uint64_t at = BASE + e->off;
        while (t < c->ntrans && c->event[t] == p) {
            const ft_ctm_var *v = &c->vars[c->obj[t]];
            assert_int_equal(c->tid[t], e->tid);
            assert_true(v->addr == at);
            at += v->size;
            t++;
        }
        x->count[p] = t - x->first[p];
        assert_true(x->count[p] >= 1);
        assert_true(at == BASE + e->off + e->size);
        for (uint32_t k = 0; k + 1 < x->count[p]; k++)
            assert_true(ft_ctm_glued(c, x->first[p] + k));
        assert_false(ft_ctm_glued(c, x->first[p] + x->count[p] - 1));
    }
    assert_int_equal(t, c->ntrans);
    for (uint32_t a = 0; a < c->nvars; a++)
        for (uint32_t b = a + 1; b < c->nvars; b++) {
            const ft_ctm_var *u = &c->vars[a], *v = &c->vars[b];
            assert_true(u->addr + u->size <= v->addr ||
                        v->addr + v->size <= u->addr);
        }
    /* conflicts exactly where the bytes overlap and one writes */
    for (uint32_t p = 0; p < r->n; p++)
        for (uint32_t q = 0; q < r->n; q++) {
            const gev *e = &r->ev[r->order[p]], *f = &r->ev[r->order[q]];
            if (e->tid == f->tid)
                continue;
            int overlap =
                e->off < f->off + f->size && f->off < e->off + e->size;
            int want = overlap && (e->writes || f->writes), got = 0;
            for (uint32_t i = 0; i < x->count[p]; i++)
                for (uint32_t j = 0; j < x->count[q]; j++)
                    got |= ft_ctm_conflict(c, x->first[p] + i, x->first[q] + j);
            assert_int_equal(got, want);
        }
}

static void same_model(const ft_ctm *a, const ft_ctm *b)
{
    assert_int_equal(a->ntrans, b->ntrans);
    assert_int_equal(a->nvars, b->nvars);
    for (uint32_t t = 0; t < a->ntrans; t++) {
        assert_int_equal(a->obj[t], b->obj[t]);
        assert_true(a->value[t] == b->value[t]);
        assert_true(ft_ctm_written(a, t) == ft_ctm_written(b, t));
    }
}

static void test_mixed_random(void **state)
{
    (void)state;
    const char *env = getenv("FT_MIXED_SEEDS");
    uint64_t seeds = env ? strtoull(env, NULL, 10) : 3000, split = 0;
    uint64_t checked = 0, refused = 0;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        run r;
        gen(seed, &r);
        ft_event ev[MAXEV];
        events(&r, ev);
        ft_ctm *c = build(ev, r.n);
        ft_ctm *d = build_via_fi(ev, r.n);
        same_model(c, d);
        ctx x = {.r = &r, .c = c};
        check_shape(&x);
        split += c->nmixed_split;
        uint32_t seq[MAXEV], next[MAXT] = {0};
        interleave(&x, seq, 0, next, r.n / r.nthreads);
        checked += x.checked;
        refused += x.agreed_refusals;
        ft_ctm_free(c);
        ft_ctm_free(d);
    }
    printf("mixed: %llu runs, %llu accesses split, %llu reads judged, "
           "%llu refused by both\n",
           (unsigned long long)seeds, (unsigned long long)split,
           (unsigned long long)checked, (unsigned long long)refused);
    /* the generator must exercise the split and both verdicts */
    assert_true(split > seeds);
    assert_true(refused > 0 && refused < checked);
}

/* workqueue's shape: an 8-byte load over two 4-byte fields written one
 * by one becomes two reads, one per field, each with its field's value. */
static void test_load_over_two_fields(void **state)
{
    (void)state;
    ft_event ev[3];
    memset(ev, 0, sizeof ev);
    ev[0] = (ft_event){.index = 0,
                       .tid = 0,
                       .kind = FT_EV_WRITE,
                       .addr = BASE,
                       .size = 4,
                       .value = 7,
                       .site = 1};
    ev[1] = (ft_event){.index = 1,
                       .tid = 1,
                       .kind = FT_EV_WRITE,
                       .addr = BASE + 4,
                       .size = 4,
                       .value = 1,
                       .site = 2};
    ev[2] = (ft_event){.index = 2,
                       .tid = 0,
                       .kind = FT_EV_READ,
                       .addr = BASE,
                       .size = 8,
                       .value = 7 | (1ull << 32),
                       .site = 3};
    ft_ctm *c = build(ev, 3);
    assert_int_equal(c->ntrans, 4);
    assert_int_equal(c->nmixed_split, 1);
    assert_int_equal(c->obj[2], c->obj[0]);
    assert_int_equal(c->obj[3], c->obj[1]);
    assert_true(c->value[2] == 7 && c->value[3] == 1);
    assert_true(ft_ctm_glued(c, 2));
    assert_int_equal(c->event[2], 2);
    assert_int_equal(c->event[3], 2);
    assert_int_equal(c->pos[3], 2);
    assert_true(c->vars[c->obj[1]].shared);
    assert_true(ft_ctm_conflict(c, 1, 3));
    ft_ctm_free(c);
}

/* A memset over a 128-byte struct whose fields are read one by one: the
 * fields read the memset's byte (kept as one byte, past the contents
 * kept whole); a memcpy of 128 distinct bytes is not kept, so its shares
 * are values no read has. */
static void test_long_wide_shares(void **state)
{
    (void)state;
    uint8_t fill[128], mixed_bytes[128];
    memset(fill, 5, sizeof fill);
    for (unsigned i = 0; i < sizeof mixed_bytes; i++)
        mixed_bytes[i] = (uint8_t)i;
    for (int uniform = 1; uniform >= 0; uniform--) {
        ft_event ev[3];
        memset(ev, 0, sizeof ev);
        ev[0] = (ft_event){.index = 0,
                           .tid = 0,
                           .kind = FT_EV_WRITE_WIDE,
                           .addr = BASE,
                           .size = 128,
                           .value = 128,
                           .site = 1,
                           .bytes = uniform ? fill : mixed_bytes,
                           .nbytes = 128};
        ev[1] = (ft_event){.index = 1,
                           .tid = 1,
                           .kind = FT_EV_READ,
                           .addr = BASE + 16,
                           .size = 4,
                           .value = uniform ? 0x05050505u : 0x13121110u,
                           .site = 2};
        ev[2] = (ft_event){.index = 2,
                           .tid = 1,
                           .kind = FT_EV_READ,
                           .addr = BASE + 60,
                           .size = 8,
                           .value = uniform ? 0x0505050505050505ull
                                            : 0x434241403f3e3d3cull,
                           .site = 3};
        for (int via_fi = 0; via_fi < 2; via_fi++) {
            ft_ctm *c = via_fi ? build_via_fi(ev, 3) : build(ev, 3);
            /* [0,16) [16,20) [20,60) [60,68) [68,128) */
            assert_int_equal(c->ntrans, 7);
            for (uint32_t t = 0; t < 5; t++) {
                if (c->vars[c->obj[t]].addr == BASE + 16)
                    assert_int_equal(c->value[t] == c->value[5], uniform);
                if (c->vars[c->obj[t]].addr == BASE + 60)
                    assert_int_equal(c->value[t] == c->value[6], uniform);
            }
            ft_ctm_free(c);
        }
    }
}

/* A split read before a free keeps its shares in the freed lifetime: the
 * free's position moves with the transitions the split adds. */
static void test_split_before_free(void **state)
{
    (void)state;
    ft_event ev[7];
    memset(ev, 0, sizeof ev);
    ev[0] = (ft_event){
        .index = 0, .tid = 0, .kind = FT_EV_MALLOC, .addr = BASE, .value = 16};
    ev[1] = (ft_event){.index = 1,
                       .tid = 0,
                       .kind = FT_EV_WRITE,
                       .addr = BASE,
                       .size = 4,
                       .value = 1,
                       .site = 1};
    ev[2] = (ft_event){.index = 2,
                       .tid = 0,
                       .kind = FT_EV_WRITE,
                       .addr = BASE + 4,
                       .size = 4,
                       .value = 2,
                       .site = 2};
    ev[3] = (ft_event){.index = 3,
                       .tid = 1,
                       .kind = FT_EV_READ,
                       .addr = BASE,
                       .size = 8,
                       .value = 1 | (2ull << 32),
                       .site = 3};
    ev[4] = (ft_event){.index = 4, .tid = 1, .kind = FT_EV_FREE, .addr = BASE};
    ev[5] = (ft_event){
        .index = 5, .tid = 0, .kind = FT_EV_MALLOC, .addr = BASE, .value = 16};
    ev[6] = (ft_event){.index = 6,
                       .tid = 0,
                       .kind = FT_EV_WRITE,
                       .addr = BASE + 4,
                       .size = 4,
                       .value = 9,
                       .site = 4};
    ft_ctm *c = build(ev, 7);
    /* W W R R FREE W */
    assert_int_equal(c->ntrans, 6);
    assert_int_equal(c->op[4], FT_OP_FREE);
    assert_int_equal(c->obj[3], c->obj[1]);
    assert_int_not_equal(c->obj[5], c->obj[1]);
    assert_true(c->vars[c->obj[1]].shared);
    assert_false(c->vars[c->obj[5]].shared);
    ft_ctm_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_over_two_fields),
        cmocka_unit_test(test_long_wide_shares),
        cmocka_unit_test(test_split_before_free),
        cmocka_unit_test(test_mixed_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
