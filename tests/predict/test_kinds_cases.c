/* SPDX-License-Identifier: MIT */
/* test_kinds_cases.c - the property kinds on hand-made traces that pin one
 * rule each down (the random runs of test_kinds_random.c check them
 * against the enumerator): the order search's lock holder and its eager
 * thread, an atomic update before the read in its own thread, the read a
 * critical section determines, a signal waking one waiter, and the lost
 * wake-up rules that need the value order (broadcasts, and signals with
 * more than one waiter), and the clipped whole model of a window. */
#include "../model/check.h"
#include "../model/gen.h"
#include "predict/kind.h"
#include "predict/vorder.h"
#include "predict/window.h"
#include "smt/smt.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define MAXP 64

/* Main creates threads 1..n, each of which starts at once. */
static void start_threads(evbuf *b, uint32_t n)
{
    for (uint32_t t = 1; t <= n; t++) {
        evbuf_add(b, FT_EV_THREAD_CREATE, 0, 0, 0, t, 0, 0);
        evbuf_add(b, FT_EV_THREAD_START, t, 0, 0, 0, 0, 0);
    }
}

/* Threads 1..n exit, in that order. */
static void end_threads(evbuf *b, uint32_t n)
{
    for (uint32_t t = 1; t <= n; t++)
        evbuf_add(b, FT_EV_THREAD_EXIT, t, 0, 0, 0, 0, 0);
}

/* Ends b's main thread (joins threads 1..n, none for 0; exits), loads
 * b as a model (*c, reduced *whole) and makes its order candidates. */
static void order_model(evbuf *b, uint32_t n, const char *name, ft_ctm **c,
                        ft_reduced **whole, ft_props *cand)
{
    for (uint32_t t = 1; t <= n; t++)
        evbuf_add(b, FT_EV_THREAD_JOIN, 0, 0, 0, t, 0, 0);
    evbuf_add(b, FT_EV_THREAD_EXIT, 0, 0, 0, 0, 0, 0);
    *c = load_events(b, name);
    evbuf_free(b);
    assert_non_null(*c);
    *whole = ft_reduce(*c, 0);
    assert_non_null(*whole);
    ft_pkind_src src = {*c, *whole, NULL, NULL, 8, MAXP};
    assert_int_equal(ft_pkind_of(FT_PROP_ORDER)->candidates(&src, cand), 0);
}

/* Solves order candidate p of c (no time bound) and checks its verdict
 * is want, and, when reason is given, that its reason says so. */
static void expect_order(ft_ctm *c, ft_reduced *whole, ft_prop *p, int want,
                         const char *reason)
{
    p->kind = FT_PROP_ORDER;
    ft_predict_opts o;
    ft_predict_opts_default(&o);
    o.timeout_ms = 0;
    ft_presult res;
    assert_int_equal(ft_predict_one(c, whole, p, &o, &res), want);
    if (reason)
        assert_non_null(strstr(ft_presult_reason(&res), reason));
    ft_presult_free(&res);
}

/* Frees what order_model made. */
static void order_free(ft_ctm *c, ft_reduced *whole, ft_props *cand)
{
    ft_props_free(cand);
    ft_reduced_free(whole);
    ft_ctm_free(c);
}

/* bench/predict's psort, in small: t1 makes the last write of x (0)
 * under L; t2 and t3 start late and read x = 0 under L.  For t3's read to
 * return 1 the search holds t1 back before its section; then t2, first
 * in the recording, takes L and cannot read x (it would see 1), and
 * holds L: the search must hold t2 back too (kind_order_search.c,
 * try_hold_refined).  Before that the property went to the solver, which
 * on psort's 776 blocks ran out of memory after 24 s. */
static void test_order_lock_holder(void **state)
{
    (void)state;
    enum { X = 0x1000, L = 0x2000 };
    evbuf b = {0};
    evbuf_add(&b, FT_EV_READ, 0, X, 0, 0, 0, 0);
    start_threads(&b, 3);
    evbuf_add(&b, FT_EV_WRITE, 0, X, 0, 1, 0, 0);
    for (uint32_t t = 1; t <= 3; t++) {
        evbuf_add(&b, FT_EV_MUTEX_LOCK, t, L, 0, 0, FT_HOW_BLOCK, 0);
        evbuf_add(&b, t == 1 ? FT_EV_WRITE : FT_EV_READ, t, X, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, t, L, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_EXIT, t, 0, 0, 0, 0, 0);
    }
    ft_ctm *c;
    ft_reduced *whole;
    ft_props cand = {0};
    order_model(&b, 3, "lockholder", &c, &whole, &cand);
    int checked = 0;
    for (size_t i = 0; i < cand.n; i++) {
        uint32_t r = cand.v[i].tgt[0];
        if (c->tid[r] != 3 || !ft_ctm_reads(c, r))
            continue;
        expect_order(c, whole, &cand.v[i], FT_VIOLATED, "held back");
        checked++;
    }
    assert_int_equal(checked, 1);
    order_free(c, whole, &cand);
}

