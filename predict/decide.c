/* SPDX-License-Identifier: MIT */
/* decide.c - the cheap decisions, made before any solver call
 * (docs/prediction.md, "deciding without the solver"): a property holds
 * when the value order proves it (vorder*.c), and is violated when a
 * short search finds a violating schedule by moving one thread in the
 * recorded run, checked step by step by the exact executor (exec.c).
 *
 * The search.  A candidate holds one thread h back from some position on
 * (after a region transition: the region's thread, so that the others
 * run into its region; or before another thread's transition that
 * conflicts with a region: that thread, so that the region's thread runs
 * ahead of it), runs the recorded order of the other threads greedily
 * (a thread that cannot go on waits until what it waits for changes),
 * and after every step that reached something new from a region, tries
 * to release: h runs alone for a few steps, then the regions' threads; if
 * the monitor sees a data violation, that prefix is the witness.  The
 * run starts at a cut K of the recorded run (everything before K in its
 * recorded order, which is a feasible prefix: checked by executing it),
 * so candidates are taken in order of K and the executor's state at K is
 * advanced once for all of them; each candidate's own steps are taken
 * back from the journal.  Every accepted witness is a feasible,
 * data-consistent, violating prefix (tests/predict/test_predict_random.c
 * checks that against the oracle); a property the search does not
 * violate is left to the solver, so the search can only save time. */
#include "predict/decide_internal.h"

#include <stdlib.h>
#include <string.h>

#define NONE DECIDE_NONE
/* The value order's check costs up to 2^20 index steps a property
 * (vorder_ca.c) and on some traces claims none: on a 10^7-event work
 * queue, 18 ms each for 399,967 properties.  After this many in a row
 * that took VO_SLOW_S or more and decided nothing, it is not asked again
 * in the pass (the search and the solver still are); a claim resets the
 * count. */
#define VO_GIVE_UP 256u
#define VO_SLOW_S 0.001
/* The search's share of the time left when it starts (o->until): what it
 * does not decide goes to the solver, which must have time left for it.
 * On sysprog21/concurrent-programs' tpool (12,232 events) the search's
 * 5,067 candidates, 50 ms each, none violating, used all of --time 120,
 * and 265 properties were never solved; without the search the solver
 * found 4 violations among them. */
#define SEARCH_SHARE 0.25

/* Whether the prefix run so far is a violation worth stopping the
 * search for this property: a data violation in which a region's read
 * returned another value than recorded (its thread goes on to compute
 * something the recorded run did not: the violations that make programs
 * fail).  A data violation without one, or one through synchronisation
 * conflicts alone, is kept aside (the best of them); after a data
 * violation the candidate stops: other candidates may find a better one. */
static int seen(ft_decider *d)
{
    int v = ft_exec_violated(d->x);
    if (!v)
        return 0;
    if ((v & 2) && ft_exec_changed(d->x))
        return 1;
    int level = v & 2 ? 2 : 1;
    /* past a data violation nothing better comes in this run; past a
     * synchronisation one, a data one may still */
    d->stop |= level == 2;
    if (!d->spare || d->spare_level[d->cur_i] >= level)
        return 0;
    ft_presult *r = calloc(1, sizeof *r);
    if (!r) {
        d->oom = 1;
        return 0;
    }
    int rc = ft_decide_witness(d, d->cur, d->cur_k, d->cur_s0, level == 2, r);
    if (rc == 0) {
        if (d->spare[d->cur_i]) {
            ft_presult_free(d->spare[d->cur_i]);
            free(d->spare[d->cur_i]);
        }
        d->spare[d->cur_i] = r;
        d->spare_level[d->cur_i] = (uint8_t)level;
        if (level == 2 && d->gviol)
            d->gviol[d->cur->group] = 1;
    } else {
        d->st.unconfirmed += rc == 1;
        ft_presult_free(r);
        free(r);
        d->oom |= rc < 0;
    }
    return 0;
}

