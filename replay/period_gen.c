/* SPDX-License-Identifier: MIT */
/* period_gen.c - Period's schedule generator and schedule prefixes (Wen
 * et al., ICSE'22, sections 3.2 and 3.4), pure functions of a slice, a
 * period count and a prefix, so that the tests can check them against a
 * brute-force oracle (tests/explore/test_explore_period.c).  The parallel
 * scheduler: only the chosen threads are serialised, one per period; the
 * others (neglected) run in the last period.  The enumeration is lazy (a
 * slice of hundreds of key points has millions of 6-period schedules and
 * the budget takes a few thousand): combination, then pattern by
 * depth-first search, then allocation by odometer. */
#include "replay/strategy_period.h"

#include <stdio.h>
#include <string.h>

enum { G_COMBO, G_PAT, G_ALLOC, G_END };

static int prefix_len(const fx_pprefix *x)
{
    return x->nlit + x->npat;
}

void fx_pgen_init(fx_pgen *g, const fx_pslice *s, int p, const fx_pprefix *pfx)
{
    memset(g, 0, sizeof *g);
    g->s = *s;
    if (g->s.n > FX_PERIOD_THREADS)
        g->s.n = FX_PERIOD_THREADS;
    if (pfx)
        g->pfx = *pfx;
    g->p = p;
    g->state = G_COMBO;
    if (p < 1 || p > FX_PERIOD_MAX || prefix_len(&g->pfx) > p) {
        g->state = G_END;
        return;
    }
    for (int t = 0; t < g->s.n; t++)
        if (g->s.k[t] > 0)
            g->el[g->nel++] = t;
    for (int i = 0; i < prefix_len(&g->pfx); i++) {
        int t = g->pfx.thr[i];
        if (t < 0 || t >= g->s.n || g->s.k[t] == 0) {
            g->state = G_END;
            return;
        }
        if (i < g->pfx.nlit)
            g->lit[t] += g->pfx.cnt[i];
    }
    for (int t = 0; t < g->s.n; t++)
        if (g->lit[t] > g->s.k[t])
            g->state = G_END;
}

/* ---- combinations: shortlex over el[], holding every prefix thread ---- */

static int combo_step(fx_pgen *g)
{
    int n = g->nel, mmax = g->p < n ? g->p : n;
    if (g->m == 0) {
        g->m = 1;
    } else {
        int i = g->m - 1;
        while (i >= 0 && g->comb[i] == n - g->m + i)
            i--;
        if (i >= 0) {
            g->comb[i]++;
            for (int j = i + 1; j < g->m; j++)
                g->comb[j] = g->comb[j - 1] + 1;
            return 1;
        }
        g->m++;
    }
    if (g->m > mmax)
        return 0;
    for (int i = 0; i < g->m; i++)
        g->comb[i] = i;
    return 1;
}

static int in_combo(const fx_pgen *g, int t)
{
    for (int i = 0; i < g->m; i++)
        if (g->el[g->comb[i]] == t)
            return 1;
    return 0;
}

static int combo_next(fx_pgen *g)
{
    for (;;) {
        if (!combo_step(g))
            return 0;
        if (g->m == 1 && g->p > 1)
            continue; /* one thread cannot fill adjacent periods */
        int ok = 1;
        for (int i = 0; ok && i < prefix_len(&g->pfx); i++)
            ok = in_combo(g, g->pfx.thr[i]);
        if (ok)
            return 1;
    }
}

/* ---- patterns: depth-first, candidates in thread order ---- */

static int nonlit_periods(const fx_pgen *g, int t, int upto)
{
    int n = 0;
    for (int i = g->pfx.nlit; i < upto; i++)
        n += g->pat[i] == t;
    return n;
}

static int fits(const fx_pgen *g, int i, int t)
{
    if (i > 0 && g->pat[i - 1] == t)
        return 0; /* rule 2 */
    if (i < prefix_len(&g->pfx) && t != g->pfx.thr[i])
        return 0;
    if ((uint64_t)g->use[t] + 1 > g->s.k[t])
        return 0; /* rule 3: a key point at least per period */
    if (i >= g->pfx.nlit &&
        g->lit[t] + (uint64_t)nonlit_periods(g, t, i) + 1 > g->s.k[t])
        return 0;
    int unused = 0; /* rule 4: every chosen thread must still fit in */
    for (int c = 0; c < g->m; c++) {
        int u = g->el[g->comb[c]];
        unused += u != t && g->use[u] == 0;
    }
    return unused <= g->p - 1 - i;
}

static int pat_next(fx_pgen *g)
{
    int i;
    if (g->fresh) {
        g->fresh = 0;
        i = 0;
        g->cpos[0] = -1;
    } else {
        i = g->p - 1;
        g->use[g->pat[i]]--;
    }
    while (i >= 0) {
        int c = g->cpos[i] + 1;
        while (c < g->m && !fits(g, i, g->el[g->comb[c]]))
            c++;
        if (c < g->m) {
            g->cpos[i] = c;
            g->pat[i] = g->el[g->comb[c]];
            g->use[g->pat[i]]++;
            if (i == g->p - 1)
                return 1;
            g->cpos[++i] = -1;
        } else if (--i >= 0) {
            g->use[g->pat[i]]--;
        }
    }
    return 0;
}

/* ---- allocations: counts in descending lexicographic order ---- */

/* Periods from..p-1 get their largest counts (literal ones their own). */
static void fill(fx_pgen *g, int from)
{
    for (int i = from; i < g->p; i++) {
        if (i < g->pfx.nlit) {
            g->cnt[i] = g->pfx.cnt[i];
            continue;
        }
        int t = g->pat[i];
        uint64_t left = g->s.k[t] - g->lit[t];
        for (int j = g->pfx.nlit; j < i; j++)
            if (g->pat[j] == t)
                left -= g->cnt[j];
        int after = 0;
        for (int j = i + 1; j < g->p; j++)
            after += g->pat[j] == t;
        g->cnt[i] = left - (uint64_t)after;
    }
}

