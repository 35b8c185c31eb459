/* SPDX-License-Identifier: MIT */
/* sync_sem.c - semaphores, barriers and pthread_once, modelled: counts,
 * arrivals and once state live in the object table and waiting is
 * blocking in the scheduler.  A semaphore first seen without sem_init
 * (initialised by uninstrumented code) takes its count from the real one. */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>
#include <semaphore.h>

int __real_sem_init(sem_t *, int, unsigned);
int __real_sem_destroy(sem_t *);
int __real_sem_post(sem_t *);
int __real_sem_wait(sem_t *);
int __real_sem_trywait(sem_t *);
int __real_sem_timedwait(sem_t *, const struct timespec *);
int __real_sem_getvalue(sem_t *, int *);
int __real_sem_clockwait(sem_t *, clockid_t, const struct timespec *);
int __real_pthread_barrier_init(pthread_barrier_t *,
                                const pthread_barrierattr_t *, unsigned);
int __real_pthread_barrier_destroy(pthread_barrier_t *);
int __real_pthread_barrier_wait(pthread_barrier_t *);
int __real_pthread_once(pthread_once_t *, void (*)(void));

static ft_obj *sem_obj(sem_t *s)
{
    ft_obj *o = ft_obj_get((uintptr_t)s, FT_W_SEM);
    if (!o->inited) {
        int v = 0;
        __real_sem_getvalue(s, &v);
        o->count = v;
        o->inited = 1;
    }
    return o;
}

int __wrap_sem_init(sem_t *s, int pshared, unsigned value);
int __wrap_sem_init(sem_t *s, int pshared, unsigned value)
{
    int rc = __real_sem_init(s, pshared, value);
    ft_thread *t = rc == 0 ? ft_enter() : NULL;
    if (!t)
        return rc;
    ft_lock();
    ft_obj *o = ft_obj_get((uintptr_t)s, FT_W_SEM);
    o->count = value;
    o->inited = 1;
    ft_unlock();
    ft_event ev = {.kind = FT_EV_SEM_INIT, .site = ft_site_id(FT_PC()),
                   .addr = (uintptr_t)s, .value = value};
    ft_emit(&ev);
    ft_leave(t);
    return rc;
}

int __wrap_sem_destroy(sem_t *s);
int __wrap_sem_destroy(sem_t *s)
{
    ft_thread *t = ft_enter();
    if (t) {
        ft_lock();
        ft_obj_drop((uintptr_t)s);
        ft_unlock();
        ft_leave(t);
    }
    return __real_sem_destroy(s);
}

int __wrap_sem_post(sem_t *s);
int __wrap_sem_post(sem_t *s)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_sem_post(s);
    ft_lock();
    sem_obj(s)->count++;
    ft_wake_all(FT_W_SEM, (uintptr_t)s);
    ft_unlock();
    ft_event ev = {.kind = FT_EV_SEM_POST, .site = ft_site_id(FT_PC()),
                   .addr = (uintptr_t)s};
    ft_emit(&ev);
    ft_leave(t);
    return 0;
}

static int wait_common(sem_t *s, int how, const struct timespec *ts, int clk,
                       uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t) {
        if (how == FT_HOW_TRY)
            return __real_sem_trywait(s);
        if (how == FT_HOW_TIMED && clk >= 0)
            return __real_sem_clockwait(s, (clockid_t)clk, ts);
        return how == FT_HOW_TIMED ? __real_sem_timedwait(s, ts) : __real_sem_wait(s);
    }
    int rc = 0;
    if (how == FT_HOW_TIMED && (!ts || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)) {
        ft_leave(t);
        errno = EINVAL;
        return -1;
    }
    int64_t deadline = how == FT_HOW_TIMED ? ft_deadline_of(ts, clk) : 0;
    if (how != FT_HOW_TRY)
        ft_cancel_point(t, pc);
    ft_lock();
    ft_obj *o = sem_obj(s);
    t->timedout = 0;
    for (;;) {
        if (o->count > 0) {
            o->count--;
            break;
        }
        if (how == FT_HOW_TRY) {
            rc = EAGAIN;
            break;
        }
        if (how == FT_HOW_TIMED && t->timedout) {
            rc = ETIMEDOUT;
            break;
        }
        ft_block(t, FT_W_SEM, (uintptr_t)s, pc, deadline);
        ft_lock();
        o = sem_obj(s);
        if (o->count == 0 && ft_cancel_due(t)) {
            ft_unlock();
            ft_cancel_act(t, pc);
        }
    }
    ft_unlock();
    ft_event ev = {.kind = FT_EV_SEM_WAIT, .site = ft_site_id(pc),
                   .addr = (uintptr_t)s, .arg = (uint32_t)how, .rc = rc};
    ft_emit(&ev);
    ft_leave(t);
    if (rc) {
        errno = rc;
        return -1;
    }
    return 0;
}

int __wrap_sem_wait(sem_t *s);
int __wrap_sem_wait(sem_t *s)
{
    return wait_common(s, FT_HOW_BLOCK, NULL, -1, FT_PC());
}

