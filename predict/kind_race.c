/* SPDX-License-Identifier: MIT */
/* kind_race.c - data races: two accesses of one memory variable by two
 * threads, at least one a write and not both atomic, that a feasible
 * prefix brings together: both threads stand at them at once (smt/
 * state.c ft_smt_at: everything before each ran, every read before them
 * returning its recorded value), so either may run first.  That is what a
 * race is, as ThreadSanitizer reports it, but predicted: the two accesses
 * need not have been close in the recorded run, only unordered by every
 * synchronisation the run could not have done without.
 *
 * The witness is the prefix, cut to the causal past of the two accesses,
 * then both accesses (marked); its other order (alt_steps, written as
 * <name>.alt.schedule) swaps them.  The replay runs on after them and the
 * program's own checks decide: a failure after either order makes the
 * race harmful (an error); both orders surviving makes it a reached,
 * benign race (a note).  replay/confirm_kind.c tries the second order
 * when the first does not fail.
 *
 * Most races are found before the solver (kind_race_search.c): the
 * recorded run with one thread held back.
 *
 * Candidates: for each access y and each other thread t, t's accesses to
 * y's variable before y in the trace that conflict with y (one writes;
 * not both atomic: RMWs, or the trace's atomic events when the trace is
 * at hand), walking back over at most WALK of them and stopping at the
 * first that must happen before y (every earlier one must too), and
 * leaving out pairs whose threads hold a common lock (not both as
 * readers) just before them: such a pair cannot stand at once.  Grouped
 * by the unordered pair of sites, per_group dynamic instances each, so a
 * loop racing a thousand times gives one static race.  A read walks back
 * over the variable's writes only (a flag a thread spins on has millions
 * of reads: walking them for every read was quadratic, and ran a 380,000
 * event ring buffer past `--time`), an atomic access over the plain ones
 * only (two atomics cannot race), and no access walks back over more
 * than SCAN accesses in all. */
#include "predict/kind.h"

#include <stdlib.h>
#include <string.h>

#define WALK 16 /* conflicting accesses of a thread walked back per access */
#define SCAN 4096 /* accesses walked back per access, at most */

typedef struct sitepair {
    uint32_t a, b, n;
} sitepair;

static int is_access(const ft_ctm *c, uint32_t x)
{
    return c->op[x] >= FT_OP_READ && c->op[x] <= FT_OP_RMW &&
           c->obj[x] < c->nvars && c->vars[c->obj[x]].kind == FT_VAR_MEMORY;
}

static int atomic_access(const ft_pkind_src *s, uint32_t x)
{
    if (s->c->op[x] == FT_OP_RMW)
        return 1;
    if (!s->ti || !s->ti->kind || x >= s->ti->ntrans)
        return 0;
    unsigned k = s->ti->kind[x];
    return k == FT_EV_ATOMIC_LOAD || k == FT_EV_ATOMIC_STORE ||
           k == FT_EV_ATOMIC_RMW || k == FT_EV_ATOMIC_CAS;
}

/* Whether the lock sets held just before x and y exclude each other: a
 * common lock held by both, by one of them as a writer. */
static int exclusive(const ft_reduced *whole, uint32_t x, uint32_t y)
{
    uint32_t sx = ft_pkind_held_before(whole, x);
    uint32_t sy = ft_pkind_held_before(whole, y);
    for (uint32_t i = 0; sx && sy && i < whole->ls_len[sx]; i++) {
        uint32_t en = whole->ls_pool[whole->ls_first[sx] + i];
        int read;
        if (ft_pkind_set_has(whole, sy, en >> 1, &read) &&
            !((en & 1) && read))
            return 1;
    }
    return 0;
}

/* The count of site pair (a, b) (unordered) so far, added if new; NULL
 * on out of memory. */
static sitepair *pair_of(sitepair **v, size_t *n, size_t *cap, uint32_t a,
                         uint32_t b)
{
    if (a > b) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].a == a && (*v)[i].b == b)
            return &(*v)[i];
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        sitepair *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return NULL;
        *v = nv;
        *cap = nc;
    }
    (*v)[*n] = (sitepair){a, b, 0};
    return &(*v)[(*n)++];
}

/* pd[j] for list[0..n): where the run of list[j]'s thread that holds j
 * starts (the walk back goes on below it). */
static void run_starts(const ft_ctm *c, const uint32_t *list, uint32_t n,
                       uint32_t *pd)
{
    for (uint32_t j = 0; j < n; j++)
        pd[j] = j > 0 && c->tid[list[j - 1]] == c->tid[list[j]] ? pd[j - 1] : j;
}

/* A variable's accesses of one kind, in trace order (CSR by variable):
 * all of them, the writes, and the same two without the atomic ones.
 * An access walks back over the list of what can race with it: a read
 * over writes, an atomic access over non-atomic ones (spmc's lock-free
 * queue, sysprog21/concurrent-programs: every access of its hot words is
 * atomic, and walking them for each other took 25 of its 28 s). */
enum { L_ALL, L_WRITES, L_PLAIN, L_PLAIN_WRITES, L_KINDS };

