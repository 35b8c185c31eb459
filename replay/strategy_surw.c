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
 * (strategy_surwsym.c) asks for the same runs drawn over classes of
 * threads (grouped). */
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

int fx_surw_spec(const fx_calib *c, int vars, int grouped, uint64_t seed,
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
        ft_rng rng;
        ft_rng_seed(&rng, seed * 0x9e3779b97f4a7c15ull + 29);
        uint64_t chosen[SURW_MAX_VARS];
        if (vars > SURW_MAX_VARS)
            vars = SURW_MAX_VARS;
        int nv = ft_sample_distinct(&rng, c->nsvars, vars, chosen);
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
    if (ok && grouped) {
        size_t used = strlen(spec);
        ok = used + 4 < len;
        if (ok)
            memcpy(spec + used, ":g=1", 5);
    }
    free(count);
    return ok;
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

int fx_surw_next(void *st, uint64_t i, int grouped, char *spec, size_t len)
{
    const surw_state *s = st;
    return fx_surw_spec(s->c, s->o->vars ? s->o->vars : 2, grouped,
                        fx_run_seed(s->o->seed, i), spec, len);
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
