/* SPDX-License-Identifier: MIT */
/* cancel.c - pthread_cancel, modelled.  A recorded thread never waits in a
 * real cancellation point: it waits on the runtime's futex, which no
 * cancellation reaches, so a thread cancelled while blocked in a condvar
 * wait or a sleep would wait forever.  So the runtime owns cancellation:
 * pthread_cancel records THREAD_CANCEL and marks the target; a target
 * blocked at a cancellation point (condvar, semaphore and join waits,
 * sleeps) is woken; and the target acts on the request at its next
 * cancellation point (the runtime's waits and sleeps, pthread_testcancel;
 * any key point when its type is asynchronous), unless it disabled
 * cancellation: it records THREAD_CANCELED there and exits through
 * glibc's own pthread_exit(PTHREAD_CANCELED), which runs its cleanup
 * handlers and destructors (recorded like any code), then THREAD_EXIT,
 * and makes its joiner's pthread_join return PTHREAD_CANCELED.  glibc's
 * own cancellation is never asked for, so no real cancellation point in
 * uninstrumented code acts outside the schedule.  docs/recorder.md. */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>

int __real_pthread_cancel(pthread_t);
int __real_pthread_setcancelstate(int, int *);
int __real_pthread_setcanceltype(int, int *);
void __real_pthread_testcancel(void);
void __real_pthread_exit(void *) __attribute__((noreturn));

/* The kinds of wait that are cancellation points (POSIX). */
static int cancellable(int wait_kind)
{
    return wait_kind == FT_W_COND || wait_kind == FT_W_SEM ||
           wait_kind == FT_W_JOIN;
}

int ft_cancel_due(const ft_thread *t)
{
    return t->cancel_pending && !t->cancel_disabled;
}

void ft_cancel_act(ft_thread *t, uintptr_t pc)
{
    ft_pending_flush(t);
    ft_event ev = {.kind = FT_EV_THREAD_CANCELED, .site = pc ? ft_site_id(pc) : 0};
    ft_emit(&ev);
    t->cancel_pending = 0;
    t->cancel_disabled = 1; /* as glibc: no second cancellation */
    ft_leave(t);
    __real_pthread_exit(PTHREAD_CANCELED);
}

void ft_cancel_point(ft_thread *t, uintptr_t pc)
{
    if (FT_UNLIKELY(ft_cancel_due(t)))
        ft_cancel_act(t, pc);
}

int __wrap_pthread_cancel(pthread_t th);
int __wrap_pthread_cancel(pthread_t th)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_pthread_cancel(th);
    uintptr_t pc = FT_PC();
    ft_lock();
    ft_thread *c = ft_thread_of(th);
    if (!c) {
        ft_unlock();
        ft_leave(t);
        return ESRCH;
    }
    c->cancel_pending = 1;
    if (!c->cancel_disabled && c->state == FT_T_BLOCKED &&
        cancellable(c->wait_kind))
        c->state = FT_T_RUNNABLE; /* its wait ends: it acts on the request */
    ft_unlock();
    if (!c->cancel_disabled) { /* a real sleep ends too (sleep.c) */
        __atomic_store_n(&c->sleep_word, 1, __ATOMIC_RELEASE);
        ft_futex_wake(&c->sleep_word);
    }
    ft_event ev = {.kind = FT_EV_THREAD_CANCEL, .site = ft_site_id(pc),
                   .value = (uint64_t)c->tid};
    ft_emit(&ev);
    if (c == t && t->cancel_async)
        ft_cancel_point(t, pc);
    ft_leave(t);
    return 0;
}

int __wrap_pthread_setcancelstate(int state, int *old);
int __wrap_pthread_setcancelstate(int state, int *old)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_pthread_setcancelstate(state, old);
    if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE) {
        ft_leave(t);
        return EINVAL;
    }
    if (old)
        *old = t->cancel_disabled ? PTHREAD_CANCEL_DISABLE
                                  : PTHREAD_CANCEL_ENABLE;
    t->cancel_disabled = state == PTHREAD_CANCEL_DISABLE;
    if (old)
        ft_emit_libc_write(ft_site_id(FT_PC()), (uintptr_t)old, sizeof *old);
    ft_leave(t);
    return 0;
}

int __wrap_pthread_setcanceltype(int type, int *old);
int __wrap_pthread_setcanceltype(int type, int *old)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_pthread_setcanceltype(type, old);
    if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS) {
        ft_leave(t);
        return EINVAL;
    }
    uintptr_t pc = FT_PC();
    if (old)
        *old = t->cancel_async ? PTHREAD_CANCEL_ASYNCHRONOUS
                               : PTHREAD_CANCEL_DEFERRED;
    t->cancel_async = type == PTHREAD_CANCEL_ASYNCHRONOUS;
    if (old)
        ft_emit_libc_write(ft_site_id(pc), (uintptr_t)old, sizeof *old);
    if (t->cancel_async)
        ft_cancel_point(t, pc);
    ft_leave(t);
    return 0;
}

void __wrap_pthread_testcancel(void);
void __wrap_pthread_testcancel(void)
{
    ft_thread *t = ft_enter();
    if (!t) {
        __real_pthread_testcancel();
        return;
    }
    ft_cancel_point(t, FT_PC());
    ft_leave(t);
}
