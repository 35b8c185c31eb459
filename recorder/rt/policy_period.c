/* SPDX-License-Identifier: MIT */
/* policy_period.c - the in-process half of Period (Wen et al., ICSE'22;
 * the driver is replay/strategy_period.c): FORETELL_STRATEGY=
 * "period:p=T.C,T.C,...,T.C" runs the program as a series of periods.
 * Period i belongs to thread T (a tid: main is 0), which runs C key points
 * in it; key point j of a thread belongs to the first of its periods whose
 * running total reaches j, and the key points beyond its total to its last
 * period.  Threads the list never names (the paper's neglected threads,
 * and threads beyond the slice) belong to the last period, which is the
 * free one.  A key point runs only once the period it belongs to has come
 * (a late one, whose thread was blocked in its own period, runs in any
 * later period); a period ends when no thread with a key point of it (or
 * late) can run: its quota is done, it blocked, exited or yielded.  While
 * its owner is not created yet, the lowest enabled tid runs ahead (main,
 * or the thread that created the last ones: threads are numbered in
 * creation order) until it is; a period whose owner is never created
 * ends when nothing else can run.
 *
 * The paper runs the threads of one period in parallel under
 * SCHED_DEADLINE; our runtime serialises every thread (one baton), so:
 *  - within a period the running thread keeps the baton while its next key
 *    point belongs to the period (the owner first after a period change);
 *  - the last period is free: no preemption there, the running thread
 *    continues until it blocks, yields or exits, then the owner of the
 *    last period, then round-robin.
 * Key points are the runtime's (accesses, synchronisation, libc calls)
 * except function entry and exit, which touch no shared state.
 *
 * With FORETELL_EXPLORE_LOG=PATH the run's dynamic key-point slice (key
 * points per thread) is kept in PATH, a shared mapping updated at every
 * key point, so a run that crashes or is killed still reports it:
 * "FTPERIOD" (8 bytes), uint32 thread count, uint32 0, then uint64 key
 * points per tid (little-endian, FT_MAX_THREADS of them).  A forked child
 * stops recording (init.c), so it never writes there. */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PD_MAX_PERIODS 64

typedef struct pd_log {
    char magic[8];
    uint32_t nthreads, zero;
    uint64_t kp[FT_MAX_THREADS];
} pd_log;

static struct {
    int np;                          /* periods */
    int owner[PD_MAX_PERIODS];       /* their threads (tids) */
    uint64_t upto[PD_MAX_PERIODS];   /* owner's running total through it */
    int cur;                         /* current period, from 0 */
    int changed;                     /* cur just moved: owner first */
    uint64_t kp[FT_MAX_THREADS];     /* key points begun per thread */
    unsigned char pending[FT_MAX_THREADS]; /* parked before its kp[] one */
    int asked, want;                 /* preempt() chose want */
    pd_log *log;
} pd;

/* The period key point j (from 1) of thread t belongs to. */
static int period_of(int t, uint64_t j)
{
    int last = -1;
    for (int q = 0; q < pd.np; q++) {
        if (pd.owner[q] != t)
            continue;
        if (pd.upto[q] >= j)
            return q;
        last = q;
    }
    return last >= 0 ? last : pd.np - 1;
}

/* May t run now: does its next key point belong to a period that has
 * come? */
static int eligible(int t)
{
    return period_of(t, pd.kp[t] + !pd.pending[t]) <= pd.cur;
}

static int rr_after(const unsigned char *en, int cur, int skip)
{
    int n = ft_rt.nthreads;
    for (int k = 1; k <= n; k++) {
        int t = ((cur < 0 ? -1 : cur) + k) % n;
        if (t < 0)
            t += n;
        if (en[t] && t != skip)
            return t;
    }
    return -1;
}

/* The thread to run among the enabled (en[tid]); cur holds the baton
 * (-1 none); yielder (-1 none) yielded and is chosen only if nothing else
 * can run.  Moves the current period on while nothing of it can run. */
static int choose(const unsigned char *en, int cur, int yielder)
{
    for (;;) {
        if (pd.cur == pd.np - 1) { /* the free period */
            int owner = pd.owner[pd.cur];
            int first = pd.changed;
            pd.changed = 0;
            if (first && owner < ft_rt.nthreads && en[owner] && owner != yielder)
                return owner;
            if (cur >= 0 && en[cur] && cur != yielder)
                return cur;
            int t = rr_after(en, cur, yielder);
            return t >= 0 ? t : yielder;
        }
        int owner = pd.owner[pd.cur];
        int ok_cur = cur >= 0 && en[cur] && cur != yielder && eligible(cur);
        int ok_owner = owner < ft_rt.nthreads && en[owner] && owner != yielder &&
                       eligible(owner);
        if (ok_owner && (pd.changed || !ok_cur)) {
            pd.changed = 0;
            return owner;
        }
        if (ok_cur)
            return cur;
        for (int t = 0; t < ft_rt.nthreads; t++) /* late key points */
            if (en[t] && t != yielder && eligible(t))
                return t;
        if (owner >= ft_rt.nthreads) /* not created yet: run ahead */
            for (int t = 0; t < ft_rt.nthreads; t++)
                if (en[t] && t != yielder)
                    return t;
        pd.cur++; /* nothing of this period can run: it is over */
        pd.changed = 1;
    }
}

