/* SPDX-License-Identifier: MIT */
/* test_explore_hapset.c - the HaPSet/DPOR search (replay/hapset_*.c) on
 * small models: threads of reads, writes and critical sections, run by a
 * simulator of recorder/rt/policy_prefix.c (decision points where two or
 * more threads are enabled; the running thread continues by default; a
 * thread blocked on a lock or ending hands over in round-robin order; a
 * thread holding a forced choice runs its pending operation), which
 * builds each run's blocks as hapset_run.c does.  Checked against a
 * brute-force oracle over every execution of the model:
 *  - plain DPOR (no HaPSets) runs a member of every Mazurkiewicz class
 *    (the soundness the paper relies on, section 4.2.2);
 *  - no schedule is run twice, guided or not ("each test run is
 *    guaranteed to exercise a not-yet-tested interleaving", section 7);
 *  - the learned HaPSets are exactly definition 2 over the good runs
 *    (every pair "e immediately dependent upon e'", by a naive scan);
 *  - with every reachable pair already learned, the guided search runs
 *    one schedule (no reversal offers a new scenario, section 5.1).
 * It also prints, per model, runs and pairs covered guided and plain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "replay/hapset.h"

enum { OP_R, OP_W, OP_LOCK, OP_UNLOCK };
#define MAXT 3
#define MAXOPS 6
#define MAXEV (MAXT * MAXOPS)

typedef struct model {
    int n, len[MAXT];
    int op[MAXT][MAXOPS], obj[MAXT][MAXOPS];
} model;

/* One execution: who ran each event (thread, op index); deadlock flag. */
typedef struct exec {
    int n;
    unsigned char tid[MAXEV], idx[MAXEV];
    int deadlock;
} exec;

static uint64_t site_of(const model *m, int t, int i)
{
    /* Threads run the same code: a site per operation kind and object. */
    return 0x1000u + (uint64_t)m->op[t][i] * 16 + (uint64_t)m->obj[t][i];
}

static int dependent(const model *m, int t1, int i1, int t2, int i2)
{
    if (m->obj[t1][i1] != m->obj[t2][i2])
        return 0;
    int l1 = m->op[t1][i1] >= OP_LOCK, l2 = m->op[t2][i2] >= OP_LOCK;
    if (l1 || l2)
        return l1 && l2;
    return m->op[t1][i1] == OP_W || m->op[t2][i2] == OP_W;
}

/* ---- the simulated runtime under a prefix ---- */

typedef struct sim {
    const model *m;
    int pc[MAXT], blocked[MAXT], owner[8];
    uint64_t at_step[64];
    int at_tid[64], nat, next_at;
    uint64_t step;
    fh_run *r;
    int64_t latest;
    int latest_used;
    exec x;
} sim;

static uint64_t enabled(const sim *s)
{
    uint64_t en = 0;
    for (int t = 0; t < s->m->n; t++)
        if (s->pc[t] < s->m->len[t] && !s->blocked[t])
            en |= 1ull << t;
    return en;
}

static int decide(sim *s, int dflt, uint64_t en)
{
    while (s->next_at < s->nat && s->at_step[s->next_at] < s->step)
        s->next_at++;
    if (s->next_at < s->nat && s->at_step[s->next_at] == s->step) {
        int want = s->at_tid[s->next_at++];
        if (en >> want & 1)
            return want;
    }
    return dflt;
}

static int next_rr(uint64_t en, int cur)
{
    for (int k = 1; k <= MAXT; k++)
        if (en >> ((cur + k) % MAXT) & 1)
            return (cur + k) % MAXT;
    return cur;
}

static void decision(sim *s, int cur, int chosen, char kind, uint64_t en)
{
    fh_decision d = {.step = s->step, .mark = (uint64_t)s->x.n, .cur = cur,
                     .chosen = chosen, .kind = kind, .enabled = en};
    fh_run_decision(s->r, &d);
    s->latest = fh_run_block(s->r, chosen, (int64_t)s->r->ndec - 1);
    s->latest_used = 0;
}

/* The event of thread t's operation i, in block blk. */
static void add_op(fh_run *r, const model *m, uint32_t blk, int t, int i)
{
    static const int ops[] = {FH_R, FH_W, FH_ACQ, FH_REL};
    uint32_t ev = fh_run_event(r, site_of(m, t, i), 0);
    fh_run_access(r, blk, ev,
                  FH_OBJ(m->op[t][i] >= OP_LOCK ? FH_SPACE_LOCK : FH_SPACE_MEM,
                         m->obj[t][i]),
                  ops[m->op[t][i]]);
}

