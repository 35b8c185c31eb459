/* SPDX-License-Identifier: MIT */
/* sleep.c - sleeping and yielding.  A sleep is recorded, gives the baton
 * away for its real duration (other threads run meanwhile) and takes it
 * back after; a yield lets the policy run another enabled thread.  Both
 * are scheduling points, so spin-with-sleep loops cannot livelock.  Sleeps
 * are cancellation points (cancel.c): the real sleep waits on a futex a
 * cancellation request wakes. */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

unsigned __real_sleep(unsigned);
int __real_usleep(useconds_t);
int __real_clock_nanosleep(clockid_t, int, const struct timespec *,
                           struct timespec *);
int __real_sched_yield(void);

static ft_thread *sleep_begin(uintptr_t pc, int64_t ns)
{
    ft_thread *t = ft_enter();
    if (!t)
        return NULL;
    ft_cancel_point(t, pc);
    ft_event ev = {.kind = FT_EV_SLEEP, .site = ft_site_id(pc),
                   .value = ns > 0 ? (uint64_t)ns : 0};
    ft_emit(&ev);
    __atomic_store_n(&t->sleep_word, 0, __ATOMIC_RELAXED);
    ft_lock();
    ft_release_locked(t, FT_T_OUTSIDE);
    return t;
}

/* Replay and exploration (ft_rt.virtual_time): a sleep is recorded and is
 * a yield, with no real sleeping, so the run does not depend on timing.
 * 1 when handled. */
static int sleep_virtual(uintptr_t pc, int64_t ns)
{
    ft_thread *t = ft_enter();
    if (!t)
        return 0;
    ft_cancel_point(t, pc);
    ft_event ev = {.kind = FT_EV_SLEEP, .site = ft_site_id(pc),
                   .value = ns > 0 ? (uint64_t)ns : 0};
    ft_emit(&ev);
    ft_yield(t);
    ft_cancel_point(t, pc); /* cancelled while the others ran */
    ft_leave(t);
    return 1;
}

/* A recorded thread's real sleep of ns: a wait on its own futex word,
 * which pthread_cancel sets (cancel.c), so that a cancelled sleeper acts
 * at once, as a real cancellation point would.  A signal ends it early
 * as it ends nanosleep: EINTR, the time left in *left.  0 when the time
 * passed or a cancellation request came. */
static int sleep_real(ft_thread *t, int64_t ns, int64_t *left)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t end = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + ns;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t rest = end - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
        *left = rest > 0 ? rest : 0;
        if (rest <= 0 || __atomic_load_n(&t->sleep_word, __ATOMIC_ACQUIRE))
            return 0;
        struct timespec ts = {rest / 1000000000, rest % 1000000000};
        if (syscall(SYS_futex, &t->sleep_word, FUTEX_WAIT_PRIVATE, 0, &ts,
                    NULL, 0) < 0 && errno == EINTR) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            rest = end - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
            *left = rest > 0 ? rest : 0;
            return rest > 0 ? EINTR : 0;
        }
    }
}

static void sleep_end(ft_thread *t, uintptr_t pc)
{
    if (!t)
        return;
    ft_acquire(t);
    ft_cancel_point(t, pc);
    ft_leave(t);
}

static int64_t ts_ns(const struct timespec *ts)
{
    return ts ? (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec : 0;
}

static void ns_ts(int64_t ns, struct timespec *ts)
{
    if (ts) {
        ts->tv_sec = ns / 1000000000;
        ts->tv_nsec = ns % 1000000000;
    }
}

unsigned __wrap_sleep(unsigned s);
unsigned __wrap_sleep(unsigned s)
{
    uintptr_t pc = FT_PC();
    int64_t ns = (int64_t)s * 1000000000;
    if (FT_UNLIKELY(ft_rt.virtual_time) && sleep_virtual(pc, ns))
        return 0;
    ft_thread *t = sleep_begin(pc, ns);
    if (!t)
        return __real_sleep(s);
    int64_t left;
    int r = sleep_real(t, ns, &left);
    sleep_end(t, pc);
    return r == EINTR ? (unsigned)((left + 999999999) / 1000000000) : 0;
}

int __wrap_usleep(useconds_t us);
int __wrap_usleep(useconds_t us)
{
    uintptr_t pc = FT_PC();
    int64_t ns = (int64_t)us * 1000;
    if (FT_UNLIKELY(ft_rt.virtual_time) && sleep_virtual(pc, ns))
        return 0;
    ft_thread *t = sleep_begin(pc, ns);
    if (!t)
        return __real_usleep(us);
    int64_t left;
    int r = sleep_real(t, ns, &left);
    sleep_end(t, pc);
    if (r == EINTR) {
        errno = EINTR;
        return -1;
    }
    return 0;
}

int ft_nanosleep(const struct timespec *req, struct timespec *rem, uintptr_t pc)
{
    if (req && (req->tv_nsec < 0 || req->tv_nsec >= 1000000000 || req->tv_sec < 0))
        return __real_nanosleep(req, rem); /* EINVAL, as glibc says it */
    if (FT_UNLIKELY(ft_rt.virtual_time) && sleep_virtual(pc, ts_ns(req)))
        return 0;
    ft_thread *t = sleep_begin(pc, ts_ns(req));
    if (!t)
        return __real_nanosleep(req, rem);
    int64_t left;
    int r = sleep_real(t, ts_ns(req), &left);
    sleep_end(t, pc);
    if (r == EINTR) {
        ns_ts(left, rem);
        errno = EINTR;
        return -1;
    }
    return 0;
}

int __wrap_nanosleep(const struct timespec *req, struct timespec *rem);
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem)
{
    return ft_nanosleep(req, rem, FT_PC());
}

int __wrap_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                           struct timespec *rem);
int __wrap_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                           struct timespec *rem)
{
    uintptr_t pc = FT_PC();
    if (!req || req->tv_nsec < 0 || req->tv_nsec >= 1000000000)
        return __real_clock_nanosleep(clk, flags, req, rem);
    int64_t ns = ts_ns(req);
    if (flags & TIMER_ABSTIME) {
        struct timespec now;
        if (clock_gettime(clk, &now) != 0)
            return __real_clock_nanosleep(clk, flags, req, rem);
        ns -= ts_ns(&now);
    }
    if (FT_UNLIKELY(ft_rt.virtual_time) && sleep_virtual(pc, ns))
        return 0;
    ft_thread *t = sleep_begin(pc, ns);
    if (!t)
        return __real_clock_nanosleep(clk, flags, req, rem);
    int64_t left;
    int r = sleep_real(t, ns, &left);
    sleep_end(t, pc);
    if (r == EINTR && !(flags & TIMER_ABSTIME))
        ns_ts(left, rem);
    return r;
}

static int yield_common(uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_sched_yield();
    ft_event ev = {.kind = FT_EV_YIELD, .site = ft_site_id(pc)};
    ft_emit(&ev);
    ft_yield(t);
    ft_leave(t);
    return 0;
}

int __wrap_sched_yield(void);
int __wrap_sched_yield(void)
{
    return yield_common(FT_PC());
}

int __wrap_pthread_yield(void);
int __wrap_pthread_yield(void)
{
    return yield_common(FT_PC());
}
