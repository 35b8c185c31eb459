/* SPDX-License-Identifier: MIT */
/* policy_surw.c - selectively uniform random walk,
 * `surw:seed=X[:v=VAR,...]:w=COUNTS[:g=0|1]` (Zhao, Wolff, Mathur and
 * Roychoudhury, "Selectively Uniform Concurrency Testing", ASPLOS'25, as
 * its artifact's README describes it: alg1 = urw on the interesting
 * events, alg2 = rp, a random priority per event, on the others).
 *
 * The interesting events are the accesses (plain, atomic, lock
 * acquisitions, releases and destroys) to the variables v, named as the driver
 * names them (explore_calib.c: g MOD.HEXOFF for a global, h MOD.HEXOFF for the
 * heap blocks of an allocation site); without v every key point is interesting
 * (the paper's non-selective URW).  w gives each thread's count of
 * interesting events, estimated from the calibration run, as a list by
 * thread id with runs written C*R (R threads of C events each).
 *
 * Each step (ft_surw_step): while some enabled thread waits at an
 * uninteresting event, the one of those whose event has the highest
 * random priority runs; when every enabled thread waits at an interesting
 * event, thread t is drawn with probability proportional to its remaining
 * interesting events, which then drop by one.  For a program without
 * blocking whose counts are exact, every order of the interesting events
 * is then equally likely (the paper's uniformity over the projection).
 * With g=1 (surw-sym, replay/strategy_surwsym.c) that draw is over
 * classes of threads, those whose pending events are at one instruction
 * on one object (ft_surw_step_grouped): a class weighs the mean of its
 * members' counts, a member within it its own. */
#define _GNU_SOURCE
#include "policy_pos.h"
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SURW_MAX_VARS 16

static struct {
    ft_rng rng;
    ft_pend pend[FT_MAX_THREADS];
    uint64_t seen[FT_MAX_THREADS];
    unsigned char interesting[FT_MAX_THREADS];
    uint64_t rem[FT_MAX_THREADS];  /* interesting events left, estimated */
    int all;                       /* no v: every key point is interesting */
    struct { char kind; int mod; uint64_t off; } var[SURW_MAX_VARS];
    int nvars;
    int want;                      /* preempt()'s decision, for pick() */
    int cand[FT_MAX_THREADS];
    unsigned char all_in[FT_MAX_THREADS]; /* every event interesting */
    int last;                      /* the thread the last step chose */
    uint64_t streak;               /* its uninteresting steps in a row
                                    * while an interesting one waited */
    int grouped;                   /* g=1: draw over classes of threads */
    uint64_t key[FT_MAX_THREADS];  /* a thread's class: its pending event */
} sw;

/* A thread that runs this many uninteresting events in a row while
 * another waits at an interesting one is taken for a busy wait: one step
 * then weighs every enabled thread (see decide()). */
#define SURW_SPIN 4096

static int is_interesting(const ft_thread *t)
{
    if (sw.all)
        return 1;
    int k = t->kp_kind;
    if ((k != FT_KP_READ && k != FT_KP_WRITE && k != FT_KP_AREAD &&
         k != FT_KP_AWRITE && k != FT_KP_LOCK && k != FT_KP_UNLOCK &&
         k != FT_KP_DESTROY) ||
        !t->kp_addr)
        return 0;
    char kind;
    int mod;
    uint64_t off;
    if (!ft_explore_var_of(t->kp_addr, &kind, &mod, &off))
        return 0;
    for (int i = 0; i < sw.nvars; i++)
        if (sw.var[i].kind == kind && sw.var[i].mod == mod && sw.var[i].off == off)
            return 1;
    return 0;
}

static void sync_all(void)
{
    for (int i = 0; i < ft_rt.nthreads; i++)
        if (__atomic_load_n(&ft_threads[i].state, __ATOMIC_RELAXED) !=
                FT_T_EXITED &&
            ft_pos_sync(&sw.rng, sw.pend, sw.seen, i, 0)) {
            const ft_thread *t = &ft_threads[i];
            sw.interesting[i] = (unsigned char)is_interesting(t);
            if (sw.grouped) /* the class key, only where it is drawn on */
                sw.key[i] = ((uint64_t)t->kp_pc * 0x9e3779b97f4a7c15ull) ^
                            ((uint64_t)t->kp_addr * 0xbf58476d1ce4e5b9ull) ^
                            (uint64_t)t->kp_kind;
        }
}

/* One step over cand[0..n).  Fairness, which the paper's rule lacks: a
 * thread busy-waiting on an uninteresting variable for one that waits at
 * an interesting event would run for ever under "uninteresting first";
 * after SURW_SPIN such steps in a row, one step weighs every enabled
 * thread as if every event were interesting. */
static int decide(const int *cand, int n)
{
    int waiting = 0;
    for (int i = 0; i < n; i++)
        waiting |= sw.interesting[cand[i]];
    if (waiting && sw.streak >= SURW_SPIN) {
        sw.streak = 0;
        sw.last = -1;
        /* The draw on a copy: only an interesting event uses up a count. */
        static uint64_t rem[FT_MAX_THREADS];
        for (int i = 0; i < n; i++)
            rem[cand[i]] = sw.rem[cand[i]];
        int c = ft_surw_step(&sw.rng, sw.pend, sw.all_in, rem, cand, n);
        if (sw.interesting[c] && sw.rem[c])
            sw.rem[c]--;
        return c;
    }
    int c = sw.grouped ? ft_surw_step_grouped(&sw.rng, sw.pend, sw.interesting,
                                              sw.rem, sw.key, cand, n)
                       : ft_surw_step(&sw.rng, sw.pend, sw.interesting, sw.rem,
                                      cand, n);
    if (waiting && !sw.interesting[c] && c == sw.last)
        sw.streak++;
    else
        sw.streak = 0;
    sw.last = c;
    return c;
}

