/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ftvg_intercepts.c - vgpreload_foretell-amd64-linux.so: what the Valgrind
 * tool (ftvg_main.c) cannot see in the machine code, told to it as client
 * requests: pthread calls (threads, mutexes, rwlocks, spin locks,
 * condition variables, semaphores, barriers), the heap, and assert/abort.
 *
 * Valgrind loads this library into the program and redirects the named
 * functions of libc (and libstdc++ for operator new and delete) to the
 * wrappers here, as Helgrind and DRD do; each wrapper calls the original
 * and reports around it.  The order is the one our runtime records: a
 * lock after it is held, an unlock before it is released, a wait before
 * and after, a free before the block can be handed out again.  The site
 * is the wrapper's return address: the program's call.
 *
 * Built without libc (-nodefaultlibs): wrappers only call the originals. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>

#include "valgrind.h"

#include "ftvg_raw.h"

#define LIBC(fn) I_WRAP_SONAME_FNNAME_ZZ(libcZdsoZa, fn)
#define LIBSTDCXX(fn) I_WRAP_SONAME_FNNAME_ZU(libstdcZpZpZa, fn)
#define SITE ((unsigned long)__builtin_return_address(0))
/* about to wait (what as the trace's BLOCKED): the tool's deadlock check */
#define BLOCK(what, pc, obj)                                                \
    VALGRIND_DO_CLIENT_REQUEST_STMT(FTVG_REQ_BLOCK, (what), (pc),          \
                                    (unsigned long)(obj), 0, 0)
#define EV(op, pc, addr, a, b)                                              \
    VALGRIND_DO_CLIENT_REQUEST_STMT(FTVG_REQ_EVENT, (op), (pc),            \
                                    (unsigned long)(addr),                 \
                                    (unsigned long)(a), (unsigned long)(b))

/* Inside operator new or delete, whose malloc or free is the same block. */
static __thread int in_cxx;

/* ---- threads ------------------------------------------------------ */

int LIBC(pthreadZucreateZAZa)(pthread_t *t, const pthread_attr_t *attr,
                              void *(*fn)(void *), void *arg);
int LIBC(pthreadZucreateZAZa)(pthread_t *t, const pthread_attr_t *attr,
                              void *(*fn)(void *), void *arg)
{
    int ret;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    VALGRIND_DO_CLIENT_REQUEST_STMT(FTVG_REQ_CREATE_PRE, SITE, 0, 0, 0, 0);
    CALL_FN_W_WWWW(ret, o, t, attr, fn, arg);
    if (ret == 0)
        VALGRIND_DO_CLIENT_REQUEST_STMT(FTVG_REQ_CREATED, *t, 0, 0, 0, 0);
    return ret;
}

int LIBC(pthreadZujoin)(pthread_t t, void **rv);
int LIBC(pthreadZujoin)(pthread_t t, void **rv)
{
    int ret;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    BLOCK(8, SITE, t);
    CALL_FN_W_WW(ret, o, t, rv);
    if (ret == 0)
        VALGRIND_DO_CLIENT_REQUEST_STMT(FTVG_REQ_JOINED, SITE, t, 0, 0, 0);
    return ret;
}

/* ---- mutexes and spin locks --------------------------------------- */

/* a lock-like call: reported once it returned, with how and its rc */
#define LOCK_AFTER(name, T, op, how, wait)                                  \
    int LIBC(name)(T * m);                                                  \
    int LIBC(name)(T * m)                                                   \
    {                                                                       \
        int ret;                                                            \
        OrigFn o;                                                           \
        VALGRIND_GET_ORIG_FN(o);                                            \
        if (wait)                                                           \
            BLOCK(wait, SITE, m);                                           \
        CALL_FN_W_W(ret, o, m);                                             \
        EV(op, SITE, m, how, ret);                                          \
        return ret;                                                         \
    }
#define UNLOCK_BEFORE(name, T, op)                                          \
    int LIBC(name)(T * m);                                                  \
    int LIBC(name)(T * m)                                                   \
    {                                                                       \
        int ret;                                                            \
        OrigFn o;                                                           \
        VALGRIND_GET_ORIG_FN(o);                                            \
        EV(op, SITE, m, 0, 0);                                              \
        CALL_FN_W_W(ret, o, m);                                             \
        return ret;                                                         \
    }