ft_decider *ft_decider_new(ft_ctm *c, const ft_window_index *w)
{
    ft_decider *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->c = c;
    d->vo = ft_window_index_vorder(w);
    d->ix = ft_window_index_slice(w);
    d->x = ft_exec_new(c);
    uint32_t nt = c->nthreads + 1;
    d->heap = malloc(sizeof *d->heap * nt);
    d->inheap = calloc(nt, 1);
    d->blocked = malloc(sizeof *d->blocked * nt);
    d->oreach = malloc(sizeof *d->oreach * 8 * ((size_t)c->nvars + 1));
    d->treach = malloc(sizeof *d->treach * nt);
    d->touched = malloc(sizeof *d->touched * ((size_t)c->nvars + 1));
    if (!d->x || !d->heap || !d->inheap || !d->blocked || !d->oreach ||
        !d->treach || !d->touched) {
        ft_decider_free(d);
        return NULL;
    }
    for (size_t i = 0; i < 8 * ((size_t)c->nvars + 1); i++)
        d->oreach[i] = NONE;
    d->base_bad = NONE;
    d->unlocked = calloc((size_t)c->ntrans / 8 + 1, 1);
    if (!d->unlocked) {
        ft_decider_free(d);
        return NULL;
    }
    for (uint32_t t = 0; t < c->nthreads; t++) {
        uint32_t depth = 0; /* a cond wait counts as one release */
        for (uint32_t q = 0; q < c->len[t]; q++) {
            uint32_t id = ft_ctm_at(c, t, q);
            int acq;
            if (!depth)
                d->unlocked[id / 8] |= (uint8_t)(1u << id % 8);
            if (vo_lock_op(c, id, &acq) != VO_NONE)
                depth = acq ? depth + 1 : depth ? depth - 1 : 0;
        }
    }
    return d;
}

/* The last place at or before thread u's position q where u holds no
 * lock (at most 4096 back), or q. */
static uint32_t unlocked_at_or_before(const ft_decider *d, uint32_t u,
                                      uint32_t q)
{
    for (uint32_t k = 0; k <= q && k < 4096; k++) {
        uint32_t id = ft_ctm_at(d->c, u, q - k);
        if (d->unlocked[id / 8] >> id % 8 & 1)
            return q - k;
    }
    return q;
}

void ft_decider_free(ft_decider *d)
{
    if (!d)
        return;
    ft_exec_free(d->x);
    free(d->heap);
    free(d->inheap);
    free(d->blocked);
    free(d->steps);
    free(d->oreach);
    free(d->treach);
    free(d->touched);
    free(d->unlocked);
    free(d);
}

const ft_decide_stats *ft_decider_stats(const ft_decider *d)
{
    return &d->st;
}

static int push_step(ft_decider *d, uint32_t id)
{
    if (d->nsteps == d->capsteps) {
        uint32_t cap = d->capsteps ? 2 * d->capsteps : 1024;
        uint32_t *n = realloc(d->steps, sizeof *n * cap);
        if (!n)
            return -1;
        d->steps = n;
        d->capsteps = cap;
    }
    d->steps[d->nsteps++] = id;
    return 0;
}

/* ---- the greedy scheduler: recorded order, waiting threads aside ---- */

static uint32_t next_id(const ft_decider *d, uint32_t t)
{
    uint32_t p = ft_exec_pos(d->x, t);
    return p < d->c->len[t] ? ft_ctm_at(d->c, t, p) : NONE;
}

static void heap_push(ft_decider *d, uint32_t t)
{
    if (d->inheap[t] || next_id(d, t) == NONE)
        return;
    d->inheap[t] = 1;
    uint32_t i = d->nheap++;
    d->heap[i] = t;
    while (i > 0) {
        uint32_t up = (i - 1) / 2;
        if (next_id(d, d->heap[up]) <= next_id(d, d->heap[i]))
            break;
        uint32_t tmp = d->heap[up];
        d->heap[up] = d->heap[i];
        d->heap[i] = tmp;
        i = up;
    }
}

static uint32_t heap_pop(ft_decider *d)
{
    uint32_t t = d->heap[0];
    d->inheap[t] = 0;
    d->heap[0] = d->heap[--d->nheap];
    for (uint32_t i = 0;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < d->nheap && next_id(d, d->heap[l]) < next_id(d, d->heap[m]))
            m = l;
        if (r < d->nheap && next_id(d, d->heap[r]) < next_id(d, d->heap[m]))
            m = r;
        if (m == i)
            break;
        uint32_t tmp = d->heap[m];
        d->heap[m] = d->heap[i];
        d->heap[i] = tmp;
        i = m;
    }
    return t;
}

static void sched_clear(ft_decider *d)
{
    while (d->nheap)
        d->inheap[d->heap[--d->nheap]] = 0;
    d->nblocked = 0;
}

/* After transition id ran: the threads waiting for what it changed may
 * go on. */