/* bench/predict's pool, in small: main submits (x = 1 under L, a
 * signal on C), a worker takes the task (x = 0), and thread 1, started
 * late in the recording, finds x = 0, waits on C, is woken by main's
 * broadcast and reads x = 0 again.  That read can return 1 when thread 1
 * runs early: it waits before the submit, whose signal wakes it.  No
 * hold finds it (holding main or the worker back starves thread 1's
 * wake-up, and no write follows the read): the search runs thread 1
 * eagerly (kind_order_search.c).  Before that the property went to the
 * solver, which ran out of memory on the pool's 822 transitions. */
static void test_order_eager(void **state)
{
    (void)state;
    enum { X = 0x1000, L = 0x2000, C = 0x3000 };
    evbuf b = {0};
    evbuf_add(&b, FT_EV_WRITE, 0, X, 0, 0, 0, 0);
    for (uint32_t t = 1; t <= 2; t++)
        evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, t, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 0, L, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_WRITE, 0, X, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_COND_SIGNAL, 0, C, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 0, L, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 2, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 2, L, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_READ, 2, X, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, X, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 2, L, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_EXIT, 2, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 1, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 1, L, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_READ, 1, X, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_COND_WAIT, 1, C, L, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 0, L, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_COND_BROADCAST, 0, C, 0, 0, 1, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 0, L, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_COND_WAKE, 1, C, L, 0, 0, 0);
    evbuf_add(&b, FT_EV_READ, 1, X, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 1, L, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_EXIT, 1, 0, 0, 0, 0, 0);
    ft_ctm *c;
    ft_reduced *whole;
    ft_props cand = {0};
    order_model(&b, 2, "eager", &c, &whole, &cand);
    uint32_t late = UINT32_MAX, reads = 0; /* thread 1's second read */
    for (uint32_t q = 0; q < c->len[1]; q++)
        if (ft_ctm_reads(c, ft_ctm_at(c, 1, q)) && reads++ == 1)
            late = ft_ctm_at(c, 1, q);
    assert_int_equal(reads, 2);
    int checked = 0;
    for (size_t i = 0; i < cand.n; i++) {
        if (cand.v[i].tgt[0] != late)
            continue;
        expect_order(c, whole, &cand.v[i], FT_VIOLATED, "held back");
        checked++;
    }
    assert_int_equal(checked, 1);
    order_free(c, whole, &cand);
}

/* sysprog21's work-steal, in small: main writes x (a deque's bottom)
 * before it creates thread 1, whose atomic update of x is followed by a
 * read of x, the value it wrote; thread 2 only reads x; main reads x
 * after joining thread 1.  Thread 1's read cannot see main's first
 * write: the update comes between, and its own read returns its recorded
 * value in every prefix of the property, so it writes its recorded value
 * (ft_order_other).  Nor can main's: thread 1 went past the update.  The value
 * order proves it; before, an atomic update counted as a source of an unknown
 * value wherever it was, and the work-steal trace's 15 such candidates stayed
 * unknown. */
static void test_order_own_update(void **state)
{
    (void)state;
    enum { X = 0x1000 };
    evbuf b = {0};
    evbuf_add(&b, FT_EV_WRITE, 0, X, 0, 5, 0, 0);
    start_threads(&b, 2);
    ft_event e;
    memset(&e, 0, sizeof e);
    e.kind = FT_EV_ATOMIC_RMW;
    e.tid = 1;
    e.addr = X;
    e.size = 8;
    e.arg = FT_RMW_ADD;
    e.value = 5;
    e.value2 = 6;
    e.site = 100;
    evbuf_push(&b, &e);
    evbuf_add(&b, FT_EV_READ, 1, X, 0, 6, 0, 0);
    evbuf_add(&b, FT_EV_READ, 2, X, 0, 6, 0, 0);
    for (uint32_t t = 1; t <= 2; t++)
        evbuf_add(&b, FT_EV_THREAD_EXIT, t, 0, 0, 0, 0, 0);
    /* main, past thread 1's end, reads x: the update ran and thread 1
     * went past it */
    evbuf_add(&b, FT_EV_THREAD_JOIN, 0, 0, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_READ, 0, X, 0, 6, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_JOIN, 0, 0, 0, 2, 0, 0);
    ft_ctm *c;
    ft_reduced *whole;
    ft_props cand = {0};
    order_model(&b, 0, "own_update", &c, &whole, &cand); /* joined */
    int checked = 0;
    for (size_t i = 0; i < cand.n; i++) {
        uint32_t r = cand.v[i].tgt[0];
        if (c->op[r] != FT_OP_READ)
            continue;
        /* thread 2's read can see 5 (before the update); thread 1's and
         * main's not */
        if (c->tid[r] == 2)
            expect_order(c, whole, &cand.v[i], FT_VIOLATED, NULL);
        else
            expect_order(c, whole, &cand.v[i], FT_HOLDS, "value order");
        checked++;
    }
    assert_int_equal(checked, 3);
    order_free(c, whole, &cand);
}