static void note_kp(int tid)
{
    pd.kp[tid]++;
    if (pd.log) {
        pd.log->kp[tid] = pd.kp[tid];
        if ((uint32_t)ft_rt.nthreads > pd.log->nthreads)
            pd.log->nthreads = (uint32_t)ft_rt.nthreads;
    }
}

static int64_t period_budget(int tid)
{
    (void)tid;
    return 1;
}

static int period_preempt(int tid)
{
    if (ft_threads[tid].kp_kind == FT_KP_FUNC)
        return 0; /* not a key point of the slice */
    note_kp(tid);
    static unsigned char en[FT_MAX_THREADS];
    for (int i = 0; i < ft_rt.nthreads; i++)
        en[i] = i == tid || __atomic_load_n(&ft_threads[i].state,
                                            __ATOMIC_RELAXED) == FT_T_RUNNABLE;
    pd.pending[tid] = 1;
    int c = choose(en, tid, -1);
    if (c == tid) {
        pd.pending[tid] = 0;
        return 0;
    }
    pd.asked = 1;
    pd.want = c;
    return 1;
}

static int period_pick(const int *enabled, int n, int cur)
{
    static unsigned char en[FT_MAX_THREADS];
    memset(en, 0, (size_t)ft_rt.nthreads);
    int cur_enabled = 0;
    for (int i = 0; i < n; i++) {
        en[enabled[i]] = 1;
        cur_enabled |= enabled[i] == cur;
    }
    int c = -1;
    if (pd.asked && en[pd.want])
        c = pd.want;
    else if (pd.asked) /* what preempt() chose is gone: choose again */
        c = choose(en, cur, -1);
    else /* blocked, exited (cur not enabled) or yielded (enabled) */
        c = choose(en, cur, cur_enabled ? cur : -1);
    pd.asked = 0;
    pd.pending[c] = 0; /* it runs the key point it parked before, if any */
    return c;
}

static int period_pick_waiter(const int *waiters, int n)
{
    (void)n;
    return waiters[0];
}

static int period_expire(int tid, int64_t deadline_ns, int64_t now_ns)
{
    (void)tid;
    (void)deadline_ns;
    (void)now_ns;
    return 0;
}

static const ft_policy ft_policy_period = {
    .budget = period_budget,
    .preempt = period_preempt,
    .pick = period_pick,
    .pick_waiter = period_pick_waiter,
    .expire = period_expire,
};

static int open_log(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ftruncate(fd, sizeof(pd_log)) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    void *m = mmap(NULL, sizeof(pd_log), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return -1;
    pd.log = m;
    memcpy(pd.log->magic, "FTPERIOD", 8);
    return 0;
}

/* "period:p=T.C,T.C,..." (T >= 0, C >= 1, at most 64 periods). */
int ft_period_select(const char *spec)
{
    const char *p = spec + strlen("period");
    if (strncmp(p, ":p=", 3) != 0) {
        ft_rt_refuse(FT_BAD_STRATEGY_STATUS,
                     "FORETELL_STRATEGY=%s: expected period:p=T.C,...", spec);
    }
    p += 3;
    uint64_t total[FT_MAX_THREADS] = {0};
    while (*p) {
        char *e;
        long t = strtol(p, &e, 10);
        if (e == p || *e != '.' || t < 0 || t >= FT_MAX_THREADS ||
            pd.np == PD_MAX_PERIODS || (pd.np && pd.owner[pd.np - 1] == t))
            goto bad;
        p = e + 1;
        unsigned long long c = strtoull(p, &e, 10);
        if (e == p || c < 1 || c > (1ull << 40) || (*e && *e != ','))
            goto bad;
        total[t] += c;
        pd.owner[pd.np] = (int)t;
        pd.upto[pd.np++] = total[t];
        p = *e ? e + 1 : e;
    }
    if (pd.np == 0)
        goto bad;
    const char *log = getenv("FORETELL_EXPLORE_LOG");
    if (log && *log && open_log(log) < 0) {
        ft_rt_refuse(FT_BAD_STRATEGY_STATUS,
                     "cannot write FORETELL_EXPLORE_LOG=%s: %s", log,
                     strerror(errno));
    }
    ft_rt.policy = &ft_policy_period;
    ft_rt_verbose("strategy %s: %d period(s)", spec, pd.np);
    return 0;
bad:
    ft_rt_refuse(FT_BAD_STRATEGY_STATUS,
                 "FORETELL_STRATEGY=%s: bad period list near '%s' (expected "
                 "T.C pairs, T >= 0 not twice in a row, C >= 1, at most %d)",
                 spec, p, PD_MAX_PERIODS);
}
