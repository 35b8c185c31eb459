/* SPDX-License-Identifier: MIT */
/* policy_prefix.c - the in-process half of the stateless systematic
 * strategies (ICB, IDB: replay/strategy_bounded.c): FORETELL_STRATEGY=
 * "prefix:at=S.T,S.T,..." makes thread T run at decision point S (steps
 * counted from 1), and otherwise schedules without preemption: the
 * running thread continues while it can, and when it blocks, yields or
 * exits the next enabled thread in round-robin order takes over.
 * With FORETELL_EXPLORE_LOG=PATH every decision point is written there as
 * one line "S CUR CHOSEN K E1 E2 ... @M", K being p (the running thread could
 * continue: choosing another preempts it), y (it yielded) or b (it cannot
 * continue), followed by the enabled threads and the trace mark M: the
 * index of the first trace event after the decision, counting the running
 * thread's pending write as before it (HaPSet maps decisions to events
 * with it; readers that stop at '@' see the older format); the driver
 * derives the next prefixes from it.  Decision points are the key points (budget 1) other
 * than function entry and exit, and the switches forced by blocking,
 * yielding and exiting, wherever two or more threads are enabled. */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#define PX_MAX_FORCED 4096

static struct {
    uint64_t step;
    uint64_t at_step[PX_MAX_FORCED];
    int at_tid[PX_MAX_FORCED];
    int nat, next_at;
    int pending;          /* thread preempt() chose, -1 none */
    int log_fd;
} px = {.pending = -1, .log_fd = -1};

/* Events the trace holds so far, plus cur's pending write: that write
 * was made before this decision and is emitted just after it. */
static uint64_t trace_mark(int cur)
{
    uint64_t n = 0;
    for (int i = 0; i < ft_rt.nthreads; i++)
        n += ft_trace_tid_events(i);
    return n + (cur >= 0 && ft_threads[cur].pw_size ? 1 : 0);
}

static void log_point(int cur, int chosen, char kind, const int *en, int n)
{
    if (px.log_fd < 0)
        return;
    char buf[96 + 12 * 64];
    int len = snprintf(buf, sizeof buf, "%llu %d %d %c",
                       (unsigned long long)px.step, cur, chosen, kind);
    for (int i = 0; i < n && len < (int)sizeof buf - 48; i++)
        len += snprintf(buf + len, sizeof buf - (size_t)len, " %d", en[i]);
    len += snprintf(buf + len, sizeof buf - (size_t)len, " @%llu",
                    (unsigned long long)trace_mark(cur));
    buf[len++] = '\n';
    (void)!write(px.log_fd, buf, (size_t)len);
}

/* The forced choice of this step if any and enabled, else dflt. */
static int decide(int dflt, const int *en, int n)
{
    while (px.next_at < px.nat && px.at_step[px.next_at] < px.step)
        px.next_at++;
    if (px.next_at < px.nat && px.at_step[px.next_at] == px.step) {
        int want = px.at_tid[px.next_at++];
        for (int i = 0; i < n; i++)
            if (en[i] == want)
                return want;
    }
    return dflt;
}

static int64_t prefix_budget(int tid)
{
    (void)tid;
    return 1;
}

static int prefix_preempt(int tid)
{
    static int en[FT_MAX_THREADS];
    int n = 0;
    en[n++] = tid;
    for (int i = 0; i < ft_rt.nthreads; i++)
        if (i != tid &&
            __atomic_load_n(&ft_threads[i].state, __ATOMIC_RELAXED) == FT_T_RUNNABLE)
            en[n++] = i;
    /* Function entry and exit touch no shared state: preempting there
     * only duplicates the schedules of the next visible key point. */
    if (n == 1 || ft_threads[tid].kp_kind == FT_KP_FUNC)
        return 0; /* not a decision point */
    px.step++;
    int chosen = decide(tid, en, n);
    log_point(tid, chosen, 'p', en, n);
    if (chosen == tid)
        return 0;
    px.pending = chosen;
    return 1;
}

/* Round-robin: the first enabled tid after cur (skipping cur), wrapping. */
static int next_rr(const int *en, int n, int cur)
{
    int best = -1, low = -1;
    for (int i = 0; i < n; i++) {
        if (en[i] == cur)
            continue;
        if (en[i] > cur && (best < 0 || en[i] < best))
            best = en[i];
        if (low < 0 || en[i] < low)
            low = en[i];
    }
    if (best >= 0)
        return best;
    return low >= 0 ? low : cur;
}

static int prefix_pick(const int *en, int n, int cur)
{
    if (px.pending >= 0) {
        int p = px.pending;
        px.pending = -1;
        for (int i = 0; i < n; i++)
            if (en[i] == p)
                return p;
    }
    int cur_enabled = 0;
    for (int i = 0; i < n; i++)
        cur_enabled |= en[i] == cur;
    int dflt = next_rr(en, n, cur);
    if (n == 1)
        return dflt;
    px.step++;
    int chosen = decide(dflt, en, n);
    log_point(cur, chosen, cur_enabled ? 'y' : 'b', en, n);
    return chosen;
}

static int prefix_pick_waiter(const int *waiters, int n)
{
    (void)n;
    return waiters[0];
}

static int prefix_expire(int tid, int64_t deadline_ns, int64_t now_ns)
{
    (void)tid;
    (void)deadline_ns;
    (void)now_ns;
    return 0;
}

static const ft_policy ft_policy_prefix = {
    .budget = prefix_budget,
    .preempt = prefix_preempt,
    .pick = prefix_pick,
    .pick_waiter = prefix_pick_waiter,
    .expire = prefix_expire,
};

/* "prefix" or "prefix:at=S.T,S.T,..." (steps ascending). */
int ft_prefix_select(const char *spec)
{
    const char *p = spec + strlen("prefix");
    if (*p == ':') {
        if (strncmp(p, ":at=", 4) != 0) {
            ft_rt_refuse(FT_BAD_STRATEGY_STATUS,
                         "FORETELL_STRATEGY=%s: expected prefix:at=S.T,...",
                         spec);
        }
        p += 4;
        uint64_t last = 0;
        while (*p) {
            char *e;
            unsigned long long s = strtoull(p, &e, 10);
            if (e == p || *e != '.' || s <= last || px.nat == PX_MAX_FORCED)
                goto bad;
            p = e + 1;
            long t = strtol(p, &e, 10);
            if (e == p || t < 0 || t >= FT_MAX_THREADS || (*e && *e != ','))
                goto bad;
            px.at_step[px.nat] = s;
            px.at_tid[px.nat++] = (int)t;
            last = s;
            p = *e ? e + 1 : e;
        }
    } else if (*p) {
        goto bad;
    }
    const char *log = getenv("FORETELL_EXPLORE_LOG");
    if (log && *log) {
        px.log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (px.log_fd < 0) {
            ft_rt_refuse(FT_BAD_STRATEGY_STATUS,
                         "cannot write FORETELL_EXPLORE_LOG=%s: %s", log,
                         strerror(errno));
        }
    }
    ft_rt.policy = &ft_policy_prefix;
    return 0;
bad:
    ft_rt_refuse(FT_BAD_STRATEGY_STATUS,
                 "FORETELL_STRATEGY=%s: bad step list near '%s' (expected "
                 "ascending S.T pairs)", spec, p);
}
