/* SPDX-License-Identifier: MIT */
/* sync_mutex.c - pthread mutexes (normal, recursive, errorcheck; static
 * initialisers included) and spinlocks, modelled: owner and recursion
 * count live in the object table, a contended lock blocks the thread in
 * the scheduler, and the real lock is never taken while recording.  The
 * mutex type is read from glibc's __kind field, which both
 * pthread_mutex_init and the static initialisers set. */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>

int __real_pthread_mutex_init(pthread_mutex_t *, const pthread_mutexattr_t *);
int __real_pthread_mutex_destroy(pthread_mutex_t *);
int __real_pthread_mutex_lock(pthread_mutex_t *);
int __real_pthread_mutex_trylock(pthread_mutex_t *);
int __real_pthread_mutex_timedlock(pthread_mutex_t *, const struct timespec *);
int __real_pthread_mutex_unlock(pthread_mutex_t *);
int __real_pthread_mutex_clocklock(pthread_mutex_t *, clockid_t,
                                   const struct timespec *);
int __real_pthread_spin_init(pthread_spinlock_t *, int);
int __real_pthread_spin_destroy(pthread_spinlock_t *);
int __real_pthread_spin_lock(pthread_spinlock_t *);
int __real_pthread_spin_trylock(pthread_spinlock_t *);
int __real_pthread_spin_unlock(pthread_spinlock_t *);

static int type_of(const pthread_mutex_t *m)
{
    switch (m->__data.__kind & 3) {
    case PTHREAD_MUTEX_RECURSIVE_NP: return FT_MUTEX_RECURSIVE;
    case PTHREAD_MUTEX_ERRORCHECK_NP: return FT_MUTEX_ERRORCHECK;
    default: return FT_MUTEX_NORMAL; /* timed, adaptive */
    }
}

static void emit_lock(int kind, uintptr_t pc, uintptr_t obj, int how, int rc)
{
    ft_event ev = {.kind = (uint16_t)kind, .site = ft_site_id(pc), .addr = obj,
                   .arg = (uint32_t)how, .rc = rc};
    ft_emit(&ev);
}

/* Takes the modelled lock for t; returns the pthread return code. */
static int acquire(ft_thread *t, uintptr_t obj, int type, int how,
                   int64_t deadline, uintptr_t pc)
{
    int rc;
    ft_lock();
    ft_obj *o = ft_obj_get(obj, FT_W_MUTEX);
    if (o->owner < 0)
        o->type = type;
    t->timedout = 0;
    for (;;) {
        if (o->owner < 0) {
            o->owner = t->tid;
            o->count = 1;
            rc = 0;
            break;
        }
        if (o->owner == t->tid && o->type == FT_MUTEX_RECURSIVE) {
            o->count++;
            rc = 0;
            break;
        }
        if (o->owner == t->tid && o->type == FT_MUTEX_ERRORCHECK) {
            rc = EDEADLK;
            break;
        }
        if (how == FT_HOW_TRY || how == FT_HOW_SPINTRY) {
            rc = EBUSY;
            break;
        }
        if (how == FT_HOW_TIMED && t->timedout) {
            rc = ETIMEDOUT;
            break;
        }
        ft_block(t, FT_W_MUTEX, obj, pc, how == FT_HOW_TIMED ? deadline : 0);
        ft_lock();
        o = ft_obj_get(obj, FT_W_MUTEX);
    }
    ft_unlock();
    return rc;
}

/* A MISUSE event (trace.h): what the calling thread did to obj, and who
 * held it (rt.h; sync_rwlock.c reports its misuse the same way). */
void ft_emit_misuse(uintptr_t pc, uintptr_t obj, int what, int holder)
{
    ft_event ev = {.kind = FT_EV_MISUSE, .site = ft_site_id(pc), .addr = obj,
                   .arg = (uint32_t)what,
                   .value = holder >= 0 ? (uint64_t)holder : 0};
    ft_emit(&ev);
    /* the harness reads the trace of a run that ended well only when told
     * (explore) */
    static int told;
    if (!told) {
        told = 1;
        ft_rt_status_note("misuse", what, "thread %d", holder);
    }
}

ft_obj *ft_misuse_bad_unlock(uintptr_t pc, uintptr_t obj, int holder, int kind)
{
    ft_unlock(); /* the event is written without the scheduler lock */
    ft_emit_misuse(pc, obj,
                   holder < 0 ? FT_MISUSE_UNLOCK_UNLOCKED : FT_MISUSE_UNLOCK_OTHER,
                   holder);
    ft_lock();
    return ft_obj_get(obj, kind);
}

