/* SPDX-License-Identifier: MIT */
/* test_infer_reduction_oracle.c - the atomicity proofs of stage iii against
 * brute force.  Every region that infer drops from prediction because it
 * cannot be violated (proved by MAT, a single conflicting event, a lock held
 * throughout, Lipton reduction; or free of concurrent conflicts) must be
 * serializable in every feasible schedule of the trace.
 *
 * Traces come from tests/model's generator (random programs run under exact
 * pthread semantics: locks, trylocks, recursive mutexes, condvars,
 * semaphores, rwlocks, fork/join).  We add random annotated regions (laminar
 * per thread, often at a lock so that the lock and reduction proofs get
 * work) and random source lines (so the layout rules infer regions too), run
 * fi_run, and walk every schedule prefix of the CTM with tests/model's
 * enumerator (no read-value guards: the larger set, the stronger claim).
 * Which transitions may swap is restated below from the pthread semantics,
 * independently of infer's classification.
 *
 * This test found that SEM_INIT had no conflict role and that regions
 * holding a cond wait_pre/wait_post could be "proved" by the single-conflict
 * rule (classify keys each on one object); both fixed in infer/.
 *
 * FT_INFER_ORACLE_SEEDS sets how many traces (default 4000);
 * FT_INFER_ORACLE_VERBOSE=1 prints every violated claim in one line;
 * FT_INFER_ORACLE_NO_MAT=1 leaves the MAT proof (reduce/) out. */
#include "atomic_oracle.h"
#include "helpers.h"
#include "tests/model/gen.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define MAX_TRANS 26 /* bigger models make the enumeration too slow */
#define MAX_REG 64

static unsigned nseeds(void)
{
    const char *s = getenv("FT_INFER_ORACLE_SEEDS");
    return s ? (unsigned)strtoul(s, NULL, 10) : 4000;
}

/* Per thread: up to 3 disjoint regions, sometimes one around them all,
 * written as counts of REGION_BEGIN before and REGION_END after events. */
static void pick_regions(uint64_t *rs, const evbuf *b, unsigned nthreads,
                         uint8_t *nbegin, uint8_t *nend)
{
    size_t pos[256];
    for (uint32_t t = 0; t < nthreads; t++) {
        size_t np = 0;
        for (size_t i = 0; i < b->n && np < 256; i++)
            if (b->ev[i].tid == t)
                pos[np++] = i;
        if (np < 2)
            continue;
        uint32_t want = rnd_below(rs, 4);
        size_t at = 0, outer_lo = SIZE_MAX, outer_hi = 0;
        for (uint32_t k = 0; k < want && at + 1 < np; k++) {
            size_t s = at + rnd_below(rs, (uint32_t)(np - at - 1));
            /* Half the time start at the thread's next lock, or just
             * inside its critical section and end inside it too. */
            size_t inside_until = 0;
            if (rnd_below(rs, 2))
                for (size_t j = s; j + 2 < np; j++) {
                    const ft_event *lk = &b->ev[pos[j]];
                    if (lk->kind != FT_EV_MUTEX_LOCK &&
                        lk->kind != FT_EV_RW_WRLOCK &&
                        lk->kind != FT_EV_RW_RDLOCK)
                        continue;
                    s = j + rnd_below(rs, 2);
                    for (size_t u = s + 1; s > j && u < np; u++)
                        if ((b->ev[pos[u]].kind == FT_EV_MUTEX_UNLOCK ||
                             b->ev[pos[u]].kind == FT_EV_RW_UNLOCK) &&
                            b->ev[pos[u]].addr == lk->addr) {
                            inside_until = u - 1;
                            break;
                        }
                    break;
                }
            size_t e = s + 1 + rnd_below(rs, (uint32_t)(np - s - 1 < 8
                                                             ? np - s - 1
                                                             : 8));
            if (inside_until > s)
                e = inside_until;
            nbegin[pos[s]]++;
            nend[pos[e]]++;
            outer_lo = s < outer_lo ? s : outer_lo;
            outer_hi = e;
            at = e + 1;
        }
        if (want >= 2 && outer_lo < outer_hi && rnd_below(rs, 2)) {
            nbegin[pos[outer_lo]]++; /* first: LIFO pairing nests it */
            nend[pos[outer_hi]]++;
        }
    }
}

static void add_marker(fi_trace *t, uint32_t tid, unsigned kind,
                       uint32_t site)
{
    ft_event e;
    memset(&e, 0, sizeof e);
    e.tid = tid;
    e.kind = (uint16_t)kind;
    e.site = site;
    if (fi_trace_add(t, &e) < 0)
        abort();
}

