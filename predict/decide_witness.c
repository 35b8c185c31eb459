/* SPDX-License-Identifier: MIT */
/* decide_witness.c - the witness of a violation the decider's search
 * found (decide.c): which of the run's steps make the violation (the
 * monitor's reachability, walked back from the closing step along the
 * conflicts that carried it) and the prefix cut to them.  Its own file
 * because the search and the witness are two jobs. */
#include "predict/decide_internal.h"

#include <stdlib.h>
#include <string.h>

#define NONE DECIDE_NONE


static void reach_reset(ft_decider *d)
{
    for (uint32_t i = 0; i < d->ntouched; i++)
        for (int k = 0; k < 8; k++)
            d->oreach[8 * (size_t)d->touched[i] + k] = NONE;
    d->ntouched = 0;
    for (uint32_t t = 0; t < d->c->nthreads; t++)
        d->treach[t] = NONE;
}

static int in_reg(const ft_ctm *c, const ft_pregion *r, uint32_t id)
{
    return c->tid[id] == r->thread && c->pos[id] >= r->first &&
           c->pos[id] <= r->last;
}

/* The objects of x that count (data: memory only) and their classes. */
static int objs_of(const ft_ctm *c, uint32_t x, int data, uint32_t o[2],
                   unsigned k[2])
{
    int n = 0;
    if (c->obj[x] < c->nvars &&
        (!data || c->vars[c->obj[x]].kind == FT_VAR_MEMORY)) {
        o[n] = c->obj[x];
        k[n++] = ft_exec_class(c, x);
    }
    if (c->obj2[x] < c->nvars &&
        (!data || c->vars[c->obj2[x]].kind == FT_VAR_MEMORY)) {
        o[n] = c->obj2[x];
        k[n++] = FT_K_OTHER;
    }
    return n;
}

/* Reachability from region g over seq[s0, n) (conflicts of every kind,
 * or data only), with the step each was reached from (par, NONE for
 * region steps; via[i]: by a conflict rather than program order): the
 * monitor's question answered a second time, with the path.  Returns,
 * for CA, the index of the region step that closes a cycle (its
 * conflicting step in *other), for CMA the first step of the other
 * region reached; NONE if none. */
static uint32_t reach(ft_decider *d, const ft_prop *p, uint32_t g, int data,
                      const uint32_t *seq, uint32_t s0, uint32_t n,
                      uint32_t *par, uint8_t *via, uint32_t *fork,
                      uint32_t *other)
{
    const ft_ctm *c = d->c;
    uint32_t rt = p->r[g].thread, found = NONE;
    int ca = p->kind == FT_PROP_CA;
    /* fork[t]: the reached step that forked t, which reaches t's first
     * shared step (as the monitor has it, exec.c: local steps are
     * nobody's interleaving) */
    for (uint32_t t = 0; t < c->nthreads; t++)
        fork[t] = NONE;
    reach_reset(d);
    for (uint32_t i = s0; i < n && found == NONE; i++) {
        uint32_t x = seq[i], t = c->tid[x], o[2];
        unsigned k[2];
        int no = objs_of(c, x, data, o, k);
        /* a reached step it conflicts with: [0..3] by class, [4..7] the
         * same by another thread than rt */
        uint32_t cf = NONE, cfo = NONE;
        for (int a = 0; a < no; a++)
            for (unsigned ky = 0; ky < 4; ky++) {
                if (!ft_exec_conflicts(k[a], 1u << ky))
                    continue;
                const uint32_t *sl = &d->oreach[8 * (size_t)o[a]];
                if (cf == NONE && sl[ky] != NONE)
                    cf = sl[ky];
                if (cfo == NONE && sl[4 + ky] != NONE)
                    cfo = sl[4 + ky];
            }
        if (c->op[x] == FT_OP_JOIN && c->value[x] < c->nthreads) {
            cf = d->treach[c->value[x]];
            cfo = c->value[x] != rt ? cf : NONE;
        }
        if (ca && in_reg(c, &p->r[g], x) && cfo != NONE) {
            *other = cfo;
            found = i;
        }
        par[i] = NONE;
        via[i] = 0;
        if (in_reg(c, &p->r[g], x)) {
            /* a region step */
        } else if (d->treach[t] != NONE) {
            par[i] = d->treach[t];
        } else if (cf != NONE) {
            par[i] = cf;
            via[i] = 1;
        } else if (fork[t] != NONE && ft_ctm_is_shared(c, x)) {
            par[i] = fork[t];
            via[i] = 1;
        } else {
            continue;
        }
        if (!ca && found == NONE && in_reg(c, &p->r[1 - g], x))
            found = i;
        d->treach[t] = i;
        if (c->op[x] == FT_OP_FORK && c->value[x] < c->nthreads) {
            uint32_t ch = (uint32_t)c->value[x];
            if (fork[ch] == NONE)
                fork[ch] = i;
        }
        for (int a = 0; a < no; a++) {
            uint32_t *sl = &d->oreach[8 * (size_t)o[a]];
            int fresh = 1;
            for (int q = 0; q < 8; q++)
                fresh &= sl[q] == NONE;
            if (fresh)
                d->touched[d->ntouched++] = o[a];
            if (sl[k[a]] == NONE)
                sl[k[a]] = i;
            if (t != rt && sl[4 + k[a]] == NONE)
                sl[4 + k[a]] = i;
        }
    }
    return found;
}

