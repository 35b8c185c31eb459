/* SPDX-License-Identifier: MIT */
/* preload.c - the runtime as an LD_PRELOAD library, for programs that
 * were not built with foretell-cc (prebuilt test binaries, a host that
 * loads a library built with foretell-cc).  The static runtime is linked
 * with -Wl,--wrap: the program's call to pthread_mutex_lock lands in
 * __wrap_pthread_mutex_lock, whose __real_pthread_mutex_lock the linker
 * binds to libc.  Here the dynamic linker does both jobs: this library
 * exports pthread_mutex_lock (and the rest of the synchronisation,
 * thread, sleep, exec, signal and failure entry points), which forwards
 * to the same __wrap_ function, and defines each __real_ as the next
 * definition in load order (dlsym RTLD_NEXT; the condition variables at
 * GLIBC_2.3.2, as binding the old version hangs: ../shared/notes).
 *
 * What it cannot see: the program's memory accesses (no hooks were
 * compiled in), so runs are controlled and recorded at synchronisation
 * granularity (docs/recorder.md, "Programs not built with foretell-cc");
 * allocation, memcpy and libatomic stay libc's (their __real_ call libc
 * directly; nothing exports them).  A
 * library built with foretell-cc -shared finds its hooks (__tsan_*) and
 * __wrap_ functions here too, so its accesses are recorded in any host.
 *
 * The forwarders are sibling calls (jmp), so the return address the
 * runtime takes as the call site is the program's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void __tsan_init(void);

/* The next definition of name (version ver first, when given); a
 * library that is not there is a broken installation: say so and stop. */
static void *next_of(const char *name, const char *ver)
{
    void *p = ver ? dlvsym(RTLD_NEXT, name, ver) : NULL;
    if (!p)
        p = dlsym(RTLD_NEXT, name);
    if (!p) {
        static const char m[] = "foretell-rt (LD_PRELOAD): no definition "
                                "of a wrapped libc function after this "
                                "library: ";
        (void)!write(2, m, sizeof m - 1);
        (void)!write(2, name, strlen(name));
        (void)!write(2, "\n", 1);
        _exit(127);
    }
    return p;
}

#define RESOLVE(fn, name, ver)                                               \
    void *p_ = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);                       \
    if (!p_) {                                                               \
        p_ = next_of(name, ver);                                             \
        __atomic_store_n(&fn, p_, __ATOMIC_RELEASE);                         \
    }