/* Lock discipline for the lock proof: keeps only the accesses of the
 * generator's first variable made while holding its first mutex.  Dropping
 * memory events keeps the run valid for the model (no read-value guards
 * here; synchronisation is untouched). */
static void discipline(evbuf *b)
{
    enum { VAR0 = 0x1000, MUTEX0 = 0x2000 };
    unsigned held[8] = {0};
    size_t kept = 0;
    for (size_t i = 0; i < b->n; i++) {
        ft_event *e = &b->ev[i];
        unsigned *h = &held[e->tid & 7];
        if (e->kind == FT_EV_MUTEX_LOCK && e->addr == MUTEX0 && e->rc == 0)
            ++*h;
        else if (e->kind == FT_EV_MUTEX_UNLOCK && e->addr == MUTEX0)
            --*h;
        else if (e->kind == FT_EV_COND_WAIT && e->obj2 == MUTEX0)
            *h = 0;
        else if (e->kind == FT_EV_COND_WAKE && e->obj2 == MUTEX0)
            *h = 1;
        int access = e->kind == FT_EV_READ || e->kind == FT_EV_WRITE ||
                     e->kind == FT_EV_ATOMIC_RMW;
        if (access && e->addr == VAR0 && *h == 0)
            continue;
        b->ev[kept] = *e;
        b->ev[kept].index = kept;
        kept++;
    }
    b->n = kept;
}

/* The generated run with markers and source lines, as an fi_trace. */
static void build_trace(uint64_t *rs, const evbuf *b, unsigned nthreads,
                        fi_trace *t)
{
    uint8_t *nbegin = calloc(b->n, 1), *nend = calloc(b->n, 1);
    assert_non_null(nbegin);
    assert_non_null(nend);
    pick_regions(rs, b, nthreads, nbegin, nend);
    uint32_t msite = fi_trace_site(t, "f", "gen.c", 1);
    for (size_t i = 0; i < b->n; i++) {
        ft_event e = b->ev[i];
        for (uint8_t k = 0; k < nbegin[i]; k++)
            add_marker(t, e.tid, FT_EV_REGION_BEGIN, msite);
        e.site = fi_trace_site(t, "f", "gen.c", 10 + rnd_below(rs, 14));
        assert_true(e.site != 0);
        assert_int_equal(fi_trace_add(t, &e), 0);
        for (uint8_t k = 0; k < nend[i]; k++)
            add_marker(t, e.tid, FT_EV_REGION_END, msite);
    }
    free(nbegin);
    free(nend);
}

static ft_ctm *ctm_of(const fi_trace *t)
{
    ft_ctm *c = ft_ctm_new();
    assert_non_null(c);
    char msg[256];
    for (size_t i = 0; i < t->nev; i++) {
        ft_event ev;
        fi_trace_get(t, i, &ev);
        if (ft_ctm_add(c, &ev, msg, sizeof msg) != 0)
            fail_msg("CTM rejects event %zu: %s", i, msg);
    }
    assert_int_equal(ft_ctm_finish(c), 0);
    return c;
}

static void print_case(const fi_trace *t, const ft_ctm *c,
                       const checked_region *cr)
{
    print_message("region T%u events %llu-%llu status %s proof %u\n",
                  cr->r->tid, (unsigned long long)cr->r->first,
                  (unsigned long long)cr->r->last,
                  fi_status_name(cr->r->status), cr->r->proof);
    for (size_t i = 0; i < t->nev; i++)
        print_message("  ev %zu: T%u kind %u addr %#llx obj2 %#llx "
                      "value %llu arg %u rc %d\n",
                      i, t->ev[i].tid, t->ev[i].kind,
                      (unsigned long long)t->ev[i].addr,
                      (unsigned long long)fi_trace_extra(t, i)->obj2,
                      (unsigned long long)t->ev[i].value, t->ev[i].arg,
                      t->ev[i].rc);
    print_message("  schedule (trace events):");
    for (uint32_t i = 0; i < cr->bad_n; i++)
        print_message(" %llu", (unsigned long long)c->event[cr->bad_seq[i]]);
    print_message("\n");
}

/* One line: the region's operations, then the schedule with the region's
 * transitions starred (thread:operation/object). */
