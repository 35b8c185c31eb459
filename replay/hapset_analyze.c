/* SPDX-License-Identifier: MIT */
/* hapset_analyze.c - one finished run replayed over the HaPSet search
 * state, state by state in the run's order, as algorithm 5 interleaves
 * learning and backtracking while the run goes:
 *   - LEARNHAPSETS (algorithm 1): the event just executed, if the last
 *     event that touched its object came from another thread and
 *     conflicts with it (read-write, write-write, lock-lock, wait-notify;
 *     unlocks are ignored), adds that pair to the HaPSet;
 *   - UPDATEBACKTRACK (algorithm 4): for every thread p enabled at the
 *     state, its pending block t, the latest earlier block s_d that (1)
 *     races with t (dependent, may be co-enabled, not happening before p:
 *     Flanagan and Godefroid's condition) and (2) whose reversal is a new
 *     scenario (stmt(t) not in HaPSet[stmt(s_d.sel)]); then BTSET
 *     (algorithm 3): p, or a thread with a later block that happens
 *     before p, if enabled at s_d; otherwise every enabled thread.
 * Happens-before is kept as one vector clock per block (program order,
 * thread creation, and every dependent pair of accesses). */
#include "replay/explore.h"
#include "replay/hapset_internal.h"

#include <stdlib.h>
#include <string.h>

/* Dependent (hb), racing (may be co-enabled: a reversal to try), and
 * conflicting for learning, indexed [earlier op][later op]. */
static unsigned char dep[FH_NOPS][FH_NOPS], race[FH_NOPS][FH_NOPS],
    learnc[FH_NOPS][FH_NOPS];

static void tables(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    static const int races[][2] = {
        {FH_R, FH_W}, {FH_W, FH_R}, {FH_W, FH_W}, {FH_ACQ, FH_ACQ},
        {FH_ACQ, FH_RACQ}, {FH_RACQ, FH_ACQ}, {FH_WAIT, FH_NOTIFY},
        {FH_NOTIFY, FH_WAIT}, {FH_WAIT, FH_WAIT},
    };
    /* A release enables the acquisitions after it: ordered, never both
     * enabled.  So does a notify for the wait it ends, a creation for the
     * child's start, an exit for the join. */
    static const int orders[][2] = {
        {FH_REL, FH_ACQ}, {FH_ACQ, FH_REL}, {FH_REL, FH_RACQ}, {FH_RACQ, FH_REL},
        {FH_RREL, FH_ACQ}, {FH_ACQ, FH_RREL}, {FH_REL, FH_REL},
        {FH_NOTIFY, FH_WAKE}, {FH_WAKE, FH_NOTIFY}, {FH_HB, FH_HB},
    };
    for (size_t i = 0; i < sizeof races / sizeof races[0]; i++) {
        race[races[i][0]][races[i][1]] = 1;
        dep[races[i][0]][races[i][1]] = 1;
        if (!(races[i][0] == FH_WAIT && races[i][1] == FH_WAIT))
            learnc[races[i][0]][races[i][1]] = 1;
    }
    for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++)
        dep[orders[i][0]][orders[i][1]] = 1;
}

static int learn_ignored(int op)
{
    return op == FH_REL || op == FH_RREL || op == FH_WAKE || op == FH_HB;
}

typedef struct pending {
    int64_t t;           /* the block it was computed for, -1 none */
    int64_t cand;        /* latest qualifying block, -1 none */
    size_t upto;         /* blocks below this were looked at */
    size_t npairs;       /* HaPSet size then */
} pending;

typedef struct an {
    fh_search *s;
    const fh_run *r;
    int n;               /* threads (vector clock width) */
    uint32_t *vc;        /* vc[j * n + t] */
    uint32_t *pos;       /* pos[j]: 1-based position of block j in its thread */
    uint32_t **tblk;     /* blocks of each thread, in order */
    uint32_t *ntblk;
    /* objects: dense ids, and per object its accesses in run order */
    uint64_t *okey;
    uint32_t *oid_of_key, *acc_oid, *ostart, *olist;
    size_t ocap, nobj;
    int64_t *summ;       /* summ[oid * FH_NOPS + op]: vc pool offset, -1 */
    uint32_t *pool;
    size_t npool, cappool;
    int64_t *last;       /* last learned access per object */
    int64_t *lastb;      /* last executed block per thread */
    pending *pend;
} an;

static uint64_t key_hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    return k ^ (k >> 29);
}