/* Thread 1 reads x twice under L; thread 2 writes x under L (or, with
 * unlocked_writer, with no lock).  sections: how many critical sections
 * thread 1's reads take (1 or 2).  Returns the order candidates on
 * thread 1's reads, by position (bit 0: the first read, bit 1: the
 * second). */
static unsigned section_candidates(int sections, int unlocked_writer)
{
    enum { X = 0x1000, L = 0x2000 };
    evbuf b = {0};
    start_threads(&b, 2);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 1, L, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_READ, 1, X, 0, 0, 0, 0);
    if (sections == 2) {
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 1, L, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_LOCK, 1, L, 0, 0, FT_HOW_BLOCK, 0);
    }
    evbuf_add(&b, FT_EV_READ, 1, X, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 1, L, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_EXIT, 1, 0, 0, 0, 0, 0);
    if (!unlocked_writer)
        evbuf_add(&b, FT_EV_MUTEX_LOCK, 2, L, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, X, 0, 1, 0, 0);
    if (!unlocked_writer)
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 2, L, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_EXIT, 2, 0, 0, 0, 0, 0);
    ft_ctm *c;
    ft_reduced *whole;
    ft_props cand = {0};
    order_model(&b, 2, "sections", &c, &whole, &cand);
    unsigned which = 0, nth = 0;
    for (uint32_t q = 0; q < c->len[1]; q++) {
        uint32_t x = ft_ctm_at(c, 1, q);
        if (!ft_ctm_reads(c, x))
            continue;
        for (size_t i = 0; i < cand.n; i++)
            if (cand.v[i].tgt[0] == x)
                which |= 1u << nth;
        nth++;
    }
    assert_int_equal(nth, 2);
    /* no condition wait: the value order gives its sorted writes back
     * (expect_stuck checks they are kept where there is one) */
    ft_slice_index *ix = ft_slice_index_new(c);
    ft_value_order *vo = ix ? ft_value_order_new(c, ix) : NULL;
    assert_non_null(vo);
    assert_true(!vo->w && vo->nw == 0);
    ft_value_order_free(vo);
    ft_slice_index_free(ix);
    order_free(c, whole, &cand);
    return which;
}

/* A read that its thread's previous access of the variable in the same
 * critical section determines gets no order candidate (kind_order.c,
 * determined): only when every write of the variable holds that lock
 * and the lock is held from one access to the other.  test_kinds_random.c
 * (test_order: a third of its traces are counter runs that re-read in
 * their sections) checks against the enumerator that no read left out
 * can be violated. */
static void test_order_same_section(void **state)
{
    (void)state;
    assert_int_equal(section_candidates(1, 0), 1u);  /* the second: none */
    assert_int_equal(section_candidates(2, 0), 3u);  /* another section */
    assert_int_equal(section_candidates(1, 1), 3u);  /* a writer unlocked */
}

/* The block of thread t's n-th (from 0) transition with operation op. */
static uint32_t block_of_op(const ft_reduced *r, uint32_t t, int op,
                            uint32_t n)
{
    const ft_ctm *c = r->ctm;
    for (uint32_t i = 0; i < c->len[t]; i++) {
        uint32_t x = ft_ctm_at(c, t, i);
        if (c->op[x] == op && n-- == 0)
            return r->block_of[x];
    }
    fail_msg("thread %u has no such operation %d", t, op);
    return 0;
}

/* A signal wakes one waiter (smt/sync.c, one boolean per signal and
 * waiter, at most one true): threads 1 and 2 wait on C under M, thread
 * 3 signals twice, each signal waking one of them.  Both can be past
 * their waits; not before the second signal ran.  The random runs did
 * not notice a formula that let one signal wake both. */