static void print_compact(uint64_t seed, unsigned kind, const ft_ctm *c,
                          const checked_region *cr)
{
    fprintf(stderr, "seed %llu proof %u region:", (unsigned long long)seed,
            kind);
    for (uint32_t i = 0; i < cr->n; i++)
        fprintf(stderr, " %s", ft_op_name(c->op[cr->tr[i]]));
    fprintf(stderr, " | schedule:");
    for (uint32_t i = 0; i < cr->bad_n; i++) {
        uint32_t x = cr->bad_seq[i];
        int in = c->tid[x] == cr->r->tid && x >= cr->tr[0] &&
                 x <= cr->tr[cr->n - 1];
        fprintf(stderr, " %s%u:%s/%d", in ? "*" : "", c->tid[x],
                ft_op_name(c->op[x]), (int)c->obj[x]);
    }
    fprintf(stderr, "\n");
}

typedef struct tally {
    unsigned models, failures;
    unsigned proved[6], failed[6]; /* by proof; [5]: no conflict */
    unsigned open_checked, open_violated;
} tally;

/* Regions with at least two transitions, with those.  a0 ran without the
 * MAT proof, a1 with it (which relabels regions other proofs already
 * proved): a claim is a0's proof if it has one, else a1's MAT. */
static size_t collect_regions(const fi_analysis *a0, const fi_analysis *a1,
                              const ft_ctm *c, checked_region *reg)
{
    size_t nreg = 0;
    assert_int_equal(a0->nregions, a1->nregions);
    for (size_t k = 0; k < a0->nregions && nreg < MAX_REG; k++) {
        const fi_region *r = &a0->regions[k], *r1 = &a1->regions[k];
        checked_region *cr = &reg[nreg];
        memset(cr, 0, sizeof *cr);
        assert_true(r1->tid == r->tid && r1->first == r->first &&
                    r1->last == r->last);
        cr->r = r;
        if (r->status == FI_ST_NOCONFLICT)
            cr->kind = 5;
        else if (r->status == FI_ST_PROVED)
            cr->kind = r->proof % 5;
        else if (r1->status == FI_ST_PROVED)
            cr->kind = r1->proof % 5;
        cr->claimed = cr->kind != 0;
        for (uint32_t x = 0; x < c->ntrans; x++)
            if (c->tid[x] == r->tid && c->event[x] >= r->first &&
                c->event[x] <= r->last)
                cr->tr[cr->n++] = x;
        if (cr->n >= 2)
            nreg++;
    }
    return nreg;
}

static void check_seed(uint64_t seed, tally *tl, int verbose,
                       int with_mat)
{
    gen_params p;
    gen_small_params(seed, &p);
    int locked = seed % 3 == 0;
    if (locked) { /* one lock, one or two variables: critical sections */
        p.nthreads = 2 + (seed / 3) % 2;
        p.ops = p.nthreads == 2 ? 6 : 4;
        p.nvars = 1 + (seed / 6) % 2;
        p.nlocks = 1;
        p.nconds = p.nsems = p.nrw = 0;
    }
    evbuf b = {0};
    gen_run(seed, &p, &b);
    if (locked)
        discipline(&b);
    uint64_t rs = seed * 0x9e3779b97f4a7c15ull + 1;
    fi_trace t;
    fi_trace_init(&t);
    build_trace(&rs, &b, p.nthreads, &t);
    evbuf_free(&b);
    ft_ctm *c = ctm_of(&t);
    if (c->ntrans > MAX_TRANS || c->nvars > ORACLE_MAX_VARS ||
        c->nthreads > ORACLE_MAX_THREADS) {
        ft_ctm_free(c);
        fi_trace_free(&t);
        return;
    }
    fi_analysis a0, a1;
    char why[256];
    assert_int_equal(fi_run(&a0, &t, NULL, 0, NULL, 0), 0);
    if (with_mat) {
        assert_int_equal(fi_run(&a1, &t, NULL, 1, why, sizeof why), 0);
        assert_string_equal(why, ""); /* the MAT proof ran */
    }
    static checked_region reg[MAX_REG];
    size_t nreg = collect_regions(&a0, with_mat ? &a1 : &a0, c, reg);
    assert_true(atomic_oracle_walk(c, reg, nreg) > 0);
    tl->models++;
    for (size_t k = 0; k < nreg; k++) {
        const checked_region *cr = &reg[k];
        if (!cr->claimed) {
            tl->open_checked++;
            tl->open_violated += cr->violated != 0;
            continue;
        }
        unsigned kind = cr->kind;
        tl->proved[kind]++;
        if (!cr->violated)
            continue;
        if (verbose)
            print_compact(seed, kind, c, cr);
        tl->failures++;
        if (tl->failed[kind]++ == 0) { /* the first of each kind */
            print_message("seed %llu: a region infer claims atomic is "
                          "violated\n",
                          (unsigned long long)seed);
            print_case(&t, c, cr);
        }
    }
    fi_analysis_free(&a0);
    if (with_mat)
        fi_analysis_free(&a1);
    ft_ctm_free(c);
    fi_trace_free(&t);
}

