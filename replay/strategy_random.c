/* SPDX-License-Identifier: MIT */
/* strategy_random.c - the seeded strategies: each run is planned from its
 * own seed (fx_run_seed: base seed and run number), so runs are independent and can go
 * in parallel.  random, pct and rpro are decided entirely in the runtime
 * (recorder/rt/policy_explore.c) from the estimates of the calibration
 * run (threads n, key points k, lock acquisitions for rpro's deadlock
 * variant); pctvb's variables and change points are drawn here, as the
 * paper does (section 3), from the calibration's shared variables and
 * their access counts, and handed to the runtime by name. */
#include "recorder/rt/policy_sample.h"
#include "replay/explore.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct seeded {
    const fx_opts *o;
    const fx_calib *c;
    int kind; /* 0 random, 1 pct, 2 rpro, 3 pctvb */
} seeded;

static void *init_kind(const fx_opts *o, const fx_calib *c, int kind)
{
    seeded *s = calloc(1, sizeof *s);
    if (s) {
        s->o = o;
        s->c = c;
        s->kind = kind;
    }
    return s;
}

static void *init_random(const fx_opts *o, const fx_calib *c) { return init_kind(o, c, 0); }
static void *init_pct(const fx_opts *o, const fx_calib *c) { return init_kind(o, c, 1); }
static void *init_rpro(const fx_opts *o, const fx_calib *c) { return init_kind(o, c, 2); }
static void *init_pctvb(const fx_opts *o, const fx_calib *c) { return init_kind(o, c, 3); }

static uint64_t at_least1(uint64_t v) { return v ? v : 1; }

/* PCTVB (paper section 3): choose v of the Q shared variables, then d-1
 * distinct elements of S = {(q, j) : j <= k_q}; change point i is the j-th
 * access of q. */
static int pctvb_spec(const seeded *s, uint64_t seed, char *spec, size_t len)
{
    const fx_calib *c = s->c;
    int depth = s->o->depth ? s->o->depth : 3;
    int v = s->o->vars ? s->o->vars : 1;
    int n = snprintf(spec, len, "pctvb:depth=%d:n=%" PRIu64 ":seed=%" PRIu64,
                     depth, at_least1(c->threads), seed);
    if (c->nvars == 0 || depth < 2) {
        snprintf(spec + n, len - (size_t)n, ":vars=%d", v);
        return 1;
    }
    ft_rng rng;
    ft_rng_seed(&rng, seed * 2654435761u + 17);
    uint64_t chosen[16];
    int nv = ft_sample_distinct(&rng, c->nvars, v > 16 ? 16 : v, chosen);
    uint64_t total = 0;
    for (int i = 0; i < nv; i++)
        total += c->var_count[chosen[i]];
    uint64_t pts[16];
    int np = ft_sample_distinct(&rng, total, depth - 1 > 15 ? 15 : depth - 1, pts);
    for (int i = 0; i < np; i++) {
        uint64_t x = pts[i];
        int q = 0;
        while (x >= c->var_count[chosen[q]])
            x -= c->var_count[chosen[q++]];
        n += snprintf(spec + n, len - (size_t)n, "%s%s.%" PRIu64,
                      i ? "," : ":cp=", c->var[chosen[q]], x + 1);
        if ((size_t)n >= len)
            return 0;
    }
    return 1;
}

static int seeded_next(void *st, uint64_t i, char *spec, size_t len)
{
    seeded *s = st;
    uint64_t seed = fx_run_seed(s->o->seed, i);
    const fx_calib *c = s->c;
    switch (s->kind) {
    case 0:
        snprintf(spec, len, "random:seed=%" PRIu64, seed);
        return 1;
    case 1:
        snprintf(spec, len, "pct:depth=%d:n=%" PRIu64 ":k=%" PRIu64 ":seed=%" PRIu64,
                 s->o->depth ? s->o->depth : 3, at_least1(c->threads),
                 at_least1(c->events), seed);
        return 1;
    case 2:
        snprintf(spec, len,
                 "rpro:depth=%d:n=%" PRIu64 ":k=%" PRIu64 ":radius=%" PRIu64
                 ":seed=%" PRIu64 "%s",
                 s->o->depth ? s->o->depth : 2, at_least1(c->threads),
                 at_least1(s->o->deadlock ? c->locks : c->events),
                 s->o->radius ? s->o->radius : 10, seed,
                 s->o->deadlock ? ":deadlock=1" : "");
        return 1;
    default:
        return pctvb_spec(s, seed, spec, len);
    }
}

static void seeded_done(void *st, const char *spec, const char *log)
{
    (void)st;
    (void)spec;
    (void)log;
}

static void seeded_fini(void *st)
{
    free(st);
}

#define SEEDED(NAME, INIT)                                                    \
    const fx_strategy fx_strategy_##NAME = {                                  \
        .name = #NAME, .parallel = 1, .wants_log = 0, .init = INIT,           \
        .next = seeded_next, .done = seeded_done, .fini = seeded_fini,        \
    };
SEEDED(random, init_random)
SEEDED(pct, init_pct)
SEEDED(rpro, init_rpro)
SEEDED(pctvb, init_pctvb)
