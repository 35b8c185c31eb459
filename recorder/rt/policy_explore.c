/* SPDX-License-Identifier: MIT */
/* policy_explore.c - the in-process exploring policies that
 * FORETELL_STRATEGY selects, each deciding one whole run from its seed:
 *   random:seed=X                     uniform choice among the enabled
 *                                     threads at every key point
 *   pct:depth=D:n=N:k=K:seed=X        PCT (Burckhardt et al.): random
 *                                     priorities, D-1 change points over
 *                                     the first K key points
 *   rpro:depth=D:radius=R:k=K:seed=X[:deadlock=1]
 *                                     RPro (Cai, Yang): first change point
 *                                     over K, the others within R of it;
 *                                     deadlock=1 counts lock acquisitions
 *   pctvb:depth=D:n=N:seed=X:cp=g0.4010.2,h0.11a8.1
 *                                     PCT with variable and thread
 *                                     bounding (Bindal et al. sections 3
 *                                     and 4): change point i at the j-th
 *                                     access of a variable, named by the
 *                                     driver as g (global) or h (heap
 *                                     allocation site), module index and
 *                                     hex offset; without cp, vars=V:q=Q:
 *                                     kv=KV picks V of the first Q shared
 *                                     variables online (an approximation)
 *   none                              no preemption, round-robin
 *   prefix:at=S.T,...                 policy_prefix.c (ICB, IDB)
 *   period:p=T.C,...                  policy_period.c (Period)
 *   pos:seed=X                        policy_pos.c (POS)
 *   surw:seed=X:v=...:w=...           policy_surw.c (SURW)
 * Exploring policies keep the budget at 1, so the hooks' slow path runs at
 * every key point and stores what the key point is (ft_thread.kp_kind,
 * kp_addr); recording never pays for it.  docs/explore.md describes each
 * strategy and how it departs from its paper. */
#define _GNU_SOURCE
#include "policy_sample.h"
#include "rt.h"
#include "rt_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EX_RANDOM = 1, EX_PCT, EX_RPRO, EX_PCTVB };
#define EX_MAX_POINTS 16
#define EX_PRIO_SCALE 4096 /* base priorities are (d + rank) * SCALE */
#define EX_NVARS 8192      /* pctvb variable table (power of two) */
#define EX_NBLOCKS 16384   /* pctvb heap blocks remembered */

static struct {
    int mode;
    int depth;
    uint64_t n, k, radius, seed, q, kv;
    int deadlock, vars;
    ft_rng rng;
    int64_t prio[FT_MAX_THREADS];
    unsigned char has_prio[FT_MAX_THREADS];
    int perm[FT_MAX_THREADS + EX_MAX_POINTS];
    uint64_t steps;                  /* key points counted so far */
    uint64_t point[EX_MAX_POINTS];   /* change points (step numbers) */
    int64_t point_prio[EX_MAX_POINTS];
    int npoints;
    int asked;                       /* preempt() just asked for a switch */
    uint64_t chosen[EX_MAX_POINTS];  /* pctvb: ranks of tracked variables */
    int nchosen;
    uint64_t nshared;                /* pctvb: ranks handed out */
    struct ex_cp {                   /* pctvb: driver-chosen points */
        char kind;                   /* 'g' global, 'h' heap site */
        int mod;
        uint64_t off, j, seen;
        int fired;
    } cp[EX_MAX_POINTS];
    int ncp;
} ex;

/* ---- pctvb: variables are globals (by address) and heap allocation
 * sites; a variable gets a rank when a second thread first touches it. */
typedef struct ex_var { uintptr_t key; int first_tid; int64_t rank; } ex_var;
typedef struct ex_block { uintptr_t start, end, pc; } ex_block;
static ex_var vars_tab[EX_NVARS];
static ex_block blocks[EX_NBLOCKS];
static int nblocks;