static void test_signal_wakes_one(void **state)
{
    (void)state;
    enum { C = 0x3000, M = 0x2000 };
    evbuf b = {0};
    start_threads(&b, 3);
    for (uint32_t t = 1; t <= 2; t++) {
        evbuf_add(&b, FT_EV_MUTEX_LOCK, t, M, 0, 0, FT_HOW_BLOCK, 0);
        evbuf_add(&b, FT_EV_COND_WAIT, t, C, M, 0, 0, 0);
    }
    for (uint32_t t = 1; t <= 2; t++) {
        evbuf_add(&b, FT_EV_MUTEX_LOCK, 3, M, 0, 0, FT_HOW_BLOCK, 0);
        evbuf_add(&b, FT_EV_COND_SIGNAL, 3, C, 0, t, 1, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 3, M, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_COND_WAKE, t, C, M, 0, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, t, M, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_EXIT, t, 0, 0, 0, 0, 0);
    }
    evbuf_add(&b, FT_EV_THREAD_EXIT, 3, 0, 0, 0, 0, 0);
    for (uint32_t t = 1; t <= 3; t++)
        evbuf_add(&b, FT_EV_THREAD_JOIN, 0, 0, 0, t, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_EXIT, 0, 0, 0, 0, 0, 0);
    ft_ctm *c = load_events(&b, "signal_wakes_one");
    evbuf_free(&b);
    assert_non_null(c);
    ft_reduced *r = ft_reduce(c, 0);
    assert_non_null(r);
    ft_smt e;
    assert_int_equal(ft_smt_init(&e, r, NULL, 0, 0, FT_SMT_NO_CXT), 0);
    uint32_t post1 = block_of_op(r, 1, FT_OP_WAIT_POST, 0),
             post2 = block_of_op(r, 2, FT_OP_WAIT_POST, 0),
             sig2 = block_of_op(r, 3, FT_OP_NOTIFY, 1);
    ft_smt_assert(&e, ft_smt_exec(&e, post1));
    ft_smt_assert(&e, ft_smt_exec(&e, post2));
    assert_int_equal(ft_smt_check(&e, 0), Z3_L_TRUE);
    ft_smt_assert(&e, Z3_mk_not(e.z, ft_smt_exec(&e, sig2)));
    assert_int_equal(ft_smt_check(&e, 0), Z3_L_FALSE);
    ft_smt_free(&e);
    ft_reduced_free(r);
    ft_ctm_free(c);
}

/* Loads b (freed) as name, makes its lost wake-up candidates (ncand of
 * them) and checks each: the cut search alone proves none, with the
 * value order it proves them when cheap, and the solver's own verdict
 * (no value order) is verdict. */
static void expect_stuck(evbuf *b, const char *name, uint32_t ncand, int cheap,
                         int verdict)
{
    ft_ctm *c = load_events(b, name);
    evbuf_free(b);
    assert_non_null(c);
    ft_reduced *whole = ft_reduce(c, 0);
    assert_non_null(whole);
    ft_props cand = {0};
    ft_pkind_src src = {c, whole, NULL, NULL, 8, MAXP};
    const ft_pkind *k = ft_pkind_of(FT_PROP_STUCK);
    assert_int_equal(k->candidates(&src, &cand), 0);
    assert_int_equal(cand.n, ncand);
    ft_slice_index *ix = ft_slice_index_new(c);
    ft_value_order *vo = ix ? ft_value_order_new(c, ix) : NULL;
    assert_non_null(vo);
    /* the sorted writes are kept for the condition waits' rules only */
    uint32_t waits = 0;
    for (uint32_t x = 0; x < c->ntrans; x++)
        waits += c->op[x] == FT_OP_WAIT_PRE;
    if (waits)
        assert_non_null(vo->w);
    else
        assert_true(!vo->w && vo->nw == 0);
    for (uint32_t i = 0; i < cand.n; i++) {
        assert_false(k->holds(c, whole, NULL, &cand.v[i]));
        assert_int_equal(k->holds(c, whole, vo, &cand.v[i]), cheap);
        ft_predict_opts o;
        ft_predict_opts_default(&o);
        o.no_value_order = 1; /* the solver's own verdict */
        o.timeout_ms = 0;     /* whatever it takes: chatty_signals' takes
                                 7 s here, and under a loaded CI machine
                                 the default 10 s made it unknown */
        ft_presult res;
        ft_pkind_predict(c, whole, NULL, &cand.v[i], &o, &res);
        assert_int_equal(res.verdict, verdict);
        ft_presult_free(&res);
    }
    ft_value_order_free(vo);
    ft_slice_index_free(ix);
    free(cand.v);
    ft_reduced_free(whole);
    ft_ctm_free(c);
}

