/* SPDX-License-Identifier: MIT */
/* signals.c - a run that dies still leaves a readable trace.  Crash
 * signals (SEGV, BUS, FPE, ILL, ABRT) and SIGTERM/SIGINT/SIGALRM append a
 * SIGNAL event, flush the trace with write(2) only (async-signal-safe),
 * restore the default action and re-raise, so the parent sees the real
 * signal.  The pending write is not read back after a crash signal: its
 * address may be the fault.  A crash's site is the faulting instruction
 * (an ABORT event before SIGNAL, as for assert and abort). */
#define _GNU_SOURCE
#include "rt.h"

#include <signal.h>
#include <string.h>
#include <ucontext.h>

int __real_sigaction(int, const struct sigaction *, struct sigaction *);

static const int handled[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                              SIGTERM, SIGINT, SIGALRM};
static int dying;

/* A signal handled by a thread that does not hold the baton: the holder
 * may be appending to the trace at this moment.  Take the baton from it
 * with the watchdog's handshake (never from inside a hook), so that the
 * SIGNAL event is the last one written.  The scheduler lock, kept until
 * the process dies, stops a thread that sleeps without the baton from
 * taking it again.  Bounded: after ~200 ms we write anyway rather than
 * hang a dying process (this thread may hold the lock itself). */
static void quiesce_holder(ft_thread *self, int crash)
{
    for (int tries = 0; tries < 200 && !ft_trylock(); tries++) {
        struct timespec ts = {0, 1000000};
        __real_nanosleep(&ts, NULL);
    }
    for (int tries = 0; tries < 200; tries++) {
        int r = __atomic_load_n(&ft_rt.running, __ATOMIC_SEQ_CST);
        if (r < 0 || &ft_threads[r] == self)
            return;
        ft_thread *h = &ft_threads[r];
        __atomic_store_n(&h->has_baton, 0, __ATOMIC_SEQ_CST);
        if (ft_fence_remote() == 0 &&
            !__atomic_load_n(&h->in_hook, __ATOMIC_SEQ_CST)) {
            if (!crash)
                ft_pending_flush(h);
            return;
        }
        __atomic_store_n(&h->has_baton, 1, __ATOMIC_SEQ_CST);
        struct timespec ts = {0, 1000000};
        __real_nanosleep(&ts, NULL);
    }
}

/* Where a crash happened: the faulting instruction, when it is the
 * program's (not one of our hooks': then the thread was in_hook), plus
 * one, since sites are symbolised at address - 1 (return addresses). */
static uintptr_t fault_pc(const void *uc, int was_in_hook)
{
#if defined(__x86_64__)
    if (!uc || was_in_hook)
        return 0;
    return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] + 1;
#else
    (void)uc, (void)was_in_hook;
    return 0;
#endif
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    if (!__atomic_exchange_n(&dying, 1, __ATOMIC_SEQ_CST)) {
        ft_thread *t = ft_self;
        int crash = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
                    sig == SIGILL;
        int was_in_hook = 1;
        if (t) {
            was_in_hook = t->in_hook;
            t->in_hook = 1;
            if (!crash && !was_in_hook && t->has_baton)
                ft_pending_flush(t);
        }
        quiesce_holder(t, crash);
        ft_trace_signal(sig, sig == SIGABRT ? ft_abort_pc()
                             : crash        ? fault_pc(uc, was_in_hook)
                                            : 0);
    }
    struct sigaction sa;
    __real_memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    __real_sigaction(sig, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

int ft_signals_is_runtime(const struct sigaction *sa)
{
    return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_fatal;
}

int ft_signals_default(int sig)
{
    struct sigaction sa;
    __real_memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++)
        if (handled[i] == sig && ft_rt.recording) {
            sa.sa_sigaction = on_fatal;
            sa.sa_flags = SA_SIGINFO;
            sigfillset(&sa.sa_mask);
        }
    return __real_sigaction(sig, &sa, NULL);
}

void ft_signals_install(void)
{
    struct sigaction sa;
    __real_memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO;
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) {
        struct sigaction old;
        /* Keep a handler or ignore disposition the program already has. */
        if (__real_sigaction(handled[i], NULL, &old) == 0 &&
            old.sa_handler != SIG_DFL)
            continue;
        __real_sigaction(handled[i], &sa, NULL);
    }
}
