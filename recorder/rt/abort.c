/* SPDX-License-Identifier: MIT */
/* abort.c - where a program gave up.  A failed assert() or a call to
 * abort() raises SIGABRT from inside libc, whose code is not
 * instrumented, so the thread's last recorded site is the access before
 * the check (or one inside a function the check called), not the check.
 * The wrapper learns the caller's PC (foretell-cc wraps __assert_fail and
 * abort) and the SIGNAL event carries it as its site (signals.c). */
#define _GNU_SOURCE
#include "rt.h"

#include <stdint.h>

/* The call site of the assert or abort: the process dies right after,
 * so one slot is enough; the first thread to fail wins. */
static uintptr_t abort_pc;

uintptr_t ft_abort_pc(void)
{
    return __atomic_load_n(&abort_pc, __ATOMIC_SEQ_CST);
}

static void note_caller(uintptr_t ret)
{
    /* ret - 1 lies in the call instruction: the assert's own line */
    uintptr_t none = 0;
    __atomic_compare_exchange_n(&abort_pc, &none, ret - 1, 0,
                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

void __real___assert_fail(const char *expr, const char *file,
                          unsigned int line, const char *func)
    __attribute__((noreturn));
void __real_abort(void) __attribute__((noreturn));

void __wrap___assert_fail(const char *expr, const char *file,
                          unsigned int line, const char *func)
    __attribute__((noreturn));
void __wrap___assert_fail(const char *expr, const char *file,
                          unsigned int line, const char *func)
{
    note_caller((uintptr_t)__builtin_return_address(0));
    __real___assert_fail(expr, file, line, func);
}

void __wrap_abort(void) __attribute__((noreturn));
void __wrap_abort(void)
{
    note_caller((uintptr_t)__builtin_return_address(0));
    __real_abort();
}