/* The classic guarded wait: thread 1 reads D = 0 under M and waits on C;
 * main writes D = 1 and broadcasts under M.  Main's write cannot precede
 * the read (no write gives D its 0 back), so the broadcast comes after
 * the wait began and wakes it: the lost wake-up candidate holds, which
 * the value order's rules in kind_stuck.c prove without the solver (the
 * cut search alone cannot: main finished and thread 1 waiting agree on
 * every lock).  When main does not write D (racy), its broadcast may
 * come first and thread 1 waits for good: no cheap proof, and the
 * solver finds the state.  Thread 1 may also write D's value back
 * after its read (`flag &= ~TIMEOUT` before `while (!(flag &
 * FINISHED))`, sysprog21's tpool): that write comes after the read, so
 * it is no source the read could have had after main's write, and the
 * proof stands (before, it asked that write to precede main's too, and
 * tpool's 5 lost wake-up candidates went to the solver, over its block
 * limit).  And main may write D often before (busy): the rule looks
 * each thread's writes of D up by value, with no bound on how many there
 * are (it gave up past 256, and workqueue's `len` has thousands). */
static void test_stuck_guarded_broadcast(void **state)
{
    (void)state;
    enum { C = 0x3000, M = 0x2000, D = 0x100 };
    for (int variant = 0; variant <= 3; variant++) {
        int racy = variant == 1, rewrite = variant == 2, busy = variant == 3;
        evbuf b = {0};
        evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, 1, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_START, 1, 0, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_LOCK, 1, M, 0, 0, FT_HOW_BLOCK, 0);
        evbuf_add(&b, FT_EV_READ, 1, D, 0, 0, 0, 0);
        if (rewrite) {
            evbuf_add(&b, FT_EV_WRITE, 1, D, 0, 0, 0, 0);
            evbuf_add(&b, FT_EV_READ, 1, D, 0, 0, 0, 0);
        }
        evbuf_add(&b, FT_EV_COND_WAIT, 1, C, M, 0, 0, 0);
        for (int i = 0; busy && i < 300; i++)
            evbuf_add(&b, FT_EV_WRITE, 0, D, 0, 2, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_LOCK, 0, M, 0, 0, FT_HOW_BLOCK, 0);
        if (!racy)
            evbuf_add(&b, FT_EV_WRITE, 0, D, 0, 1, 0, 0);
        evbuf_add(&b, FT_EV_COND_BROADCAST, 0, C, 0, 1, 1, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 0, M, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_COND_WAKE, 1, C, M, 0, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 1, M, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_EXIT, 1, 0, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_JOIN, 0, 0, 0, 1, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_EXIT, 0, 0, 0, 0, 0, 0);
        expect_stuck(&b,
                     racy      ? "stuck_racy"
                     : rewrite ? "stuck_rewrite"
                     : busy    ? "stuck_busy"
                               : "stuck_guarded",
                     1, !racy, racy ? FT_VIOLATED : FT_HOLDS);
    }
}

/* Signals with two waiters: threads 1 and 2 read D = 0 under M and wait
 * on C; main writes D and signals C twice, each signal in its own
 * section.  Both reads precede main's first write, so both signals come
 * after both waits began: each wakes one waiter, and neither can wait
 * for good.  The rule at the cut search's leaf counts them (a signal
 * notifies t unless another pending wait takes it); the wake rule per
 * stop could not (a signal counts there only when no other thread ever
 * waits on C).  Unguarded (the waiters read nothing), a wait may begin
 * after both signals: the solver finds thread 1 stuck.  Chatty: main
 * signals 70 more times with nobody waiting; counting the waits that
 * could take a signal walks over main's signals, which must not use up
 * the bound on waits (it gave up past 64 operations of a thread). */
