/* SPDX-License-Identifier: MIT */
/* sync_rwlock.c - reader-writer locks, modelled: a reader count and a
 * writer in the object table; waiting readers and writers block in the
 * scheduler and all retry when the lock is released (the policy decides
 * who runs first, so no reader or writer preference is built in). */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>

int __real_pthread_rwlock_init(pthread_rwlock_t *, const pthread_rwlockattr_t *);
int __real_pthread_rwlock_destroy(pthread_rwlock_t *);
int __real_pthread_rwlock_rdlock(pthread_rwlock_t *);
int __real_pthread_rwlock_tryrdlock(pthread_rwlock_t *);
int __real_pthread_rwlock_timedrdlock(pthread_rwlock_t *, const struct timespec *);
int __real_pthread_rwlock_wrlock(pthread_rwlock_t *);
int __real_pthread_rwlock_trywrlock(pthread_rwlock_t *);
int __real_pthread_rwlock_timedwrlock(pthread_rwlock_t *, const struct timespec *);
int __real_pthread_rwlock_unlock(pthread_rwlock_t *);
int __real_pthread_rwlock_clockrdlock(pthread_rwlock_t *, clockid_t,
                                      const struct timespec *);
int __real_pthread_rwlock_clockwrlock(pthread_rwlock_t *, clockid_t,
                                      const struct timespec *);

static int real_lock(pthread_rwlock_t *l, int write, int how,
                     const struct timespec *ts, int clk)
{
    if (how == FT_HOW_TIMED && clk >= 0)
        return write ? __real_pthread_rwlock_clockwrlock(l, (clockid_t)clk, ts)
                     : __real_pthread_rwlock_clockrdlock(l, (clockid_t)clk, ts);
    if (write)
        return how == FT_HOW_TRY     ? __real_pthread_rwlock_trywrlock(l)
               : how == FT_HOW_TIMED ? __real_pthread_rwlock_timedwrlock(l, ts)
                                     : __real_pthread_rwlock_wrlock(l);
    return how == FT_HOW_TRY     ? __real_pthread_rwlock_tryrdlock(l)
           : how == FT_HOW_TIMED ? __real_pthread_rwlock_timedrdlock(l, ts)
                                 : __real_pthread_rwlock_rdlock(l);
}

static int lock_common(pthread_rwlock_t *l, int write, int how,
                       const struct timespec *ts, int clk, uintptr_t pc)
{
    ft_thread *t = ft_enter_kp(FT_KP_LOCK, (uintptr_t)l, 0);
    if (!t)
        return real_lock(l, write, how, ts, clk);
    if (how == FT_HOW_TIMED && (!ts || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)) {
        ft_leave(t);
        return EINVAL;
    }
    int64_t deadline = how == FT_HOW_TIMED ? ft_deadline_of(ts, clk) : 0;
    uintptr_t obj = (uintptr_t)l;
    int rc;
    ft_lock();
    ft_obj *o = ft_obj_get(obj, FT_W_RDLOCK);
    t->timedout = 0;
    for (;;) {
        if (o->owner == t->tid) {
            rc = EDEADLK;
            break;
        }
        if (o->owner < 0 && (!write || o->readers == 0)) {
            if (write) {
                o->owner = t->tid;
            } else {
                o->readers++;
                o->count = t->tid + 1; /* named if it is destroyed held */
            }
            rc = 0;
            break;
        }
        if (how == FT_HOW_TRY) {
            rc = EBUSY;
            break;
        }
        if (how == FT_HOW_TIMED && t->timedout) {
            rc = ETIMEDOUT;
            break;
        }
        ft_block(t, write ? FT_W_WRLOCK : FT_W_RDLOCK, obj, pc, deadline);
        ft_lock();
        o = ft_obj_get(obj, FT_W_RDLOCK);
    }
    ft_unlock();
    ft_event ev = {.kind = write ? FT_EV_RW_WRLOCK : FT_EV_RW_RDLOCK,
                   .site = ft_site_id(pc), .addr = obj, .arg = (uint32_t)how,
                   .rc = rc};
    ft_emit(&ev);
    ft_leave(t);
    return rc;
}

#define RW(name, write, how)                                                  \
    int __wrap_pthread_rwlock_##name(pthread_rwlock_t *l);                    \
    int __wrap_pthread_rwlock_##name(pthread_rwlock_t *l)                     \
    {                                                                         \
        return lock_common(l, write, how, NULL, -1, FT_PC());                     \
    }