LOCK_AFTER(pthreadZumutexZulock, pthread_mutex_t, FTVG_MUTEX_LOCK, 0, 1)
LOCK_AFTER(pthreadZumutexZutrylock, pthread_mutex_t, FTVG_MUTEX_LOCK, 1, 0)
UNLOCK_BEFORE(pthreadZumutexZuunlock, pthread_mutex_t, FTVG_MUTEX_UNLOCK)
/* a spinning thread runs: not a wait the deadlock check may count */
LOCK_AFTER(pthreadZuspinZulock, pthread_spinlock_t, FTVG_MUTEX_LOCK, 3, 0)
LOCK_AFTER(pthreadZuspinZutrylock, pthread_spinlock_t, FTVG_MUTEX_LOCK, 4, 0)
UNLOCK_BEFORE(pthreadZuspinZuunlock, pthread_spinlock_t, FTVG_MUTEX_UNLOCK)
LOCK_AFTER(pthreadZurwlockZurdlock, pthread_rwlock_t, FTVG_RW_RDLOCK, 0, 2)
LOCK_AFTER(pthreadZurwlockZutryrdlock, pthread_rwlock_t, FTVG_RW_RDLOCK, 1, 0)
LOCK_AFTER(pthreadZurwlockZuwrlock, pthread_rwlock_t, FTVG_RW_WRLOCK, 0, 3)
LOCK_AFTER(pthreadZurwlockZutrywrlock, pthread_rwlock_t, FTVG_RW_WRLOCK, 1, 0)
UNLOCK_BEFORE(pthreadZurwlockZuunlock, pthread_rwlock_t, FTVG_RW_UNLOCK)

int LIBC(pthreadZumutexZutimedlock)(pthread_mutex_t *m,
                                    const struct timespec *ts);
int LIBC(pthreadZumutexZutimedlock)(pthread_mutex_t *m,
                                    const struct timespec *ts)
{
    int ret;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    CALL_FN_W_WW(ret, o, m, ts);
    EV(FTVG_MUTEX_LOCK, SITE, m, 2, ret);
    return ret;
}

/* ---- condition variables ------------------------------------------ */

int LIBC(pthreadZucondZuwaitZAZa)(pthread_cond_t *c, pthread_mutex_t *m);
int LIBC(pthreadZucondZuwaitZAZa)(pthread_cond_t *c, pthread_mutex_t *m)
{
    int ret;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    EV(FTVG_COND_WAIT, SITE, c, m, 0);
    CALL_FN_W_WW(ret, o, c, m);
    EV(FTVG_COND_WAKE, SITE, c, m, 0);
    return ret;
}

int LIBC(pthreadZucondZutimedwaitZAZa)(pthread_cond_t *c, pthread_mutex_t *m,
                                       const struct timespec *ts);
int LIBC(pthreadZucondZutimedwaitZAZa)(pthread_cond_t *c, pthread_mutex_t *m,
                                       const struct timespec *ts)
{
    int ret;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    EV(FTVG_COND_WAIT, SITE, c, m, 1); /* 1: timed, it returns anyway */
    CALL_FN_W_WWW(ret, o, c, m, ts);
    EV(FTVG_COND_WAKE, SITE, c, m, ret == ETIMEDOUT);
    return ret;
}

#define NOTIFY(name, op)                                                    \
    int LIBC(name)(pthread_cond_t * c);                                     \
    int LIBC(name)(pthread_cond_t * c)                                      \
    {                                                                       \
        int ret;                                                            \
        OrigFn o;                                                           \
        VALGRIND_GET_ORIG_FN(o);                                            \
        EV(op, SITE, c, 0, 0);                                              \
        CALL_FN_W_W(ret, o, c);                                             \
        return ret;                                                         \
    }
NOTIFY(pthreadZucondZusignalZAZa, FTVG_COND_SIGNAL)
NOTIFY(pthreadZucondZubroadcastZAZa, FTVG_COND_BROADCAST)

/* ---- semaphores and barriers -------------------------------------- */

int LIBC(semZuinitZAZa)(sem_t *s, int pshared, unsigned value);
int LIBC(semZuinitZAZa)(sem_t *s, int pshared, unsigned value)
{
    int ret;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    CALL_FN_W_WWW(ret, o, s, pshared, value);
    if (ret == 0)
        EV(FTVG_SEM_INIT, SITE, s, value, 0);
    return ret;
}

int LIBC(semZupostZAZa)(sem_t *s);
int LIBC(semZupostZAZa)(sem_t *s)
{
    int ret;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    EV(FTVG_SEM_POST, SITE, s, 0, 0);
    CALL_FN_W_W(ret, o, s);
    return ret;
}

/* sem_wait and sem_trywait return -1 with errno: rc is errno or 0 */
#define SEM_WAIT(name, how)                                                 \
    int LIBC(name)(sem_t * s);                                              \
    int LIBC(name)(sem_t * s)                                               \
    {                                                                       \
        int ret;                                                            \
        OrigFn o;                                                           \
        VALGRIND_GET_ORIG_FN(o);                                            \
        if (how == 0)                                                       \
            BLOCK(5, SITE, s);                                              \
        CALL_FN_W_W(ret, o, s);                                             \
        EV(FTVG_SEM_WAIT, SITE, s, how, ret == 0 ? 0 : errno);              \
        return ret;                                                         \
    }
SEM_WAIT(semZuwaitZAZa, 0)
SEM_WAIT(semZutrywaitZAZa, 1)

int LIBC(semZutimedwaitZAZa)(sem_t *s, const struct timespec *ts);
int LIBC(semZutimedwaitZAZa)(sem_t *s, const struct timespec *ts)
{
    int ret;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    CALL_FN_W_WW(ret, o, s, ts);
    EV(FTVG_SEM_WAIT, SITE, s, 2, ret == 0 ? 0 : errno);
    return ret;
}