typedef struct alist {
    uint32_t *first, *ids, *pd; /* pd: run_starts of one variable's ids */
    uint32_t *seen;             /* per thread: v + 1 when it has one before y */
    uint32_t count; /* threads with one before y (of this variable) */
    uint32_t at;    /* ids[first[v] .. at) come before y */
} alist;

static int in_list(const ft_pkind_src *s, uint32_t x, int k)
{
    const ft_ctm *c = s->c;
    return is_access(c, x) && c->vars[c->obj[x]].shared &&
           (!(k & L_WRITES) || ft_ctm_writes(c, x)) &&
           (!(k & L_PLAIN) || !atomic_access(s, x));
}

static int lists_make(const ft_pkind_src *s, alist *l)
{
    const ft_ctm *c = s->c;
    uint32_t most = 0;
    for (int k = 0; k < L_KINDS; k++) {
        l[k].first = calloc(c->nvars + 2, sizeof *l[k].first);
        l[k].ids = malloc(sizeof *l[k].ids * (c->ntrans + 1));
        l[k].seen = calloc(c->nthreads + 1, sizeof *l[k].seen);
        if (!l[k].first || !l[k].ids || !l[k].seen)
            return -1;
        for (uint32_t x = 0; x < c->ntrans; x++)
            if (in_list(s, x, k))
                l[k].first[c->obj[x] + 1]++;
        for (uint32_t v = 0; v < c->nvars; v++) {
            l[k].first[v + 1] += l[k].first[v];
            if (l[k].first[v + 1] - l[k].first[v] > most)
                most = l[k].first[v + 1] - l[k].first[v];
        }
        uint32_t *fill = calloc(c->nvars + 1, sizeof *fill);
        if (!fill)
            return -1;
        for (uint32_t x = 0; x < c->ntrans; x++)
            if (in_list(s, x, k))
                l[k].ids[l[k].first[c->obj[x]] + fill[c->obj[x]]++] = x;
        free(fill);
    }
    for (int k = 0; k < L_KINDS; k++)
        if (!(l[k].pd = malloc(sizeof *l[k].pd * (most + 1))))
            return -1;
    return 0;
}

static void lists_free(alist *l)
{
    for (int k = 0; k < L_KINDS; k++) {
        free(l[k].first);
        free(l[k].ids);
        free(l[k].pd);
        free(l[k].seen);
    }
}

static int candidates(const ft_pkind_src *s, ft_props *out)
{
    const ft_ctm *c = s->c;
    uint32_t nt = c->nthreads;
    alist l[L_KINDS];
    memset(l, 0, sizeof l);
    uint32_t *walked = malloc(sizeof *walked * (nt + 1));
    uint8_t *stop = malloc(nt + 1);
    sitepair *pairs = NULL;
    size_t npairs = 0, cap = 0;
    int rc = -1;
    if (!walked || !stop || lists_make(s, l) < 0)
        goto out;
    rc = 0;
    for (uint32_t v = 0; v < c->nvars && rc == 0; v++) {
        for (int k = 0; k < L_KINDS; k++) {
            alist *a = &l[k];
            /* jumps over runs of one thread's accesses (a recorded thread
             * runs for a quantum: thousands of accesses in a row) */
            run_starts(c, a->ids + a->first[v], a->first[v + 1] - a->first[v],
                       a->pd);
            a->count = 0;
            a->at = a->first[v];
        }
        const alist *all = &l[L_ALL];
        for (uint32_t q = all->first[v]; q < all->first[v + 1] && rc == 0;
             q++) {
            uint32_t y = all->ids[q], ty = c->tid[y];
            int yw = ft_ctm_writes(c, y), ya = atomic_access(s, y);
            for (int k = 0; k < L_KINDS; k++)
                while (l[k].at < l[k].first[v + 1] && l[k].ids[l[k].at] < y)
                    l[k].at++;
            /* what can race with y: a read with writes, an atomic access
             * with plain ones */
            const alist *a = &l[(yw ? L_ALL : L_WRITES) | (ya ? L_PLAIN : 0)];
            const uint32_t *list = a->ids + a->first[v];
            uint32_t k = a->at - a->first[v];
            /* the walk back ends when every other thread with an access
             * in the list has stopped (it went on to SCAN before: 10^7
             * events, a minute) */
            uint32_t running = a->count - (a->seen[ty] == v + 1);
            memset(walked, 0, sizeof *walked * nt);
            memset(stop, 0, nt);
            stop[ty] = 1;
            for (uint32_t scanned = 0; running && k > 0 && rc == 0 &&
                                       scanned++ < SCAN;) {
                uint32_t x = list[--k], t = c->tid[x];
                if (stop[t]) {
                    k = a->pd[k];
                    continue;
                }
                if (ft_ctm_must_hb(c, x, y) || ++walked[t] > WALK) {
                    stop[t] = 1;
                    running--;
                    continue;
                }
                if (out->n >= s->max_props)
                    goto out;
                if (s->whole && exclusive(s->whole, x, y))
                    continue;
                sitepair *sp = pair_of(&pairs, &npairs, &cap, c->site[x],
                                       c->site[y]);
                if (!sp) {
                    rc = -1;
                    break;
                }
                if (sp->n++ >= s->per_group)
                    continue;
                ft_prop p;
                memset(&p, 0, sizeof p);
                p.tgt[p.ntgt++] = x;
                p.tgt[p.ntgt++] = y;
                p.group = (uint32_t)(sp - pairs);
                rc = ft_props_push(out, &p);
            }
            for (int j = 0; j < L_KINDS; j++)
                if (l[j].seen[ty] != v + 1 && in_list(s, y, j)) {
                    l[j].seen[ty] = v + 1;
                    l[j].count++;
                }
        }
    }
out:
    lists_free(l);
    free(walked);
    free(stop);
    free(pairs);
    return rc;
}