static int block_index(uintptr_t a) /* last block starting at or before a */
{
    int lo = 0, hi = nblocks - 1, best = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (blocks[mid].start <= a) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

void ft_explore_note_alloc(uintptr_t pc, uintptr_t addr, size_t size)
{
    int i = block_index(addr);
    if (i >= 0 && blocks[i].start == addr) { /* the old block was freed */
        blocks[i].end = addr + (size ? size : 1);
        blocks[i].pc = pc;
        return;
    }
    if (nblocks == EX_NBLOCKS)
        return; /* later blocks count as plain addresses */
    memmove(&blocks[i + 2], &blocks[i + 1],
            (size_t)(nblocks - i - 1) * sizeof blocks[0]);
    blocks[i + 1] = (ex_block){addr, addr + (size ? size : 1), pc};
    nblocks++;
}

static uintptr_t var_key(uintptr_t a)
{
    int i = block_index(a);
    if (i >= 0 && a < blocks[i].end)
        return blocks[i].pc | 1; /* odd keys: allocation sites */
    return a & ~(uintptr_t)1;
}

/* The rank of the variable at a, or -1 while only one thread used it. */
static int64_t var_rank(uintptr_t a, int tid)
{
    uintptr_t key = var_key(a);
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    for (uint64_t i = 0; i < EX_NVARS; i++) {
        ex_var *v = &vars_tab[(h + i) & (EX_NVARS - 1)];
        if (v->key == 0) {
            *v = (ex_var){key, tid, -1};
            return -1;
        }
        if (v->key != key)
            continue;
        if (v->rank < 0 && v->first_tid != tid)
            v->rank = (int64_t)ex.nshared++;
        return v->rank;
    }
    return -1; /* table full: untracked */
}

int ft_explore_var_of(uintptr_t a, char *kind, int *mod, uint64_t *off)
{
    *kind = 'g';
    uintptr_t where = a;
    int i = block_index(a);
    if (i >= 0 && a < blocks[i].end) {
        *kind = 'h';
        where = blocks[i].pc;
    }
    *mod = ft_module_find(where);
    if (*mod < 0)
        return 0; /* stack or anonymous mapping: not a variable */
    *off = (uint64_t)where - (uint64_t)ft_module_base(*mod);
    return 1;
}

/* pctvb with named variables: the access at a bumps the counters of the
 * change points on its variable; returns the point reached, or -1. */
static int cp_reached(uintptr_t a)
{
    char kind;
    int mod;
    uint64_t off;
    if (!ft_explore_var_of(a, &kind, &mod, &off))
        return -1;
    int hit = -1;
    for (int c = 0; c < ex.ncp; c++) {
        struct ex_cp *p = &ex.cp[c];
        if (p->kind != kind || p->mod != mod || p->off != off)
            continue;
        if (++p->seen == p->j && !p->fired) {
            p->fired = 1;
            hit = c;
        }
    }
    return hit;
}

static int counts_step(const ft_thread *t)
{
    switch (ex.mode) {
    case EX_RPRO:
        return !ex.deadlock || t->kp_kind == FT_KP_LOCK;
    case EX_PCTVB: {
        if ((t->kp_kind != FT_KP_READ && t->kp_kind != FT_KP_WRITE) || !t->kp_addr)
            return 0;
        int64_t r = var_rank(t->kp_addr, t->tid);
        if (r < 0)
            return 0;
        for (int i = 0; i < ex.nchosen; i++)
            if (ex.chosen[i] == (uint64_t)r)
                return 1;
        return 0;
    }
    default:
        return 1;
    }
}

/* A thread's starting priority.  PCT: d..d+n-1 in random order (threads
 * beyond the estimated n get a random rank too, between the others);
 * PCTVB: P_1..P_n of one random permutation of n+c (thread bounding). */
static int64_t prio_of(int tid)
{
    if (!ex.has_prio[tid]) {
        int64_t rank;
        if ((uint64_t)tid < ex.n)
            rank = ex.perm[tid];
        else
            rank = (int64_t)ft_rng_below(&ex.rng, ex.n + 1);
        ex.prio[tid] = ((int64_t)ex.depth + rank) * EX_PRIO_SCALE +
                       ((uint64_t)tid < ex.n ? 0 : 1 + (int64_t)(ft_rng_below(&ex.rng, EX_PRIO_SCALE - 1)));
        ex.has_prio[tid] = 1;
    }
    return ex.prio[tid];
}

static int64_t explore_budget(int tid)
{
    (void)tid;
    return 1;
}

static int explore_preempt(int tid)
{
    ft_thread *t = &ft_threads[tid];
    if (ex.mode == EX_RANDOM) {
        ex.asked = 1;
        return 1;
    }
    if (ex.ncp) {
        if ((t->kp_kind == FT_KP_READ || t->kp_kind == FT_KP_WRITE ||
             t->kp_kind == FT_KP_LOCK) && t->kp_addr) { /* access or lock */
            int c = cp_reached(t->kp_addr);
            if (c >= 0) {
                prio_of(tid);
                ex.prio[tid] = ex.point_prio[c];
            }
        }
    } else if (counts_step(t)) {
        ex.steps++;
        for (int i = 0; i < ex.npoints; i++)
            if (ex.point[i] == ex.steps) {
                prio_of(tid);
                ex.prio[tid] = ex.point_prio[i];
            }
    }
    int64_t mine = prio_of(tid);
    for (int i = 0; i < ft_rt.nthreads; i++) {
        if (i == tid ||
            __atomic_load_n(&ft_threads[i].state, __ATOMIC_RELAXED) != FT_T_RUNNABLE)
            continue;
        if (prio_of(i) > mine) {
            ex.asked = 1;
            return 1;
        }
    }
    return 0;
}

static int explore_pick(const int *enabled, int n, int cur)
{
    int asked = ex.asked;
    ex.asked = 0;
    if (ex.mode == EX_RANDOM)
        return enabled[ft_rng_below(&ex.rng, (uint64_t)n)];
    int cur_enabled = 0;
    for (int i = 0; i < n; i++)
        cur_enabled |= enabled[i] == cur;
    if (cur_enabled && !asked && n > 1) {
        /* A yield (sched_yield, sleep as a yield point): the yielding
         * thread drops below every other, as CHESS does, so that spin
         * loops waiting for a lower-priority thread make progress. */
        int64_t low = prio_of(cur);
        for (int i = 0; i < n; i++)
            if (prio_of(enabled[i]) < low)
                low = prio_of(enabled[i]);
        ex.prio[cur] = low - 1;
    }
    int best = enabled[0];
    for (int i = 1; i < n; i++)
        if (prio_of(enabled[i]) > prio_of(best))
            best = enabled[i];
    return best;
}

static int explore_pick_waiter(const int *waiters, int n)
{
    if (ex.mode == EX_RANDOM)
        return waiters[ft_rng_below(&ex.rng, (uint64_t)n)];
    int best = waiters[0];
    for (int i = 1; i < n; i++)
        if (prio_of(waiters[i]) > prio_of(best))
            best = waiters[i];
    return best;
}

/* Timed waits expire only when nothing else can run (sched.c does that
 * on its own): real time must not decide an explored schedule. */
static int explore_expire(int tid, int64_t deadline_ns, int64_t now_ns)
{
    (void)tid;
    (void)deadline_ns;
    (void)now_ns;
    return 0;
}

static const ft_policy ft_policy_explore = {
    .budget = explore_budget,
    .preempt = explore_preempt,
    .pick = explore_pick,
    .pick_waiter = explore_pick_waiter,
    .expire = explore_expire,
};

/* ---- FORETELL_STRATEGY parsing ---- */

static int bad(const char *spec, const char *why, const char *what)
{
    ft_rt_refuse(FT_BAD_STRATEGY_STATUS, "FORETELL_STRATEGY=%s: %s%s", spec,
                 why, what ? what : "");
}

static int parse_u64(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

/* "g0.4010.2,h1.a8.1": up to 15 change points (kind, module, offset in
 * hex, j >= 1). */
static int parse_cps(const char *s, size_t len)
{
    const char *end = s + len;
    ex.ncp = 0;
    while (s < end) {
        if (ex.ncp == EX_MAX_POINTS - 1 || (*s != 'g' && *s != 'h'))
            return -1;
        struct ex_cp *p = &ex.cp[ex.ncp];
        *p = (struct ex_cp){.kind = *s++};
        char *e;
        unsigned long mod = strtoul(s, &e, 10);
        if (e == s || *e != '.' || mod > 511)
            return -1;
        s = e + 1;
        p->mod = (int)mod;
        p->off = strtoull(s, &e, 16);
        if (e == s || *e != '.')
            return -1;
        s = e + 1;
        p->j = strtoull(s, &e, 10);
        if (e == s || p->j < 1 || (e < end && *e != ','))
            return -1;
        s = e < end ? e + 1 : e;
        ex.ncp++;
    }
    return ex.ncp ? 0 : -1;
}

/* Keys each strategy accepts. */
static int key_allowed(int mode, const char *key)
{
    static const char *const keys[][8] = {
        [EX_RANDOM] = {"seed"},
        [EX_PCT] = {"seed", "depth", "n", "k"},
        [EX_RPRO] = {"seed", "depth", "n", "k", "radius", "deadlock"},
        [EX_PCTVB] = {"seed", "depth", "n", "vars", "q", "kv", "cp"},
    };
    for (int i = 0; i < 8 && keys[mode][i]; i++)
        if (strcmp(keys[mode][i], key) == 0)
            return 1;
    return 0;
}

static int parse_spec(const char *spec)
{
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    static const char *const names[] = {NULL, "random", "pct", "rpro", "pctvb"};
    ex.mode = 0;
    for (int m = EX_RANDOM; m <= EX_PCTVB; m++)
        if (strlen(names[m]) == nlen && strncmp(spec, names[m], nlen) == 0)
            ex.mode = m;
    if (!ex.mode)
        return bad(spec, "unknown strategy (none, random, pct, rpro, pctvb)", NULL);
    ex.depth = 3;
    ex.n = 4;
    ex.k = 1000;
    ex.radius = 10;
    ex.vars = 1;
    ex.q = 8;
    ex.kv = 8;
    if (ex.mode == EX_RPRO)
        ex.depth = 2;
    const char *p = colon;
    while (p && *p == ':') {
        p++;
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq)
            return bad(spec, "expected key=value, got ", p);
        char key[16];
        size_t klen = (size_t)(eq - p);
        if (klen == 0 || klen >= sizeof key)
            return bad(spec, "bad key in ", p);
        memcpy(key, p, klen);
        key[klen] = 0;
        if (ex.mode == EX_PCTVB && strcmp(key, "cp") == 0) {
            if (parse_cps(eq + 1, len - klen - 1) < 0)
                return bad(spec, "cp: expected g|h MOD.HEXOFF.J[,...], got ", eq + 1);
            p = end;
            continue;
        }
        uint64_t v;
        if (parse_u64(eq + 1, len - klen - 1, &v) < 0)
            return bad(spec, "expected a number >= 0 for ", key);
        if (!key_allowed(ex.mode, key))
            return bad(spec, "unknown parameter for this strategy: ", key);
        if (strcmp(key, "seed") == 0) ex.seed = v;
        else if (strcmp(key, "depth") == 0) {
            if (v < 1 || v > EX_MAX_POINTS)
                return bad(spec, "depth must be 1..16", NULL);
            ex.depth = (int)v;
        } else if (strcmp(key, "n") == 0) {
            if (v < 1 || v > FT_MAX_THREADS)
                return bad(spec, "n must be 1..1024", NULL);
            ex.n = v;
        } else if (strcmp(key, "k") == 0) {
            if (v < 1)
                return bad(spec, "k must be >= 1", NULL);
            ex.k = v;
        } else if (strcmp(key, "radius") == 0) {
            if (v < 1)
                return bad(spec, "radius must be >= 1", NULL);
            ex.radius = v;
        } else if (strcmp(key, "deadlock") == 0) ex.deadlock = v != 0;
        else if (strcmp(key, "vars") == 0) {
            if (v < 1 || v > EX_MAX_POINTS)
                return bad(spec, "vars must be 1..16", NULL);
            ex.vars = (int)v;
        } else if (strcmp(key, "q") == 0) {
            if (v < 1)
                return bad(spec, "q must be >= 1", NULL);
            ex.q = v;
        } else if (strcmp(key, "kv") == 0) {
            if (v < 1)
                return bad(spec, "kv must be >= 1", NULL);
            ex.kv = v;
        }
        p = end;
    }
    return 0;
}

/* Draws everything the run needs up front, from the seed alone. */
static void plan(void)
{
    ft_rng_seed(&ex.rng, ex.seed);
    int c = ex.depth - 1 > ex.ncp ? ex.depth - 1 : ex.ncp;
    ft_sample_perm(&ex.rng, (int)ex.n + c, ex.perm);
    if (ex.mode == EX_PCT) {
        ex.npoints = ft_sample_pct(&ex.rng, ex.k, c, ex.point);
    } else if (ex.mode == EX_RPRO) {
        ex.npoints = ft_sample_rpro(&ex.rng, ex.k, ex.radius, c, ex.point);
    } else if (ex.mode == EX_PCTVB && ex.ncp) {
        ex.npoints = ex.ncp; /* cp[i] is change point i */
        ft_rt.explore_allocs = 1;
    } else if (ex.mode == EX_PCTVB) {
        ex.nchosen = ft_sample_distinct(&ex.rng, ex.q, ex.vars, ex.chosen);
        ex.npoints = ft_sample_pct(&ex.rng, (uint64_t)ex.nchosen * ex.kv, c,
                                   ex.point);
        ft_rt.explore_allocs = 1;
    }
    for (int i = 0; i < ex.npoints; i++) {
        if (ex.mode == EX_PCTVB) /* thread bounding: P_{n+i} */
            ex.point_prio[i] = ((int64_t)ex.depth + ex.perm[ex.n + (uint64_t)i]) *
                               EX_PRIO_SCALE;
        else /* PCT, RPro: priority i, below every starting priority */
            ex.point_prio[i] = (int64_t)(i + 1) * EX_PRIO_SCALE;
    }
}

int ft_explore_select(const char *spec)
{
    if (strcmp(spec, "none") == 0) {
        ft_rt.policy = &ft_policy_none; /* policy_replay.c */
        return 0;
    }
    if (strncmp(spec, "prefix", 6) == 0 && (spec[6] == 0 || spec[6] == ':'))
        return ft_prefix_select(spec);
    if (strncmp(spec, "period", 6) == 0 && (spec[6] == 0 || spec[6] == ':'))
        return ft_period_select(spec);
    if (strncmp(spec, "pos", 3) == 0 && (spec[3] == 0 || spec[3] == ':'))
        return ft_pos_select(spec);
    if (strncmp(spec, "surw", 4) == 0 && (spec[4] == 0 || spec[4] == ':'))
        return ft_surw_select(spec);
    if (parse_spec(spec) < 0)
        return -1;
    plan();
    ft_rt.policy = &ft_policy_explore;
    ft_rt_verbose("strategy %s: %d change point(s)", spec, ex.npoints);
    return 0;
}
