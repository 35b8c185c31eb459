/* SPDX-License-Identifier: MIT */
/* kind_race_search.c - data races (kind_race.c) found without the
 * solver, as kind_order_search.c finds order violations: a race between
 * x and a later y (trace order) is a prefix in which x's thread stands at
 * x and y's at y, every read that ran returning its recorded value.  The
 * recorded run up to y nearly is one: what keeps it from being one is
 * x's thread having run past x.  So the search takes the recorded run,
 * holds x's thread back and lets the others run on in recorded order,
 * each step checked by the exact executor (exec.c):
 *
 *   at x        x's thread held at x; the others run their recorded
 *               transitions before y (or, second try, as far as they
 *               can), y's thread up to y;
 *   unlocked    x's thread held at the last point before x where it
 *               held no lock (inside a critical section that y's thread
 *               needs, holding it at x blocks y), until y's thread
 *               stands at y; then it runs on to x.
 *
 * "At x" is at the start of x's step (ft_race_step): before the paired
 * reads the runtime glued to x, where either thread may run.
 *
 * "Run on in recorded order" is greedy: the enabled thread whose next
 * transition came first in the recording runs; one that cannot (a guard,
 * or a read that would return another value) waits until something else
 * ran.  A run that ends with both threads at their accesses is exactly
 * the property's state, so the search only saves the solver's time; what
 * it does not find is left to the solver (tests/predict/
 * test_kinds_random.c checks both against the brute-force enumerator).
 *
 * The common race that holds (a write before publishing an object under a
 * lock, the read after taking it under the lock) the value order
 * decides: with every read returning its recorded value, one access must
 * come before the other's thread reaches it (vorder.c), so the two
 * never stand at once.
 *
 * Why: the solver gets the slice of both accesses, on a thread pool
 * (bench/predict/shapes/pool.c, 814 transitions) nearly the whole run,
 * and timed out on every race candidate, while a race is usually two
 * accesses that nothing between them in the recorded run orders. */
#include "predict/exec.h"
#include "predict/kind.h"
#include "predict/vorder.h"
#include "predict/window.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define NONE UINT32_MAX
/* Greedy steps after the recorded prefix, beyond the distance to y. */
#define SEARCH_STEPS 8192u

/* Runs threads greedily in recorded order, thread j only below position
 * lim[j], until none can run.  0 done, -1 out of memory, 1 out of steps
 * or time. */
static int greedy(ft_hold_run *s, const uint32_t *lim, uint64_t budget,
                  double deadline)
{
    const ft_ctm *c = s->c;
    uint32_t nt = c->nthreads;
    memset(s->waiting, 0, nt);
    for (;;) {
        if (budget-- == 0)
            return 1;
        if ((budget & 1023) == 0 && deadline > 0 &&
            ft_predict_now() >= deadline)
            return 1;
        uint32_t best = ft_hold_pick(s, lim, NONE);
        if (best == NONE)
            return 0;
        if (ft_exec_step(s->x, best, 0) != FT_EXEC_OK) {
            s->waiting[c->tid[best]] = 1;
            continue;
        }
        if (ft_hold_push(s, best) < 0)
            return -1;
        memset(s->waiting, 0, nt);
    }
}

/* Whether thread t has begun: a thread not yet forked stands nowhere. */
static int begun(const ft_hold_run *s, uint32_t t)
{
    uint32_t f = s->c->fork_trans[t];
    return f == FT_CTM_NONE ||
           ft_exec_pos(s->x, s->c->tid[f]) > s->c->pos[f];
}

/* One try: the recorded prefix below the first transition a limit holds
 * back, then greedily under lim1, then (lim2 not NULL) under lim2.  1
 * when x's and y's threads stand at the last limits (their accesses'
 * steps, ft_race_step), 0 not, -1 out of memory. */
static int try_run(ft_hold_run *s, uint32_t x, uint32_t y,
                   const uint32_t *lim1, const uint32_t *lim2,
                   double deadline)
{
    const ft_ctm *c = s->c;
    uint32_t k;
    int ran = ft_hold_prefix(s, lim1, y, &k);
    if (ran <= 0)
        return ran;
    uint64_t budget = SEARCH_STEPS + (y - k);
    int rc = greedy(s, lim1, budget, deadline);
    if (rc == 0 && lim2)
        rc = greedy(s, lim2, budget, deadline);
    if (rc)
        return rc < 0 ? -1 : 0;
    uint32_t tx = c->tid[x], ty = c->tid[y];
    const uint32_t *lim = lim2 ? lim2 : lim1;
    /* a state where only a bound thread may run is no race's */
    return begun(s, tx) && begun(s, ty) && ft_exec_glued(s->x) == NONE &&
           ft_exec_pos(s->x, tx) == lim[tx] &&
           ft_exec_pos(s->x, ty) == lim[ty];
}

