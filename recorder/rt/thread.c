/* SPDX-License-Identifier: MIT */
/* thread.c - thread lifecycle under the baton: create (tids in creation
 * order, main = 0), start, exit, join and detach.  A thread's exit is
 * recorded from a pthread key destructor, which glibc runs after the start
 * routine returned and after C++ thread_local destructors, so those are
 * recorded too; the exiting thread then hands the baton on for good. */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void __real_pthread_exit(void *) __attribute__((noreturn));

static pthread_key_t exit_key;

static void emit_simple(int kind, uintptr_t pc, uint64_t value)
{
    ft_event ev = {.kind = (uint16_t)kind, .site = pc ? ft_site_id(pc) : 0,
                   .value = value};
    ft_emit(&ev);
}

static void on_thread_exit(void *p)
{
    ft_thread *t = p;
    if (ft_self != t || t->state == FT_T_EXITED)
        return;
    t->in_hook = 0; /* a key destructor runs outside any hook */
    if (!ft_enter())
        return;
    emit_simple(FT_EV_THREAD_EXIT, 0, 0);
    ft_lock();
    ft_wake_all(FT_W_JOIN, (uintptr_t)t->tid);
    ft_release_locked(t, FT_T_EXITED);
    /* in_hook stays set: nothing after this point is recorded. */
}

void ft_thread_init_main(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
    ft_thread *t = &ft_threads[0];
    t->tid = 0;
    t->parent = 0;
    t->pthread = pthread_self();
    t->ktid = (int)syscall(SYS_gettid);
    ft_rt.nthreads = 1;
    ft_rt.running = 0;
    t->state = FT_T_RUNNING;
    t->has_baton = 1;
    ft_set_budget(t); /* the oracles' budget too, or main escapes them */
    t->in_hook = 1; /* until init is done */
    ft_self = t;
    pthread_setspecific(exit_key, t);
}

ft_thread *ft_adopt(void)
{
    ft_lock();
    if (ft_rt.nthreads == FT_MAX_THREADS || ft_rt.finished) {
        ft_unlock();
        return NULL;
    }
    int tid = ft_rt.nthreads++;
    ft_thread *t = &ft_threads[tid];
    __real_memset(t, 0, sizeof *t);
    t->tid = tid;
    t->parent = tid; /* creator unknown: it names itself, like main */
    t->pthread = pthread_self();
    t->ktid = (int)syscall(SYS_gettid);
    t->state = FT_T_OUTSIDE;
    t->in_hook = 1;
    ft_unlock();
    ft_self = t;
    pthread_setspecific(exit_key, t);
    ft_acquire(t);
    emit_simple(FT_EV_THREAD_START, 0, (uint64_t)tid);
    ft_rt_verbose("adopted a thread created outside the program as %d", tid);
    t->in_hook = 0;
    return t;
}

static void *trampoline(void *p)
{
    ft_thread *t = p;
    ft_self = t;
    t->in_hook = 1;
    t->ktid = (int)syscall(SYS_gettid);
    ft_acquire_start(t);
    emit_simple(FT_EV_THREAD_START, 0, (uint64_t)t->parent);
    pthread_setspecific(exit_key, t);
    ft_leave(t);
    return t->start(t->arg);
}

int ft_thread_create(pthread_t *th, const pthread_attr_t *attr,
                     void *(*fn)(void *), void *arg, uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_pthread_create(th, attr, fn, arg);
    ft_lock();
    if (ft_rt.nthreads == FT_MAX_THREADS) {
        ft_unlock();
        ft_leave(t);
        return EAGAIN;
    }
    int tid = ft_rt.nthreads++;
    ft_thread *c = &ft_threads[tid];
    __real_memset(c, 0, sizeof *c);
    c->tid = tid;
    c->parent = t->tid;
    c->state = FT_T_FREE;
    /* Inside the runtime until its first turn is over: it may be given
     * the baton before its OS thread runs, and the watchdog must not
     * take that baton (steal, timed flush) while it starts appending. */
    c->in_hook = 1;
    c->start = fn;
    c->arg = arg;
    ft_unlock();
    int rc = __real_pthread_create(th, attr, trampoline, c);
    ft_lock();
    if (rc != 0) {
        c->state = FT_T_EXITED;
        c->joined = 1;
    } else {
        c->pthread = *th;
        c->state = FT_T_RUNNABLE;
    }
    ft_unlock();
    if (rc == 0) {
        emit_simple(FT_EV_THREAD_CREATE, pc, (uint64_t)tid);
        ft_emit_libc_write(ft_site_id(pc), (uintptr_t)th, sizeof *th);
    }
    ft_leave(t);
    return rc;
}

ft_thread *ft_thread_of(pthread_t th)
{
    for (int i = 0; i < ft_rt.nthreads; i++)
        if (ft_threads[i].state != FT_T_FREE && !ft_threads[i].joined &&
            pthread_equal(ft_threads[i].pthread, th))
            return &ft_threads[i];
    return NULL;
}

int ft_thread_join(pthread_t th, void **ret, uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_pthread_join(th, ret);
    ft_cancel_point(t, pc);
    ft_lock();
    ft_thread *c = ft_thread_of(th);
    if (!c || c == t) {
        ft_unlock();
        ft_leave(t);
        return c ? EDEADLK : __real_pthread_join(th, ret);
    }
    while (c->state != FT_T_EXITED) {
        ft_block(t, FT_W_JOIN, (uintptr_t)c->tid, pc, 0);
        ft_lock();
        if (c->state != FT_T_EXITED && ft_cancel_due(t)) {
            ft_unlock();
            ft_cancel_act(t, pc); /* the child stays joinable */
        }
    }
    c->joined = 1;
    ft_unlock();
    emit_simple(FT_EV_THREAD_JOIN, pc, (uint64_t)c->tid);
    /* The child gave the baton up for good; reclaiming it is quick. */
    int rc = __real_pthread_join(th, ret);
    if (rc == 0 && ret)
        ft_emit_libc_write(ft_site_id(pc), (uintptr_t)ret, sizeof *ret);
    ft_leave(t);
    return rc;
}

int ft_thread_detach(pthread_t th, uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_pthread_detach(th);
    ft_lock();
    ft_thread *c = ft_thread_of(th);
    if (c)
        c->detached = 1;
    ft_unlock();
    if (c)
        emit_simple(FT_EV_THREAD_DETACH, pc, (uint64_t)c->tid);
    int rc = __real_pthread_detach(th);
    ft_leave(t);
    return rc;
}

int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr,
                          void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr,
                          void *(*fn)(void *), void *arg)
{
    return ft_thread_create(th, attr, fn, arg, FT_PC());
}

int __wrap_pthread_join(pthread_t th, void **ret);
int __wrap_pthread_join(pthread_t th, void **ret)
{
    return ft_thread_join(th, ret, FT_PC());
}

int __wrap_pthread_detach(pthread_t th);
int __wrap_pthread_detach(pthread_t th)
{
    return ft_thread_detach(th, FT_PC());
}

void __wrap_pthread_exit(void *v) __attribute__((noreturn));
void __wrap_pthread_exit(void *v)
{
    ft_thread *t = ft_enter();
    if (t)
        ft_leave(t); /* the pending write is out; exit is recorded later */
    __real_pthread_exit(v);
}
