/* SPDX-License-Identifier: MIT */
/* trim.c - the smallest witness: the solver orders every transition it
 * schedules before the last violating access, including ones the
 * violation does not need (another thread running ahead).  Those steps
 * would pin the run down for no reason: replaying the violation with them
 * leaves no room for what the program does next (the failure a violation
 * leads to often needs the other threads to be elsewhere).  The witness
 * is cut to the causal past of its violating accesses: steps they depend
 * on through program order, fork/join, reads-from (a write to a memory
 * variable before a read of it; not for the violating reads themselves,
 * whose values the data argument leaves free, unless that would let a
 * region's thread run past its region, or past the straight-line code
 * after the read, on a changed read) and
 * synchronisation (any two operations on the same object, except that a
 * mutex acquisition needs only the releases that leave the mutex free),
 * and a kept step that binds its thread keeps its next one (ctm.h).
 * Every kept read keeps the last write before it, so it reads the same
 * value; every kept wait, barrier, semaphore or failed trylock keeps the
 * operations on its object before it, every kept acquisition finds its
 * mutex free; so the kept steps, in
 * witness order, are a feasible prefix that holds the violating accesses
 * in the same order
 * (tests/predict/test_predict_random.c checks both against the oracle). */
#include "predict/kind.h"

#include <stdlib.h>
#include <string.h>

static int writes_memory(const ft_ctm *c, uint32_t x)
{
    return c->op[x] == FT_OP_WRITE || c->op[x] == FT_OP_RMW;
}

static int reads_memory(const ft_ctm *c, uint32_t x)
{
    return c->op[x] == FT_OP_READ || c->op[x] == FT_OP_RMW;
}

/* Is x in one of p's regions (whose reads the data argument leaves free)? */
static int in_regions(const ft_ctm *c, const ft_prop *p, uint32_t x)
{
    uint32_t nreg = p->kind == FT_PROP_CMA ? 2 : 1;
    for (uint32_t g = 0; g < nreg; g++)
        if (c->tid[x] == p->r[g].thread && c->pos[x] >= p->r[g].first &&
            c->pos[x] <= p->r[g].last)
            return 1;
    return 0;
}

/* Does a kept step after step j of its thread run only if j's read
 * returned its value in the witness (ft_ctm_runs_regardless)?  Then that
 * read keeps its write. */
static int goes_on(const ft_ctm *c, const ft_presult *res,
                   const uint8_t *keep, uint32_t j)
{
    uint32_t x = res->steps[j].trans;
    for (uint32_t i = j + 1; i < res->nsteps; i++) {
        uint32_t y = res->steps[i].trans;
        if (keep[i] && c->tid[y] == c->tid[x] &&
            ft_ctm_runs_regardless(c, x, y) == 0)
            return 1;
    }
    return 0;
}

/* The closure of the marked steps and of those already in keep.  A kept
 * step y keeps the earlier steps it depends on: its thread's, its
 * thread's fork, the steps of a thread it joins, every operation on a
 * synchronisation object it operates on (every order matters; a mutex
 * acquisition needs only the mutex free, which mutex_free() sees to, and
 * a failed trylock needs it held: all before), and every write of a
 * variable it reads (a kept read keeps its write; a dropped read or write
 * before a kept write runs after the prefix instead, which no kept step
 * observes).  free_reads: a violating read inside the property's regions
 * keeps no write: the prediction leaves its value free (docs/
 * prediction.md, the data argument), so without the write it happened to
 * read it sees an older value, and the violation, an order between the
 * violating accesses, is the same; unless its thread goes on past code
 * that depends on it (goes_on).  One backward pass: those sets of earlier
 * steps are flags (a thread's steps, a thread's fork, an object's
 * operations, a variable's writes), so each step is looked at once, not
 * against every later kept one (that quadratic pass took 12 s on the 30
 * witnesses of a 24,437-event trace).  -1 out of memory. */
