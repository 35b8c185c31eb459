/* SPDX-License-Identifier: MIT */
/* test_fig2.c - the paper's running example (figure 2) rebuilt as a
 * trace: its CTM (figure 2b), the behaviours of its generalization that
 * section IV names (the observed run, a lost notification that leaves Ma
 * waiting forever, the L1/L2 deadlock, the data race of run rho1), and
 * the MAT reduction on it: every MAT is a pair of transactions whose only
 * dependent pair is the last, and CXT keeps a representative of every
 * class of runs.  docs/reduction.md compares our MATs and i-transactions
 * with the paper's m1-m6, ATa and ATb. */
#include "check.h"
#include "fig2.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static ft_ctm *fig2(void)
{
    evbuf b = {0};
    fig2_events(&b);
    ft_ctm *c = load_events(&b, "fig2");
    evbuf_free(&b);
    return c;
}

static void test_ctm_of_figure_2b(void **state)
{
    (void)state;
    ft_ctm *c = fig2();
    assert_non_null(c);
    assert_int_equal(c->nthreads, 2);
    assert_int_equal(c->len[0], 9);  /* 1a .. 10a */
    assert_int_equal(c->len[1], 10); /* 1b .. 11b */
    static const uint8_t ma[9] = {FT_OP_LOCK,     FT_OP_RMW,       FT_OP_WRITE,
                                  FT_OP_LOCK,     FT_OP_WAIT_PRE,  FT_OP_WAIT_POST,
                                  FT_OP_UNLOCK,   FT_OP_WRITE,     FT_OP_UNLOCK};
    static const uint8_t mb[10] = {FT_OP_LOCK,  FT_OP_NOTIFY, FT_OP_UNLOCK,
                                   FT_OP_LOCK,  FT_OP_READ,   FT_OP_READ,
                                   FT_OP_WRITE, FT_OP_LOCK,   FT_OP_UNLOCK,
                                   FT_OP_UNLOCK};
    for (uint32_t p = 0; p < 9; p++)
        assert_int_equal(c->op[ft_ctm_at(c, 0, p)], ma[p]);
    for (uint32_t p = 0; p < 10; p++)
        assert_int_equal(c->op[ft_ctm_at(c, 1, p)], mb[p]);
    /* x, y, z are global; every transition touches a shared object */
    assert_int_equal(c->nglobal_vars, 3);
    assert_int_equal(c->nlocal_vars, 0);
    for (uint32_t x = 0; x < c->ntrans; x++)
        assert_true(ft_ctm_is_shared(c, x));
    /* wait_pre/wait_post name the condvar and the mutex */
    uint32_t pre = ft_ctm_at(c, 0, 4);
    assert_int_equal(c->vars[c->obj[pre]].kind, FT_VAR_COND);
    assert_int_equal(c->vars[c->obj2[pre]].addr, FIG2_L1);
    ft_ctm_free(c);
}

/* Final control states of runs that stop before both threads end. */
struct stuck {
    const ft_ctm *c;
    int observed, lost_notify, lock_deadlock;
};

static void visit_stuck(void *p, const uint32_t *seq, uint32_t n, int maximal,
                        const uint8_t *blocked)
{
    struct stuck *s = p;
    const ft_ctm *c = s->c;
    (void)blocked;
    uint32_t pa = 0, pb = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (c->tid[seq[i]])
            pb++;
        else
            pa++;
    }
    if (!maximal)
        return;
    uint32_t notify = ft_ctm_at(c, 1, 1), pre = ft_ctm_at(c, 0, 4);
    int notified_before = 0, waited = 0;
    for (uint32_t i = 0; i < n; i++) {
        waited |= seq[i] == pre;
        if (seq[i] == notify)
            notified_before = !waited;
    }
    if (pa == 9 && pb == 10)
        s->observed = 1;
    /* the notification came before the wait and was lost: Ma waits in S
     * forever, holding L2, so Mb stops at s14 (the paper's mismatched
     * wait/notify deadlock) */
    if (pa == 5 && notified_before && pb == 7)
        s->lost_notify = 1;
    /* Ma was notified and wants L1 back (wait_post) holding L2, Mb holds
     * L1 and wants L2 (s14): the paper's run rho2 deadlock */
    if (pa == 5 && !notified_before && pb == 7)
        s->lock_deadlock = 1;
}