static int surw_preempt(int tid)
{
    sync_all();
    int n = 0;
    sw.cand[n++] = tid;
    for (int i = 0; i < ft_rt.nthreads; i++)
        if (i != tid &&
            __atomic_load_n(&ft_threads[i].state, __ATOMIC_RELAXED) == FT_T_RUNNABLE)
            sw.cand[n++] = i;
    int c = decide(sw.cand, n);
    if (c == tid)
        return 0;
    sw.want = c;
    return 1;
}

static int surw_pick(const int *enabled, int n, int cur)
{
    int want = sw.want;
    sw.want = -1;
    sync_all();
    for (int i = 0; want >= 0 && i < n; i++)
        if (enabled[i] == want)
            return want;
    int cur_enabled = 0;
    for (int i = 0; i < n; i++)
        cur_enabled |= enabled[i] == cur;
    if (!cur_enabled || n == 1)
        return decide(enabled, n);
    /* A yield: an event of its own that ran, and the others go first
     * (CHESS's rule: a spin loop's yield lets the thread it waits for
     * run, also one waiting at an interesting event). */
    ft_pend_new(&sw.rng, sw.pend, cur, sw.pend[cur].obj, sw.pend[cur].write);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (enabled[i] != cur)
            sw.cand[k++] = enabled[i];
    return decide(sw.cand, k);
}

static int surw_pick_waiter(const int *waiters, int n)
{
    return waiters[ft_rng_below(&sw.rng, (uint64_t)n)];
}

static const ft_policy ft_policy_surw = {
    .budget = ft_pos_budget,
    .preempt = surw_preempt,
    .pick = surw_pick,
    .pick_waiter = surw_pick_waiter,
    .expire = ft_pos_expire,
};

static int bad(const char *spec, const char *why, const char *at)
{
    ft_rt_refuse(FT_BAD_STRATEGY_STATUS, "FORETELL_STRATEGY=%s: %s%s", spec,
                 why, at ? at : "");
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* v=g0.4010,h1.a8 (up to 16). */
static int parse_vars(const char *spec, const char *p, const char **endp)
{
    for (;;) {
        if (sw.nvars == SURW_MAX_VARS || (*p != 'g' && *p != 'h'))
            return bad(spec, "v: expected g|h MOD.HEXOFF[,...] (at most 16), got ", p);
        char kind = *p++;
        char *e;
        if (!is_digit(*p))
            return bad(spec, "v: expected a module index at ", p);
        unsigned long mod = strtoul(p, &e, 10);
        if (*e != '.' || mod > 511)
            return bad(spec, "v: expected MOD.HEXOFF at ", p);
        p = e + 1;
        uint64_t off = strtoull(p, &e, 16);
        if (e == p)
            return bad(spec, "v: expected a hex offset at ", p);
        sw.var[sw.nvars].kind = kind;
        sw.var[sw.nvars].mod = (int)mod;
        sw.var[sw.nvars].off = off;
        sw.nvars++;
        p = e;
        if (*p != ',')
            break;
        p++;
    }
    *endp = p;
    return 0;
}

/* w=C,C*R,...: counts by thread id. */
static int parse_counts(const char *spec, const char *p, const char **endp)
{
    uint64_t tid = 0;
    for (;;) {
        char *e;
        if (!is_digit(*p))
            return bad(spec, "w: expected a count at ", p);
        uint64_t c = strtoull(p, &e, 10), r = 1;
        p = e;
        if (*p == '*') {
            p++;
            if (!is_digit(*p))
                return bad(spec, "w: expected a repeat count at ", p);
            r = strtoull(p, &e, 10);
            p = e;
        }
        if (r > FT_MAX_THREADS - tid)
            return bad(spec, "w: more than 1024 threads", NULL);
        for (uint64_t i = 0; i < r; i++)
            sw.rem[tid++] = c;
        if (*p != ',')
            break;
        p++;
    }
    *endp = p;
    return 0;
}

int ft_surw_select(const char *spec)
{
    memset(&sw, 0, sizeof sw);
    memset(sw.all_in, 1, sizeof sw.all_in);
    sw.want = -1;
    sw.last = -1;
    uint64_t seed = 0;
    int has_v = 0;
    const char *p = spec + 4;
    while (*p == ':') {
        p++;
        if (strncmp(p, "seed=", 5) == 0) {
            char *e;
            if (!is_digit(p[5]))
                return bad(spec, "expected a number >= 0 for seed", NULL);
            seed = strtoull(p + 5, &e, 10);
            p = e;
        } else if (strncmp(p, "v=", 2) == 0) {
            if (parse_vars(spec, p + 2, &p) < 0)
                return -1;
            has_v = 1;
        } else if (strncmp(p, "g=", 2) == 0 && (p[2] == '0' || p[2] == '1')) {
            sw.grouped = p[2] == '1';
            p += 3;
        } else if (strncmp(p, "w=", 2) == 0) {
            if (parse_counts(spec, p + 2, &p) < 0)
                return -1;
        } else {
            return bad(spec, "unknown parameter for surw (seed, v, w, g): ", p);
        }
    }
    if (*p)
        return bad(spec, "unexpected ", p);
    sw.all = !has_v;
    ft_rng_seed(&sw.rng, seed);
    if (has_v)
        ft_rt.explore_allocs = 1; /* heap variables are allocation sites */
    ft_rt.policy = &ft_policy_surw;
    ft_rt_verbose("strategy %s: %d variable(s)", spec, sw.nvars);
    return 0;
}
