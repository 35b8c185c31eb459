/* heap.c - malloc and friends (C) and operator new/delete (C++).  Heap
 * objects are named by allocation site and per-site count (the MALLOC
 * event's count), which is stable across runs whatever address ASLR gives.
 * The C++ operators are wrapped weakly so C programs link without
 * libstdc++. */
#define _GNU_SOURCE
#include "rt.h"

#include <malloc.h>
#include <stdlib.h>

void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
int __real_posix_memalign(void **, size_t, size_t);
void *__real_aligned_alloc(size_t, size_t);
void *__real_memalign(size_t, size_t);
void *__real__Znwm(size_t) __attribute__((weak));
void *__real__Znam(size_t) __attribute__((weak));
void __real__ZdlPv(void *) __attribute__((weak));
void __real__ZdaPv(void *) __attribute__((weak));
void __real__ZdlPvm(void *, size_t) __attribute__((weak));
void __real__ZdaPvm(void *, size_t) __attribute__((weak));

static void rec_malloc(ft_thread *t, uintptr_t pc, void *p, size_t n)
{
    uint64_t count;
    uint32_t site = ft_site_alloc(pc, &count);
    if (FT_UNLIKELY(ft_rt.explore_allocs) && p)
        ft_explore_note_alloc(pc, (uintptr_t)p, n);
    if (p) {
        ft_event ev = {.kind = FT_EV_MALLOC, .site = site, .addr = (uintptr_t)p,
                       .value = n, .value2 = count};
        ft_emit(&ev);
    }
    ft_leave(t);
}

static void rec_free(uintptr_t pc, void *p)
{
    ft_event ev = {.kind = FT_EV_FREE, .site = ft_site_id(pc), .addr = (uintptr_t)p};
    ft_emit(&ev);
}

void *__wrap_malloc(size_t n);
void *__wrap_malloc(size_t n)
{
    ft_thread *t = ft_enter();
    void *p = __real_malloc(n);
    if (t)
        rec_malloc(t, FT_PC(), p, n);
    return p;
}

void *__wrap_calloc(size_t k, size_t n);
void *__wrap_calloc(size_t k, size_t n)
{
    ft_thread *t = ft_enter();
    void *p = __real_calloc(k, n);
    if (t)
        rec_malloc(t, FT_PC(), p, k * n);
    return p;
}

void *__wrap_realloc(void *old, size_t n);
void *__wrap_realloc(void *old, size_t n)
{
    ft_thread *t = ft_enter();
    if (!t)
        return __real_realloc(old, n);
    uintptr_t pc = FT_PC();
    if (old && n == 0) {
        rec_free(pc, old);
        void *p = __real_realloc(old, n);
        ft_leave(t);
        return p;
    }
    uint64_t count;
    uint32_t site = ft_site_alloc(pc, &count);
    void *p = __real_realloc(old, n);
    if (p) {
        ft_event ev = {.kind = FT_EV_REALLOC, .site = site, .obj2 = (uintptr_t)old,
                       .addr = (uintptr_t)p, .value = n, .value2 = count};
        ft_emit(&ev);
    }
    ft_leave(t);
    return p;
}

void __wrap_free(void *p);
void __wrap_free(void *p)
{
    ft_thread *t = p ? ft_enter() : NULL;
    if (t)
        rec_free(FT_PC(), p);
    __real_free(p);
    if (t)
        ft_leave(t);
}

int __wrap_posix_memalign(void **out, size_t align, size_t n);
int __wrap_posix_memalign(void **out, size_t align, size_t n)
{
    ft_thread *t = ft_enter();
    int rc = __real_posix_memalign(out, align, n);
    if (t) {
        if (rc == 0)
            ft_emit_libc_write(ft_site_id(FT_PC()), (uintptr_t)out, sizeof *out);
        rec_malloc(t, FT_PC(), rc == 0 ? *out : NULL, n);
    }
    return rc;
}

void *__wrap_aligned_alloc(size_t align, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n)
{
    ft_thread *t = ft_enter();
    void *p = __real_aligned_alloc(align, n);
    if (t)
        rec_malloc(t, FT_PC(), p, n);
    return p;
}

void *__wrap_memalign(size_t align, size_t n);
void *__wrap_memalign(size_t align, size_t n)
{
    ft_thread *t = ft_enter();
    void *p = __real_memalign(align, n);
    if (t)
        rec_malloc(t, FT_PC(), p, n);
    return p;
}

#define NEW(name, realfn)                                                     \
    void *__wrap_##name(size_t n);                                            \
    void *__wrap_##name(size_t n)                                             \
    {                                                                         \
        ft_thread *t = ft_enter();                                            \
        void *p = realfn ? realfn(n) : __real_malloc(n);                      \
        if (t)                                                                \
            rec_malloc(t, FT_PC(), p, n);                                     \
        return p;                                                             \
    }
NEW(_Znwm, __real__Znwm)
NEW(_Znam, __real__Znam)

#define DELETE(name, call, ...)                                               \
    void __wrap_##name(__VA_ARGS__);                                          \
    void __wrap_##name(__VA_ARGS__)                                           \
    {                                                                         \
        ft_thread *t = p ? ft_enter() : NULL;                                 \
        if (t)                                                                \
            rec_free(FT_PC(), p);                                             \
        call;                                                                 \
        if (t)                                                                \
            ft_leave(t);                                                      \
    }
DELETE(_ZdlPv, __real__ZdlPv ? __real__ZdlPv(p) : __real_free(p), void *p)
DELETE(_ZdaPv, __real__ZdaPv ? __real__ZdaPv(p) : __real_free(p), void *p)
DELETE(_ZdlPvm, __real__ZdlPvm ? __real__ZdlPvm(p, n) : __real_free(p), void *p,
       size_t n)
DELETE(_ZdaPvm, __real__ZdaPvm ? __real__ZdaPvm(p, n) : __real_free(p), void *p,
       size_t n)