static void proofs_hold_in_every_schedule(void **state)
{
    (void)state;
    unsigned n = nseeds();
    const char *vb = getenv("FT_INFER_ORACLE_VERBOSE");
    const char *nm = getenv("FT_INFER_ORACLE_NO_MAT");
    int verbose = vb && *vb == '1';
    int with_mat = !(nm && *nm == '1');
    tally tl;
    memset(&tl, 0, sizeof tl);
    for (uint64_t seed = 1; seed <= n; seed++)
        check_seed(seed, &tl, verbose, with_mat);
    fprintf(stderr,
            "%u models; claims checked: mat %u single %u lock %u reduction "
            "%u no-conflict %u; unproved regions violated by some schedule: "
            "%u of %u; failures %u (mat %u single "
            "%u lock %u reduction %u no-conflict %u)\n",
            tl.models, tl.proved[FI_PROOF_MAT], tl.proved[FI_PROOF_SINGLE],
            tl.proved[FI_PROOF_LOCK], tl.proved[FI_PROOF_REDUCTION],
            tl.proved[5], tl.open_violated, tl.open_checked,
            tl.failures, tl.failed[FI_PROOF_MAT], tl.failed[FI_PROOF_SINGLE],
            tl.failed[FI_PROOF_LOCK], tl.failed[FI_PROOF_REDUCTION],
            tl.failed[5]);
    assert_int_equal(tl.failures, 0);
    /* The test must exercise every proof, and the oracle must be able to
     * say no (most unproved regions are violable). */
    assert_true(tl.models > n / 2);
    if (n >= 500) {
        for (unsigned k = FI_PROOF_MAT; k <= 5; k++)
            if (k != FI_PROOF_MAT || with_mat)
                assert_true(tl.proved[k] > 0);
        assert_true(tl.open_violated > tl.open_checked / 4);
    }
}

/* The reduction rule on a hand-made case: acquire, guarded update, release
 * is provable, and the same with the lock released in the middle is not
 * (the second critical section starts with a right mover after a left). */
static void reduction_by_hand(void **state)
{
    (void)state;
    enum { X = 0x1000, L = 0x2000 };
    for (int split = 0; split < 2; split++) {
        fi_trace t;
        fi_trace_init(&t);
        uint32_t s = fi_trace_site(&t, "f", "h.c", 1);
        for (uint32_t tid = 0; tid < 2; tid++) {
            ev_add(&t, tid, FT_EV_REGION_BEGIN, s, 0);
            ev_add(&t, tid, FT_EV_MUTEX_LOCK, s, L);
            ev_add(&t, tid, FT_EV_READ, s, X);
            if (split) {
                ev_add(&t, tid, FT_EV_MUTEX_UNLOCK, s, L);
                ev_add(&t, tid, FT_EV_MUTEX_LOCK, s, L);
            }
            ev_add(&t, tid, FT_EV_WRITE, s, X);
            ev_add(&t, tid, FT_EV_MUTEX_UNLOCK, s, L);
            ev_add(&t, tid, FT_EV_READ, s, 0x3000 + 8 * tid); /* local */
            ev_add(&t, tid, FT_EV_REGION_END, s, 0);
        }
        fi_analysis a;
        assert_int_equal(fi_run(&a, &t, NULL, 0, NULL, 0), 0);
        const fi_region *r = find_region(&a, 0, 0, t.nev / 2 - 1);
        assert_non_null(r);
        if (split) {
            assert_int_equal(r->status, FI_ST_OPEN);
        } else {
            assert_int_equal(r->status, FI_ST_PROVED);
            /* region spans beyond the critical section: not LOCK */
            assert_int_equal(r->proof, FI_PROOF_REDUCTION);
        }
        fi_analysis_free(&a);
        fi_trace_free(&t);
    }
}

/* The two counterexamples the oracle found in the reduction rule, by hand.
 * (1) T0: [lock m; read x], T1: trylock m fails while T0 holds it, then
 * writes x.  The acquire is no right mover past the failed try: in the
 * schedule lock, trylock-fail, write x, read x the region is not
 * serializable.  (2) T0: [lock m; wait(c, m)] with T1 taking m during the
 * wait: the wait_post takes m again, so it does not move either. */
