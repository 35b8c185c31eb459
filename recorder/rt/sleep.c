/* sleep.c - sleeping and yielding.  A sleep is recorded, gives the baton
 * away for its real duration (other threads run meanwhile) and takes it
 * back after; a yield lets the policy run another enabled thread.  Both
 * are scheduling points, so spin-with-sleep loops cannot livelock. */
#define _GNU_SOURCE
#include "rt.h"

#include <sched.h>
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
    ft_event ev = {.kind = FT_EV_SLEEP, .site = ft_site_id(pc),
                   .value = ns > 0 ? (uint64_t)ns : 0};
    ft_emit(&ev);
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
    ft_event ev = {.kind = FT_EV_SLEEP, .site = ft_site_id(pc),
                   .value = ns > 0 ? (uint64_t)ns : 0};
    ft_emit(&ev);
    ft_yield(t);
    ft_leave(t);
    return 1;
}

static void sleep_end(ft_thread *t)
{
    if (!t)
        return;
    ft_acquire(t);
    ft_leave(t);
}

static int64_t ts_ns(const struct timespec *ts)
{
    return ts ? (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec : 0;
}

unsigned __wrap_sleep(unsigned s);
unsigned __wrap_sleep(unsigned s)
{
    if (FT_UNLIKELY(ft_rt.virtual_time) &&
        sleep_virtual(FT_PC(), (int64_t)s * 1000000000))
        return 0;
    ft_thread *t = sleep_begin(FT_PC(), (int64_t)s * 1000000000);
    unsigned r = __real_sleep(s);
    sleep_end(t);
    return r;
}

int __wrap_usleep(useconds_t us);
int __wrap_usleep(useconds_t us)
{
    if (FT_UNLIKELY(ft_rt.virtual_time) &&
        sleep_virtual(FT_PC(), (int64_t)us * 1000))
        return 0;
    ft_thread *t = sleep_begin(FT_PC(), (int64_t)us * 1000);
    int r = __real_usleep(us);
    sleep_end(t);
    return r;
}

int ft_nanosleep(const struct timespec *req, struct timespec *rem, uintptr_t pc)
{
    if (FT_UNLIKELY(ft_rt.virtual_time) && sleep_virtual(pc, ts_ns(req)))
        return 0;
    ft_thread *t = sleep_begin(pc, ts_ns(req));
    int r = __real_nanosleep(req, rem);
    sleep_end(t);
    return r;
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
    int64_t ns = ts_ns(req);
    if (flags & TIMER_ABSTIME) {
        struct timespec now;
        clock_gettime(clk, &now);
        ns -= ts_ns(&now);
    }
    if (FT_UNLIKELY(ft_rt.virtual_time) && sleep_virtual(FT_PC(), ns))
        return 0;
    ft_thread *t = sleep_begin(FT_PC(), ns);
    int r = __real_clock_nanosleep(clk, flags, req, rem);
    sleep_end(t);
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
