/* SPDX-License-Identifier: MIT */
/* sigdeliver.c - the program's signal handlers run in the recorded order.
 * An asynchronous signal interrupts whichever thread the kernel picks: a
 * thread parked for the baton, or one inside the runtime.  Its handler's
 * accesses would then be dropped (nested in a hook) or written without
 * the baton, and the trace would no longer be one interleaving (`foretell
 * check` fails).  So sigaction and signal are wrapped: the kernel calls a
 * trampoline, which runs the program's handler at once when the thread
 * holds the baton in its own code, and otherwise
 *   - forwards a signal sent to the process to the baton holder (the
 *     kernel could have picked it: the handler then runs in order there);
 *   - else queues it on the thread, which runs the handler at its next
 *     key point or when it next takes the baton, holding it.
 * The crash signals (SEGV, BUS, FPE, ILL, TRAP, SYS) are synchronous:
 * they arrive in the faulting thread, which runs its own code, and are
 * left alone.  docs/recorder.md, "Signal handlers". */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int __real_sigaction(int, const struct sigaction *, struct sigaction *);

#define NSIGS 65
#define FORWARDED 0x46545347 /* si_errno of a signal we forwarded: "FTSG" */
#define FORWARDED_USER 0x46545355 /* the same, sent by kill(): "FTSU" */

/* What the program asked for, per signal (valid once `known`). */
static struct sigaction prog[NSIGS];
static unsigned char known[NSIGS];
static siginfo_t last_info[NSIGS]; /* of a queued signal */

static int synchronous(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
           sig == SIGTRAP || sig == SIGSYS;
}

static void call_handler(int sig, siginfo_t *si, void *uc)
{
    const struct sigaction *a = &prog[sig];
    if (a->sa_flags & SA_SIGINFO)
        a->sa_sigaction(sig, si, uc);
    else if (a->sa_handler != SIG_IGN && a->sa_handler != SIG_DFL)
        a->sa_handler(sig);
}

/* SA_RESETHAND: the first delivery restores the default (the runtime's
 * own, for the signals it writes the trace on). */
static void reset_if_once(int sig)
{
    if (!(prog[sig].sa_flags & SA_RESETHAND))
        return;
    prog[sig].sa_handler = SIG_DFL;
    prog[sig].sa_flags = 0;
    ft_signals_default(sig);
}

/* Sends sig to thread `to` as a forwarded signal.  The kernel lets a
 * thread queue only negative si_codes: a kill()'s SI_USER travels as
 * SI_QUEUE, marked, and arrives as what it was (unforward). */
static int forward(int to, int sig, const siginfo_t *si)
{
    siginfo_t fw = *si;
    fw.si_errno = FORWARDED;
    if (fw.si_code >= 0) {
        fw.si_code = SI_QUEUE;
        fw.si_errno = FORWARDED_USER;
    }
    return (int)syscall(SYS_rt_tgsigqueueinfo, getpid(), ft_threads[to].ktid,
                        sig, &fw);
}

/* A forwarded signal's info as the kernel first gave it. */
static int unforward(siginfo_t *si)
{
    if (si->si_errno == FORWARDED_USER)
        si->si_code = SI_USER;
    else if (si->si_errno != FORWARDED)
        return 0;
    si->si_errno = 0;
    return 1;
}

/* With the baton free (its holder sleeps for real), a signal sent to the
 * process that lands in a blocked thread would wait as long as the block
 * does (forever for a join): a thread that will run again takes it. */
static int able_to_run(int self)
{
    int n = __atomic_load_n(&ft_rt.nthreads, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        int st = __atomic_load_n(&ft_threads[i].state, __ATOMIC_ACQUIRE);
        if (i != self && (st == FT_T_RUNNABLE || st == FT_T_RUNNING ||
                          st == FT_T_OUTSIDE))
            return i;
    }
    return -1;
}

static void trampoline(int sig, siginfo_t *si, void *uc)
{
    int saved_errno = errno;
    siginfo_t info;
    int forwarded = 0;
    if (si) {
        info = *si;
        forwarded = unforward(&info);
        si = &info;
    }
    ft_thread *t = ft_self;
    int recorded = t && t->state != FT_T_EXITED &&
                   __atomic_load_n(&ft_rt.recording, __ATOMIC_ACQUIRE) &&
                   !ft_rt.finished;
    if (!recorded || (!t->in_hook && t->has_baton)) {
        /* Not a recorded thread (passthrough), or the baton holder in
         * its own code: the handler runs now, in order. */
        reset_if_once(sig);
        call_handler(sig, si, uc);
        errno = saved_errno;
        return;
    }
    int holder = __atomic_load_n(&ft_rt.running, __ATOMIC_ACQUIRE);
    if (holder < 0 && t->state == FT_T_BLOCKED)
        holder = able_to_run(t->tid);
    if (si && si->si_code != SI_TKILL && !forwarded && holder >= 0 &&
        holder != t->tid && ft_threads[holder].ktid) {
        if (forward(holder, sig, si) == 0) {
            errno = saved_errno;
            return;
        }
    }
    if (si)
        last_info[sig] = *si;
    __atomic_or_fetch(&t->sig_pending, 1ull << sig, __ATOMIC_RELEASE);
    t->budget = 0; /* its next key point takes the slow path */
    errno = saved_errno;
}

