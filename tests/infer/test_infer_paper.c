/* SPDX-License-Identifier: MIT */
/* test_infer_paper.c - the BEST paper's running example (figure 2: threads
 * ma and mb, shared x, y, z, locks l1 l2, condition s).  Inference must find
 * exactly tr1 (s2-s3 in ma), tr2 (s13 in mb) and tr3 (s10 in ma); with the
 * paper's i-transactions (section VII) tr3 is proved atomic and the
 * properties are CA(tr1), CA(tr2) and CMA(tr1, tr2) (section VIII). */
#include "helpers.h"
#include "reduce/reduce.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

enum { X = 0x1000, Y = 0x1008, Z = 0x1010, L1 = 0x2000, L2 = 0x2008,
       S = 0x3000 };

static fi_trace tr;
static uint32_t sa[17], sb[17]; /* site of statement sN in ma / mb */

static void build(void)
{
    fi_trace_init(&tr);
    for (uint32_t n = 1; n <= 16; n++) {
        sa[n] = fi_trace_site(&tr, "thread_a", "atom.c", n);
        sb[n] = fi_trace_site(&tr, "thread_b", "atom.c", n);
    }
    /* Indices in comments; the run is s1..s16 of figure 2(a). */
    ev_add(&tr, 0, FT_EV_THREAD_START, 0, 0);               /* 0 */
    ev_add(&tr, 1, FT_EV_THREAD_START, 0, 0);               /* 1 */
    ev_add(&tr, 0, FT_EV_MUTEX_LOCK, sa[1], L2);            /* 2 s1 */
    ev_add(&tr, 0, FT_EV_READ, sa[2], Z);                   /* 3 s2 */
    ev_add(&tr, 0, FT_EV_WRITE, sa[2], Z);                  /* 4 s2 */
    ev_add(&tr, 0, FT_EV_WRITE, sa[3], X);                  /* 5 s3 */
    ev_add(&tr, 0, FT_EV_MUTEX_LOCK, sa[4], L1);            /* 6 s4 */
    ev_add2(&tr, 0, FT_EV_COND_WAIT, sa[5], S, L1, 0);      /* 7 s5 */
    ev_add(&tr, 1, FT_EV_MUTEX_LOCK, sb[6], L1);            /* 8 s6 */
    ev_add2(&tr, 1, FT_EV_COND_SIGNAL, sb[7], S, 0, 0);     /* 9 s7 */
    ev_add(&tr, 1, FT_EV_MUTEX_UNLOCK, sb[8], L1);          /* 10 s8 */
    ev_add2(&tr, 0, FT_EV_COND_WAKE, sa[5], S, L1, 0);      /* 11 s5 */
    ev_add(&tr, 0, FT_EV_MUTEX_UNLOCK, sa[9], L2);          /* 12 s9 */
    ev_add(&tr, 0, FT_EV_WRITE, sa[10], Y);                 /* 13 s10 */
    ev_add(&tr, 0, FT_EV_MUTEX_UNLOCK, sa[11], L1);         /* 14 s11 */
    ev_add(&tr, 1, FT_EV_MUTEX_LOCK, sb[12], L1);           /* 15 s12 */
    ev_add(&tr, 1, FT_EV_READ, sb[13], Z);                  /* 16 s13 */
    ev_add(&tr, 1, FT_EV_READ, sb[13], X);                  /* 17 s13 */
    ev_add(&tr, 1, FT_EV_WRITE, sb[13], Y);                 /* 18 s13 */
    ev_add(&tr, 1, FT_EV_MUTEX_LOCK, sb[14], L2);           /* 19 s14 */
    ev_add(&tr, 1, FT_EV_MUTEX_UNLOCK, sb[15], L2);         /* 20 s15 */
    ev_add(&tr, 1, FT_EV_MUTEX_UNLOCK, sb[16], L1);         /* 21 s16 */
}

/* The i-transactions of section VII as event ranges: ta1 = 1a..3a
 * (lock l2, z++), ta2 = 3a..5a (x = malloc, lock l1), ta3 = 5a..7a (wait),
 * ta4 = 7a..10a (unlock l2, y, unlock l1); tb1..tb4 likewise.  Each thread
 * start goes with its first i-transaction. */