static void reduction_counterexamples(void **state)
{
    (void)state;
    enum { X = 0x1000, M = 0x2000, C = 0x3000 };
    fi_trace t;
    fi_trace_init(&t);
    uint32_t s = fi_trace_site(&t, "f", "h.c", 1);
    uint64_t b = ev_add(&t, 0, FT_EV_REGION_BEGIN, s, 0);
    ev_add(&t, 0, FT_EV_MUTEX_LOCK, s, M);
    ft_event e;
    memset(&e, 0, sizeof e);
    e.tid = 1;
    e.kind = FT_EV_MUTEX_LOCK;
    e.site = s;
    e.addr = M;
    e.arg = FT_HOW_TRY;
    e.rc = 16; /* EBUSY */
    assert_int_equal(fi_trace_add(&t, &e), 0);
    ev_add(&t, 0, FT_EV_READ, s, X);
    uint64_t end = ev_add(&t, 0, FT_EV_REGION_END, s, 0);
    ev_add(&t, 0, FT_EV_MUTEX_UNLOCK, s, M);
    ev_add(&t, 1, FT_EV_WRITE, s, X);
    fi_analysis a;
    assert_int_equal(fi_run(&a, &t, NULL, 0, NULL, 0), 0);
    const fi_region *r = find_region(&a, 0, b, end);
    assert_non_null(r);
    assert_int_equal(r->status, FI_ST_OPEN);
    fi_analysis_free(&a);
    fi_trace_free(&t);

    fi_trace_init(&t);
    s = fi_trace_site(&t, "f", "h.c", 1);
    b = ev_add(&t, 0, FT_EV_REGION_BEGIN, s, 0);
    ev_add(&t, 0, FT_EV_MUTEX_LOCK, s, M);
    ev_add2(&t, 0, FT_EV_COND_WAIT, s, C, M, 0);
    ev_add(&t, 1, FT_EV_MUTEX_LOCK, s, M);
    ev_add(&t, 1, FT_EV_MUTEX_UNLOCK, s, M);
    memset(&e, 0, sizeof e);
    e.tid = 0;
    e.kind = FT_EV_COND_WAKE;
    e.site = s;
    e.addr = C;
    e.obj2 = M;
    e.arg = 1; /* timed out */
    assert_int_equal(fi_trace_add(&t, &e), 0);
    end = ev_add(&t, 0, FT_EV_REGION_END, s, 0);
    ev_add(&t, 0, FT_EV_MUTEX_UNLOCK, s, M);
    assert_int_equal(fi_run(&a, &t, NULL, 0, NULL, 0), 0);
    r = find_region(&a, 0, b, end);
    assert_non_null(r);
    assert_int_equal(r->status, FI_ST_OPEN);
    fi_analysis_free(&a);
    fi_trace_free(&t);
}

/* A region inside one critical section of the lock that guards what it
 * touches is proved by the lock rule. */
static void lock_by_hand(void **state)
{
    (void)state;
    enum { X = 0x1000, L = 0x2000 };
    fi_trace t;
    fi_trace_init(&t);
    uint32_t s = fi_trace_site(&t, "f", "h.c", 1);
    uint64_t first = 0, last = 0;
    for (uint32_t tid = 0; tid < 2; tid++) {
        ev_add(&t, tid, FT_EV_MUTEX_LOCK, s, L);
        uint64_t b = ev_add(&t, tid, FT_EV_REGION_BEGIN, s, 0);
        ev_add(&t, tid, FT_EV_READ, s, X);
        ev_add(&t, tid, FT_EV_WRITE, s, X);
        uint64_t e = ev_add(&t, tid, FT_EV_REGION_END, s, 0);
        ev_add(&t, tid, FT_EV_MUTEX_UNLOCK, s, L);
        if (tid == 0) {
            first = b;
            last = e;
        }
    }
    fi_analysis a;
    assert_int_equal(fi_run(&a, &t, NULL, 0, NULL, 0), 0);
    const fi_region *r = find_region(&a, 0, first, last);
    assert_non_null(r);
    assert_int_equal(r->status, FI_ST_PROVED);
    assert_int_equal(r->proof, FI_PROOF_LOCK);
    fi_analysis_free(&a);
    fi_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reduction_by_hand),
        cmocka_unit_test(lock_by_hand),
        cmocka_unit_test(reduction_counterexamples),
        cmocka_unit_test(proofs_hold_in_every_schedule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