RW(rdlock, 0, FT_HOW_BLOCK)
RW(tryrdlock, 0, FT_HOW_TRY)
RW(wrlock, 1, FT_HOW_BLOCK)
RW(trywrlock, 1, FT_HOW_TRY)

int __wrap_pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *ts);
int __wrap_pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *ts)
{
    return lock_common(l, 0, FT_HOW_TIMED, ts, -1, FT_PC());
}

int __wrap_pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *ts);
int __wrap_pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *ts)
{
    return lock_common(l, 1, FT_HOW_TIMED, ts, -1, FT_PC());
}

int __wrap_pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk,
                                      const struct timespec *ts);
int __wrap_pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk,
                                      const struct timespec *ts)
{
    return lock_common(l, 0, FT_HOW_TIMED, ts, (int)clk, FT_PC());
}

int __wrap_pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk,
                                      const struct timespec *ts);
int __wrap_pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk,
                                      const struct timespec *ts)
{
    return lock_common(l, 1, FT_HOW_TIMED, ts, (int)clk, FT_PC());
}

int __wrap_pthread_rwlock_unlock(pthread_rwlock_t *l);
int __wrap_pthread_rwlock_unlock(pthread_rwlock_t *l)
{
    ft_thread *t = ft_enter_kp(FT_KP_UNLOCK, (uintptr_t)l, 0);
    if (!t)
        return __real_pthread_rwlock_unlock(l);
    uintptr_t obj = (uintptr_t)l;
    uintptr_t pc = FT_PC();
    int rc = 0;
    ft_lock();
    ft_obj *o = ft_obj_get(obj, FT_W_RDLOCK);
    if (o->owner == t->tid) {
        o->owner = -1;
    } else if (o->readers > 0) {
        o->readers--; /* a reader's: which one is not tracked */
    } else {
        /* held for writing by another thread, or by nobody: reported
         * (MISUSE, as for a mutex) and refused, the lock left as it is */
        rc = EPERM;
        o = ft_misuse_bad_unlock(pc, obj, o->owner, FT_W_RDLOCK);
    }
    if (rc == 0 && o->owner < 0 && o->readers == 0) {
        ft_wake_all(FT_W_RDLOCK, obj);
        ft_wake_all(FT_W_WRLOCK, obj);
    }
    ft_unlock();
    ft_event ev = {.kind = FT_EV_RW_UNLOCK, .site = ft_site_id(pc),
                   .addr = obj, .rc = rc};
    ft_emit(&ev);
    ft_leave(t);
    return rc;
}

int __wrap_pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a);
int __wrap_pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{
    int rc = __real_pthread_rwlock_init(l, a);
    ft_thread *t = rc == 0 ? ft_enter() : NULL;
    if (t) {
        ft_lock();
        ft_obj *o = ft_obj_get((uintptr_t)l, FT_W_RDLOCK);
        o->owner = -1;
        o->readers = 0;
        o->count = 0;
        ft_unlock();
        ft_leave(t);
    }
    return rc;
}

int __wrap_pthread_rwlock_destroy(pthread_rwlock_t *l);
int __wrap_pthread_rwlock_destroy(pthread_rwlock_t *l)
{
    ft_thread *t = ft_enter_kp(FT_KP_DESTROY, (uintptr_t)l, 0);
    if (t) {
        uintptr_t pc = FT_PC();
        ft_event ev = {.kind = FT_EV_RW_DESTROY, .site = ft_site_id(pc),
                       .addr = (uintptr_t)l};
        ft_emit(&ev);
        /* destroying a held rwlock: its writer, or its last reader */
        ft_lock();
        ft_obj *o = ft_obj_get((uintptr_t)l, FT_W_RDLOCK);
        int holder = o->owner >= 0 ? o->owner
                     : o->readers > 0 ? (int)o->count - 1
                                      : -1;
        ft_obj_drop((uintptr_t)l);
        ft_unlock();
        if (holder >= 0)
            ft_emit_misuse(pc, (uintptr_t)l, FT_MISUSE_DESTROY_LOCKED, holder);
        ft_leave(t);
    }
    return __real_pthread_rwlock_destroy(l);
}