/* Thread t runs its pending operation; 0 if it blocked instead. */
static int execute(sim *s, int t)
{
    const model *m = s->m;
    int i = s->pc[t], o = m->obj[t][i];
    if (m->op[t][i] == OP_LOCK) {
        if (s->owner[o] >= 0) {
            s->blocked[t] = 1;
            return 0;
        }
        s->owner[o] = t;
    } else if (m->op[t][i] == OP_UNLOCK) {
        s->owner[o] = -1;
        for (int u = 0; u < m->n; u++)
            if (s->blocked[u] && m->obj[u][s->pc[u]] == o)
                s->blocked[u] = 0;
    }
    /* hapset_run.c's blocks: a decision's block, else one per event. */
    if (s->latest < 0 || s->r->blk[s->latest].tid != t ||
        (s->latest_used && s->r->blk[s->latest].dec < 0))
        s->latest = fh_run_block(s->r, t, -1);
    s->latest_used = 1;
    add_op(s->r, m, (uint32_t)s->latest, t, i);
    s->x.tid[s->x.n] = (unsigned char)t;
    s->x.idx[s->x.n++] = (unsigned char)i;
    s->pc[t]++;
    return 1;
}

static void simulate(const model *m, const char *spec, fh_run *r, exec *x)
{
    sim s = {.m = m, .r = r, .latest = -1};
    memset(s.owner, -1, sizeof s.owner);
    const char *p = strstr(spec, "at=");
    for (p = p ? p + 3 : ""; *p; p += *p == ',') {
        unsigned long long st;
        int t, used;
        assert_int_equal(sscanf(p, "%llu.%d%n", &st, &t, &used), 2);
        assert_true(s.nat < 64);
        s.at_step[s.nat] = st;
        s.at_tid[s.nat++] = t;
        p += used;
    }
    fh_run_init(r);
    int cur = 0;
    for (;;) {
        uint64_t en = enabled(&s);
        if (s.pc[cur] < m->len[cur] && !s.blocked[cur] && __builtin_popcountll(en) >= 2) {
            s.step++; /* the running thread at its key point */
            int chosen = decide(&s, cur, en);
            decision(&s, cur, chosen, 'p', en);
            cur = chosen;
        }
        while (!execute(&s, cur) || s.pc[cur] == m->len[cur]) {
            en = enabled(&s); /* blocked or ended: hand over */
            if (!en) {
                /* A deadlock: the runtime reports each blocked thread
                 * and what it waits for (hapset_run.c: BLOCKED events),
                 * its pending operation, not executed. */
                for (int t = 0; t < m->n; t++)
                    if (s.pc[t] < m->len[t]) {
                        s.x.deadlock = 1;
                        add_op(r, m, fh_run_block(r, t, -1), t, s.pc[t]);
                    }
                fh_run_finish(r);
                *x = s.x;
                return;
            }
            int dflt = next_rr(en, cur), chosen = dflt;
            if (__builtin_popcountll(en) >= 2) {
                s.step++;
                chosen = decide(&s, dflt, en);
                decision(&s, cur, chosen, 'b', en);
            }
            cur = chosen;
        }
    }
}

/* ---- the oracle ---- */

typedef struct oracle {
    const model *m;
    exec *all;
    size_t n, cap;
} oracle;

static void enumerate(oracle *o, exec *x, int *pc, int *owner)
{
    const model *m = o->m;
    int any = 0, more = 0;
    for (int t = 0; t < m->n; t++) {
        if (pc[t] == m->len[t])
            continue;
        more = 1;
        int i = pc[t], ob = m->obj[t][i];
        if (m->op[t][i] == OP_LOCK && owner[ob] >= 0)
            continue;
        any = 1;
        int saved = owner[ob];
        if (m->op[t][i] == OP_LOCK)
            owner[ob] = t;
        if (m->op[t][i] == OP_UNLOCK)
            owner[ob] = -1;
        x->tid[x->n] = (unsigned char)t;
        x->idx[x->n++] = (unsigned char)i;
        pc[t]++;
        enumerate(o, x, pc, owner);
        pc[t]--;
        x->n--;
        owner[ob] = saved;
    }
    if (!any) {
        if (o->n == o->cap) {
            o->cap = o->cap ? o->cap * 2 : 1024;
            o->all = realloc(o->all, o->cap * sizeof *o->all);
            assert_non_null(o->all);
        }
        o->all[o->n] = *x;
        o->all[o->n++].deadlock = more;
    }
}

/* The class of an execution: its lexicographically least linearisation
 * (by thread) of the dependence order, as a string. */