uint32_t ft_race_step(const ft_ctm *c, uint32_t x)
{
    uint32_t t = c->tid[x], s = c->pos[x];
    while (s > 0 && ft_ctm_glued(c, ft_ctm_at(c, t, s - 1)))
        s--;
    return s;
}

/* Appends the step of target x (ft_race_step): the glued transitions
 * before it, each running with its next, then x marked.  What is glued
 * after x is not listed: it follows x only when x's read returned what
 * the recording did (the replay runs the thread on past x in one step
 * whatever it does). */
static int append_step(const ft_ctm *c, uint32_t x, ft_presult *res)
{
    uint32_t t = c->tid[x];
    for (uint32_t q = ft_race_step(c, x); q <= c->pos[x]; q++) {
        uint32_t y = ft_ctm_at(c, t, q);
        if (ft_presult_append(res, y, y == x) < 0)
            return -1;
        res->steps[res->nsteps - 1].with_next = q < c->pos[x];
    }
    return 0;
}

int ft_race_finish(const ft_ctm *c, const ft_prop *p, ft_presult *res)
{
    /* the two steps leave the prefix: a solver's prefix may end in the
     * glued transitions before an access, and ft_witness_locals appends
     * them, but the state is the scheduling point before them */
    uint32_t k = 0, from[2] = {ft_race_step(c, p->tgt[0]),
                               ft_race_step(c, p->tgt[1])};
    for (uint32_t j = 0; j < res->nsteps; j++) {
        uint32_t x = res->steps[j].trans, drop = 0;
        for (uint32_t i = 0; i < 2; i++)
            drop |= c->tid[x] == c->tid[p->tgt[i]] && c->pos[x] >= from[i];
        if (!drop)
            res->steps[k++] = res->steps[j];
    }
    res->nsteps = k;
    /* the state is the causal past of where the two threads stand: each
     * one's last step, or the fork that began it (a read the accesses
     * would make is theirs: the writes before them in the prefix are not
     * kept for them, nor a thread that merely ran) */
    uint8_t *seed = calloc(res->nsteps + 1, 1);
    if (!seed)
        return -1;
    for (uint32_t i = 0; i < 2; i++) {
        uint32_t t = c->tid[p->tgt[i]], f = c->fork_trans[t];
        for (uint32_t j = res->nsteps; j-- > 0;)
            if (c->tid[res->steps[j].trans] == t ||
                res->steps[j].trans == f) {
                seed[j] = 1;
                break;
            }
    }
    int rc = ft_presult_trim_seeds(c, res, seed);
    free(seed);
    uint32_t pre = res->nsteps;
    if (rc || append_step(c, p->tgt[0], res))
        return -1;
    uint32_t mid = res->nsteps;
    if (append_step(c, p->tgt[1], res))
        return -1;
    /* the other order: the same prefix, then the two steps swapped */
    k = res->nsteps;
    res->alt_steps = malloc(sizeof *res->alt_steps * k);
    if (!res->alt_steps)
        return -1;
    memcpy(res->alt_steps, res->steps, sizeof *res->steps * pre);
    memcpy(res->alt_steps + pre, res->steps + mid,
           sizeof *res->steps * (k - mid));
    memcpy(res->alt_steps + pre + (k - mid), res->steps + pre,
           sizeof *res->steps * (mid - pre));
    res->nalt_steps = k;
    return 0;
}

/* Reads of a thread looked at, back from its access, for read_after. */
#define VO_READS 32
/* Writes of a variable looked at per read. */
#define VO_WRITES 256

/* Whether read r can return its recorded value only after transition a
 * of another thread: the initial value is not it, and every write of it
 * is a's thread's after a, or must follow a (the value order).  The
 * value order itself says so only from r's next shared transition on
 * (vorder.c: a thread's last block may read anything), while a race's
 * prefix runs every read before the two accesses with its value. */
static int read_after(const ft_ctm *c, const ft_value_order *vo, uint32_t r,
                      uint32_t a)
{
    uint32_t v = c->obj[r], ta = c->tid[a];
    if (v >= c->nvars || !ft_ctm_reads(c, r))
        return 0;
    const ft_ctm_var *var = &c->vars[v];
    /* an unknown initial value returns no recorded one (smt/data.c) */
    if (var->has_init && var->init == c->value[r])
        return 0;
    const ft_slice_index *ix = vo->ix;
    uint32_t lo = ix->wr_first[v], hi = ix->wr_first[v + 1], any = 0;
    if (hi - lo > VO_WRITES)
        return 0;
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t w = ix->wr[i], tw = c->tid[w];
        if (w == r || ft_ctm_written(c, w) != c->value[r])
            continue;
        any = 1;
        if (tw == ta ? c->pos[w] <= c->pos[a]
                     : vo_before(vo, tw, c->pos[w], ta) <= c->pos[a])
            return 0;
    }
    return any;
}