/* Both threads stand at their accesses (each the key of its block: an
 * access of a variable two threads of the slice touch is shared). */
static Z3_ast goal(ft_smt *e, const ft_prop *p, const uint32_t *tb)
{
    const ft_reduced *r = e->r;
    for (uint32_t i = 0; i < 2; i++)
        if (!ft_target_keyed(r, p, tb, i))
            return Z3_mk_false(e->z);
    /* every read that ran returned its recorded value: a thread whose
     * last read returned another one (allowed by the data rule) only adds
     * a step the replay cannot check; the state needs none */
    for (uint32_t b = 0; b < r->nblocks; b++)
        if (e->match[b])
            ft_smt_assert(e, Z3_mk_implies(e->z, ft_smt_exec(e, b),
                                           e->match[b]));
    /* the state is a scheduling point (either thread may run): no
     * executed glued block waits for its successor, and each thread
     * stands before its access's step, the blocks glued to it included
     * (ft_race_step; ft_race_finish moves a glued local back into it) */
    for (uint32_t b = 0; b < r->nblocks; b++)
        if (ft_block_glued(r, b))
            ft_smt_assert(e, Z3_mk_implies(e->z, ft_smt_exec(e, b),
                                           ft_smt_exec(e, b + 1)));
    Z3_ast g[2];
    for (uint32_t i = 0; i < 2; i++) {
        uint32_t b = tb[i], t = ft_block_thread(r, b);
        while (b > r->bfirst[t] && ft_block_glued(r, b - 1))
            b--;
        g[i] = ft_smt_at(e, b);
    }
    return Z3_mk_and(e->z, 2, g);
}

/* The prefix with both threads' locals up to their accesses, cut to its
 * causal past, then the accesses (marked, in the order of p); the other
 * order in alt_steps. */
static int witness(const ft_ctm *c, const ft_reduced *r, const ft_prop *p,
                   const uint32_t *order, uint32_t n, const uint32_t *tb,
                   ft_presult *res)
{
    (void)tb;
    uint8_t *none = calloc(r->nblocks + 1, 1); /* marks come last */
    int rc = !none ? -1
             : n   ? ft_witness_from_blocks(r, order, n - 1, none, res)
                   : 0;
    free(none);
    uint8_t *two = calloc(c->nthreads + 1, 1);
    if (rc || !two) {
        free(two);
        return -1;
    }
    two[c->tid[p->tgt[0]]] = two[c->tid[p->tgt[1]]] = 1;
    rc = ft_witness_locals(c, r, order, n, two, res);
    free(two);
    if (rc || ft_race_finish(c, p, res) < 0)
        return -1;
    return 0;
}

static uint32_t describe(const ft_ctm *c, const ft_trace_info *ti,
                         const ft_prop *p, const ft_presult *res,
                         ft_kevent *ev, uint32_t max, char *msg, size_t len)
{
    (void)res;
    (void)max;
    /* sites in a fixed order: the fingerprint of the pair, not of which
     * instance came first */
    uint32_t a = p->tgt[0], b = p->tgt[1];
    if (c->site[a] > c->site[b]) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    ev[0] = (ft_kevent){ft_ctm_writes(c, a) ? "writes" : "reads", a};
    ev[1] = (ft_kevent){ft_ctm_writes(c, b) ? "writes" : "reads", b};
    char var[128], sa[256], sb[256];
    snprintf(msg, len, "thread %u's %s of %s at %s and thread %u's %s at %s "
             "can run at once", c->tid[a],
             ft_ctm_writes(c, a) ? "write" : "read",
             ft_pkind_var(c, ti, c->obj[a], var, sizeof var),
             ft_trace_info_site(ti, c, a, sa, sizeof sa), c->tid[b],
             ft_ctm_writes(c, b) ? "write" : "read",
             ft_trace_info_site(ti, c, b, sb, sizeof sb));
    return 2;
}

const ft_pkind ft_pkind_race = {
    .kind = FT_PROP_RACE,
    .name = "data-race",
    .stage = "data-race candidates",
    .rule = "DataRace",
    .summary =
        "Two conflicting accesses to the same memory, not both atomic, by "
        "two threads, can run at once (no lock or ordering separates "
        "them).",
    .title = "data race",
    .whole_model = 0,
    .expect = FT_EXPECT_FOLLOWED,
    .candidates = candidates,
    .vholds = ft_race_vholds,
    .search = ft_race_search,
    .goal = goal,
    .witness = witness,
    .describe = describe,
};