static void wake(ft_decider *d, uint32_t id)
{
    const ft_ctm *c = d->c;
    uint32_t t = c->tid[id], nv = c->nvars, o[3], no = 0;
    if (c->obj[id] < nv)
        o[no++] = c->obj[id];
    if (c->obj2[id] < nv)
        o[no++] = c->obj2[id];
    if (c->op[id] == FT_OP_FORK && c->value[id] < c->nthreads)
        o[no++] = nv + (uint32_t)c->value[id];
    if (ft_exec_pos(d->x, t) == c->len[t] && no < 3)
        o[no++] = nv + t;
    for (uint32_t i = 0; i < d->nblocked;) {
        int hit = 0;
        for (uint32_t k = 0; k < no; k++)
            hit |= d->blocked[i].obj == o[k];
        if (hit) {
            heap_push(d, d->blocked[i].t);
            d->blocked[i] = d->blocked[--d->nblocked];
        } else {
            i++;
        }
    }
}

/* A read outside the regions that would return another value may still
 * run as its thread's last step (docs/prediction.md, the data rule): the
 * thread stops there, and the read can close a cycle.  0 ok. */
static int last_read(ft_decider *d, uint32_t t)
{
    uint32_t id = next_id(d, t);
    if (id == NONE || ft_exec_step(d->x, id, 1) != FT_EXEC_OK)
        return -1;
    return push_step(d, id);
}

/* Runs thread t alone for at most n steps, stopping at a data
 * violation.  Returns 1 on a violation. */
static int run_alone(ft_decider *d, uint32_t t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = next_id(d, t);
        if (id == NONE)
            return 0;
        int why = ft_exec_step(d->x, id, 0);
        if (why == FT_EXEC_VALUE)
            return !last_read(d, t) && seen(d);
        if (why != FT_EXEC_OK || push_step(d, id))
            return 0;
        if (seen(d))
            return 1;
        if (d->stop)
            return 0;
    }
    return 0;
}

/* The regions' threads other than h, each alone in turn.  1 on a
 * violation worth stopping for. */
static int run_regions(ft_decider *d, const ft_prop *p, uint32_t h)
{
    uint32_t nreg = p->kind == FT_PROP_CMA ? 2 : 1;
    for (uint32_t g = 0; g < nreg && !d->stop; g++)
        if (p->r[g].thread != h &&
            run_alone(d, p->r[g].thread, RELEASE_STEPS))
            return 1;
    return 0;
}

/* The release: h runs alone, and after each of its steps that reached
 * something new the regions' other threads run alone (taken back when
 * they find nothing: h may have to stop anywhere, e.g. before its own
 * region's end, which it may not pass after a changed read).  On a
 * violation the steps stay; otherwise they are taken back. */
static int try_release(ft_decider *d, const ft_prop *p, uint32_t h)
{
    size_t m = ft_exec_mark(d->x);
    uint32_t n0 = d->nsteps;
    for (uint32_t i = 0; i < RELEASE_STEPS && !d->stop; i++) {
        uint64_t g0 = ft_exec_gen(d->x);
        uint32_t id = next_id(d, h);
        if (id == NONE)
            break;
        int why = ft_exec_step(d->x, id, 0);
        if (why == FT_EXEC_VALUE) {
            if (!last_read(d, h) && (seen(d) || run_regions(d, p, h)))
                return 1;
            break;
        }
        if (why != FT_EXEC_OK || push_step(d, id))
            break;
        if (seen(d))
            return 1;
        if (ft_exec_gen(d->x) == g0)
            continue;
        size_t m2 = ft_exec_mark(d->x);
        uint32_t n2 = d->nsteps;
        if (run_regions(d, p, h))
            return 1;
        ft_exec_undo(d->x, m2);
        d->nsteps = n2;
    }
    ft_exec_undo(d->x, m);
    d->nsteps = n0;
    return 0;
}

/* ---- candidates ---- */

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return (x->prop > y->prop) - (x->prop < y->prop);
}

typedef struct cvec {
    cand *v;
    size_t n, cap;
} cvec;

static int add_cand(cvec *cv, uint32_t k, uint32_t prop, uint32_t hold)
{
    if (cv->n == cv->cap) {
        size_t cap = cv->cap ? 2 * cv->cap : 256;
        cand *n = realloc(cv->v, sizeof *n * cap);
        if (!n)
            return -1;
        cv->v = n;
        cv->cap = cap;
    }
    cv->v[cv->n++] = (cand){k, prop, hold};
    return 0;
}

/* Candidates of property i: its regions' threads held after each shared
 * region transition but the last (for CMA, also before the region); for
 * CA, each other thread held just
 * before its last transition, recorded before the region ends, that
 * conflicts with a region transition, and before its last such
 * transition on another object than that one's, when earlier. */