/* Whether one of the last reads of b's thread before position from
 * (where it stands) returns its value only after a. */
static int reads_need(const ft_ctm *c, const ft_value_order *vo, uint32_t b,
                      uint32_t from, uint32_t a)
{
    uint32_t t = c->tid[b];
    for (uint32_t q = from, n = 0; q-- > 0 && n < VO_READS;) {
        uint32_t r = ft_ctm_at(c, t, q);
        if (!ft_ctm_reads(c, r))
            continue;
        n++;
        if (read_after(c, vo, r, a))
            return 1;
    }
    return 0;
}

int ft_race_vholds(const ft_ctm *c, const ft_value_order *vo,
                   const ft_prop *p)
{
    if (!vo || p->ntgt != 2)
        return 0;
    uint32_t x = p->tgt[0], y = p->tgt[1];
    uint32_t tx = c->tid[x], ty = c->tid[y];
    if (x >= c->ntrans || y >= c->ntrans || tx == ty)
        return 0;
    /* standing at y's step (ft_race_step: before the transitions glued
     * to y), y's thread has run its transition before it, which needs
     * vo_before(..) of x's thread's transitions: x's step among them; or
     * a read of its thread before the step needs x (and the same way
     * round) */
    uint32_t sx = ft_race_step(c, x), sy = ft_race_step(c, y);
    return (sy > 0 && sx < vo_before(vo, ty, sy - 1, tx)) ||
           (sx > 0 && sy < vo_before(vo, tx, sx - 1, ty)) ||
           reads_need(c, vo, y, sy, x) || reads_need(c, vo, x, sx, y);
}

int ft_race_search(ft_ctm *c, const ft_reduced *whole, const ft_prop *p,
                   double deadline, ft_presult *res)
{
    if (!whole || whole->ctm != c || p->ntgt != 2)
        return 0;
    uint32_t x = p->tgt[0], y = p->tgt[1];
    if (x > y) {
        uint32_t t = x;
        x = y;
        y = t;
    }
    uint32_t nt = c->nthreads, tx = c->tid[x], ty = c->tid[y];
    if (y >= c->ntrans || tx == ty)
        return 0;
    ft_hold_run s = ft_hold_run_new(c);
    uint32_t *before = calloc(nt + 1, sizeof *before);
    uint32_t *lim1 = malloc(sizeof *lim1 * (nt + 1));
    uint32_t *lim2 = malloc(sizeof *lim2 * (nt + 1));
    int found = 0;
    if (!s.x || !s.waiting || !before || !lim1 || !lim2) {
        found = -1;
        goto out;
    }
    /* each thread's transitions before y in the recording */
    for (uint32_t id = 0; id < y; id++)
        before[c->tid[id]]++;
    /* each thread held at its access's step (ft_race_step) */
    uint32_t sx = ft_race_step(c, x), sy = ft_race_step(c, y);
    uint32_t hold = c->pos[ft_pkind_unlocked_before(whole, x)];
    for (int v = 0; v < 4 && found == 0; v++) {
        int unlocked = v >= 2, far = v & 1;
        if (unlocked && hold >= sx)
            continue;
        for (uint32_t j = 0; j < nt; j++)
            lim1[j] = lim2[j] = far ? UINT32_MAX : before[j];
        lim1[ty] = lim2[ty] = sy;
        lim1[tx] = lim2[tx] = sx;
        if (unlocked)
            lim1[tx] = hold;
        found = try_run(&s, x, y, lim1, unlocked ? lim2 : NULL, deadline);
    }
    if (found > 0) {
        memset(res, 0, sizeof *res);
        for (uint32_t i = 0; i < s.n && found > 0; i++)
            if (ft_presult_append(res, s.steps[i], 0) < 0)
                found = -1;
        if (found > 0 && ft_race_finish(c, p, res) < 0)
            found = -1;
        if (found > 0) {
            res->verdict = FT_VIOLATED;
            res->window_end = c->ntrans;
            ft_presult_why(res, "found without the solver (the recorded run, a thread "
                     "held back)");
        }
    }
out:
    ft_hold_run_free(&s);
    free(before);
    free(lim1);
    free(lim2);
    return found;
}