static const fi_itx paper_itx[] = {
    {0, 0, 4},   {0, 5, 6},   {0, 7, 11},  {0, 12, 14},
    {1, 1, 10},  {1, 15, 16}, {1, 17, 17}, {1, 18, 21},
};

static void regions_found(void **state)
{
    (void)state;
    fi_analysis a;
    assert_int_equal(fi_analyze(&a, &tr, NULL), 0);
    assert_int_equal(a.nregions, 3);
    const fi_region *tr1 = find_region(&a, 0, 3, 5);
    const fi_region *tr2 = find_region(&a, 1, 16, 18);
    const fi_region *tr3 = find_region(&a, 0, 13, 13);
    assert_non_null(tr1);
    assert_non_null(tr2);
    assert_non_null(tr3);
    assert_string_equal(tr1->function, "thread_a");
    assert_int_equal(tr1->line_lo, 2);
    assert_int_equal(tr1->line_hi, 3);
    assert_int_equal(tr1->nvars, 2); /* z, x */
    assert_int_equal(tr2->nvars, 3); /* z, x, y */
    assert_int_equal(tr1->status, FI_ST_OPEN);
    assert_int_equal(tr2->status, FI_ST_OPEN);
    /* Without the MAT analysis tr3 is still trivially atomic. */
    assert_int_equal(tr3->status, FI_ST_PROVED);
    assert_int_equal(tr3->proof, FI_PROOF_SINGLE);
    fi_analysis_free(&a);
}

static void mat_proof_and_properties(void **state)
{
    (void)state;
    fi_analysis a;
    assert_int_equal(fi_analyze(&a, &tr, NULL), 0);
    assert_int_equal(fi_prove_by_itx(&a, paper_itx, 8), 0); /* none open */
    const fi_region *tr1 = find_region(&a, 0, 3, 5);
    const fi_region *tr2 = find_region(&a, 1, 16, 18);
    const fi_region *tr3 = find_region(&a, 0, 13, 13);
    assert_int_equal(tr3->status, FI_ST_PROVED);
    assert_int_equal(tr3->proof, FI_PROOF_MAT);
    assert_int_equal(tr1->status, FI_ST_OPEN);
    assert_int_equal(tr2->status, FI_ST_OPEN);
    assert_int_equal(fi_properties(&a), 0);
    assert_int_equal(a.nprops, 3);
    int ca1 = 0, ca2 = 0, cma = 0;
    for (size_t k = 0; k < a.nprops; k++) {
        const fi_property *p = &a.props[k];
        if (p->kind == FI_PROP_CA && p->r1 == tr1->id)
            ca1++;
        if (p->kind == FI_PROP_CA && p->r1 == tr2->id)
            ca2++;
        if (p->kind == FI_PROP_CMA) {
            cma++;
            assert_true((p->r1 == tr1->id && p->r2 == tr2->id) ||
                        (p->r1 == tr2->id && p->r2 == tr1->id));
            assert_int_equal(p->nconflicts, 2); /* on z and x */
            assert_int_equal(p->nvars, 2);
        }
    }
    assert_int_equal(ca1, 1);
    assert_int_equal(ca2, 1);
    assert_int_equal(cma, 1);
    fi_summary s;
    fi_summarize(&a, &s);
    assert_int_equal(s.ia, 3);
    assert_int_equal(s.ra, 2);
    assert_int_equal(s.ra2, 2);
    fi_analysis_free(&a);
}

/* An open region lying inside one i-transaction is proved; one that
 * straddles two is not, whatever order the i-transactions come in. */
static void itx_containment(void **state)
{
    (void)state;
    fi_analysis a;
    assert_int_equal(fi_analyze(&a, &tr, NULL), 0);
    fi_itx merged[] = {{1, 15, 21}, {0, 12, 14}, {0, 0, 6}};
    assert_int_equal(fi_prove_by_itx(&a, merged, 3), 2);
    assert_int_equal(find_region(&a, 0, 3, 5)->proof, FI_PROOF_MAT);
    assert_int_equal(find_region(&a, 1, 16, 18)->proof, FI_PROOF_MAT);
    assert_int_equal(fi_properties(&a), 0);
    assert_int_equal(a.nprops, 0);
    fi_analysis_free(&a);
}