/* Gives the modelled lock up; returns the pthread return code.  An
 * unlock by a thread that does not hold it is reported (MISUSE) before
 * anything changes, whatever the mutex type does with it. */
static int release(ft_thread *t, uintptr_t obj, uintptr_t pc)
{
    int rc = 0;
    ft_lock();
    ft_obj *o = ft_obj_get(obj, FT_W_MUTEX);
    if (o->owner != t->tid) /* rare */
        o = ft_misuse_bad_unlock(pc, obj, o->owner, FT_W_MUTEX);
    if (o->owner != t->tid && o->type != FT_MUTEX_NORMAL &&
        o->type != FT_MUTEX_SPIN) {
        rc = EPERM;
    } else if (o->owner == t->tid && --o->count > 0) {
        rc = 0; /* recursive: still held */
    } else {
        /* Unlocking a normal mutex held by another thread (or nobody) is
         * undefined; glibc simply unlocks it, and so do we. */
        o->owner = -1;
        o->count = 0;
        ft_wake_all(FT_W_MUTEX, obj);
    }
    ft_unlock();
    return rc;
}

static int init_obj(uintptr_t obj, int type, uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t)
        return 0;
    ft_lock();
    ft_obj *o = ft_obj_get(obj, FT_W_MUTEX);
    o->owner = -1;
    o->count = 0;
    o->type = type;
    ft_unlock();
    ft_event ev = {.kind = FT_EV_MUTEX_INIT, .site = ft_site_id(pc), .addr = obj,
                   .arg = (uint32_t)type};
    ft_emit(&ev);
    ft_leave(t);
    return 0;
}

/* Destroy: a key point on the mutex and a MUTEX_DESTROY event (the
 * schedulers order it against the mutex's holders: a destroy that some
 * schedule puts inside another thread's critical section is the misuse
 * below); a mutex some thread holds is reported (MISUSE), then forgotten
 * either way (its address may be reused for another object). */
static void drop_obj(uintptr_t obj, uintptr_t pc)
{
    ft_thread *t = ft_enter_kp(FT_KP_DESTROY, obj, 0);
    if (!t)
        return;
    ft_event ev = {.kind = FT_EV_MUTEX_DESTROY, .site = ft_site_id(pc),
                   .addr = obj};
    ft_emit(&ev);
    ft_lock();
    int holder = ft_obj_drop(obj);
    ft_unlock();
    if (holder >= 0)
        ft_emit_misuse(pc, obj, FT_MISUSE_DESTROY_LOCKED, holder);
    ft_leave(t);
}

int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
    int rc = __real_pthread_mutex_init(m, a);
    if (rc == 0)
        init_obj((uintptr_t)m, type_of(m), FT_PC());
    return rc;
}

int __wrap_pthread_mutex_destroy(pthread_mutex_t *m);
int __wrap_pthread_mutex_destroy(pthread_mutex_t *m)
{
    drop_obj((uintptr_t)m, FT_PC());
    return __real_pthread_mutex_destroy(m);
}

static int lock_common(pthread_mutex_t *m, int how, const struct timespec *ts,
                       int clk, uintptr_t pc)
{
    ft_thread *t = ft_enter_kp(FT_KP_LOCK, (uintptr_t)m, 0);
    if (!t) {
        if (how == FT_HOW_TRY)
            return __real_pthread_mutex_trylock(m);
        if (how == FT_HOW_TIMED && clk >= 0)
            return __real_pthread_mutex_clocklock(m, (clockid_t)clk, ts);
        if (how == FT_HOW_TIMED)
            return __real_pthread_mutex_timedlock(m, ts);
        return __real_pthread_mutex_lock(m);
    }
    if (how == FT_HOW_TIMED && (!ts || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)) {
        ft_leave(t);
        return EINVAL;
    }
    int rc = acquire(t, (uintptr_t)m, type_of(m), how, ft_deadline_of(ts, clk), pc);
    emit_lock(FT_EV_MUTEX_LOCK, pc, (uintptr_t)m, how, rc);
    ft_leave(t);
    return rc;
}

int __wrap_pthread_mutex_lock(pthread_mutex_t *m);
int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
    return lock_common(m, FT_HOW_BLOCK, NULL, -1, FT_PC());
}