/* t blocks: the handlers queued on it while it held the baton in a hook
 * would wait as long as the block does (forever for a join).  A signal
 * sent to the process may run in any thread: pass them on to one that
 * will run.  A signal sent to t itself waits for t. */
void ft_signals_pass_on(ft_thread *t)
{
    uint64_t pending = __atomic_load_n(&t->sig_pending, __ATOMIC_ACQUIRE);
    while (pending) {
        int sig = __builtin_ctzll(pending);
        pending &= pending - 1;
        if (sig <= 0 || sig >= NSIGS || last_info[sig].si_code == SI_TKILL)
            continue;
        int to = __atomic_load_n(&ft_rt.running, __ATOMIC_ACQUIRE);
        if (to < 0 || to == t->tid)
            to = able_to_run(t->tid);
        if (to < 0 || !ft_threads[to].ktid)
            return;
        __atomic_and_fetch(&t->sig_pending, ~(1ull << sig), __ATOMIC_RELEASE);
        if (forward(to, sig, &last_info[sig]) != 0)
            __atomic_or_fetch(&t->sig_pending, 1ull << sig, __ATOMIC_RELEASE);
    }
}

void ft_signals_run(ft_thread *t)
{
    uint64_t pending;
    while ((pending = __atomic_load_n(&t->sig_pending, __ATOMIC_ACQUIRE))) {
        int sig = __builtin_ctzll(pending);
        __atomic_and_fetch(&t->sig_pending, ~(1ull << sig), __ATOMIC_RELEASE);
        if (sig <= 0 || sig >= NSIGS)
            continue;
        siginfo_t info = last_info[sig];
        sigset_t mask, old;
        mask = prog[sig].sa_mask;
        if (!(prog[sig].sa_flags & SA_NODEFER))
            sigaddset(&mask, sig);
        /* The handler is program code: recorded, as the thread's own. */
        ft_pending_flush(t);
        int kind = t->kp_kind;
        uintptr_t addr = t->kp_addr, pc = t->kp_pc;
        size_t size = t->kp_size;
        pthread_sigmask(SIG_BLOCK, &mask, &old);
        reset_if_once(sig);
        t->in_hook = 0;
        call_handler(sig, &info, NULL);
        t->in_hook = 1;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        t->kp_kind = kind, t->kp_addr = addr, t->kp_pc = pc, t->kp_size = size;
    }
}

/* The action the program sees for sig: its own, or what was there. */
static void current(int sig, struct sigaction *out)
{
    if (known[sig]) {
        *out = prog[sig];
        return;
    }
    __real_sigaction(sig, NULL, out);
    if (ft_signals_is_runtime(out))
        out->sa_handler = SIG_DFL, out->sa_flags = 0; /* ours: hidden */
}

int __wrap_sigaction(int sig, const struct sigaction *act,
                     struct sigaction *old);
int __wrap_sigaction(int sig, const struct sigaction *act,
                     struct sigaction *old)
{
    if (sig <= 0 || sig >= NSIGS || synchronous(sig) || sig == SIGKILL ||
        sig == SIGSTOP)
        return __real_sigaction(sig, act, old);
    struct sigaction prev;
    current(sig, &prev);
    if (act) {
        int handler = (act->sa_flags & SA_SIGINFO)
                          ? act->sa_sigaction != NULL
                          : (act->sa_handler != SIG_DFL &&
                             act->sa_handler != SIG_IGN);
        int rc;
        if (handler) {
            struct sigaction tr = *act;
            tr.sa_sigaction = trampoline;
            tr.sa_flags = (act->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
            rc = __real_sigaction(sig, &tr, NULL);
        } else if (act->sa_handler == SIG_DFL) {
            rc = ft_signals_default(sig);
        } else {
            rc = __real_sigaction(sig, act, NULL);
        }
        if (rc < 0)
            return -1;
        prog[sig] = *act;
        known[sig] = 1;
    }
    if (old)
        *old = prev;
    return 0;
}

sighandler_t __wrap_signal(int sig, sighandler_t h);
sighandler_t __wrap_signal(int sig, sighandler_t h)
{
    /* glibc's signal(): BSD semantics, the call restarted. */
    struct sigaction sa, prev;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (__wrap_sigaction(sig, &sa, &prev) < 0)
        return SIG_ERR;
    /* sa_handler and sa_sigaction share their storage (a union). */
    return prev.sa_handler;
}