static void test_stuck_two_signals(void **state)
{
    (void)state;
    enum { C = 0x3000, M = 0x2000, D = 0x100 };
    for (int variant = 0; variant < 3; variant++) {
        int guarded = variant != 1, chatty = variant == 2;
        evbuf b = {0};
        start_threads(&b, 2);
        for (uint32_t t = 1; t <= 2; t++) {
            evbuf_add(&b, FT_EV_MUTEX_LOCK, t, M, 0, 0, FT_HOW_BLOCK, 0);
            if (guarded)
                evbuf_add(&b, FT_EV_READ, t, D, 0, 0, 0, 0);
            evbuf_add(&b, FT_EV_COND_WAIT, t, C, M, 0, 0, 0);
        }
        for (uint32_t t = 1; t <= 2; t++) {
            evbuf_add(&b, FT_EV_MUTEX_LOCK, 0, M, 0, 0, FT_HOW_BLOCK, 0);
            evbuf_add(&b, FT_EV_WRITE, 0, D, 0, t, 0, 0);
            evbuf_add(&b, FT_EV_COND_SIGNAL, 0, C, 0, t, 1, 0);
            evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 0, M, 0, 0, 0, 0);
            evbuf_add(&b, FT_EV_COND_WAKE, t, C, M, 0, 0, 0);
            evbuf_add(&b, FT_EV_MUTEX_UNLOCK, t, M, 0, 0, 0, 0);
            evbuf_add(&b, FT_EV_THREAD_EXIT, t, 0, 0, 0, 0, 0);
        }
        for (int i = 0; chatty && i < 70; i++) {
            evbuf_add(&b, FT_EV_MUTEX_LOCK, 0, M, 0, 0, FT_HOW_BLOCK, 0);
            evbuf_add(&b, FT_EV_COND_SIGNAL, 0, C, 0, 0, 0, 0);
            evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 0, M, 0, 0, 0, 0);
        }
        for (uint32_t t = 1; t <= 2; t++)
            evbuf_add(&b, FT_EV_THREAD_JOIN, 0, 0, 0, t, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_EXIT, 0, 0, 0, 0, 0, 0);
        expect_stuck(&b,
                     chatty    ? "chatty_signals"
                     : guarded ? "two_signals"
                               : "two_unguarded",
                     2, guarded, guarded ? FT_HOLDS : FT_VIOLATED);
    }
}

/* A queue of one slot (count N and flag D under M): main produces, the
 * consumer thread 1 takes, `while (N == 0 && !D) wait(E)` against
 * `while (N == 1) wait(F)`, each signalling the other side after its
 * write.  Three rounds without a wait first, so N has had the values 0
 * and 1 again and again and no read tells which write it follows; then
 * the consumer waits twice and the producer once; main sets D and
 * broadcasts E at the end.  With main at F having read 1 and the
 * consumer at E having read 0, whichever section came first, the last
 * write of the other's value signalled the first one's condition, whose
 * only waiter it is: the rule that orders the waits' sections
 * (kind_stuck_wake.c) proves those states impossible, the rules per wait
 * cannot.  Variant "late": the producer signals after its unlock; the
 * candidates still hold (the waits are guarded), but the rule makes no
 * claim (a signal after the unlock may come before the consumer's
 * section), and the solver decides. */
static void queue_push(evbuf *b, int late, int wake)
{
    enum { E = 0x3000, M = 0x2000, N = 0x100 };
    evbuf_add(b, FT_EV_READ, 0, N, 0, 0, 0, 0);
    evbuf_add(b, FT_EV_WRITE, 0, N, 0, 1, 0, 0);
    if (!late)
        evbuf_add(b, FT_EV_COND_SIGNAL, 0, E, 0, wake, (uint32_t)wake, 0);
    evbuf_add(b, FT_EV_MUTEX_UNLOCK, 0, M, 0, 0, 0, 0);
    if (late)
        evbuf_add(b, FT_EV_COND_SIGNAL, 0, E, 0, wake, (uint32_t)wake, 0);
}

static void queue_pop(evbuf *b, int wake)
{
    enum { F = 0x3040, M = 0x2000, N = 0x100 };
    evbuf_add(b, FT_EV_READ, 1, N, 0, 1, 0, 0);
    evbuf_add(b, FT_EV_WRITE, 1, N, 0, 0, 0, 0);
    evbuf_add(b, FT_EV_COND_SIGNAL, 1, F, 0, 0, (uint32_t)wake, 0);
    evbuf_add(b, FT_EV_MUTEX_UNLOCK, 1, M, 0, 0, 0, 0);
}