static void class_of(const model *m, const exec *x, char *out)
{
    int pred[MAXEV][MAXEV] = {{0}}, used[MAXEV] = {0};
    for (int a = 0; a < x->n; a++)
        for (int b = a + 1; b < x->n; b++)
            pred[b][a] = x->tid[a] == x->tid[b] ||
                         dependent(m, x->tid[a], x->idx[a], x->tid[b], x->idx[b]);
    for (int k = 0; k < x->n; k++) {
        int best = -1;
        for (int b = 0; b < x->n; b++) {
            if (used[b])
                continue;
            int ready = 1;
            for (int a = 0; a < b && ready; a++)
                ready = !pred[b][a] || used[a];
            if (ready && (best < 0 || x->tid[b] < x->tid[best]))
                best = b;
        }
        used[best] = 1;
        out[2 * k] = (char)('0' + x->tid[best]);
        out[2 * k + 1] = (char)('a' + x->idx[best]);
    }
    out[2 * x->n] = x->deadlock ? 'D' : 0;
    out[2 * x->n + 1] = 0;
}

static void exec_str(const exec *x, char *out)
{
    for (int k = 0; k < x->n; k++) {
        out[2 * k] = (char)('0' + x->tid[k]);
        out[2 * k + 1] = (char)('a' + x->idx[k]);
    }
    out[2 * x->n] = 0;
}

typedef struct strset {
    char (*v)[2 * MAXEV + 2];
    size_t n, cap;
} strset;

static int strset_add(strset *s, const char *str)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], str) == 0)
            return 0;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        assert_non_null(s->v);
    }
    strcpy(s->v[s->n++], str);
    return 1;
}

/* Definition 2 on one execution, naively: e and the last earlier event
 * on its object (locks: acquisitions only, unlocks are ignored). */
typedef struct pairset {
    uint64_t v[512][3];
    size_t n;
} pairset;

static void naive_pairs(const model *m, const exec *x, pairset *ps)
{
    for (int b = 0; b < x->n; b++) {
        int tb = x->tid[b], ib = x->idx[b];
        if (m->op[tb][ib] == OP_UNLOCK)
            continue;
        for (int a = b - 1; a >= 0; a--) {
            int ta = x->tid[a], ia = x->idx[a];
            if (m->obj[ta][ia] != m->obj[tb][ib] || m->op[ta][ia] == OP_UNLOCK ||
                (m->op[ta][ia] >= OP_LOCK) != (m->op[tb][ib] >= OP_LOCK))
                continue;
            if (ta != tb && dependent(m, ta, ia, tb, ib)) {
                uint64_t k[3] = {site_of(m, tb, ib), site_of(m, ta, ia), ta < tb};
                size_t i = 0;
                while (i < ps->n && memcmp(ps->v[i], k, sizeof k))
                    i++;
                if (i == ps->n && ps->n < 512)
                    memcpy(ps->v[ps->n++], k, sizeof k);
            }
            break;
        }
    }
}

/* An execution of the oracle as a run without decisions (learning). */
static void run_of_exec(const model *m, const exec *x, fh_run *r)
{
    fh_run_init(r);
    for (int k = 0; k < x->n; k++)
        add_op(r, m, fh_run_block(r, x->tid[k], -1), x->tid[k], x->idx[k]);
    fh_run_finish(r);
}

typedef struct outcome {
    size_t runs;
    strset classes;
} outcome;

/* Runs the search to exhaustion (at most limit runs). */
static void search(const model *m, fh_search *s, size_t limit, outcome *out,
                   pairset *learned_ref)
{
    char spec[4096], str[2 * MAXEV + 2];
    strset seen = {0};
    memset(out, 0, sizeof *out);
    while (out->runs < limit && fh_search_next(s, spec, sizeof spec)) {
        fh_run r;
        exec x;
        simulate(m, spec, &r, &x);
        exec_str(&x, str);
        assert_true(strset_add(&seen, str)); /* never the same schedule */
        class_of(m, &x, str);
        strset_add(&out->classes, str);
        fh_search_feed(s, &r, !x.deadlock);
        if (learned_ref && !x.deadlock)
            naive_pairs(m, &x, learned_ref);
        fh_run_free(&r);
        out->runs++;
    }
    assert_true(out->runs < limit);
    free(seen.v);
}