int __wrap_pthread_mutex_trylock(pthread_mutex_t *m);
int __wrap_pthread_mutex_trylock(pthread_mutex_t *m)
{
    return lock_common(m, FT_HOW_TRY, NULL, -1, FT_PC());
}

int __wrap_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *ts);
int __wrap_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *ts)
{
    return lock_common(m, FT_HOW_TIMED, ts, -1, FT_PC());
}

int __wrap_pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
                                   const struct timespec *ts);
int __wrap_pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
                                   const struct timespec *ts)
{
    return lock_common(m, FT_HOW_TIMED, ts, (int)clk, FT_PC());
}

int __wrap_pthread_mutex_unlock(pthread_mutex_t *m);
int __wrap_pthread_mutex_unlock(pthread_mutex_t *m)
{
    ft_thread *t = ft_enter_kp(FT_KP_UNLOCK, (uintptr_t)m, 0);
    if (!t)
        return __real_pthread_mutex_unlock(m);
    uintptr_t pc = FT_PC();
    int rc = release(t, (uintptr_t)m, pc);
    ft_event ev = {.kind = FT_EV_MUTEX_UNLOCK, .site = ft_site_id(pc),
                   .addr = (uintptr_t)m, .rc = rc};
    ft_emit(&ev);
    ft_leave(t);
    return rc;
}

/* Used by sync_cond.c: give the mutex up entirely / take it back. */
int ft_mutex_release_all(ft_thread *t, uintptr_t obj)
{
    ft_obj *o = ft_obj_get(obj, FT_W_MUTEX);
    int count = o->owner == t->tid ? (int)o->count : 1;
    o->owner = -1;
    o->count = 0;
    ft_wake_all(FT_W_MUTEX, obj);
    return count;
}

void ft_mutex_reacquire(ft_thread *t, uintptr_t obj, int count, uintptr_t pc)
{
    ft_obj *o = ft_obj_get(obj, FT_W_MUTEX);
    while (o->owner >= 0) {
        ft_block(t, FT_W_MUTEX, obj, pc, 0);
        ft_lock();
        o = ft_obj_get(obj, FT_W_MUTEX);
    }
    o->owner = t->tid;
    o->count = count;
}

int __wrap_pthread_spin_init(pthread_spinlock_t *s, int pshared);
int __wrap_pthread_spin_init(pthread_spinlock_t *s, int pshared)
{
    int rc = __real_pthread_spin_init(s, pshared);
    if (rc == 0)
        init_obj((uintptr_t)s, FT_MUTEX_SPIN, FT_PC());
    return rc;
}

int __wrap_pthread_spin_destroy(pthread_spinlock_t *s);
int __wrap_pthread_spin_destroy(pthread_spinlock_t *s)
{
    drop_obj((uintptr_t)s, FT_PC());
    return __real_pthread_spin_destroy(s);
}

static int spin_common(pthread_spinlock_t *s, int how, uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t)
        return how == FT_HOW_SPINTRY ? __real_pthread_spin_trylock(s)
                                     : __real_pthread_spin_lock(s);
    int rc = acquire(t, (uintptr_t)s, FT_MUTEX_SPIN, how, 0, pc);
    emit_lock(FT_EV_MUTEX_LOCK, pc, (uintptr_t)s, how, rc);
    ft_leave(t);
    return rc;
}

int __wrap_pthread_spin_lock(pthread_spinlock_t *s);
int __wrap_pthread_spin_lock(pthread_spinlock_t *s)
{
    return spin_common(s, FT_HOW_SPIN, FT_PC());
}

int __wrap_pthread_spin_trylock(pthread_spinlock_t *s);
int __wrap_pthread_spin_trylock(pthread_spinlock_t *s)
{
    return spin_common(s, FT_HOW_SPINTRY, FT_PC());
}

int __wrap_pthread_spin_unlock(pthread_spinlock_t *s);
int __wrap_pthread_spin_unlock(pthread_spinlock_t *s)
{
    ft_thread *t = ft_enter_kp(FT_KP_UNLOCK, (uintptr_t)s, 0);
    if (!t)
        return __real_pthread_spin_unlock(s);
    uintptr_t pc = FT_PC();
    int rc = release(t, (uintptr_t)s, pc);
    ft_event ev = {.kind = FT_EV_MUTEX_UNLOCK, .site = ft_site_id(pc),
                   .addr = (uintptr_t)s, .rc = rc};
    ft_emit(&ev);
    ft_leave(t);
    return rc;
}