static void mark_path(const uint32_t *par, const uint8_t *via, uint32_t i,
                      uint8_t *mark)
{
    while (i != NONE) {
        if (par[i] == NONE) {
            mark[i] = 1;
            break;
        }
        if (via[i]) {
            mark[i] = 1;
            mark[par[i]] = 1;
        }
        i = par[i];
    }
}

int ft_decide_witness(ft_decider *d, const ft_prop *p, uint32_t k,
                      uint32_t s0, int data, ft_presult *res)
{
    const ft_ctm *c = d->c;
    uint32_t n = k + d->nsteps;
    uint32_t *seq = malloc(sizeof *seq * ((size_t)n + 1));
    uint32_t *par = malloc(sizeof *par * ((size_t)n + 1));
    uint32_t *par1 = malloc(sizeof *par1 * ((size_t)n + 1));
    uint8_t *via = malloc((size_t)n + 1), *via1 = malloc((size_t)n + 1);
    uint8_t *mark = calloc((size_t)n + 1, 1);
    uint32_t *fork = malloc(sizeof *fork * ((size_t)c->nthreads + 1));
    int rc = -1;
    if (!seq || !par || !par1 || !via || !via1 || !mark || !fork)
        goto out;
    for (uint32_t i = 0; i < k; i++)
        seq[i] = i;
    memcpy(seq + k, d->steps, sizeof *seq * d->nsteps);
    uint32_t other = NONE, close;
    rc = 1;
    if (p->kind == FT_PROP_CA) {
        close = reach(d, p, 0, data, seq, s0, n, par, via, fork, &other);
        if (close == NONE)
            goto out;
        mark[close] = 1;
        mark[other] = 1;
        mark_path(par, via, other, mark);
    } else {
        uint32_t a = reach(d, p, 0, data, seq, s0, n, par, via, fork, &other);
        uint32_t b = reach(d, p, 1, data, seq, s0, n, par1, via1, fork, &other);
        if (a == NONE || b == NONE)
            goto out;
        mark[a] = mark[b] = 1;
        mark_path(par, via, a, mark);
        mark_path(par1, via1, b, mark);
        close = a > b ? a : b;
    }
    /* the recorded run up to the regions stays implicit on long traces */
    uint32_t cut = s0 < INLINE_PREFIX ? 0 : s0;
    uint32_t ns = close + 1 - cut;
    res->steps = malloc(sizeof *res->steps * ((size_t)ns + 1));
    res->vars = malloc(sizeof *res->vars * ((size_t)ns + 1));
    rc = -1;
    if (!res->steps || !res->vars)
        goto out;
    res->nsteps = res->nvars = 0;
    for (uint32_t i = cut; i <= close; i++) {
        uint32_t x = seq[i], v = c->obj[x];
        res->steps[res->nsteps++] = (ft_step){x, mark[i], 0, 0};
        if (mark[i] && v < c->nvars && c->vars[v].kind == FT_VAR_MEMORY) {
            uint32_t q = 0;
            while (q < res->nvars && res->vars[q] != v)
                q++;
            if (q == res->nvars)
                res->vars[res->nvars++] = v;
        }
    }
    if (res->nvars < ns) { /* a few variables of up to ns steps */
        uint32_t *v = realloc(res->vars, sizeof *v * ((size_t)res->nvars + 1));
        if (v)
            res->vars = v;
    }
    res->prefix = cut;
    res->sync_only = !data;
    /* a relaxed search's witness breaks the straight-line bound when the
     * first step that did is in it (the recorded prefix obeys it) */
    uint32_t broke = ft_exec_broke(d->x);
    res->relaxed = 0;
    for (uint32_t i = k; broke != NONE && i <= close; i++)
        res->relaxed |= seq[i] == broke;
    res->verdict = FT_VIOLATED;
    res->iterations = 0;
    res->window_first = 0;
    res->window_end = c->ntrans;
    res->windows = 0;
    ft_presult_why(res, NULL);
    /* trimmed now, not after all the solving as the solver's are: a long
     * trace's violations in its first INLINE_PREFIX transitions held up
     * to that many steps each until then (27 MB of bench/predict's split
     * trace's peak, 629 violations) */
    if (cut == 0 && ft_presult_trim(c, p, res) < 0)
        goto out;
    rc = 0;
out:
    free(seq);
    free(par);
    free(par1);
    free(via);
    free(via1);
    free(mark);
    free(fork);
    return rc;
}