static int alloc_first(fx_pgen *g)
{
    for (int c = 0; c < g->m; c++) {
        int t = g->el[g->comb[c]];
        if (nonlit_periods(g, t, g->p) == 0 && g->lit[t] != g->s.k[t])
            return 0; /* rule 4: all of t's key points, exactly */
    }
    fill(g, 0);
    return 1;
}

static int alloc_next(fx_pgen *g)
{
    for (int i = g->p - 1; i >= g->pfx.nlit; i--) {
        if (g->cnt[i] <= 1)
            continue;
        for (int j = i + 1; j < g->p; j++) {
            if (g->pat[j] == g->pat[i]) { /* a later period takes one more */
                g->cnt[i]--;
                fill(g, i + 1);
                return 1;
            }
        }
    }
    return 0;
}

int fx_pgen_next(fx_pgen *g, fx_pschedule *out)
{
    for (;;) {
        switch (g->state) {
        case G_ALLOC:
            if (alloc_next(g))
                goto emit;
            g->state = G_PAT;
            break;
        case G_PAT:
            if (!pat_next(g)) {
                g->state = G_COMBO;
            } else if (alloc_first(g)) {
                g->state = G_ALLOC;
                goto emit;
            }
            break;
        case G_COMBO:
            if (!combo_next(g)) {
                g->state = G_END;
                return 0;
            }
            g->fresh = 1;
            g->state = G_PAT;
            break;
        default:
            return 0;
        }
    }
emit:
    memset(out, 0, sizeof *out);
    out->np = g->p;
    for (int i = 0; i < g->p; i++) {
        out->thr[i] = g->pat[i];
        out->cnt[i] = g->cnt[i];
    }
    return 1;
}

/* ---- prefixes ---- */

int fx_pprefix_match(const fx_pprefix *pfx, const fx_pschedule *s)
{
    if (s->np < prefix_len(pfx))
        return 0;
    for (int i = 0; i < prefix_len(pfx); i++)
        if (s->thr[i] != pfx->thr[i] || (i < pfx->nlit && s->cnt[i] != pfx->cnt[i]))
            return 0;
    return 1;
}

typedef struct run {
    int thr, period;
    uint64_t len;
} run;

/* s as runs of key points of one thread, the neglected threads of sl
 * last (in thread order, as the paper writes them). */
static int runs_of(const fx_pschedule *s, const fx_pslice *sl, run *r)
{
    int n = 0;
    for (int q = 0; q < s->np; q++)
        r[n++] = (run){s->thr[q], q, s->cnt[q]};
    for (int t = 0; sl && t < sl->n && t < FX_PERIOD_THREADS; t++) {
        int named = 0;
        for (int q = 0; q < s->np; q++)
            named |= s->thr[q] == t;
        if (!named && sl->k[t] > 0)
            r[n++] = (run){t, s->np - 1, sl->k[t]};
    }
    return n;
}

void fx_pprefix_of(const fx_pschedule *cur, const fx_pslice *cur_s,
                   const fx_pschedule *prev, const fx_pslice *prev_s,
                   fx_pprefix *out)
{
    run ra[FX_PERIOD_MAX + FX_PERIOD_THREADS], rb[FX_PERIOD_MAX + FX_PERIOD_THREADS];
    int na = runs_of(cur, cur_s, ra), nb = prev ? runs_of(prev, prev_s, rb) : 0;
    int a = 0, b = 0, q = -1, th = -1;
    uint64_t oa = 0, ob = 0;
    while (a < na) {
        if (b >= nb || ra[a].thr != rb[b].thr) {
            q = ra[a].period;
            th = ra[a].thr;
            break;
        }
        uint64_t step = ra[a].len - oa < rb[b].len - ob ? ra[a].len - oa
                                                        : rb[b].len - ob;
        oa += step;
        ob += step;
        if (oa == ra[a].len) {
            a++;
            oa = 0;
        }
        if (ob == rb[b].len) {
            b++;
            ob = 0;
        }
    }
    if (q < 0) { /* no difference: cur is (a prefix of) prev */
        q = cur->np - 1;
        th = cur->thr[q];
    }
    memset(out, 0, sizeof *out);
    out->nlit = q;
    for (int i = 0; i < q; i++) {
        out->thr[i] = cur->thr[i];
        out->cnt[i] = cur->cnt[i];
    }
    out->npat = 1;
    out->thr[q] = th;
}

void fx_pprefix_common(const fx_pprefix *a, const fx_pprefix *b, fx_pprefix *out)
{
    fx_pprefix r;
    memset(&r, 0, sizeof r);
    int la = prefix_len(a), lb = prefix_len(b);
    for (int i = 0; i < la && i < lb && a->thr[i] == b->thr[i]; i++) {
        r.thr[i] = a->thr[i];
        if (r.npat == 0 && i < a->nlit && i < b->nlit && a->cnt[i] == b->cnt[i]) {
            r.cnt[i] = a->cnt[i];
            r.nlit++;
        } else {
            r.npat++;
        }
    }
    *out = r;
}

void fx_pprefix_str(const fx_pprefix *pfx, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < prefix_len(pfx) && n < len; i++) {
        int w;
        if (i < pfx->nlit)
            w = snprintf(buf + n, len - n, "{t%dx%llu}", pfx->thr[i],
                         (unsigned long long)pfx->cnt[i]);
        else
            w = snprintf(buf + n, len - n, "[t%d]", pfx->thr[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}