int __wrap_sem_trywait(sem_t *s);
int __wrap_sem_trywait(sem_t *s)
{
    return wait_common(s, FT_HOW_TRY, NULL, -1, FT_PC());
}

int __wrap_sem_timedwait(sem_t *s, const struct timespec *ts);
int __wrap_sem_timedwait(sem_t *s, const struct timespec *ts)
{
    return wait_common(s, FT_HOW_TIMED, ts, -1, FT_PC());
}

int __wrap_sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *ts);
int __wrap_sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *ts)
{
    return wait_common(s, FT_HOW_TIMED, ts, (int)clk, FT_PC());
}

int __wrap_sem_getvalue(sem_t *s, int *v);
int __wrap_sem_getvalue(sem_t *s, int *v)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_sem_getvalue(s, v);
    ft_lock();
    *v = (int)sem_obj(s)->count;
    ft_unlock();
    ft_emit_libc_write(ft_site_id(FT_PC()), (uintptr_t)v, sizeof *v);
    ft_leave(t);
    return 0;
}

int __wrap_pthread_barrier_init(pthread_barrier_t *b,
                                const pthread_barrierattr_t *a, unsigned count);
int __wrap_pthread_barrier_init(pthread_barrier_t *b,
                                const pthread_barrierattr_t *a, unsigned count)
{
    int rc = __real_pthread_barrier_init(b, a, count);
    ft_thread *t = rc == 0 ? ft_enter() : NULL;
    if (!t)
        return rc;
    ft_lock();
    ft_obj *o = ft_obj_get((uintptr_t)b, FT_W_BARRIER);
    o->limit = count;
    o->count = 0;
    ft_unlock();
    ft_event ev = {.kind = FT_EV_BARRIER_INIT, .site = ft_site_id(FT_PC()),
                   .addr = (uintptr_t)b, .value = count};
    ft_emit(&ev);
    ft_leave(t);
    return 0;
}

int __wrap_pthread_barrier_destroy(pthread_barrier_t *b);
int __wrap_pthread_barrier_destroy(pthread_barrier_t *b)
{
    ft_thread *t = ft_enter();
    if (t) {
        ft_lock();
        ft_obj_drop((uintptr_t)b);
        ft_unlock();
        ft_leave(t);
    }
    return __real_pthread_barrier_destroy(b);
}

int __wrap_pthread_barrier_wait(pthread_barrier_t *b);
int __wrap_pthread_barrier_wait(pthread_barrier_t *b)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_pthread_barrier_wait(b);
    uintptr_t pc = FT_PC();
    uint32_t site = ft_site_id(pc);
    ft_event ev = {.kind = FT_EV_BARRIER_ARRIVE, .site = site, .addr = (uintptr_t)b};
    ft_emit(&ev);
    int serial = 0;
    ft_lock();
    ft_obj *o = ft_obj_get((uintptr_t)b, FT_W_BARRIER);
    if (++o->count >= o->limit) {
        o->count = 0;
        o->gen++;
        ft_wake_all(FT_W_BARRIER, (uintptr_t)b);
        serial = 1;
    } else {
        uint64_t gen = o->gen;
        while (o->gen == gen) {
            ft_block(t, FT_W_BARRIER, (uintptr_t)b, pc, 0);
            ft_lock();
            o = ft_obj_get((uintptr_t)b, FT_W_BARRIER);
        }
    }
    ft_unlock();
    ev.kind = FT_EV_BARRIER_LEAVE;
    ev.arg = (uint32_t)serial;
    ft_emit(&ev);
    ft_leave(t);
    return serial ? PTHREAD_BARRIER_SERIAL_THREAD : 0;
}

int __wrap_pthread_once(pthread_once_t *once, void (*init)(void));
int __wrap_pthread_once(pthread_once_t *once, void (*init)(void))
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_pthread_once(once, init);
    uintptr_t pc = FT_PC(), obj = (uintptr_t)once;
    uint32_t site = ft_site_id(pc);
    ft_lock();
    ft_obj *o = ft_obj_get(obj, FT_W_ONCE);
    int runs = o->once == 0;
    if (runs) {
        o->once = 1;
    } else {
        while (o->once != 2) {
            ft_block(t, FT_W_ONCE, obj, pc, 0);
            ft_lock();
            o = ft_obj_get(obj, FT_W_ONCE);
        }
    }
    ft_unlock();
    ft_event ev = {.kind = FT_EV_ONCE_ENTER, .site = site, .addr = obj,
                   .arg = (uint32_t)runs};
    ft_emit(&ev);
    ft_leave(t);
    if (!runs)
        return 0;
    init();
    t = ft_enter();
    if (!t)
        return 0;
    ft_lock();
    ft_obj_get(obj, FT_W_ONCE)->once = 2;
    ft_wake_all(FT_W_ONCE, obj);
    ft_unlock();
    ev.kind = FT_EV_ONCE_DONE;
    ft_emit(&ev);
    ft_leave(t);
    return 0;
}