/* Reordering the run so that mb's s13 falls between ma's s2 and s3 makes
 * tr1 (and tr2) observed violations, reported with their witnesses. */
static void observed_when_interleaved(void **state)
{
    (void)state;
    fi_trace t;
    fi_trace_init(&t);
    uint32_t a2 = fi_trace_site(&t, "thread_a", "atom.c", 2);
    uint32_t a3 = fi_trace_site(&t, "thread_a", "atom.c", 3);
    uint32_t b13 = fi_trace_site(&t, "thread_b", "atom.c", 13);
    ev_add(&t, 0, FT_EV_THREAD_START, 0, 0);
    ev_add(&t, 1, FT_EV_THREAD_START, 0, 0);
    ev_add(&t, 0, FT_EV_READ, a2, Z);  /* 2 */
    ev_add(&t, 0, FT_EV_WRITE, a2, Z); /* 3 */
    ev_add(&t, 1, FT_EV_READ, b13, Z); /* 4 */
    ev_add(&t, 1, FT_EV_READ, b13, X); /* 5 */
    ev_add(&t, 1, FT_EV_WRITE, b13, Y);/* 6 */
    ev_add(&t, 0, FT_EV_WRITE, a3, X); /* 7 */
    fi_analysis a;
    assert_int_equal(fi_analyze(&a, &t, NULL), 0);
    const fi_region *r1 = find_region(&a, 0, 2, 7);
    assert_non_null(r1);
    assert_int_equal(r1->status, FI_ST_OBSERVED);
    const fi_witness *w1 = fi_region_witness(&a, r1);
    assert_int_equal(w1->out, 3);
    assert_int_equal(w1->via, 5);
    assert_int_equal(w1->in, 7);
    /* mb's region reads z after ma wrote it and x before: serializable on
     * its own (CA holds), so it stays open.  y is touched by mb only here,
     * so it is not shared and not part of the region. */
    assert_int_equal(a.nregions, 2);
    const fi_region *r2 = find_region(&a, 1, 4, 5);
    assert_non_null(r2);
    assert_int_equal(r2->status, FI_ST_OPEN);
    fi_analysis_free(&a);
    fi_trace_free(&t);
}

/* The whole chain: the same events as a CTM, reduce/'s merging, lockset/HB
 * and MAT analysis, and its i-transactions proving tr3 (section VIII). */
static void mat_from_reduce(void **state)
{
    (void)state;
    ft_ctm *c = ft_ctm_new();
    assert_non_null(c);
    char msg[256];
    for (size_t i = 0; i < tr.nev; i++) {
        ft_event ev;
        fi_trace_get(&tr, i, &ev);
        if (ft_ctm_add(c, &ev, msg, sizeof msg) != 0)
            fail_msg("ctm rejects event %zu: %s", i, msg);
    }
    assert_int_equal(ft_ctm_finish(c), 0);
    ft_reduced *r = ft_reduce(c, 0);
    assert_non_null(r);
    fi_analysis a;
    assert_int_equal(fi_analyze(&a, &tr, NULL), 0);
    assert_true(fi_prove_by_reduce(&a, r) >= 0);
    assert_int_equal(find_region(&a, 0, 13, 13)->proof, FI_PROOF_MAT);
    assert_int_equal(find_region(&a, 0, 3, 5)->status, FI_ST_OPEN);
    assert_int_equal(find_region(&a, 1, 16, 18)->status, FI_ST_OPEN);
    assert_int_equal(fi_properties(&a), 0);
    assert_int_equal(a.nprops, 3);
    fi_analysis_free(&a);
    ft_reduced_free(r);
    ft_ctm_free(c);
}

static int setup(void **state)
{
    (void)state;
    build();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fi_trace_free(&tr);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regions_found),
        cmocka_unit_test(mat_proof_and_properties),
        cmocka_unit_test(itx_containment),
        cmocka_unit_test(observed_when_interleaved),
        cmocka_unit_test(mat_from_reduce),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