static int candidates(const ft_decider *d, const ft_prop *p, uint32_t i,
                      cvec *cv)
{
    const ft_ctm *c = d->c;
    uint32_t nreg = p->kind == FT_PROP_CMA ? 2 : 1;
    for (uint32_t g = 0; g < nreg; g++) {
        const ft_pregion *r = &p->r[g];
        uint32_t shared[MAX_SPLITS], ns = 0;
        for (uint32_t q = r->first; q < r->last && ns < MAX_SPLITS; q++)
            if (ft_ctm_is_shared(c, ft_ctm_at(c, r->thread, q)))
                shared[ns++] = q;
        for (uint32_t s = 0; s < ns; s++)
            if (add_cand(cv, ft_ctm_at(c, r->thread, shared[s] + 1), i,
                         r->thread))
                return -1;
        /* CMA: the region held before it starts, so that the other one
         * begins first and, released, it runs in the middle */
        if (nreg == 2 &&
            add_cand(cv, ft_ctm_at(c, r->thread,
                                   unlocked_at_or_before(d, r->thread,
                                                         r->first)),
                     i, r->thread))
            return -1;
    }
    if (p->kind != FT_PROP_CA || !d->ix)
        return 0;
    const ft_pregion *r = &p->r[0];
    uint32_t end = ft_ctm_at(c, r->thread, r->last), nrem = 0;
    for (uint32_t u = 0; u < c->nthreads && nrem < MAX_REMOTE; u++) {
        if (u == r->thread || !c->len[u])
            continue;
        /* u's last transition conflicting with the region, and its last
         * one on another object than that one's (earlier) */
        uint32_t hi = ft_ctm_pos_before(c, u, end), best = NONE;
        uint32_t last_of[MAX_SPLITS + 1], obj_of[MAX_SPLITS + 1], nl = 0;
        for (uint32_t q = r->first; q <= r->last; q++) {
            uint32_t z = ft_ctm_at(c, r->thread, q), o = c->obj[z];
            if (o >= c->nvars || !ft_ctm_is_shared(c, z))
                continue;
            int rd = c->vars[o].kind == FT_VAR_MEMORY && !ft_ctm_writes(c, z);
            const uint32_t *first = rd ? d->ix->wr_first : d->ix->all_first;
            const uint32_t *list = rd ? d->ix->wr : d->ix->all;
            uint32_t a = first[o], b = first[o + 1];
            uint32_t e = ft_slice_upper(c, list, a, b, u, hi);
            if (e > a && c->tid[list[e - 1]] == u &&
                ft_ctm_conflict(c, list[e - 1], z)) {
                if (best == NONE || list[e - 1] > best)
                    best = list[e - 1];
                if (nl < MAX_SPLITS) {
                    last_of[nl] = list[e - 1];
                    obj_of[nl++] = o;
                }
            }
        }
        uint32_t before = NONE;
        for (uint32_t k = 0; best != NONE && k < nl; k++)
            if (obj_of[k] != c->obj[best] && last_of[k] < best &&
                (before == NONE || last_of[k] > before))
                before = last_of[k];
        if (best != NONE) {
            /* before the critical section around it, if any: held inside
             * one it would keep the others out */
            best = ft_ctm_at(c, u, unlocked_at_or_before(d, u, c->pos[best]));
            if (add_cand(cv, best, i, u))
                return -1;
            nrem++;
        }
        /* and held before the earlier one: a region that reads a then
         * b against a thread that writes a then b is violated only when
         * the region's read of a comes before both writes and its read
         * of b after them (data/reorder.c: held before the last, the
         * write of b, the search found nothing, and Z3 took 3.3 s) */
        if (before != NONE) {
            before =
                ft_ctm_at(c, u, unlocked_at_or_before(d, u, c->pos[before]));
            if (before != best && add_cand(cv, before, i, u))
                return -1;
        }
    }
    return 0;
}

/* Runs the recorded transitions below k in x (the base state). */
static void advance_base(ft_decider *d, uint32_t k)
{
    while (d->base < k && d->base_bad == NONE) {
        if (ft_exec_step(d->x, d->base, 0) != FT_EXEC_OK)
            d->base_bad = d->base;
        else
            d->base++;
    }
    ft_exec_commit(d->x); /* the base is never taken back */
}

