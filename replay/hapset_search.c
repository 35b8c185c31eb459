/* SPDX-License-Identifier: MIT */
/* hapset_search.c - the HaPSet search state kept in the driver between
 * runs (paper 002): the DPOR stack of decision states with their enabled,
 * backtrack and done sets (algorithm 2), and the history-aware
 * predecessor sets (definition 2) as one set of statement pairs.  After
 * each run, hapset_analyze.c replays the run over this state: learning
 * (algorithm 1's LEARNHAPSETS) and the guided backtracking (algorithms
 * 3-4) at every state, in the run's order (algorithm 5).  The next run
 * replays the stack up to the deepest state with an unexplored backtrack
 * thread, as a prefix for recorder/rt/policy_prefix.c: only the choices
 * that differ from that policy's default are written. */
#include "replay/hapset_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the HaPSet: pairs (dependent statement, predecessor statement,
 * which thread has the lower id) in an open-addressing table ---- */

static uint64_t pair_hash(const hp_pair *p)
{
    uint64_t h = p->ds * 0x9e3779b97f4a7c15ull;
    h = (h ^ p->dc) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ p->ps) * 0x94d049bb133111ebull;
    h = (h ^ p->pc) * 0x9e3779b97f4a7c15ull;
    return h ^ p->pred_first ^ (h >> 29);
}

static int pair_eq(const hp_pair *a, const hp_pair *b)
{
    return a->ds == b->ds && a->dc == b->dc && a->ps == b->ps &&
           a->pc == b->pc && a->pred_first == b->pred_first;
}

int hp_has(const fh_search *s, const hp_pair *p)
{
    if (!s->cap)
        return 0;
    for (size_t i = pair_hash(p) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->used[i])
            return 0;
        if (pair_eq(&s->tab[i], p))
            return 1;
    }
}

void hp_add(fh_search *s, const hp_pair *p)
{
    if (hp_has(s, p))
        return;
    if ((s->npairs + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1024;
        hp_pair *nt = calloc(nc, sizeof *nt);
        unsigned char *nu = calloc(nc, 1);
        if (!nt || !nu) {
            free(nt);
            free(nu);
            return; /* not learned: the search only prunes less */
        }
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->used[i])
                continue;
            size_t j = pair_hash(&s->tab[i]) & (nc - 1);
            while (nu[j])
                j = (j + 1) & (nc - 1);
            nt[j] = s->tab[i];
            nu[j] = 1;
        }
        free(s->tab);
        free(s->used);
        s->tab = nt;
        s->used = nu;
        s->cap = nc;
    }
    size_t j = pair_hash(p) & (s->cap - 1);
    while (s->used[j])
        j = (j + 1) & (s->cap - 1);
    s->tab[j] = *p;
    s->used[j] = 1;
    s->npairs++;
}

int fh_search_has_pair(const fh_search *s, const fh_event *b,
                       const fh_event *a, int a_first)
{
    hp_pair p = {b->stmt, b->ctx, a->stmt, a->ctx, (uint8_t)(a_first != 0)};
    return hp_has(s, &p);
}

/* ---- the stack ---- */

fh_search *fh_search_new(int guide, int learn)
{
    fh_search *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->guide = guide;
    s->learn = learn;
    return s;
}

void fh_search_free(fh_search *s)
{
    if (!s)
        return;
    free(s->tab);
    free(s->used);
    free(s->st);
    free(s);
}

void fh_search_stats(const fh_search *s, fh_stats *st)
{
    st->runs = s->runs;
    st->pairs = s->npairs;
    st->diverged = s->diverged;
    st->dropped = s->dropped;
}

/* Round-robin as policy_prefix.c's next_rr: the first enabled tid after
 * cur, wrapping. */
static int next_rr(uint64_t en, int cur)
{
    if (cur < 0 || cur >= FH_MAX_TID)
        return en ? __builtin_ctzll(en) : cur;
    uint64_t others = en & ~(1ull << cur);
    uint64_t after = cur == FH_MAX_TID - 1 ? 0 : others & ~((2ull << cur) - 1);
    uint64_t pick = after ? after : others;
    return pick ? __builtin_ctzll(pick) : cur;
}

/* What policy_prefix.c does at this state when the prefix says nothing. */
static int default_choice(const hp_state *st)
{
    return st->kind == 'p' ? st->cur : next_rr(st->full, st->cur);
}

int fh_search_next(fh_search *s, char *spec, size_t len)
{
    if (!s->started) {
        s->started = 1;
        snprintf(spec, len, "prefix");
        return 1;
    }
    for (;;) {
        size_t i = s->nst;
        uint64_t alt = 0;
        while (i > 0) {
            hp_state *st = &s->st[i - 1];
            alt = st->backtrack & st->alt & ~st->done;
            if (alt)
                break;
            i--;
        }
        if (i == 0)
            return 0;
        hp_state *st = &s->st[i - 1];
        int q = __builtin_ctzll(alt);
        st->done |= 1ull << q;
        st->sel = q;
        s->nst = i;
        size_t n = (size_t)snprintf(spec, len, "prefix:at=");
        int first = 1;
        for (size_t k = 0; k < s->nst && n < len; k++) {
            if (s->st[k].sel == default_choice(&s->st[k]))
                continue;
            n += (size_t)snprintf(spec + n, len - n, "%s%zu.%d", first ? "" : ",",
                                  k + 1, s->st[k].sel);
            first = 0;
        }
        if (n >= len) { /* too long to pass: this branch is dropped */
            s->dropped++;
            continue;
        }
        return 1;
    }
}

/* The run's decisions replace the stack from the first state where they
 * differ from it (a run that did not follow its prefix: the program is
 * not deterministic under one schedule) and extend it past its end. */
static void align(fh_search *s, const fh_run *r)
{
    size_t keep = s->nst < r->ndec ? s->nst : r->ndec;
    for (size_t k = 0; k < keep; k++) {
        const fh_decision *d = &r->dec[k];
        const hp_state *st = &s->st[k];
        if (d->step != k + 1 || d->enabled != st->full || d->chosen != st->sel ||
            d->cur != st->cur || d->kind != st->kind) {
            s->diverged++;
            keep = k;
            break;
        }
    }
    if (keep < s->nst && keep == r->ndec && s->nst > r->ndec)
        s->diverged++; /* the run ended before its prefix did */
    s->nst = keep;
    if (r->ndec > s->capst) {
        hp_state *n = realloc(s->st, r->ndec * sizeof *n);
        if (!n)
            return;
        s->st = n;
        s->capst = r->ndec;
    }
    for (size_t k = keep; k < r->ndec; k++) {
        const fh_decision *d = &r->dec[k];
        uint64_t me = d->chosen >= 0 && d->chosen < FH_MAX_TID ? 1ull << d->chosen : 0;
        /* At a yield the yielding thread stays an alternative: the paper
         * has no fairness rule (ICB/IDB's), and its busy-waiting example
         * is what the HaPSets prune. */
        uint64_t yielder = 0;
        s->st[k] = (hp_state){.full = d->enabled, .alt = d->enabled & ~yielder,
                              .backtrack = me, .done = me, .cur = d->cur,
                              .sel = d->chosen, .kind = d->kind};
    }
    s->nst = r->ndec;
}

void fh_search_feed(fh_search *s, const fh_run *r, int good)
{
    s->runs++;
    if (r->oom)
        return;
    align(s, r);
    hp_analyze(s, r, good && s->learn, 1);
}

void fh_search_learn(fh_search *s, const fh_run *r)
{
    s->runs++;
    if (!r->oom)
        hp_analyze(s, r, 1, 0);
}
