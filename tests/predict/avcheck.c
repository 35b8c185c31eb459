/* SPDX-License-Identifier: MIT */
/* avcheck.c - transition-level reference for the data rule and for
 * (mutual) conflict-serializability; see avcheck.h. */
#include "avcheck.h"
#include "../model/oracle.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

static int in_region(const ft_prop *p, uint32_t g, const ft_ctm *c, uint32_t x)
{
    const ft_pregion *r = &p->r[g];
    return c->tid[x] == r->thread && c->pos[x] >= r->first &&
           c->pos[x] <= r->last;
}

static int in_any(const ft_prop *p, const ft_ctm *c, uint32_t x)
{
    return in_region(p, 0, c, x) ||
           (p->kind == FT_PROP_CMA && in_region(p, 1, c, x));
}

static int is_mem(const ft_ctm *c, uint32_t x)
{
    return c->op[x] >= FT_OP_READ && c->op[x] <= FT_OP_RMW;
}

/* The oracle's own reading of the code table: y runs whatever the read
 * x returned when y's site lies in the straight code after x's site;
 * without a span for x, every later transition does (the paper's rule,
 * bounded by the region's end). */
static int runs_anyway(const ft_ctm *c, uint32_t x, uint32_t y)
{
    uint32_t sx = c->site[x], sy = c->site[y];
    if (!c->code || sx < 1 || sx > c->ncode || !c->code[sx - 1].straight)
        return 1;
    if (sy < 1 || sy > c->ncode)
        return 0;
    const ft_ctm_code *a = &c->code[sx - 1], *b = &c->code[sy - 1];
    return a->module == b->module && b->offset > a->offset &&
           b->offset < a->offset + a->straight;
}

void av_random_code(ft_ctm *c, uint64_t seed)
{
    ft_site *s = calloc((size_t)c->ntrans + 1, sizeof *s);
    if (!s)
        return;
    uint64_t rs = seed * 0xd1342543de82ef95ull + 1;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        rs = rs * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)(rs >> 33);
        c->site[x] = x + 1;
        s[x].id = x + 1;
        s[x].module = 0;
        s[x].offset = ((uint64_t)c->tid[x] << 24) + 16 * (uint64_t)c->pos[x];
        /* unknown, or straight over the next 0 .. 3 transitions (up to
         * a byte before or after the next site's address) */
        s[x].straight = r % 4 == 0 ? 0 : 16 * ((r >> 2) % 4) + 1 + (r >> 4) % 2;
    }
    ft_ctm_set_code(c, s, c->ntrans);
    free(s);
}

static int data_ok(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                   uint32_t n, int spans);

int av_data_ok(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
               uint32_t n)
{
    return data_ok(c, p, seq, n, 1);
}

int av_data_ok_paper(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                     uint32_t n)
{
    return data_ok(c, p, seq, n, 0);
}

static int data_ok(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                   uint32_t n, int spans)
{
    uint32_t *lastw = malloc(sizeof *lastw * (c->nvars + 1));
    uint8_t *wcertain = calloc(c->nvars + 1, 1);
    uint8_t *tainted = calloc(c->nthreads + 1, 1);
    uint32_t *last_of = malloc(sizeof *last_of * (c->nthreads + 1));
    uint32_t *changed = malloc(sizeof *changed * (c->nthreads + 1));
    uint8_t *tainted_read = calloc((size_t)n + 1, 1);
    int ok = 1;
    for (uint32_t v = 0; v <= c->nvars; v++)
        lastw[v] = UINT32_MAX;
    for (uint32_t t = 0; t <= c->nthreads; t++)
        last_of[t] = changed[t] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        last_of[c->tid[seq[i]]] = i;
    /* the last shared transition of each region: a thread going past it
     * needs every read of the region to have matched */
    uint32_t nreg = p->kind == FT_PROP_CMA ? 2 : 1, rend[2] = {0, 0};
    int has_shared[2] = {0, 0};
    for (uint32_t g = 0; g < nreg; g++)
        for (uint32_t q = p->r[g].first; q <= p->r[g].last; q++)
            if (ft_ctm_is_shared(c, ft_ctm_at(c, p->r[g].thread, q))) {
                rend[g] = q;
                has_shared[g] = 1;
            }
    for (uint32_t i = 0; i < n && ok; i++) {
        uint32_t x = seq[i], t = c->tid[x], v = c->obj[x];
        for (uint32_t g = 0; g < nreg; g++)
            if (has_shared[g] && t == p->r[g].thread && c->pos[x] > rend[g] &&
                tainted[t])
                ok = 0;
        /* every earlier region read of t that returned another value */
        for (uint32_t j = 0; spans && changed[t] != UINT32_MAX && j < i && ok;
             j++)
            if (tainted_read[j] && c->tid[seq[j]] == t &&
                !runs_anyway(c, seq[j], x))
                ok = 0;
        if (!ok || !is_mem(c, x))
            continue;
        int matched = 1;
        if (ft_ctm_reads(c, x)) {
            if (lastw[v] != UINT32_MAX)
                matched = wcertain[v] &&
                          c->value[x] == ft_ctm_written(c, lastw[v]);
            else
                matched = c->vars[v].has_init && c->vars[v].init == c->value[x];
            if (!matched) {
                if (!in_any(p, c, x) && last_of[t] != i)
                    ok = 0;
                if (in_any(p, c, x)) {
                    changed[t] = x;
                    tainted_read[i] = 1;
                }
            }
        }
        if (ft_ctm_writes(c, x)) {
            lastw[v] = x;
            wcertain[v] = !tainted[t] && matched;
        }
        if (!matched)
            tainted[t] = 1;
    }
    free(lastw);
    free(wcertain);
    free(tainted);
    free(last_of);
    free(changed);
    free(tainted_read);
    return ok;
}

