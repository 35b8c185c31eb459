/* SPDX-License-Identifier: MIT */
/* cxx.c - the parts of libstdc++ that call pthreads from inside the
 * shared library, where -Wl,--wrap cannot reach them: std::thread's start,
 * join and detach, std::condition_variable's wait and notify, and
 * std::this_thread::sleep_for.  The program calls these functions by
 * their mangled names, so wrapping those names routes them through the
 * runtime.  The layouts used are libstdc++'s (GCC 4.9 ABI and later):
 * std::thread holds its pthread_t at offset 0; std::condition_variable its
 * pthread_cond_t; std::unique_lock<std::mutex> a std::mutex* (whose
 * pthread_mutex_t is at offset 0); std::thread::_State is a polymorphic
 * class whose vtable holds the complete and deleting destructors, then
 * _M_run.  A C program never references these names, and the reals are
 * weak, so C programs link without libstdc++. */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>
#include <stdlib.h>

#define START _ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE
#define JOIN _ZNSt6thread4joinEv
#define DETACH _ZNSt6thread6detachEv
#define CV_WAIT _ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE
#define CV_ONE _ZNSt18condition_variable10notify_oneEv
#define CV_ALL _ZNSt18condition_variable10notify_allEv
#define SLEEP_FOR _ZNSt11this_thread11__sleep_forENSt6chrono8durationIlSt5ratioILl1ELl1EEEENS1_IlS2_ILl1ELl1000000000EEEE
#define CAT(a, b) a##b
#define WRAP(n) CAT(__wrap_, n)

/* std::__throw_system_error(int): how libstdc++ reports these failures. */
void _ZSt20__throw_system_errori(int) __attribute__((weak, noreturn));

static void throw_system_error(int err)
{
    if (_ZSt20__throw_system_errori)
        _ZSt20__throw_system_errori(err);
    abort();
}

/* libstdc++'s execute_native_thread_routine, which is not exported. */
static void *run_state(void *state)
{
    void (**vtable)(void *) = *(void (***)(void *))state;
    vtable[2](state); /* _M_run() */
    vtable[1](state); /* deleting destructor */
    return NULL;
}

/* Records a store this file made into program memory (its own key point:
 * the runtime calls above have already left theirs). */
static void note_write(uintptr_t pc, void *addr, size_t size)
{
    ft_thread *t = ft_enter();
    if (t) {
        ft_emit_libc_write(ft_site_id(pc), (uintptr_t)addr, size);
        ft_leave(t);
    }
}

/* The unique_ptr<_State> argument is not trivially copyable, so it is
 * passed by invisible reference: uptr points at the caller's temporary,
 * whose only member is the raw pointer. */
void WRAP(START)(pthread_t *self, void **uptr, void (*depend)(void));
void WRAP(START)(pthread_t *self, void **uptr, void (*depend)(void))
{
    (void)depend;
    uintptr_t pc = FT_PC();
    int err = ft_thread_create(self, NULL, run_state, *uptr, pc);
    if (err)
        throw_system_error(err);
    *uptr = NULL; /* the new thread owns the state */
    note_write(pc, uptr, sizeof *uptr);
}

void WRAP(JOIN)(pthread_t *self);
void WRAP(JOIN)(pthread_t *self)
{
    uintptr_t pc = FT_PC();
    int err = *self ? ft_thread_join(*self, NULL, pc) : EINVAL;
    if (err)
        throw_system_error(err);
    *self = 0;
    note_write(pc, self, sizeof *self);
}

void WRAP(DETACH)(pthread_t *self);
void WRAP(DETACH)(pthread_t *self)
{
    uintptr_t pc = FT_PC();
    int err = *self ? ft_thread_detach(*self, pc) : EINVAL;
    if (err)
        throw_system_error(err);
    *self = 0;
    note_write(pc, self, sizeof *self);
}

void WRAP(CV_WAIT)(pthread_cond_t *cv, pthread_mutex_t **lock);
void WRAP(CV_WAIT)(pthread_cond_t *cv, pthread_mutex_t **lock)
{
    ft_cond_wait(cv, *lock, NULL, 0, -1, FT_PC());
}

void WRAP(CV_ONE)(pthread_cond_t *cv);
void WRAP(CV_ONE)(pthread_cond_t *cv)
{
    ft_cond_signal(cv, FT_PC());
}

void WRAP(CV_ALL)(pthread_cond_t *cv);
void WRAP(CV_ALL)(pthread_cond_t *cv)
{
    ft_cond_broadcast(cv, FT_PC());
}

/* std::chrono::seconds and nanoseconds are trivially copyable: passed as
 * two longs. */
void WRAP(SLEEP_FOR)(long secs, long nsecs);
void WRAP(SLEEP_FOR)(long secs, long nsecs)
{
    struct timespec ts = {secs, nsecs};
    uintptr_t pc = FT_PC();
    while (ft_nanosleep(&ts, &ts, pc) == -1 && errno == EINTR)
        ;
}