static void queue_lock_read(evbuf *b, uint32_t t, uint64_t n)
{
    enum { M = 0x2000, N = 0x100 };
    evbuf_add(b, FT_EV_MUTEX_LOCK, t, M, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(b, FT_EV_READ, t, N, 0, n, 0, 0);
}

static void test_stuck_queue_order(void **state)
{
    (void)state;
    enum { E = 0x3000, F = 0x3040, M = 0x2000, N = 0x100, D = 0x108 };
    for (int late = 0; late < 2; late++) {
        evbuf b = {0};
        evbuf_add(&b, FT_EV_READ, 0, N, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_READ, 0, D, 0, 0, 0, 0);
        start_threads(&b, 1);
        for (int r = 0; r < 3; r++) {
            queue_lock_read(&b, 0, 0);
            queue_push(&b, late, 0);
            queue_lock_read(&b, 1, 1);
            queue_pop(&b, 0);
        }
        queue_lock_read(&b, 1, 0); /* empty: the consumer waits */
        evbuf_add(&b, FT_EV_READ, 1, D, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_COND_WAIT, 1, E, M, 0, 0, 0);
        queue_lock_read(&b, 0, 0);
        queue_push(&b, late, 1);
        queue_lock_read(&b, 0, 1); /* full: the producer waits */
        evbuf_add(&b, FT_EV_COND_WAIT, 0, F, M, 0, 0, 0);
        evbuf_add(&b, FT_EV_COND_WAKE, 1, E, M, 0, 0, 0);
        evbuf_add(&b, FT_EV_READ, 1, N, 0, 1, 0, 0);
        queue_pop(&b, 1);
        evbuf_add(&b, FT_EV_COND_WAKE, 0, F, M, 0, 0, 0);
        evbuf_add(&b, FT_EV_READ, 0, N, 0, 0, 0, 0);
        queue_push(&b, late, 0);
        queue_lock_read(&b, 1, 1);
        queue_pop(&b, 0);
        queue_lock_read(&b, 1, 0); /* empty again */
        evbuf_add(&b, FT_EV_READ, 1, D, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_COND_WAIT, 1, E, M, 0, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_LOCK, 0, M, 0, 0, FT_HOW_BLOCK, 0);
        evbuf_add(&b, FT_EV_WRITE, 0, D, 0, 1, 0, 0);
        evbuf_add(&b, FT_EV_COND_BROADCAST, 0, E, 0, 0, 1, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 0, M, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_COND_WAKE, 1, E, M, 0, 0, 0);
        evbuf_add(&b, FT_EV_READ, 1, N, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_READ, 1, D, 0, 1, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 1, M, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_EXIT, 1, 0, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_JOIN, 0, 0, 0, 1, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_EXIT, 0, 0, 0, 0, 0, 0);
        expect_stuck(&b, late ? "queue_late" : "queue", 3, !late, FT_HOLDS);
    }
}

/* A waiter woken while its mutex stays held: thread 1 reads D = 0 under
 * M and waits on C; thread 2 writes D = 1 and broadcasts under M, then
 * takes L before releasing M; thread 3 takes L, then M.  The broadcast
 * comes after the wait began, but when threads 2 and 3 deadlock (2 holds
 * M and waits for L, 3 holds L and waits for M), thread 1, woken, waits
 * for M for good: it stands at its wait in a final state, which the
 * solver finds.  The wake rules must not call it impossible (a notify
 * wakes a waiter out of the state only when its mutex is free there). */
static void test_stuck_woken_mutex_held(void **state)
{
    (void)state;
    enum { C = 0x3000, M = 0x2000, L = 0x2100, D = 0x100 };
    evbuf b = {0};
    start_threads(&b, 3);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 1, M, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_READ, 1, D, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_COND_WAIT, 1, C, M, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 2, M, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, D, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_COND_BROADCAST, 2, C, 0, 1, 1, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 2, L, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 2, L, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 2, M, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_EXIT, 2, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_COND_WAKE, 1, C, M, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 1, M, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_EXIT, 1, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 3, L, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 3, M, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 3, M, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 3, L, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_EXIT, 3, 0, 0, 0, 0, 0);
    for (uint32_t t = 1; t <= 3; t++)
        evbuf_add(&b, FT_EV_THREAD_JOIN, 0, 0, 0, t, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_EXIT, 0, 0, 0, 0, 0, 0);
    expect_stuck(&b, "woken_mutex_held", 1, 0, FT_VIOLATED);
}

/* A data race behind many atomic updates: thread 1 writes X plainly,
 * thread 2 then updates X atomically 5000 times, thread 3 once.  Thread
 * 3's update races with thread 1's write (nothing orders them; a plain
 * access and an atomic one).  The candidates walk back from each access
 * over what can race with it, here the plain accesses alone; walking
 * every access (skipping the atomic ones thread 2's updates are to
 * thread 3's) gave up after SCAN of them and never reached thread 1's
 * write: the race was no candidate (and spmc's candidates took 18 s). */
