/* SPDX-License-Identifier: MIT */
/* mem.c - memcpy, memmove and memset.  gcc and clang emit them as plain
 * libc calls (also for large struct copies), so they are caught with
 * --wrap (and __tsan_mem* for newer LLVM).  The copy is done here, under
 * the baton, so both the bytes read and the bytes written are recorded
 * exactly (content up to 4096 bytes, see docs/trace-format.md).  The
 * runtime's own calls land here too and pass through (in_hook is set). */
#define _GNU_SOURCE
#include "rt.h"

void *__real_memmove(void *, const void *, size_t);

/* Under the heap oracle: a write of [d, d+n) around a heap block is heap
 * corruption, reported before it lands; the thread aborts at its next key
 * point, after this call is recorded. */
static void check_dst(ft_thread *t, void *d, size_t n)
{
    uint32_t alloc_site;
    uintptr_t at;
    int bad = ft_rt.heap_check && (uintptr_t)d >= 4096
                  ? ft_heap_bad_write((uintptr_t)d, n, &alloc_site, &at)
                  : 0;
    if (bad && !t->heap_abort) {
        ft_heap_report(bad, 0, at, alloc_site);
        t->heap_abort = 1;
    }
}

static void *copy(void *d, const void *s, size_t n, int move, uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t)
        return move ? __real_memmove(d, s, n) : __real_memcpy(d, s, n);
    if (n) {
        uint32_t site = ft_site_id(pc);
        check_dst(t, d, n);
        ft_emit_wide(FT_EV_READ_WIDE, site, (uintptr_t)s, n, NULL);
        move ? __real_memmove(d, s, n) : __real_memcpy(d, s, n);
        ft_emit_wide(FT_EV_WRITE_WIDE, site, (uintptr_t)d, n, NULL);
    }
    ft_leave(t);
    return d;
}

static void *fill(void *d, int c, size_t n, uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_memset(d, c, n);
    if (n) {
        check_dst(t, d, n);
        __real_memset(d, c, n);
        ft_emit_wide(FT_EV_WRITE_WIDE, ft_site_id(pc), (uintptr_t)d, n, NULL);
    }
    ft_leave(t);
    return d;
}

void *__wrap_memcpy(void *d, const void *s, size_t n);
void *__wrap_memcpy(void *d, const void *s, size_t n)
{
    return copy(d, s, n, 0, FT_PC());
}

void *__wrap_memmove(void *d, const void *s, size_t n);
void *__wrap_memmove(void *d, const void *s, size_t n)
{
    return copy(d, s, n, 1, FT_PC());
}

void *__wrap_memset(void *d, int c, size_t n);
void *__wrap_memset(void *d, int c, size_t n)
{
    return fill(d, c, n, FT_PC());
}

void *__tsan_memcpy(void *d, const void *s, size_t n);
void *__tsan_memcpy(void *d, const void *s, size_t n)
{
    return copy(d, s, n, 0, FT_PC());
}

void *__tsan_memmove(void *d, const void *s, size_t n);
void *__tsan_memmove(void *d, const void *s, size_t n)
{
    return copy(d, s, n, 1, FT_PC());
}

void *__tsan_memset(void *d, int c, size_t n);
void *__tsan_memset(void *d, int c, size_t n)
{
    return fill(d, c, n, FT_PC());
}
