/* SPDX-License-Identifier: MIT */
/* heap.c - malloc and friends (C) and operator new/delete (C++).  Heap
 * objects are named by allocation site and per-site count (the MALLOC
 * event's count), which is stable across runs whatever address ASLR gives.
 * The C++ operators are wrapped weakly so C programs link without
 * libstdc++.
 *
 * The heap oracle (ft_rt.heap_check, replay and exploration runs): a freed
 * block is not given back to malloc but kept in a quarantine (the last
 * QUARANTINE_N blocks), so an access to it (seen at the key point's slow
 * path, sched.c, which the oracle makes visit every key point) is a
 * use-after-free, and freeing it again a double free.  Addresses below
 * one page are null dereferences.  Each is a HEAP_ERROR event with the
 * site of the free; the run then aborts at the thread's next key point,
 * after the faulty access itself is recorded (or at once for a double
 * free).  A page filter makes the common miss one load.  Writes around
 * a live block (heap corruption) are heap_bounds.c's. */
#define _GNU_SOURCE
#include "rt.h"

#include <malloc.h>
#include <stdio.h>
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

#define QUARANTINE_N 4096
#define FILTER_BITS 16
#define BIG_PAGES 64

static struct qblock {
    uintptr_t addr;
    size_t size;
    uint32_t free_site;
} quarantine[QUARANTINE_N];
static unsigned q_first, q_count, q_big;
static uint16_t q_filter[1u << FILTER_BITS]; /* blocks per hashed page */

static inline unsigned page_slot(uintptr_t page)
{
    return (unsigned)((page * 0x9e3779b97f4a7c15ull) >> (64 - FILTER_BITS));
}

static void filter_add(const struct qblock *b, int delta)
{
    uintptr_t first = b->addr >> 12, last = (b->addr + b->size - 1) >> 12;
    if (last - first >= BIG_PAGES) {
        q_big += (unsigned)delta;
        return;
    }
    for (uintptr_t pg = first; pg <= last; pg++)
        q_filter[page_slot(pg)] += (uint16_t)delta;
}

static struct qblock *quarantine_find(uintptr_t a)
{
    if (!q_big && !q_filter[page_slot(a >> 12)])
        return NULL;
    for (unsigned i = 0; i < q_count; i++) {
        struct qblock *b = &quarantine[(q_first + i) % QUARANTINE_N];
        if (a >= b->addr && a < b->addr + (b->size ? b->size : 1))
            return b;
    }
    return NULL;
}

static void quarantine_add(void *p, uint32_t site)
{
    if (q_count == QUARANTINE_N) {
        struct qblock *old = &quarantine[q_first];
        filter_add(old, -1);
        __real_free((void *)old->addr);
        q_first = (q_first + 1) % QUARANTINE_N;
        q_count--;
    }
    struct qblock *b = &quarantine[(q_first + q_count++) % QUARANTINE_N];
    b->addr = (uintptr_t)p;
    b->size = malloc_usable_size(p);
    b->free_site = site;
    filter_add(b, 1);
}

void ft_heap_report(int what, uint32_t site, uintptr_t addr,
                    uint32_t other_site)
{
    static const char *const names[] = {
        "", "use-after-free", "double free", "null dereference",
        "heap corruption (a write before a heap block)",
        "heap corruption (a write past a heap block's end)",
        "heap corruption (a block's header found overwritten at free)"};
    ft_event ev = {.kind = FT_EV_HEAP_ERROR, .site = site, .addr = addr,
                   .arg = (uint32_t)what, .value = other_site};
    ft_emit(&ev);
    ft_trace_flush();
    fprintf(stderr, "foretell: %s at %#lx (thread %d)\n",
            what > 0 && what <= FT_HEAP_HEADER_OVERWRITTEN ? names[what] : "?",
            (unsigned long)addr, ft_self ? ft_self->tid : -1);
}

static void check(ft_thread *t, int flush)
{
    int k = t->kp_kind;
    if (k != FT_KP_READ && k != FT_KP_WRITE && k != FT_KP_LOCK)
        return;
    uintptr_t a = t->kp_addr;
    /* The previous write goes first whether or not this key point switched
     * threads (a switch would have flushed it), so that recording and
     * replay agree on the order. */
    if (flush && (a < 4096 || quarantine_find(a)) && t->pw_size &&
        t->pw_addr >= 4096)
        ft_pending_flush(t);
    /* The access's own site when the hook gave it, else 0: the access is
     * the thread's next event. */
    uint32_t site = t->kp_pc ? ft_site_id(t->kp_pc) : 0;
    uint32_t alloc_site;
    uintptr_t at;
    int bad = k == FT_KP_WRITE && a >= 4096
                  ? ft_heap_bad_write(a, t->kp_size, &alloc_site, &at)
                  : 0;
    if (bad) {
        if (flush)
            ft_pending_flush(t);
        ft_heap_report(bad, site, at, alloc_site);
        t->heap_abort = 1;
        return;
    }
    if (a < 4096) {
        ft_heap_report(FT_HEAP_NULL_DEREF, site, a, 0);
        t->heap_abort = 1;
        return;
    }
    struct qblock *b = quarantine_find(a);
    if (b) {
        ft_heap_report(FT_HEAP_USE_AFTER_FREE, site, a, b->free_site);
        t->heap_abort = 1;
    }
}

void ft_heap_check_kp(ft_thread *t)
{
    if (FT_UNLIKELY(t->heap_abort)) {
        ft_pending_flush(t);
        abort();
    }
    check(t, 1);
}

void ft_heap_check_deferred(ft_thread *t)
{
    if (!t->heap_abort)
        check(t, 0);
}

/* free/delete under the oracle: 1 when handled (quarantined or reported). */
static int oracle_free(uintptr_t pc, void *p)
{
    uint32_t site = ft_site_id(pc);
    struct qblock *b = quarantine_find((uintptr_t)p);
    if (b && b->addr == (uintptr_t)p) {
        ft_heap_report(FT_HEAP_DOUBLE_FREE, site, (uintptr_t)p, b->free_site);
        abort();
    }
    if (ft_heap_untrack((uintptr_t)p, site))
        abort(); /* its header was overwritten: glibc would crash on it */
    quarantine_add(p, site);
    return 1;
}

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
        if (ft_rt.heap_check)
            ft_heap_track((uintptr_t)p, n, site);
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
    if (ft_rt.heap_check && old && ft_heap_untrack((uintptr_t)old, ft_site_id(pc)))
        abort(); /* its header was overwritten */
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
        if (ft_rt.heap_check)
            ft_heap_track((uintptr_t)p, n, site);
    } else if (ft_rt.heap_check && old) {
        ft_heap_track((uintptr_t)old, malloc_usable_size(old), 0);
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
    if (!t || !ft_rt.heap_check || !oracle_free(FT_PC(), p))
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
        if (!t || !ft_rt.heap_check || !oracle_free(FT_PC(), p))              \
            call;                                                             \
        if (t)                                                                \
            ft_leave(t);                                                      \
    }
DELETE(_ZdlPv, __real__ZdlPv ? __real__ZdlPv(p) : __real_free(p), void *p)
DELETE(_ZdaPv, __real__ZdaPv ? __real__ZdaPv(p) : __real_free(p), void *p)
DELETE(_ZdlPvm, __real__ZdlPvm ? __real__ZdlPvm(p, n) : __real_free(p), void *p,
       size_t n)
DELETE(_ZdaPvm, __real__ZdaPvm ? __real__ZdaPvm(p, n) : __real_free(p), void *p,
       size_t n)