/* The scheduler's unit: thread t's next transition, and when that leaves
 * it holding a lock, the rest of its critical section with it (a thread
 * that stopped inside one, on a read that would return another value,
 * would keep the others out for good).  If the unit cannot run whole,
 * it is taken back and t waits for what stopped it; a read that stopped
 * it may still run as t's last step, and is tried as such.  After a unit
 * that reached something new, the held thread is tried released.
 * Returns 0 ran (or waits), 2 violation found, -1 out of memory. */
static int run_unit(ft_decider *d, const ft_prop *p, uint32_t hold,
                    uint32_t t)
{
    size_t m = ft_exec_mark(d->x);
    uint32_t n0 = d->nsteps;
    uint64_t g0 = ft_exec_gen(d->x);
    uint32_t id = NONE;
    int why = FT_EXEC_OK;
    do {
        id = next_id(d, t);
        if (id == NONE)
            break;
        why = ft_exec_step(d->x, id, 0);
        if (why != FT_EXEC_OK)
            break;
        if (push_step(d, id))
            return -1;
        if (seen(d))
            return 2;
        if (d->stop)
            return 0;
    } while ((ft_exec_held(d->x, t) || ft_exec_glued(d->x) == t) &&
             d->nsteps - n0 < RELEASE_STEPS);
    if (why == FT_EXEC_VALUE) {
        /* as the thread's last step, then released */
        size_t m2 = ft_exec_mark(d->x);
        uint32_t n2 = d->nsteps;
        uint64_t g1 = ft_exec_gen(d->x);
        if (!last_read(d, t) &&
            (seen(d) ||
             (ft_exec_gen(d->x) != g1 && try_release(d, p, hold))))
            return 2;
        ft_exec_undo(d->x, m2);
        d->nsteps = n2;
    }
    if (why != FT_EXEC_OK) {
        /* back to before the unit; t waits */
        uint32_t wait = ft_exec_waits_for(d->x, id);
        ft_exec_undo(d->x, m);
        d->nsteps = n0;
        d->blocked[d->nblocked++] = (blk){t, wait};
        return 0;
    }
    /* only a unit that ran whole changes what the others wait for */
    for (uint32_t i = n0; i < d->nsteps; i++)
        wake(d, d->steps[i]);
    heap_push(d, t);
    if (ft_exec_gen(d->x) != g0 && try_release(d, p, hold))
        return 2;
    return 0;
}

/* One candidate: 1 violated (res filled), 0 not found, -1 OOM. */
static int try_cand(ft_decider *d, const ft_prop *p, const cand *cd,
                    ft_presult *res)
{
    const ft_ctm *c = d->c;
    uint32_t nreg = p->kind == FT_PROP_CMA ? 2 : 1, s0 = NONE, last = 0;
    for (uint32_t g = 0; g < nreg; g++) {
        uint32_t a = ft_ctm_at(c, p->r[g].thread, p->r[g].first);
        uint32_t b = ft_ctm_at(c, p->r[g].thread, p->r[g].last);
        s0 = a < s0 ? a : s0;
        last = b > last ? b : last;
    }
    if (s0 > cd->k)
        s0 = cd->k;
    if (cd->k - s0 > RUN_STEPS)
        return 0; /* the monitor would replay too much */
    size_t m0 = ft_exec_mark(d->x);
    ft_exec_set_prop(d->x, p);
    for (uint32_t id = s0; id < cd->k; id++)
        ft_exec_observe(d->x, id);
    d->nsteps = 0;
    d->cur = p;
    d->cur_k = cd->k;
    d->cur_s0 = s0;
    d->cur_i = cd->prop;
    d->stop = 0;
    sched_clear(d);
    for (uint32_t t = 0; t < c->nthreads; t++)
        if (t != cd->hold)
            heap_push(d, t);
    uint64_t budget = RUN_STEPS + (uint64_t)(last > cd->k ? last - cd->k : 0);
    int found = 0;
    d->st.candidates++;
    if (try_release(d, p, cd->hold))
        found = 1;
    for (uint64_t units = 0; !found && !d->stop && d->nheap &&
                             d->nsteps < budget &&
                             units < 4 * budget;
         units++) {
        /* one candidate on a long trace runs for seconds (SV-COMP's gcd-2,
         * a diverged run of 568,000 transitions re-analysed: 77 s past
         * --time in the 64 tries between two readings of the clock) */
        if ((units & 255) == 255 && d->until > 0 &&
            ft_predict_now() >= d->until)
            break;
        uint32_t t = heap_pop(d);
        int r = run_unit(d, p, cd->hold, t);
        if (r == 2)
            found = 1;
        else if (r < 0)
            break;
    }
    int rc = 0;
    if (found) {
        rc = ft_decide_witness(d, p, cd->k, s0, 1, res);
        if (rc == 1) {
            d->st.unconfirmed++;
            rc = 0;
        } else if (rc == 0) {
            rc = 1;
        }
    }
    ft_exec_undo(d->x, m0);
    return rc;
}