int LIBC(pthreadZubarrierZuinit)(pthread_barrier_t *b,
                                 const pthread_barrierattr_t *a,
                                 unsigned count);
int LIBC(pthreadZubarrierZuinit)(pthread_barrier_t *b,
                                 const pthread_barrierattr_t *a,
                                 unsigned count)
{
    int ret;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    CALL_FN_W_WWW(ret, o, b, a, count);
    if (ret == 0)
        EV(FTVG_BARRIER_INIT, SITE, b, count, 0);
    return ret;
}

int LIBC(pthreadZubarrierZuwait)(pthread_barrier_t *b);
int LIBC(pthreadZubarrierZuwait)(pthread_barrier_t *b)
{
    int ret;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    EV(FTVG_BARRIER_WAIT, SITE, b, 0, 0);
    CALL_FN_W_W(ret, o, b);
    EV(FTVG_BARRIER_WAIT, SITE, b, ret == PTHREAD_BARRIER_SERIAL_THREAD, 1);
    return ret;
}

/* ---- the heap ----------------------------------------------------- */

void *LIBC(malloc)(size_t n);
void *LIBC(malloc)(size_t n)
{
    void *p;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    CALL_FN_W_W(p, o, n);
    if (p && !in_cxx)
        EV(FTVG_MALLOC, SITE, p, n, 0);
    return p;
}

void *LIBC(calloc)(size_t k, size_t n);
void *LIBC(calloc)(size_t k, size_t n)
{
    void *p;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    CALL_FN_W_WW(p, o, k, n);
    if (p && !in_cxx)
        EV(FTVG_MALLOC, SITE, p, k * n, 0);
    return p;
}

void *LIBC(realloc)(void *old, size_t n);
void *LIBC(realloc)(void *old, size_t n)
{
    void *p;
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    CALL_FN_W_WW(p, o, old, n);
    if (p)
        EV(FTVG_REALLOC, SITE, p, n, old);
    return p;
}

void LIBC(free)(void *p);
void LIBC(free)(void *p)
{
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    if (p && !in_cxx)
        EV(FTVG_FREE, SITE, p, 0, 0);
    CALL_FN_v_W(o, p);
}

#define CXX_NEW(name)                                                       \
    void *LIBSTDCXX(name)(size_t n);                                        \
    void *LIBSTDCXX(name)(size_t n)                                         \
    {                                                                       \
        void *p;                                                            \
        OrigFn o;                                                           \
        VALGRIND_GET_ORIG_FN(o);                                            \
        in_cxx++;                                                           \
        CALL_FN_W_W(p, o, n);                                               \
        in_cxx--;                                                           \
        if (p)                                                              \
            EV(FTVG_MALLOC, SITE, p, n, 0);                                 \
        return p;                                                           \
    }
#define CXX_DELETE(name)                                                    \
    void LIBSTDCXX(name)(void *p);                                          \
    void LIBSTDCXX(name)(void *p)                                           \
    {                                                                       \
        OrigFn o;                                                           \
        VALGRIND_GET_ORIG_FN(o);                                            \
        if (p)                                                              \
            EV(FTVG_FREE, SITE, p, 0, 0);                                   \
        in_cxx++;                                                           \
        CALL_FN_v_W(o, p);                                                  \
        in_cxx--;                                                           \
    }
#define CXX_DELETE_SIZED(name)                                              \
    void LIBSTDCXX(name)(void *p, size_t n);                                \
    void LIBSTDCXX(name)(void *p, size_t n)                                 \
    {                                                                       \
        OrigFn o;                                                           \
        VALGRIND_GET_ORIG_FN(o);                                            \
        if (p)                                                              \
            EV(FTVG_FREE, SITE, p, 0, 0);                                   \
        in_cxx++;                                                           \
        CALL_FN_v_WW(o, p, n);                                              \
        in_cxx--;                                                           \
    }
CXX_NEW(_Znwm)
CXX_NEW(_Znam)
CXX_DELETE(_ZdlPv)
CXX_DELETE(_ZdaPv)
CXX_DELETE_SIZED(_ZdlPvm)
CXX_DELETE_SIZED(_ZdaPvm)

/* ---- failures ----------------------------------------------------- */

void LIBC(ZuZuassertZufail)(const char *expr, const char *file, unsigned line,
                         const char *fn);
void LIBC(ZuZuassertZufail)(const char *expr, const char *file, unsigned line,
                         const char *fn)
{
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    EV(FTVG_ABORT, SITE, 0, 0, 0);
    CALL_FN_v_WWWW(o, expr, file, line, fn);
    __builtin_unreachable();
}

void LIBC(abort)(void);
void LIBC(abort)(void)
{
    OrigFn o;
    VALGRIND_GET_ORIG_FN(o);
    EV(FTVG_ABORT, SITE, 0, 0, 0);
    CALL_FN_v_v(o);
    __builtin_unreachable();
}