/* Conflict, or with data set only through memory, fork or join.  A
 * thread's local transitions (ft_ctm_is_shared) conflict with its fork
 * and join in the model but are nobody's interleaving: a region that
 * forks and joins a thread doing only local work is atomic, as the
 * predictor, which reasons on shared transitions only, decides (seed
 * 2952 once counted it violated, in every schedule). */
static int dep(const ft_ctm *c, uint32_t x, uint32_t y, int data)
{
    if (!ft_ctm_conflict(c, x, y) || !ft_ctm_is_shared(c, x) ||
        !ft_ctm_is_shared(c, y))
        return 0;
    if (!data || c->obj[x] == FT_CTM_NONE || c->obj[y] == FT_CTM_NONE)
        return 1;
    return is_mem(c, x) && is_mem(c, y);
}

/* reach[i]: seq[i] is reached from region g through program order and
 * conflicts, walking forward. */
static void reach(const ft_ctm *c, const ft_prop *p, uint32_t g,
                  const uint32_t *seq, uint32_t n, uint8_t *R, int data)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = seq[i];
        R[i] = (uint8_t)in_region(p, g, c, x);
        for (uint32_t j = 0; j < i && !R[i]; j++)
            if (R[j] && (c->tid[seq[j]] == c->tid[x] ||
                         dep(c, seq[j], x, data)))
                R[i] = 1;
    }
}

static int violates(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                    uint32_t n, int data)
{
    uint8_t *R0 = calloc(n + 1, 1), *R1 = calloc(n + 1, 1);
    int bad = 0;
    reach(c, p, 0, seq, n, R0, data);
    if (p->kind == FT_PROP_CA) {
        for (uint32_t i = 0; i < n && !bad; i++) {
            if (!in_region(p, 0, c, seq[i]))
                continue;
            for (uint32_t j = 0; j < i && !bad; j++)
                if (R0[j] && c->tid[seq[j]] != p->r[0].thread &&
                    dep(c, seq[j], seq[i], data))
                    bad = 1;
        }
    } else {
        reach(c, p, 1, seq, n, R1, data);
        int a = 0, b = 0;
        for (uint32_t i = 0; i < n; i++) {
            a |= R0[i] && in_region(p, 1, c, seq[i]);
            b |= R1[i] && in_region(p, 0, c, seq[i]);
        }
        bad = a && b;
    }
    free(R0);
    free(R1);
    return bad;
}

int av_violates(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                uint32_t n)
{
    return violates(c, p, seq, n, 0);
}

int av_violates_data(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                     uint32_t n)
{
    return violates(c, p, seq, n, 1);
}

uint64_t av_seq_hash(const uint32_t *seq, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ (seq[i] + 1)) * 0x100000001b3ull;
    return h;
}

static int u64cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}


void av_visit(void *vctx, const uint32_t *seq, uint32_t n, int maximal,
              const uint8_t *blocked)
{
    (void)maximal;
    (void)blocked;
    av_walk *w = vctx;
    for (int i = 0; i < w->nprops; i++) {
        if (!av_data_ok_paper(w->c, &w->props[i], seq, n))
            continue;
        av_hset *s = &w->valid[i];
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 1024;
            s->k = realloc(s->k, s->cap * sizeof *s->k);
            if (!s->k)
                abort();
        }
        s->k[s->n++] = av_seq_hash(seq, n);
        if (w->found_strict[i] || !av_violates(w->c, &w->props[i], seq, n))
            continue;
        w->found[i] = 1;
        if (av_data_ok(w->c, &w->props[i], seq, n))
            w->found_strict[i] = 1;
    }
}

/* Shared positions of thread t into out; returns how many. */
static uint32_t shared_positions(const ft_ctm *c, uint32_t t, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < c->len[t]; p++)
        if (ft_ctm_is_shared(c, ft_ctm_at(c, t, p)) &&
            ft_ctm_at(c, t, p) != FT_CTM_NONE)
            out[n++] = p;
    return n;
}