struct race {
    const ft_ctm *c;
    int found;
};

static void visit_race(void *p, const uint32_t *seq, uint32_t n, int maximal,
                       const uint8_t *blocked)
{
    struct race *r = p;
    (void)maximal;
    (void)blocked;
    /* rho1 = s6 s8 s1 s2 s12 s13 s3: Mb's b2 = x (1b..6b) runs before
     * Ma's x = malloc (3a) */
    uint32_t readx = ft_ctm_at(r->c, 1, 5), writex = ft_ctm_at(r->c, 0, 2);
    int seen_read = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (seq[i] == readx)
            seen_read = 1;
        if (seq[i] == writex && seen_read)
            r->found = 1;
    }
}

static void test_generalization_behaviours(void **state)
{
    (void)state;
    ft_ctm *c = fig2();
    assert_non_null(c);
    struct stuck s = {c, 0, 0, 0};
    oracle_opts o = {1, NULL, NULL, 0};
    assert_true(oracle_walk(c, &o, visit_stuck, &s) > 0);
    assert_true(s.observed);
    assert_true(s.lost_notify);
    assert_true(s.lock_deadlock);
    /* the race needs Mb to read x before any write: only feasible
     * without the read-value constraint (Mb read the malloc'd pointer) */
    struct race r = {c, 0};
    oracle_walk(c, &o, visit_race, &r);
    assert_false(r.found);
    oracle_opts relaxed = {0, NULL, NULL, 0};
    oracle_walk(c, &relaxed, visit_race, &r);
    assert_true(r.found);
    ft_ctm_free(c);
}

static void check_mats(const ft_reduced *r, unsigned flags)
{
    for (uint32_t i = 0; i < r->nmats; i++) {
        const ft_mat *m = &r->mats[i];
        for (uint32_t p = m->a_first; p <= m->a_last; p++)
            for (uint32_t q = m->b_first; q <= m->b_last; q++) {
                int last = m->conflict && p == m->a_last && q == m->b_last;
                int dep = ft_blocks_dependent(r, m->a, p, m->b, q);
                if ((flags & FT_REDUCE_SKIP_UNREACHABLE) && !last)
                    dep = dep && ft_blocks_coreachable(r, m->a, p, m->b, q);
                assert_int_equal(dep, last);
            }
    }
}

static void test_mats_and_cxt(void **state)
{
    (void)state;
    ft_ctm *c = fig2();
    assert_non_null(c);
    for (unsigned flags = 0; flags <= FT_REDUCE_SKIP_UNREACHABLE;
         flags += FT_REDUCE_SKIP_UNREACHABLE) {
        ft_reduced *r = ft_reduce(c, flags);
        assert_non_null(r);
        assert_true(r->nmats > 0);
        check_mats(r, flags);
        /* m1 of the paper starts at the initial control states (1a, 1b) */
        assert_int_equal(r->mats[0].a_first, 0);
        assert_int_equal(r->mats[0].b_first, 0);
        assert_int_equal(check_cxt_sound(r, 1, "fig2"), 0);
        assert_int_equal(check_cxt_sound(r, 0, "fig2"), 0);
        /* the reductions reduce: lockset/HB then MAT */
        assert_true(r->stats.cs_lockset_hb < r->stats.cs_total);
        assert_true(r->stats.cs_mat < r->stats.cs_lockset_hb);
        /* i-transactions partition each thread */
        for (uint32_t t = 0; t < 2; t++) {
            uint32_t next = 0;
            for (uint32_t i = r->it_first[t]; i < r->it_first[t + 1]; i++) {
                assert_int_equal(r->itrans[i].first_pos, next);
                next = r->itrans[i].last_pos + 1;
            }
            assert_int_equal(next, c->len[t]);
        }
        ft_reduced_free(r);
    }
    ft_ctm_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ctm_of_figure_2b),
        cmocka_unit_test(test_generalization_behaviours),
        cmocka_unit_test(test_mats_and_cxt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