static int index_objects(an *a)
{
    const fh_run *r = a->r;
    a->ocap = 64;
    while (a->ocap < r->nacc * 2 + 2)
        a->ocap *= 2;
    a->okey = calloc(a->ocap, sizeof *a->okey);
    a->oid_of_key = calloc(a->ocap, sizeof *a->oid_of_key);
    a->acc_oid = malloc((r->nacc + 1) * sizeof *a->acc_oid);
    if (!a->okey || !a->oid_of_key || !a->acc_oid)
        return -1;
    for (size_t i = 0; i < r->nacc; i++) {
        uint64_t k = r->acc[i].obj + 1; /* 0 marks a free slot */
        size_t j = key_hash(k) & (a->ocap - 1);
        while (a->okey[j] && a->okey[j] != k)
            j = (j + 1) & (a->ocap - 1);
        if (!a->okey[j]) {
            a->okey[j] = k;
            a->oid_of_key[j] = (uint32_t)a->nobj++;
        }
        a->acc_oid[i] = a->oid_of_key[j];
    }
    a->ostart = calloc(a->nobj + 1, sizeof *a->ostart);
    a->olist = malloc((r->nacc + 1) * sizeof *a->olist);
    a->summ = malloc((a->nobj * FH_NOPS + 1) * sizeof *a->summ);
    a->last = malloc((a->nobj + 1) * sizeof *a->last);
    if (!a->ostart || !a->olist || !a->summ || !a->last)
        return -1;
    for (size_t i = 0; i < r->nacc; i++)
        a->ostart[a->acc_oid[i] + 1]++;
    for (size_t o = 0; o < a->nobj; o++)
        a->ostart[o + 1] += a->ostart[o];
    uint32_t *fill = malloc((a->nobj + 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, a->ostart, (a->nobj + 1) * sizeof *fill);
    for (size_t i = 0; i < r->nacc; i++)
        a->olist[fill[a->acc_oid[i]]++] = (uint32_t)i;
    free(fill);
    for (size_t i = 0; i < a->nobj * FH_NOPS; i++)
        a->summ[i] = -1;
    for (size_t o = 0; o < a->nobj; o++)
        a->last[o] = -1;
    return 0;
}

static int index_threads(an *a)
{
    const fh_run *r = a->r;
    a->n = r->nthreads > 0 ? r->nthreads : 1;
    a->ntblk = calloc((size_t)a->n, sizeof *a->ntblk);
    a->tblk = calloc((size_t)a->n, sizeof *a->tblk);
    a->pos = malloc((r->nblk + 1) * sizeof *a->pos);
    a->vc = calloc(r->nblk * (size_t)a->n + 1, sizeof *a->vc);
    a->lastb = malloc((size_t)a->n * sizeof *a->lastb);
    a->pend = malloc((size_t)a->n * sizeof *a->pend);
    if (!a->ntblk || !a->tblk || !a->pos || !a->vc || !a->lastb || !a->pend)
        return -1;
    for (size_t j = 0; j < r->nblk; j++)
        a->pos[j] = ++a->ntblk[r->blk[j].tid];
    for (int t = 0; t < a->n; t++) {
        a->tblk[t] = malloc((a->ntblk[t] + 1) * sizeof **a->tblk);
        if (!a->tblk[t])
            return -1;
        a->ntblk[t] = 0;
        a->lastb[t] = -1;
        a->pend[t] = (pending){.t = -1, .cand = -1};
    }
    for (size_t j = 0; j < r->nblk; j++) {
        int t = r->blk[j].tid;
        a->tblk[t][a->ntblk[t]++] = (uint32_t)j;
    }
    return 0;
}

static void an_free(an *a)
{
    if (a->tblk)
        for (int t = 0; t < a->n; t++)
            free(a->tblk[t]);
    free(a->tblk);
    free(a->ntblk);
    free(a->pos);
    free(a->vc);
    free(a->okey);
    free(a->oid_of_key);
    free(a->acc_oid);
    free(a->ostart);
    free(a->olist);
    free(a->summ);
    free(a->pool);
    free(a->last);
    free(a->lastb);
    free(a->pend);
}

/* What p has done so far, as a clock: its last block's, or before its
 * first block the clock of the block that created it; NULL: nothing. */
static const uint32_t *frontier(const an *a, int p, size_t j)
{
    if (a->lastb[p] >= 0)
        return &a->vc[(size_t)a->lastb[p] * a->n];
    int64_t c = p < a->r->nthreads ? a->r->creator[p] : -1;
    return c >= 0 && (size_t)c < j ? &a->vc[(size_t)c * a->n] : NULL;
}

static int hb_before(const an *a, size_t i, const uint32_t *fr)
{
    return fr && fr[a->r->blk[i].tid] >= a->pos[i];
}

static int guided_new(const an *a, const fh_access *x, int xt, const fh_access *y,
                      int yt)
{
    if (!a->s->guide)
        return 1;
    /* After the reversal y (pending) runs first: x would be immediately
     * dependent upon y. */
    const fh_event *ex = &a->r->ev[x->ev], *ey = &a->r->ev[y->ev];
    hp_pair p = {ex->stmt, ex->ctx, ey->stmt, ey->ctx, (uint8_t)(yt < xt)};
    return !hp_has(a->s, &p);
}

/* Block i (earlier) against the pending block t of p. */
static int qualifies(const an *a, size_t i, size_t t, int p, const uint32_t *fr)
{
    const fh_run *r = a->r;
    const fh_block *bi = &r->blk[i], *bt = &r->blk[t];
    if (bi->tid == p || hb_before(a, i, fr))
        return 0;
    for (uint32_t x = bi->acc; x < bi->acc + bi->nacc; x++)
        for (uint32_t y = bt->acc; y < bt->acc + bt->nacc; y++)
            if (r->acc[x].obj == r->acc[y].obj &&
                race[r->acc[x].op][r->acc[y].op] &&
                guided_new(a, &r->acc[x], bi->tid, &r->acc[y], p))
                return 1;
    return 0;
}

/* The latest qualifying block below hi, through the accesses of t's
 * objects. */
static int64_t scan(const an *a, size_t t, int p, size_t hi, const uint32_t *fr)
{
    const fh_run *r = a->r;
    const fh_block *bt = &r->blk[t];
    int64_t best = -1;
    for (uint32_t y = bt->acc; y < bt->acc + bt->nacc; y++) {
        uint32_t o = a->acc_oid[y];
        const fh_access *ay = &r->acc[y];
        for (uint32_t k = a->ostart[o + 1]; k > a->ostart[o]; k--) {
            const fh_access *ax = &r->acc[a->olist[k - 1]];
            if (ax->blk >= hi)
                continue;
            if ((int64_t)ax->blk <= best)
                break;
            int xt = r->blk[ax->blk].tid;
            if (xt != p && race[ax->op][ay->op] && !hb_before(a, ax->blk, fr) &&
                guided_new(a, ax, xt, ay, p)) {
                best = ax->blk;
                break;
            }
        }
    }
    return best;
}

static int64_t latest_race(an *a, int p, size_t t, size_t j)
{
    pending *pd = &a->pend[p];
    const uint32_t *fr = frontier(a, p, j);
    if (pd->t != (int64_t)t) {
        pd->t = (int64_t)t;
        pd->cand = scan(a, t, p, j, fr);
    } else {
        int64_t newer = -1;
        for (size_t i = j; i > pd->upto; i--)
            if (qualifies(a, i - 1, t, p, fr)) {
                newer = (int64_t)i - 1;
                break;
            }
        if (newer >= 0)
            pd->cand = newer;
        else if (pd->cand >= 0 && pd->npairs != a->s->npairs &&
                 !qualifies(a, (size_t)pd->cand, t, p, fr))
            pd->cand = scan(a, t, p, (size_t)pd->cand, fr);
    }
    pd->upto = j;
    pd->npairs = a->s->npairs;
    return pd->cand;
}

/* Blocks of q at or before i. */
static uint32_t count_upto(const an *a, int q, size_t i)
{
    uint32_t lo = 0, hi = a->ntblk[q];
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (a->tblk[q][mid] <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* BTSET (algorithm 3, Flanagan and Godefroid's E) at the state before
 * block i, for p. */
static void add_backtrack(an *a, size_t i, int p, size_t j)
{
    int64_t d = a->r->blk[i].dec;
    if (d < 0 || (size_t)d >= a->s->nst)
        return; /* no decision there: only one thread could run */
    hp_state *st = &a->s->st[d];
    const uint32_t *fr = frontier(a, p, j);
    uint64_t e = 0;
    if (p < FH_MAX_TID && (st->alt >> p & 1))
        e |= 1ull << p;
    for (int q = 0; q < a->n && q < FH_MAX_TID; q++)
        if (q != p && (st->alt >> q & 1) && fr && fr[q] >= count_upto(a, q, i) + 1)
            e |= 1ull << q;
    if (!e)
        st->backtrack |= st->alt;
    else if (!(e & st->backtrack))
        st->backtrack |= (e >> p & 1) ? 1ull << p : e & -e;
}

static uint32_t *new_clock(an *a, int64_t *at)
{
    if (a->npool + (size_t)a->n > a->cappool) {
        size_t nc = a->cappool ? a->cappool * 2 : 4096;
        while (nc < a->npool + (size_t)a->n)
            nc *= 2;
        uint32_t *np = realloc(a->pool, nc * sizeof *np);
        if (!np)
            return NULL;
        a->pool = np;
        a->cappool = nc;
    }
    *at = (int64_t)a->npool;
    memset(a->pool + a->npool, 0, (size_t)a->n * sizeof *a->pool);
    a->npool += (size_t)a->n;
    return a->pool + *at;
}

static void join(uint32_t *to, const uint32_t *from, int n)
{
    for (int k = 0; k < n; k++)
        if (from[k] > to[k])
            to[k] = from[k];
}

/* Block j runs: its clock, then the objects' summaries. */
static void execute(an *a, size_t j)
{
    const fh_run *r = a->r;
    const fh_block *b = &r->blk[j];
    uint32_t *vc = &a->vc[j * a->n];
    const uint32_t *fr = frontier(a, b->tid, j);
    if (fr)
        memcpy(vc, fr, (size_t)a->n * sizeof *vc);
    vc[b->tid] = a->pos[j];
    for (uint32_t x = b->acc; x < b->acc + b->nacc; x++) {
        const int64_t *sm = &a->summ[(size_t)a->acc_oid[x] * FH_NOPS];
        for (int op = 0; op < FH_NOPS; op++)
            if (sm[op] >= 0 && dep[op][r->acc[x].op])
                join(vc, a->pool + sm[op], a->n);
    }
    for (uint32_t x = b->acc; x < b->acc + b->nacc; x++) {
        int64_t *sm = &a->summ[(size_t)a->acc_oid[x] * FH_NOPS + r->acc[x].op];
        if (*sm < 0 && !new_clock(a, sm))
            continue;
        join(a->pool + *sm, vc, a->n);
    }
    a->lastb[b->tid] = (int64_t)j;
}

static void learn_block(an *a, size_t j)
{
    const fh_run *r = a->r;
    const fh_block *b = &r->blk[j];
    for (uint32_t x = b->acc; x < b->acc + b->nacc; x++) {
        const fh_access *ax = &r->acc[x];
        if (learn_ignored(ax->op))
            continue;
        int64_t *last = &a->last[a->acc_oid[x]];
        if (*last >= 0) {
            const fh_access *al = &r->acc[*last];
            int lt = r->blk[al->blk].tid;
            if (lt != b->tid && learnc[al->op][ax->op]) {
                const fh_event *e = &r->ev[ax->ev], *el = &r->ev[al->ev];
                hp_pair p = {e->stmt, e->ctx, el->stmt, el->ctx,
                             (uint8_t)(lt < b->tid)};
                hp_add(a->s, &p);
            }
        }
        *last = x;
    }
}

void hp_analyze(fh_search *s, const fh_run *r, int learn, int backtrack)
{
    tables();
    an a = {.s = s, .r = r};
    if (r->nblk == 0 || index_threads(&a) < 0 || index_objects(&a) < 0) {
        an_free(&a);
        return;
    }
    size_t *next = calloc((size_t)a.n, sizeof *next);
    if (!next) {
        an_free(&a);
        return;
    }
    for (size_t j = 0; j <= r->nblk; j++) {
        /* A long run's analysis is long too: it must not outlast the
         * exploration's --time (the search stops there anyway). */
        if ((j & 1023) == 1023 && fx_time_up())
            break;
        if (learn && j > 0)
            learn_block(&a, j - 1);
        if (j == r->nblk)
            break;
        const fh_block *b = &r->blk[j];
        uint64_t en = b->dec >= 0 ? r->dec[b->dec].enabled
                                  : (b->tid < FH_MAX_TID ? 1ull << b->tid : 0);
        for (int p = 0; backtrack && p < a.n && p < FH_MAX_TID; p++) {
            if (!(en >> p & 1))
                continue;
            while (next[p] < a.ntblk[p] && a.tblk[p][next[p]] < j)
                next[p]++;
            if (next[p] == a.ntblk[p])
                continue; /* nothing more of p in this run */
            int64_t c = latest_race(&a, p, a.tblk[p][next[p]], j);
            if (c >= 0)
                add_backtrack(&a, (size_t)c, p, j);
        }
        execute(&a, j);
    }
    free(next);
    an_free(&a);
}