/* name exported, forwarding to __wrap_name; __real_name the next one. */
#define INTERPOSE(ret, name, ver, params, args)                              \
    ret __wrap_##name params;                                                \
    ret name params { return __wrap_##name args; }                           \
    ret __real_##name params                                                 \
    {                                                                        \
        static void *fn;                                                     \
        RESOLVE(fn, #name, ver)                                              \
        return ((ret(*) params)p_) args;                                     \
    }
#define INTERPOSE_VOID(name, params, args)                                   \
    void __wrap_##name params;                                               \
    void name params { __wrap_##name args; }                                 \
    void __real_##name params                                                \
    {                                                                        \
        static void *fn;                                                     \
        RESOLVE(fn, #name, NULL)                                             \
        ((void(*) params)p_) args;                                           \
    }
/* Not exported: __real_name is libc's name itself. */
#define DIRECT(ret, name, params, args)                                      \
    ret __real_##name params;                                                \
    ret __real_##name params { return name args; }

#define G232 "GLIBC_2.3.2"

/* ---- threads ---- */
INTERPOSE(int, pthread_create, NULL,
          (pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *x),
          (t, a, f, x))
INTERPOSE(int, pthread_join, NULL, (pthread_t t, void **r), (t, r))
INTERPOSE(int, pthread_detach, NULL, (pthread_t t), (t))
void __wrap_pthread_exit(void *v) __attribute__((noreturn));
void pthread_exit(void *v)
{
    __wrap_pthread_exit(v);
}
void __real_pthread_exit(void *v) __attribute__((noreturn));
void __real_pthread_exit(void *v)
{
    static void *fn;
    RESOLVE(fn, "pthread_exit", NULL)
    ((void (*)(void *))p_)(v);
    __builtin_unreachable();
}
INTERPOSE(int, pthread_cancel, NULL, (pthread_t t), (t))
INTERPOSE(int, pthread_setcancelstate, NULL, (int s, int *o), (s, o))
INTERPOSE(int, pthread_setcanceltype, NULL, (int s, int *o), (s, o))
INTERPOSE_VOID(pthread_testcancel, (void), ())
INTERPOSE(int, pthread_once, NULL, (pthread_once_t *o, void (*f)(void)),
          (o, f))

/* ---- mutexes, spinlocks, rwlocks ---- */
INTERPOSE(int, pthread_mutex_init, NULL,
          (pthread_mutex_t *m, const pthread_mutexattr_t *a), (m, a))
INTERPOSE(int, pthread_mutex_destroy, NULL, (pthread_mutex_t *m), (m))
INTERPOSE(int, pthread_mutex_lock, NULL, (pthread_mutex_t *m), (m))
INTERPOSE(int, pthread_mutex_trylock, NULL, (pthread_mutex_t *m), (m))
INTERPOSE(int, pthread_mutex_timedlock, NULL,
          (pthread_mutex_t *m, const struct timespec *ts), (m, ts))
INTERPOSE(int, pthread_mutex_clocklock, NULL,
          (pthread_mutex_t *m, clockid_t c, const struct timespec *ts),
          (m, c, ts))
INTERPOSE(int, pthread_mutex_unlock, NULL, (pthread_mutex_t *m), (m))
INTERPOSE(int, pthread_spin_init, NULL, (pthread_spinlock_t *s, int p),
          (s, p))
INTERPOSE(int, pthread_spin_destroy, NULL, (pthread_spinlock_t *s), (s))
INTERPOSE(int, pthread_spin_lock, NULL, (pthread_spinlock_t *s), (s))
INTERPOSE(int, pthread_spin_trylock, NULL, (pthread_spinlock_t *s), (s))
INTERPOSE(int, pthread_spin_unlock, NULL, (pthread_spinlock_t *s), (s))
INTERPOSE(int, pthread_rwlock_init, NULL,
          (pthread_rwlock_t *l, const pthread_rwlockattr_t *a), (l, a))
INTERPOSE(int, pthread_rwlock_destroy, NULL, (pthread_rwlock_t *l), (l))
INTERPOSE(int, pthread_rwlock_rdlock, NULL, (pthread_rwlock_t *l), (l))
INTERPOSE(int, pthread_rwlock_tryrdlock, NULL, (pthread_rwlock_t *l), (l))
INTERPOSE(int, pthread_rwlock_timedrdlock, NULL,
          (pthread_rwlock_t *l, const struct timespec *ts), (l, ts))
INTERPOSE(int, pthread_rwlock_clockrdlock, NULL,
          (pthread_rwlock_t *l, clockid_t c, const struct timespec *ts),
          (l, c, ts))
INTERPOSE(int, pthread_rwlock_wrlock, NULL, (pthread_rwlock_t *l), (l))
INTERPOSE(int, pthread_rwlock_trywrlock, NULL, (pthread_rwlock_t *l), (l))
INTERPOSE(int, pthread_rwlock_timedwrlock, NULL,
          (pthread_rwlock_t *l, const struct timespec *ts), (l, ts))
INTERPOSE(int, pthread_rwlock_clockwrlock, NULL,
          (pthread_rwlock_t *l, clockid_t c, const struct timespec *ts),
          (l, c, ts))
INTERPOSE(int, pthread_rwlock_unlock, NULL, (pthread_rwlock_t *l), (l))

/* ---- condition variables, semaphores, barriers ---- */
INTERPOSE(int, pthread_cond_wait, G232,
          (pthread_cond_t *c, pthread_mutex_t *m), (c, m))
INTERPOSE(int, pthread_cond_timedwait, G232,
          (pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts),
          (c, m, ts))
INTERPOSE(int, pthread_cond_clockwait, NULL,
          (pthread_cond_t *c, pthread_mutex_t *m, clockid_t k,
           const struct timespec *ts),
          (c, m, k, ts))
INTERPOSE(int, pthread_cond_signal, G232, (pthread_cond_t *c), (c))
INTERPOSE(int, pthread_cond_broadcast, G232, (pthread_cond_t *c), (c))
INTERPOSE(int, sem_init, NULL, (sem_t *s, int p, unsigned v), (s, p, v))
INTERPOSE(int, sem_destroy, NULL, (sem_t *s), (s))
INTERPOSE(int, sem_post, NULL, (sem_t *s), (s))
INTERPOSE(int, sem_wait, NULL, (sem_t *s), (s))
INTERPOSE(int, sem_trywait, NULL, (sem_t *s), (s))
INTERPOSE(int, sem_timedwait, NULL, (sem_t *s, const struct timespec *ts),
          (s, ts))
INTERPOSE(int, sem_clockwait, NULL,
          (sem_t *s, clockid_t c, const struct timespec *ts), (s, c, ts))
INTERPOSE(int, sem_getvalue, NULL, (sem_t *s, int *v), (s, v))
INTERPOSE(int, pthread_barrier_init, NULL,
          (pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n),
          (b, a, n))
INTERPOSE(int, pthread_barrier_destroy, NULL, (pthread_barrier_t *b), (b))
INTERPOSE(int, pthread_barrier_wait, NULL, (pthread_barrier_t *b), (b))

/* ---- sleeping and yielding (scheduling points) ---- */
INTERPOSE(unsigned, sleep, NULL, (unsigned s), (s))
INTERPOSE(int, usleep, NULL, (useconds_t u), (u))
INTERPOSE(int, nanosleep, NULL,
          (const struct timespec *r, struct timespec *rem), (r, rem))
INTERPOSE(int, clock_nanosleep, NULL,
          (clockid_t c, int f, const struct timespec *r, struct timespec *rem),
          (c, f, r, rem))
INTERPOSE(int, sched_yield, NULL, (void), ())

/* ---- signals, exec, failures ---- */
INTERPOSE(int, sigaction, NULL,
          (int s, const struct sigaction *a, struct sigaction *o), (s, a, o))
sighandler_t __wrap_signal(int s, sighandler_t h);
sighandler_t signal(int s, sighandler_t h)
{
    return __wrap_signal(s, h);
}
INTERPOSE(int, execve, NULL,
          (const char *p, char *const a[], char *const e[]), (p, a, e))
INTERPOSE(int, execvpe, NULL,
          (const char *f, char *const a[], char *const e[]), (f, a, e))
INTERPOSE(int, fexecve, NULL, (int fd, char *const a[], char *const e[]),
          (fd, a, e))
int __wrap_execv(const char *p, char *const a[]);
int execv(const char *p, char *const a[])
{
    return __wrap_execv(p, a);
}
int __wrap_execvp(const char *f, char *const a[]);
int execvp(const char *f, char *const a[])
{
    return __wrap_execvp(f, a);
}
/* libc's list forms call execve inside libc: ours collect the list and
 * go through the runtime's vector forms (recorder/rt/exec.c). */
int ft_exec_list(int how, const char *path, const char *arg, va_list ap);
int execl(const char *p, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = ft_exec_list('l', p, arg, ap);
    va_end(ap);
    return rc;
}
int execlp(const char *f, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = ft_exec_list('p', f, arg, ap);
    va_end(ap);
    return rc;
}
int execle(const char *p, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = ft_exec_list('e', p, arg, ap);
    va_end(ap);
    return rc;
}
void __wrap___assert_fail(const char *e, const char *f, unsigned l,
                          const char *fn) __attribute__((noreturn));
void __assert_fail(const char *e, const char *f, unsigned l, const char *fn)
{
    __wrap___assert_fail(e, f, l, fn);
}
void __real___assert_fail(const char *e, const char *f, unsigned l,
                          const char *fn) __attribute__((noreturn));
void __real___assert_fail(const char *e, const char *f, unsigned l,
                          const char *fn)
{
    static void *fn_;
    RESOLVE(fn_, "__assert_fail", NULL)
    ((void (*)(const char *, const char *, unsigned, const char *))p_)(
        e, f, l, fn);
    __builtin_unreachable();
}
void __wrap_abort(void) __attribute__((noreturn));
void abort(void)
{
    __wrap_abort();
}
void __real_abort(void) __attribute__((noreturn));
void __real_abort(void)
{
    static void *fn;
    RESOLVE(fn, "abort", NULL)
    ((void (*)(void))p_)();
    __builtin_unreachable();
}

/* ---- left to libc: the runtime's __real_ calls go straight there ---- */
DIRECT(void *, malloc, (size_t n), (n))
DIRECT(void *, calloc, (size_t n, size_t k), (n, k))
DIRECT(void *, realloc, (void *p, size_t n), (p, n))
DIRECT(int, posix_memalign, (void **p, size_t a, size_t n), (p, a, n))
DIRECT(void *, aligned_alloc, (size_t a, size_t n), (a, n))
void *memalign(size_t a, size_t n);
DIRECT(void *, memalign, (size_t a, size_t n), (a, n))
void __real_free(void *p);
void __real_free(void *p)
{
    free(p);
}
DIRECT(void *, memcpy, (void *d, const void *s, size_t n), (d, s, n))
DIRECT(void *, memmove, (void *d, const void *s, size_t n), (d, s, n))
DIRECT(void *, memset, (void *d, int c, size_t n), (d, c, n))
/* libatomic's generic entry points (wider than lock-free): the runtime
 * wraps them for instrumented code; here nothing calls the wrappers, and
 * the reals are reached through libatomic only if it is loaded. */
void __real___atomic_load(size_t n, void *s, void *d, int mo);
void __real___atomic_load(size_t n, void *s, void *d, int mo)
{
    static void *fn;
    RESOLVE(fn, "__atomic_load", NULL)
    ((void (*)(size_t, void *, void *, int))p_)(n, s, d, mo);
}
void __real___atomic_store(size_t n, void *d, void *s, int mo);
void __real___atomic_store(size_t n, void *d, void *s, int mo)
{
    static void *fn;
    RESOLVE(fn, "__atomic_store", NULL)
    ((void (*)(size_t, void *, void *, int))p_)(n, d, s, mo);
}
void __real___atomic_exchange(size_t n, void *o, void *v, void *r, int mo);
void __real___atomic_exchange(size_t n, void *o, void *v, void *r, int mo)
{
    static void *fn;
    RESOLVE(fn, "__atomic_exchange", NULL)
    ((void (*)(size_t, void *, void *, void *, int))p_)(n, o, v, r, mo);
}
bool __real___atomic_compare_exchange(size_t n, void *o, void *e, void *d,
                                      int s, int f);
bool __real___atomic_compare_exchange(size_t n, void *o, void *e, void *d,
                                      int s, int f)
{
    static void *fn;
    RESOLVE(fn, "__atomic_compare_exchange", NULL)
    return ((bool (*)(size_t, void *, void *, void *, int, int))p_)(
        n, o, e, d, s, f);
}

/* This library leaves LD_PRELOAD: a program the run executes (a shell,
 * a helper, a program built with foretell-cc, which has a runtime of
 * its own) is not controlled through it (docs/recorder.md). */
#define PRELOAD_NAME "libforetell_preload.so"
static void leave_ld_preload(void)
{
    const char *v = getenv("LD_PRELOAD");
    if (!v)
        return;
    char *rest = malloc(strlen(v) + 1);
    if (!rest)
        return;
    size_t n = 0;
    for (const char *p = v; *p;) {
        size_t k = strcspn(p, ": ");
        if (k && !memmem(p, k, PRELOAD_NAME, sizeof PRELOAD_NAME - 1)) {
            if (n)
                rest[n++] = ':';
            memcpy(rest + n, p, k);
            n += k;
        }
        p += k;
        p += *p != 0;
    }
    rest[n] = 0;
    if (n)
        setenv("LD_PRELOAD", rest, 1);
    else
        unsetenv("LD_PRELOAD");
    free(rest);
}

/* No instrumented constructor calls __tsan_init in an unmodified
 * program: this library's does, before the program's own. */
__attribute__((constructor(101))) static void preload_init(void)
{
    leave_ld_preload();
    __tsan_init();
}