static void check_model(const model *m)
{
    oracle o = {.m = m};
    exec x = {0};
    int pc[MAXT] = {0}, owner[8];
    memset(owner, -1, sizeof owner);
    enumerate(&o, &x, pc, owner);
    strset classes = {0};
    pairset reach = {0};
    char str[2 * MAXEV + 2];
    for (size_t i = 0; i < o.n; i++) {
        class_of(m, &o.all[i], str);
        strset_add(&classes, str);
        naive_pairs(m, &o.all[i], &reach);
    }

    /* Plain DPOR: every class. */
    fh_search *plain = fh_search_new(0, 0);
    outcome dp;
    search(m, plain, 100000, &dp, NULL);
    for (size_t i = 0; i < classes.n; i++)
        if (strset_add(&dp.classes, classes.v[i]))
            fail_msg("plain DPOR missed class %s", classes.v[i]);
    fh_search_free(plain);

    /* Guided, learning continuously: HaPSets = definition 2 over the good
     * runs. */
    fh_search *g = fh_search_new(1, 1);
    outcome gd;
    pairset learned = {0};
    search(m, g, 100000, &gd, &learned);
    fh_stats st;
    fh_search_stats(g, &st);
    assert_int_equal(st.pairs, learned.n);
    for (size_t i = 0; i < learned.n; i++) {
        fh_event b = {learned.v[i][0], 0}, a = {learned.v[i][1], 0};
        assert_true(fh_search_has_pair(g, &b, &a, (int)learned.v[i][2]));
    }
    fh_search_free(g);

    /* Every reachable pair learned first: one schedule. */
    fh_search *full = fh_search_new(1, 0);
    for (size_t i = 0; i < o.n; i++) {
        fh_run r;
        run_of_exec(m, &o.all[i], &r);
        fh_search_learn(full, &r);
        fh_run_free(&r);
    }
    outcome fl;
    search(m, full, 100000, &fl, NULL);
    assert_int_equal(fl.runs, 1);
    fh_search_free(full);

    printf("  %zu executions, %zu classes, %zu reachable pairs: DPOR %zu runs; "
           "HaPSet %zu runs, %zu classes, %zu pairs learned\n",
           o.n, classes.n, reach.n, dp.runs, gd.runs, gd.classes.n, learned.n);
    free(classes.v);
    free(dp.classes.v);
    free(gd.classes.v);
    free(fl.classes.v);
    free(o.all);
}

/* ---- models ---- */

static void add(model *m, int t, int op, int obj)
{
    m->op[t][m->len[t]] = op;
    m->obj[t][m->len[t]++] = obj;
}

enum { X, Y, L1 = 2, L2 };

static void test_racy_increment(void **state)
{
    (void)state;
    model m = {.n = 2};
    for (int t = 0; t < 2; t++) {
        add(&m, t, OP_R, X);
        add(&m, t, OP_W, X);
    }
    check_model(&m);
}

/* counter_rmw: read and write in two critical sections of one lock. */
static void test_split_critical_sections(void **state)
{
    (void)state;
    model m = {.n = 2};
    for (int t = 0; t < 2; t++) {
        add(&m, t, OP_LOCK, L1);
        add(&m, t, OP_R, X);
        add(&m, t, OP_UNLOCK, L1);
        add(&m, t, OP_LOCK, L1);
        add(&m, t, OP_W, X);
        add(&m, t, OP_UNLOCK, L1);
    }
    check_model(&m);
}

static void test_abba(void **state)
{
    (void)state;
    model m = {.n = 2};
    add(&m, 0, OP_LOCK, L1);
    add(&m, 0, OP_LOCK, L2);
    add(&m, 0, OP_UNLOCK, L2);
    add(&m, 0, OP_UNLOCK, L1);
    add(&m, 1, OP_LOCK, L2);
    add(&m, 1, OP_LOCK, L1);
    add(&m, 1, OP_UNLOCK, L1);
    add(&m, 1, OP_UNLOCK, L2);
    check_model(&m);
}

/* Random models: 3 threads of up to 4 operations (accesses to x and y,
 * critical sections of L1 or L2 around one access), fixed seeds. */
static void test_random_models(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < 40; k++) {
        model m = {.n = 2 + k % 2};
        for (int t = 0; t < m.n; t++) {
            int want = 2 + (int)((rng >> 33) % 3);
            while (m.len[t] < want) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                int access = (rng >> 40) % 2 ? OP_W : OP_R, obj = (int)((rng >> 45) % 2);
                if ((rng >> 50) % 3 == 0 && m.len[t] + 3 <= 4) {
                    int l = L1 + (int)((rng >> 55) % 2);
                    add(&m, t, OP_LOCK, l);
                    add(&m, t, access, obj);
                    add(&m, t, OP_UNLOCK, l);
                } else {
                    add(&m, t, access, obj);
                }
            }
        }
        check_model(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_racy_increment),
        cmocka_unit_test(test_split_critical_sections),
        cmocka_unit_test(test_abba),
        cmocka_unit_test(test_random_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