static int closure(const ft_ctm *c, const ft_prop *p, const ft_presult *res,
                   uint8_t *keep, int free_reads)
{
    uint32_t n = res->nsteps, nt = c->nthreads, nv = c->nvars;
    uint8_t *thread_all = calloc(nt + 1, 1), *fork_of = calloc(nt + 1, 1);
    uint8_t *obj_all = calloc(nv + 1, 1), *writes_of = calloc(nv + 1, 1);
    if (!thread_all || !fork_of || !obj_all || !writes_of) {
        free(thread_all);
        free(fork_of);
        free(obj_all);
        free(writes_of);
        return -1;
    }
    for (uint32_t j = n; j-- > 0;) {
        uint32_t y = res->steps[j].trans, t = c->tid[y];
        uint32_t oy[2] = {c->obj[y], c->obj2[y]};
        if (!keep[j]) {
            int k = res->steps[j].mark || thread_all[t] ||
                    (c->op[y] == FT_OP_FORK && c->value[y] < nt &&
                     fork_of[c->value[y]]);
            for (int i = 0; i < 2 && !k; i++)
                k = oy[i] < nv &&
                    (obj_all[oy[i]] || (writes_of[oy[i]] &&
                                        writes_memory(c, y)));
            keep[j] = (uint8_t)k;
        }
        if (!keep[j])
            continue;
        thread_all[t] = 1;
        fork_of[t] = 1;
        if (c->op[y] == FT_OP_JOIN && c->value[y] < nt)
            thread_all[c->value[y]] = 1;
        int free_read = free_reads && res->steps[j].mark &&
                        in_regions(c, p, y) && !goes_on(c, res, keep, j);
        for (int i = 0; i < 2; i++) {
            uint32_t o = oy[i];
            if (o >= nv)
                continue;
            if (c->vars[o].kind == FT_VAR_MUTEX) {
                /* an acquisition needs the mutex free (mutex_free); a
                 * failed trylock needs it held: all before */
                if (c->op[y] == FT_OP_LOCK_FAIL)
                    obj_all[o] = 1;
            } else if (c->vars[o].kind != FT_VAR_MEMORY) {
                obj_all[o] = 1; /* synchronisation: every order matters */
            } else if (reads_memory(c, y) &&
                       !(free_read && c->op[y] == FT_OP_READ)) {
                writes_of[o] = 1; /* a kept read keeps its write */
            }
        }
    }
    free(thread_all);
    free(fork_of);
    free(obj_all);
    free(writes_of);
    return 0;
}

/* The mutex a step acquires (lock, or wait_post taking it back) or
 * releases (unlock, wait_pre), FT_CTM_NONE for any other step. */
static uint32_t mutex_of(const ft_ctm *c, uint32_t x, int *acquires)
{
    *acquires = c->op[x] == FT_OP_LOCK || c->op[x] == FT_OP_WAIT_POST;
    uint32_t m = c->op[x] == FT_OP_LOCK || c->op[x] == FT_OP_UNLOCK
                     ? c->obj[x]
                 : c->op[x] == FT_OP_WAIT_PRE || c->op[x] == FT_OP_WAIT_POST
                     ? c->obj2[x]
                     : FT_CTM_NONE;
    return m < c->nvars && c->vars[m].kind == FT_VAR_MUTEX ? m : FT_CTM_NONE;
}

/* Where the kept mutex operations of the witness's steps start: the
 * holds the recorded prefix (res->prefix, a window's) leaves, which run
 * whole before the steps.  A hold from the prefix has no first step
 * (since FT_CTM_NONE). */
static void prefix_holds(const ft_ctm *c, const ft_presult *res,
                         uint32_t *holder, uint32_t *depth, uint32_t *since)
{
    for (uint32_t x = 0; x < res->prefix && x < c->ntrans; x++) {
        int acq;
        uint32_t m = mutex_of(c, x, &acq);
        if (m == FT_CTM_NONE)
            continue;
        if (!acq) {
            depth[m] =
                c->op[x] == FT_OP_WAIT_PRE || depth[m] <= 1 ? 0 : depth[m] - 1;
            if (!depth[m])
                holder[m] = FT_CTM_NONE;
            continue;
        }
        holder[m] = c->tid[x];
        depth[m] = c->op[x] == FT_OP_WAIT_POST ? 1 : depth[m] + 1;
        since[m] = FT_CTM_NONE;
    }
}

/* Replays the kept mutex operations in witness order; where a kept
 * acquisition finds the mutex held by another thread (whose release was
 * dropped), keeps the release that ended that hold in the witness (the
 * witness is feasible, so it comes before).  1 if it kept a step. */
