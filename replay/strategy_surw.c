/* SPDX-License-Identifier: MIT */
/* strategy_surw.c - SURW, selectively uniform random walk (Zhao, Wolff,
 * Mathur and Roychoudhury, ASPLOS'25).  The runtime walks
 * (recorder/rt/policy_surw.c); the driver chooses each run's interesting
 * events and estimates how many each thread has, from the calibration
 * run (the artifact's profiling run): run i draws --vars V (default 2)
 * of the variables two or more threads touched in it (globals and heap
 * allocation sites; plain accesses, atomics, and lock acquisitions,
 * releases and destroys) that another schedule can reorder
 * (calib_order.c), from its own seed, and counts each thread's accesses to them
 * there.  A program without shared variables gets the non-selective walk over
 * every event, with each thread's event count.  surw-sym
 * (strategy_surwsym.c, sym) draws the variables after the first by how
 * much their threads overlap the chosen ones' (draw_correlated), and has
 * the runtime draw over classes of threads (g=1) in every other run. */
#include "recorder/rt/policy_sample.h"
#include "replay/explore.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SURW_MAX_VARS 16

typedef struct surw_state {
    const fx_opts *o;
    const fx_calib *c;
} surw_state;

/* Appends the counts as "C,C*R,..." (runs of equal counts). */
static int put_counts(char *spec, size_t len, size_t n, const uint64_t *count,
                      uint64_t threads)
{
    for (uint64_t t = 0; t < threads;) {
        uint64_t r = 1;
        while (t + r < threads && count[t + r] == count[t])
            r++;
        int k = r > 1 ? snprintf(spec + n, len - n, "%s%" PRIu64 "*%" PRIu64,
                                 t ? "," : ":w=", count[t], r)
                      : snprintf(spec + n, len - n, "%s%" PRIu64, t ? "," : ":w=",
                                 count[t]);
        if (k < 0 || (size_t)k >= len - n)
            return 0;
        n += (size_t)k;
        t += r;
    }
    return 1;
}

/* surw-sym's variables: vars distinct ones, the first uniform, each next
 * with weight the Jaccard similarity of its threads and the chosen ones'
 * (the threads that touched it in the calibration run), plus CORR_FLOOR
 * so that every variable keeps a chance.  A bug on two variables needs
 * threads that touch both (MUVI's correlated variables, Lu et al.
 * SOSP'07, are those accessed together): on data/stages.c the pair the
 * bug needs (finished and result, both touched by the last stage and the
 * reader only) is drawn about twice as often as uniformly, and a lock
 * every stage takes rarely joins either.  Returns how many were drawn. */
#define CORR_FLOOR 0.1
static int draw_correlated(const fx_calib *c, ft_rng *rng, int vars,
                           uint64_t *chosen)
{
    uint64_t threads = c->threads ? c->threads : 1;
    unsigned char *in = calloc(threads, 1);
    double *w = malloc(sizeof *w * c->nsvars);
    int nv = 0;
    if (!in || !w || !c->nsvars)
        goto out;
    if ((uint64_t)vars > c->nsvars)
        vars = (int)c->nsvars;
    uint64_t nin = 0;
    for (; nv < vars; nv++) {
        uint64_t v = 0;
        if (nv == 0) {
            v = ft_rng_below(rng, c->nsvars);
        } else {
            double total = 0;
            for (uint64_t j = 0; j < c->nsvars; j++) {
                int taken = 0;
                for (int i = 0; i < nv; i++)
                    taken |= chosen[i] == j;
                uint64_t inter = 0, mine = 0;
                for (uint64_t p = c->sv_first[j]; p < c->sv_first[j + 1]; p++)
                    if (c->sv_tid[p] < threads) {
                        mine++;
                        inter += in[c->sv_tid[p]];
                    }
                uint64_t uni = nin + mine - inter;
                w[j] = taken ? 0 : (uni ? (double)inter / uni : 0) + CORR_FLOOR;
                total += w[j];
            }
            /* the first whose cumulative weight passes x; rounding at
             * the end leaves the last one not taken */
            double x = (double)(ft_rng_next(rng) >> 11) * 0x1.0p-53 * total;
            for (uint64_t j = 0; j < c->nsvars; j++) {
                if (w[j] <= 0)
                    continue;
                v = j;
                if (x < w[j])
                    break;
                x -= w[j];
            }
        }
        chosen[nv] = v;
        for (uint64_t p = c->sv_first[v]; p < c->sv_first[v + 1]; p++)
            if (c->sv_tid[p] < threads && !in[c->sv_tid[p]]) {
                in[c->sv_tid[p]] = 1;
                nin++;
            }
    }
out:
    free(in);
    free(w);
    return nv;
}