long ft_decide_run(ft_decider *d, const ft_prop *props, size_t n,
                   const ft_decide_opts *o, ft_presult *res, uint8_t *decided)
{
    cvec cv = {0};
    long ndecided = 0;
    unsigned slow_misses = 0; /* value order checks in a row: slow, no claim */
    ft_exec_set_relaxed(d->x, o->relaxed); /* before any step (advance_base) */
    for (size_t i = 0; i < n; i++) {
        if (decided[i])
            continue;
        /* the value order's check is bounded per property (up to 2^20
         * index steps, tens of milliseconds), so the bound is read every
         * 64 properties, not 4096: on a 10^7-event work queue 4096 of
         * them ran 40 s past --time, until the watchdog dropped all */
        if ((i & 63) == 0 &&
            ((o->budget && ft_budget_poll(o->budget, o->stage, i, n)) ||
             (o->until > 0 && ft_predict_now() >= o->until)))
            break;
        double t0 = ft_predict_now();
        if (!o->no_value_order && d->vo && slow_misses < VO_GIVE_UP &&
            ft_value_order_holds(d->vo, &props[i])) {
            ft_presult_value_order(d->c, &res[i]);
            res[i].seconds = ft_predict_now() - t0;
            decided[i] = 1;
            d->st.holds++;
            ndecided++;
            slow_misses = 0;
            continue;
        }
        if (slow_misses < VO_GIVE_UP)
            slow_misses = ft_predict_now() - t0 >= VO_SLOW_S ? slow_misses + 1
                                                              : 0;
        if (!o->no_search && candidates(d, &props[i], (uint32_t)i, &cv)) {
            free(cv.v);
            return -1;
        }
    }
    if (cv.n)
        qsort(cv.v, cv.n, sizeof *cv.v, cmp_cand);
    d->spare = calloc(n + 1, sizeof *d->spare);
    d->spare_level = calloc(n + 1, 1);
    if (!d->spare || !d->spare_level) {
        free(d->spare);
        free(d->spare_level);
        d->spare = NULL;
        free(cv.v);
        return -1;
    }
    d->gviol = o->gviol;
    double now = ft_predict_now();
    double until =
        o->until > now ? now + (o->until - now) * SEARCH_SHARE : o->until;
    d->until = until;
    uint64_t tried = 0; /* the budget is polled every 64 tries */
    for (size_t k = 0; k < cv.n; k++) {
        const cand *cd = &cv.v[k];
        if (decided[cd->prop] ||
            (o->gviol && o->gviol[props[cd->prop].group]))
            continue;
        if (((tried++ & 63) == 0 && o->budget &&
             ft_budget_poll(o->budget, o->stage, k, cv.n)) ||
            (until > 0 && ft_predict_now() >= until))
            break;
        advance_base(d, cd->k);
        if (d->base_bad != NONE && d->base_bad < cd->k)
            break; /* the recorded run is not a run of the model past it */
        ft_presult *r = &res[cd->prop];
        double t0 = ft_predict_now();
        int rc = try_cand(d, &props[cd->prop], cd, r);
        r->seconds += ft_predict_now() - t0;
        if (rc < 0 || d->oom) {
            ndecided = -1;
            break;
        }
        if (rc) {
            decided[cd->prop] = 1;
            d->st.violated++;
            ndecided++;
            if (o->gviol)
                o->gviol[props[cd->prop].group] = 1;
        }
    }
    /* no violation through a changed read: the best other one found (a
     * data violation, else one through synchronisation alone, which the
     * solver too reports only when it finds no data violation) */
    for (size_t i = 0; i < n; i++) {
        ft_presult *r = d->spare[i];
        if (r && !decided[i] && ndecided >= 0) {
            r->seconds = res[i].seconds;
            ft_presult_free(&res[i]);
            res[i] = *r;
            decided[i] = 1;
            d->st.violated++;
            d->st.sync_only += d->spare_level[i] == 1;
            ndecided++;
        } else if (r) {
            ft_presult_free(r);
        }
        free(r);
    }
    free(d->spare);
    free(d->spare_level);
    d->spare = NULL;
    d->gviol = NULL;
    free(cv.v);
    return ndecided;
}