static int mutex_free(const ft_ctm *c, const ft_presult *res, uint8_t *keep)
{
    uint32_t n = res->nsteps, nv = c->nvars ? c->nvars : 1;
    uint32_t *holder = malloc((size_t)nv * sizeof *holder);
    uint32_t *depth = calloc(nv, sizeof *depth);
    uint32_t *since = calloc(nv, sizeof *since); /* the hold's first step */
    int grew = 0;
    for (uint32_t v = 0; holder && v < nv; v++)
        holder[v] = FT_CTM_NONE;
    if (holder && depth && since)
        prefix_holds(c, res, holder, depth, since);
    for (uint32_t j = 0; holder && depth && since && j < n; j++) {
        int acq;
        uint32_t x = res->steps[j].trans, m = mutex_of(c, x, &acq);
        if (!keep[j] || m == FT_CTM_NONE)
            continue;
        uint32_t t = c->tid[x];
        if (!acq) {
            depth[m] = c->op[x] == FT_OP_WAIT_PRE || depth[m] <= 1
                           ? 0 : depth[m] - 1;
            if (!depth[m])
                holder[m] = FT_CTM_NONE;
            continue;
        }
        if (holder[m] != FT_CTM_NONE && holder[m] != t) {
            /* a hold from the prefix: its depth there */
            uint32_t d = since[m] == FT_CTM_NONE ? depth[m] : 1;
            uint32_t i0 = since[m] == FT_CTM_NONE ? 0 : since[m] + 1;
            for (uint32_t i = i0; i < j && d; i++) {
                int a;
                uint32_t y = res->steps[i].trans;
                if (c->tid[y] != holder[m] || mutex_of(c, y, &a) != m)
                    continue;
                d = a ? d + 1 : c->op[y] == FT_OP_WAIT_PRE ? 0 : d - 1;
                if (!d && !keep[i])
                    keep[i] = 1, grew = 1;
            }
            depth[m] = 0;
        }
        if (!depth[m])
            since[m] = j;
        holder[m] = t;
        depth[m] = c->op[x] == FT_OP_WAIT_POST ? 1 : depth[m] + 1;
    }
    free(holder);
    free(depth);
    free(since);
    return grew;
}

/* A kept step that binds its thread to run on (ctm.h ft_ctm_binds) keeps
 * the witness's next step of its thread (in a witness that obeys glue,
 * the very next step): cut after it, the kept steps would let another
 * thread run where none can.  1 when it added a step. */
static int glue_kept(const ft_ctm *c, const ft_presult *res, uint8_t *keep)
{
    int added = 0;
    if (!c->nglue)
        return 0;
    for (uint32_t j = 0; j + 1 < res->nsteps; j++) {
        uint32_t x = res->steps[j].trans;
        if (!keep[j] || !ft_ctm_binds(c, x))
            continue;
        for (uint32_t i = j + 1; i < res->nsteps; i++)
            if (c->tid[res->steps[i].trans] == c->tid[x]) {
                added |= !keep[i];
                keep[i] = 1;
                break;
            }
    }
    return added;
}

/* The closure, with the releases every kept acquisition needs; seed
 * (may be NULL) adds steps to keep besides the marked ones.  -1 out of
 * memory. */
static int closure_free(const ft_ctm *c, const ft_prop *p,
                        const ft_presult *res, uint8_t *keep, int free_reads,
                        const uint8_t *seed)
{
    if (seed)
        memcpy(keep, seed, res->nsteps);
    else
        memset(keep, 0, res->nsteps);
    int again;
    do {
        if (closure(c, p, res, keep, free_reads) < 0)
            return -1;
        again = mutex_free(c, res, keep);
        again |= glue_kept(c, res, keep);
    } while (again);
    return 0;
}

/* A region's thread may run past the region only if its reads matched
 * (the data argument): with violating reads left free, no kept step of a
 * region's thread may lie past the region's end. */
static int stays_in_regions(const ft_ctm *c, const ft_prop *p,
                            const ft_presult *res, const uint8_t *keep)
{
    uint32_t nreg = p->kind == FT_PROP_CMA ? 2 : 1;
    for (uint32_t i = 0; i < res->nsteps; i++) {
        uint32_t x = res->steps[i].trans;
        for (uint32_t g = 0; keep[i] && g < nreg; g++)
            if (c->tid[x] == p->r[g].thread && c->pos[x] > p->r[g].last)
                return 0;
    }
    return 1;
}

/* The kept steps, in an array of their size: hundreds of witnesses of a
 * long trace stay in memory until their schedules are written. */
static ft_step *kept(const ft_presult *res, const uint8_t *keep,
                     uint32_t *n)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < res->nsteps; i++)
        count += keep[i] != 0;
    ft_step *v = malloc((count + 1) * sizeof *v);
    *n = 0;
    for (uint32_t i = 0; v && i < res->nsteps; i++)
        if (keep[i])
            v[(*n)++] = res->steps[i];
    return v;
}

/* The end of the packed entry that starts at step i of steps[0..n). */
static uint32_t run_end(const ft_step *s, uint32_t n, uint32_t i)
{
    uint32_t j = i + 1;
    while (j < n && j - i <= UINT16_MAX && s[j].trans == s[j - 1].trans + 1 &&
           !s[j].mark && !s[j].with_next)
        j++;
    return j;
}