int fx_surw_draw_vars(const fx_calib *c, uint64_t seed, int vars, int sym,
                      uint64_t *chosen)
{
    ft_rng rng;
    ft_rng_seed(&rng, seed * 0x9e3779b97f4a7c15ull + 29);
    if (vars > SURW_MAX_VARS)
        vars = SURW_MAX_VARS;
    return sym ? draw_correlated(c, &rng, vars, chosen)
               : ft_sample_distinct(&rng, c->nsvars, vars, chosen);
}

int fx_surw_spec(const fx_calib *c, int vars, int sym, uint64_t seed,
                 char *spec, size_t len)
{
    uint64_t threads = c->threads ? c->threads : 1;
    uint64_t *count = calloc(threads, sizeof *count);
    if (!count)
        return 0;
    int n = snprintf(spec, len, "surw:seed=%" PRIu64, seed);
    int ok = n > 0 && (size_t)n < len;
    if (ok && c->nsvars == 0) {
        for (uint64_t t = 0; t < threads && c->thread_events; t++)
            count[t] = c->thread_events[t];
    } else if (ok) {
        uint64_t chosen[SURW_MAX_VARS];
        int nv = fx_surw_draw_vars(c, seed, vars, sym, chosen);
        for (int i = 0; ok && i < nv; i++) {
            uint64_t v = chosen[i];
            int k = snprintf(spec + n, len - (size_t)n, "%s%s", i ? "," : ":v=",
                             c->svar[v]);
            ok = k > 0 && (size_t)k < len - (size_t)n;
            n += ok ? k : 0;
            for (uint64_t p = c->sv_first[v]; p < c->sv_first[v + 1]; p++)
                if (c->sv_tid[p] < threads)
                    count[c->sv_tid[p]] += c->sv_count[p];
        }
    }
    ok = ok && put_counts(spec, len, (size_t)n, count, threads);
    free(count);
    return ok;
}

/* Asks the runtime for the draw over classes of threads (g=1). */
static int add_classes(char *spec, size_t len)
{
    size_t used = strlen(spec);
    if (used + 4 >= len)
        return 0;
    memcpy(spec + used, ":g=1", 5);
    return 1;
}

void *fx_surw_init(const fx_opts *o, const fx_calib *c)
{
    surw_state *s = calloc(1, sizeof *s);
    if (s) {
        s->o = o;
        s->c = c;
    }
    return s;
}

int fx_surw_next(void *st, uint64_t i, int sym, char *spec, size_t len)
{
    const surw_state *s = st;
    return fx_surw_spec(s->c, s->o->vars ? s->o->vars : 2, sym,
                        fx_run_seed(s->o->seed, i), spec, len) &&
           (!sym || i % 2 || add_classes(spec, len));
}

static int surw_next(void *st, uint64_t i, char *spec, size_t len)
{
    return fx_surw_next(st, i, 0, spec, len);
}

const fx_strategy fx_strategy_surw = {
    .name = "surw",
    .parallel = 1,
    .wants_log = 0,
    .init = fx_surw_init,
    .next = surw_next,
    .fini = free,
};
