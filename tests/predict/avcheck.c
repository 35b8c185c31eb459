/* avcheck.c - transition-level reference for the data rule and for
 * (mutual) conflict-serializability; see avcheck.h. */
#include "avcheck.h"

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

int av_data_ok(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
               uint32_t n)
{
    uint32_t *lastw = malloc(sizeof *lastw * (c->nvars + 1));
    uint8_t *wcertain = calloc(c->nvars + 1, 1);
    uint8_t *tainted = calloc(c->nthreads + 1, 1);
    uint32_t *last_of = malloc(sizeof *last_of * (c->nthreads + 1));
    int ok = 1;
    for (uint32_t v = 0; v <= c->nvars; v++)
        lastw[v] = UINT32_MAX;
    for (uint32_t t = 0; t <= c->nthreads; t++)
        last_of[t] = UINT32_MAX;
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
    return ok;
}

/* reach[i]: seq[i] is reached from region g through program order and
 * conflicts, walking forward. */
static void reach(const ft_ctm *c, const ft_prop *p, uint32_t g,
                  const uint32_t *seq, uint32_t n, uint8_t *R)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = seq[i];
        R[i] = (uint8_t)in_region(p, g, c, x);
        for (uint32_t j = 0; j < i && !R[i]; j++)
            if (R[j] && (c->tid[seq[j]] == c->tid[x] ||
                         ft_ctm_conflict(c, seq[j], x)))
                R[i] = 1;
    }
}

int av_violates(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                uint32_t n)
{
    uint8_t *R0 = calloc(n + 1, 1), *R1 = calloc(n + 1, 1);
    int bad = 0;
    reach(c, p, 0, seq, n, R0);
    if (p->kind == FT_PROP_CA) {
        for (uint32_t i = 0; i < n && !bad; i++) {
            if (!in_region(p, 0, c, seq[i]))
                continue;
            for (uint32_t j = 0; j < i && !bad; j++)
                if (R0[j] && c->tid[seq[j]] != p->r[0].thread &&
                    ft_ctm_conflict(c, seq[j], seq[i]))
                    bad = 1;
        }
    } else {
        reach(c, p, 1, seq, n, R1);
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