/* The entries steps[0..n) take packed (ft_step.run). */
static uint32_t packed_entries(const ft_step *s, uint32_t n)
{
    uint32_t e = 0;
    for (uint32_t i = 0; i < n; e++)
        i = run_end(s, n, i);
    return e;
}

/* steps[0..n) packed, in an array of its size (NULL out of memory). */
static ft_step *pack(const ft_step *s, uint32_t n)
{
    ft_step *v = malloc(sizeof *v * ((size_t)packed_entries(s, n) + 1));
    uint32_t e = 0;
    for (uint32_t i = 0; v && i < n; e++) {
        uint32_t j = run_end(s, n, i);
        v[e] = s[i];
        v[e].run = (uint16_t)(j - i - 1);
        i = j;
    }
    return v;
}

/* A trimmed witness packed when that takes fewer entries: lock chains
 * keep the run before a violation in long stretches of the recorded
 * order, and bench/predict's split trace's 629 witnesses kept 10^4
 * steps each (8 bytes a step, 27 MB) until their schedules were
 * written; packed, 8 entries each.  The alternative with it. */
static int pack_result(ft_presult *res)
{
    uint32_t e = packed_entries(res->steps, res->nsteps);
    uint32_t ea = res->alt_steps
                      ? packed_entries(res->alt_steps, res->nalt_steps)
                      : 0;
    if (e + ea >= res->nsteps + res->nalt_steps)
        return 0;
    ft_step *s = pack(res->steps, res->nsteps);
    ft_step *a = res->alt_steps ? pack(res->alt_steps, res->nalt_steps)
                                : NULL;
    if (!s || (res->alt_steps && !a)) {
        free(s);
        free(a);
        return -1;
    }
    free(res->steps);
    free(res->alt_steps);
    res->steps = s;
    res->alt_steps = a;
    res->packed = 1;
    return 0;
}

const ft_step *ft_presult_steps(const ft_presult *r, ft_step **owned)
{
    *owned = NULL;
    if (!r->packed || !r->steps)
        return r->steps;
    ft_step *v = malloc(sizeof *v * ((size_t)r->nsteps + 1));
    if (!v)
        return NULL;
    ft_step_iter it;
    ft_steps_begin(&it, r->steps, r->nsteps, 1);
    for (uint32_t i = 0; i < r->nsteps; i++)
        v[i] = ft_steps_next(&it);
    *owned = v;
    return v;
}

int ft_presult_trim(const ft_ctm *c, const ft_prop *p, ft_presult *res)
{
    uint32_t n = res->nsteps;
    if (res->trimmed) /* the alternative is the untrimmed witness's */
        return 0;
    free(res->alt_steps);
    res->alt_steps = NULL;
    res->nalt_steps = 0;
    if (n == 0)
        return 0;
    uint8_t *keep = malloc(n), *strict = malloc(n);
    if (!keep || !strict) {
        free(keep);
        free(strict);
        return -1;
    }
    if (closure_free(c, p, res, strict, 0, NULL) < 0 ||
        closure_free(c, p, res, keep, 1, NULL) < 0) {
        free(keep);
        free(strict);
        return -1;
    }
    if (!stays_in_regions(c, p, res, keep))
        memcpy(keep, strict, n);
    /* Which witness makes the program fail depends on the program: the
     * violating reads seeing fewer writes (reorder) or the witness's ones
     * (vb_figures 9); the strict one is kept as the alternative. */
    int differ = memcmp(keep, strict, n) != 0;
    uint32_t nk, ns = 0;
    ft_step *k = kept(res, keep, &nk), *st = differ ? kept(res, strict, &ns)
                                                    : NULL;
    free(keep);
    free(strict);
    if (!k || (differ && !st)) {
        free(k);
        free(st);
        return -1;
    }
    free(res->steps);
    res->steps = k;
    res->nsteps = nk;
    res->alt_steps = st;
    res->nalt_steps = ns;
    res->trimmed = 1;
    return pack_result(res);
}

int ft_presult_trim_seeds(const ft_ctm *c, ft_presult *res,
                          const uint8_t *seed)
{
    uint32_t nk;
    uint8_t *keep = malloc(res->nsteps + 1);
    if (!keep)
        return -1;
    if (closure_free(c, NULL, res, keep, 0, seed) < 0) { /* no p: none free */
        free(keep);
        return -1;
    }
    ft_step *k = kept(res, keep, &nk);
    free(keep);
    if (!k)
        return -1;
    free(res->steps);
    res->steps = k;
    res->nsteps = nk;
    return 0;
}
