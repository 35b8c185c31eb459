/* SPDX-License-Identifier: MIT */
/* libatomic.c - libatomic's generic entry points (__atomic_load, _store,
 * _exchange, _compare_exchange).  clang emits these calls directly for
 * atomics wider than the lock-free size (e.g. _Atomic __int128), so no
 * __tsan_atomic hook sees the access; they are wrapped instead.  As with
 * 128-bit hooks, the values are recorded as READ_WIDE/WRITE_WIDE, plus a
 * WRITE_WIDE of the caller's buffer the call filled in. */
#define _GNU_SOURCE
#include "rt.h"

#include <stdbool.h>

void __real___atomic_load(size_t, void *, void *, int);
void __real___atomic_store(size_t, void *, void *, int);
void __real___atomic_exchange(size_t, void *, void *, void *, int);
bool __real___atomic_compare_exchange(size_t, void *, void *, void *, int, int);

void __wrap___atomic_load(size_t n, void *src, void *dst, int mo);
void __wrap___atomic_load(size_t n, void *src, void *dst, int mo)
{
    ft_thread *t = ft_enter();
    __real___atomic_load(n, src, dst, mo);
    if (t) {
        uint32_t site = ft_site_id(FT_PC());
        ft_emit_wide(FT_EV_READ_WIDE, site, (uintptr_t)src, n, dst);
        ft_emit_libc_write(site, (uintptr_t)dst, n);
        ft_leave(t);
    }
}

void __wrap___atomic_store(size_t n, void *dst, void *src, int mo);
void __wrap___atomic_store(size_t n, void *dst, void *src, int mo)
{
    ft_thread *t = ft_enter();
    __real___atomic_store(n, dst, src, mo);
    if (t) {
        uint32_t site = ft_site_id(FT_PC());
        ft_emit_wide(FT_EV_READ_WIDE, site, (uintptr_t)src, n, NULL);
        ft_emit_wide(FT_EV_WRITE_WIDE, site, (uintptr_t)dst, n, NULL);
        ft_leave(t);
    }
}

void __wrap___atomic_exchange(size_t n, void *obj, void *val, void *ret, int mo);
void __wrap___atomic_exchange(size_t n, void *obj, void *val, void *ret, int mo)
{
    ft_thread *t = ft_enter();
    __real___atomic_exchange(n, obj, val, ret, mo);
    if (t) {
        uint32_t site = ft_site_id(FT_PC());
        ft_emit_wide(FT_EV_READ_WIDE, site, (uintptr_t)val, n, NULL);
        ft_emit_wide(FT_EV_READ_WIDE, site, (uintptr_t)obj, n, ret);
        ft_emit_wide(FT_EV_WRITE_WIDE, site, (uintptr_t)obj, n, NULL);
        ft_emit_libc_write(site, (uintptr_t)ret, n);
        ft_leave(t);
    }
}

bool __wrap___atomic_compare_exchange(size_t n, void *obj, void *expected,
                                      void *desired, int s, int f);
bool __wrap___atomic_compare_exchange(size_t n, void *obj, void *expected,
                                      void *desired, int s, int f)
{
    ft_thread *t = ft_enter();
    uint8_t before[256];
    int keep = t && n <= sizeof before;
    if (keep)
        __real_memcpy(before, expected, n);
    bool ok = __real___atomic_compare_exchange(n, obj, expected, desired, s, f);
    if (t) {
        uint32_t site = ft_site_id(FT_PC());
        /* the old value: what was expected on success, else what the call
         * wrote back into *expected */
        const void *old = ok ? (keep ? (const void *)before : NULL) : expected;
        ft_emit_wide(FT_EV_READ_WIDE, site, (uintptr_t)obj, n, old);
        if (ok)
            ft_emit_wide(FT_EV_WRITE_WIDE, site, (uintptr_t)obj, n, NULL);
        else
            ft_emit_libc_write(site, (uintptr_t)expected, n);
        ft_leave(t);
    }
    return ok;
}