int av_pick_region(const ft_ctm *c, uint64_t *rs, uint32_t t, ft_pregion *g)
{
    uint32_t pos[ORACLE_MAX_TRANS];
    uint32_t n = shared_positions(c, t, pos);
    if (n < 1)
        return -1;
    *rs = *rs * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t a = (uint32_t)(*rs >> 33) % n;
    *rs = *rs * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t b = (uint32_t)(*rs >> 33) % n;
    if (a > b) {
        uint32_t tmp = a;
        a = b;
        b = tmp;
    }
    if (a == b && b + 1 < n)
        b++;
    *g = (ft_pregion){t, pos[a], pos[b]};
    return 0;
}

/* "seed S CA (tT F..L / tT F..L)": a property in a failure message. */
const char *av_prop_name(uint64_t seed, const ft_prop *p, char *buf, size_t n)
{
    snprintf(buf, n, "seed %llu %s (t%u %u..%u / t%u %u..%u)",
             (unsigned long long)seed, p->kind ? "CMA" : "CA", p->r[0].thread,
             p->r[0].first, p->r[0].last, p->r[1].thread, p->r[1].first,
             p->r[1].last);
    return buf;
}

/* Checks one witness against the enumerated valid prefixes. */
int av_witness_ok(const ft_ctm *c, const ft_prop *p, const ft_presult *res,
                  const av_hset *valid)
{
    ft_step *own; /* packed steps (ft_presult_trim) read unpacked */
    const ft_step *steps = ft_presult_steps(res, &own);
    uint32_t *seq = malloc(sizeof *seq * (res->nsteps + 1));
    if (!seq || (res->nsteps && !steps))
        abort();
    for (uint32_t i = 0; i < res->nsteps; i++)
        seq[i] = steps[i].trans;
    uint64_t h = av_seq_hash(seq, res->nsteps);
    int ok = bsearch(&h, valid->k, valid->n, sizeof h, u64cmp) != NULL &&
             av_data_ok_paper(c, p, seq, res->nsteps) &&
             av_violates(c, p, seq, res->nsteps);
    int marked = 0;
    for (uint32_t i = 0; i < res->nsteps; i++)
        marked += steps[i].mark;
    if (getenv("FT_PREDICT_DEBUG") && !(ok && marked >= 2)) {
        fprintf(stderr, "witness: known %d data %d violates %d marked %d:",
                bsearch(&h, valid->k, valid->n, sizeof h, u64cmp) != NULL,
                av_data_ok_paper(c, p, seq, res->nsteps),
                av_violates(c, p, seq, res->nsteps), marked);
        for (uint32_t i = 0; i < res->nsteps; i++)
            fprintf(stderr, " t%u.%u:%s%s", c->tid[seq[i]], c->pos[seq[i]],
                    ft_op_name(c->op[seq[i]]), steps[i].mark ? "!" : "");
        fprintf(stderr, "\n");
        for (uint32_t x = 0; x < c->ntrans; x++)
            fprintf(stderr, "  x%u t%u.%u %s obj %u val %llu/%llu shared %d "
                    "init %d/%llu\n", x, c->tid[x], c->pos[x],
                    ft_op_name(c->op[x]), c->obj[x],
                    (unsigned long long)c->value[x],
                    (unsigned long long)ft_ctm_value2(c, x),
                    c->obj[x] < c->nvars ? c->vars[c->obj[x]].shared : -1,
                    c->obj[x] < c->nvars ? c->vars[c->obj[x]].has_init : -1,
                    c->obj[x] < c->nvars ?
                    (unsigned long long)c->vars[c->obj[x]].init : 0ull);
    }
    free(seq);
    free(own);
    return ok && marked >= 2;
}

/* A window's witness as a whole-run sequence: the recorded prefix, then
 * the steps (tmp->steps allocated). */
void av_expand_prefix(const ft_presult *res, ft_presult *tmp)
{
    ft_step *own;
    const ft_step *steps = ft_presult_steps(res, &own);
    *tmp = *res;
    tmp->steps = malloc(sizeof *tmp->steps * (res->prefix + res->nsteps + 1));
    if (!tmp->steps || (res->nsteps && !steps))
        abort();
    for (uint32_t i = 0; i < res->prefix; i++)
        tmp->steps[i] = (ft_step){i, 0, 0, 0};
    if (res->nsteps)
        memcpy(tmp->steps + res->prefix, steps,
               sizeof *steps * res->nsteps);
    free(own);
    tmp->nsteps = res->prefix + res->nsteps;
    tmp->prefix = 0;
    tmp->packed = 0;
    tmp->alt_steps = NULL; /* not tmp's to free */
    tmp->nalt_steps = 0;
}


void av_count_visit(void *ctx, const uint32_t *seq, uint32_t n, int maximal,
                    const uint8_t *blocked)
{
    (void)ctx;
    (void)seq;
    (void)n;
    (void)maximal;
    (void)blocked;
}

void av_walk_sort(av_walk *w)
{
    for (int i = 0; i < w->nprops; i++)
        if (w->valid[i].n)
            qsort(w->valid[i].k, w->valid[i].n, sizeof(uint64_t), u64cmp);
}

void av_walk_free(av_walk *w)
{
    for (int i = 0; i < w->nprops; i++)
        free(w->valid[i].k);
}