static void test_race_behind_atomics(void **state)
{
    (void)state;
    enum { X = 0x100, N = 5000 };
    evbuf b = {0};
    start_threads(&b, 3);
    evbuf_add(&b, FT_EV_WRITE, 1, X, 0, 0, 0, 0);
    for (uint32_t i = 0; i <= N; i++) {
        ft_event e;
        memset(&e, 0, sizeof e);
        e.kind = FT_EV_ATOMIC_RMW;
        e.tid = i < N ? 2 : 3;
        e.addr = X;
        e.size = 8;
        e.arg = FT_RMW_ADD;
        e.value = i;
        e.value2 = i + 1;
        e.site = 1 + (uint32_t)b.n;
        evbuf_push(&b, &e);
    }
    end_threads(&b, 3);
    ft_ctm *c;
    ft_reduced *whole;
    ft_props cand = {0};
    order_model(&b, 3, "race_behind_atomics", &c, &whole, &cand);
    ft_props_free(&cand);
    ft_pkind_src src = {c, whole, NULL, NULL, 1, 20000};
    assert_int_equal(ft_pkind_of(FT_PROP_RACE)->candidates(&src, &cand), 0);
    uint32_t w = ft_ctm_at(c, 1, 0), last = ft_ctm_at(c, 3, 0), found = 0;
    for (size_t i = 0; i < cand.n; i++) {
        const ft_prop *p = &cand.v[i];
        /* never two atomic updates */
        assert_true(p->tgt[0] == w || p->tgt[1] == w);
        found += p->tgt[1] == last;
    }
    assert_int_equal(found, 1);
    order_free(c, whole, &cand);
}

/* C-Thread-Pool's counter reads, in small: t1 reads x (0) under L and
 * writes 1; t2 then reads that 1 under L and goes on for a long while
 * taking L and writing x.  t1's read can return no other value: every
 * other write of x follows it.  On windows of a few transitions the
 * model of the whole trace is over the window limit, and a window that
 * does not reach the end proves nothing (unknown); but from the trace's
 * start, clipped where the value order says every later transition must
 * follow the read, the model is small and its "holds" is the whole
 * trace's (window.c, prop_clip).  The value order's own rule would prove
 * it too: here the windows are asked directly, as for a read it cannot
 * prove (C-Thread-Pool's counters: 31 candidates unknown, 9 after). */
static void test_order_clipped_whole(void **state)
{
    (void)state;
    enum { X = 0x1000, L = 0x2000, TAIL = 40 };
    evbuf b = {0};
    evbuf_add(&b, FT_EV_WRITE, 0, X, 0, 0, 0, 0);
    start_threads(&b, 2);
    for (uint32_t t = 1; t <= 2; t++) {
        evbuf_add(&b, FT_EV_MUTEX_LOCK, t, L, 0, 0, FT_HOW_BLOCK, 0);
        evbuf_add(&b, FT_EV_READ, t, X, 0, t - 1, 0, 0);
        evbuf_add(&b, FT_EV_WRITE, t, X, 0, t, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, t, L, 0, 0, 0, 0);
    }
    for (uint32_t i = 0; i < TAIL; i++) {
        evbuf_add(&b, FT_EV_MUTEX_LOCK, 2, L, 0, 0, FT_HOW_BLOCK, 0);
        evbuf_add(&b, FT_EV_WRITE, 2, X, 0, 3 + i, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 2, L, 0, 0, 0, 0);
    }
    end_threads(&b, 2);
    ft_ctm *c;
    ft_reduced *whole;
    ft_props cand = {0};
    order_model(&b, 2, "clipped_whole", &c, &whole, &cand);
    uint32_t r = UINT32_MAX;
    for (uint32_t q = 0; q < c->len[1] && r == UINT32_MAX; q++)
        if (ft_ctm_reads(c, ft_ctm_at(c, 1, q)))
            r = ft_ctm_at(c, 1, q);
    int checked = 0;
    for (size_t i = 0; i < cand.n; i++) {
        ft_prop *p = &cand.v[i];
        if (p->tgt[0] != r)
            continue;
        p->kind = FT_PROP_ORDER;
        ft_predict_opts o;
        ft_predict_opts_default(&o);
        o.timeout_ms = 0;
        o.window = 1;
        o.window_max_trans = 12; /* the whole slice has over 100 */
        ft_presult res;
        memset(&res, 0, sizeof res);
        assert_int_equal(ft_predict_windowed(c, NULL, p, &o, 0, &res),
                         FT_HOLDS);
        assert_int_equal(res.window_first, 0);
        assert_int_equal(res.window_end, c->ntrans);
        ft_presult_free(&res);
        checked++;
    }
    assert_int_equal(checked, 1);
    order_free(c, whole, &cand);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_lock_holder),
        cmocka_unit_test(test_order_eager),
        cmocka_unit_test(test_order_own_update),
        cmocka_unit_test(test_order_same_section),
        cmocka_unit_test(test_signal_wakes_one),
        cmocka_unit_test(test_stuck_guarded_broadcast),
        cmocka_unit_test(test_stuck_two_signals),
        cmocka_unit_test(test_stuck_woken_mutex_held),
        cmocka_unit_test(test_stuck_queue_order),
        cmocka_unit_test(test_race_behind_atomics),
        cmocka_unit_test(test_order_clipped_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
