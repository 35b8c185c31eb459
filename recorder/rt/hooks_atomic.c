/* SPDX-License-Identifier: MIT */
/* hooks_atomic.c - the __tsan_atomic* entry points.  They replace the
 * atomic instruction, so the runtime performs the operation itself (always
 * seq_cst: stronger than any order asked for, and we serialise anyway)
 * and records it with the values involved.  gcc may set flag bits above
 * the memory order; only the low bits (mask 0x7fff) are meaningful.
 * 128-bit operations go through libatomic and are recorded as wide
 * read/write events, since event values are 64-bit. */
#include "rt.h"

/* Each hook names its key point (ft_enter_kp): FT_KP_AREAD for a load,
 * FT_KP_AWRITE for the rest, with the address, for policies that tell
 * conflicting accesses apart (pos, surw). */

#define SC __ATOMIC_SEQ_CST

static inline unsigned order(int mo)
{
    unsigned m = (unsigned)mo & 0x7fff;
    return m > 5 ? 5 : m;
}

static void rec_load(ft_thread *t, uintptr_t pc, uintptr_t a, unsigned size, int mo, uint64_t v)
{
    ft_event ev = {.kind = FT_EV_ATOMIC_LOAD, .site = ft_site_id(pc), .addr = a,
                   .size = (uint16_t)size, .mo = (uint8_t)order(mo), .value = v};
    ft_emit(&ev);
    ft_leave(t);
}

static void rec_store(ft_thread *t, uintptr_t pc, uintptr_t a, unsigned size, int mo, uint64_t v)
{
    ft_rt.wseq++;
    ft_event ev = {.kind = FT_EV_ATOMIC_STORE, .site = ft_site_id(pc), .addr = a,
                   .size = (uint16_t)size, .mo = (uint8_t)order(mo), .value = v};
    ft_emit(&ev);
    ft_leave(t);
}

static void rec_rmw(ft_thread *t, uintptr_t pc, uintptr_t a, unsigned size, int mo, int op,
                    uint64_t old, uint64_t new_)
{
    if (old != new_) /* an exchange of the same value changes nothing */
        ft_rt.wseq++;
    ft_event ev = {.kind = FT_EV_ATOMIC_RMW, .site = ft_site_id(pc), .addr = a,
                   .size = (uint16_t)size, .mo = (uint8_t)order(mo),
                   .arg = (uint32_t)op, .value = old, .value2 = new_};
    ft_emit(&ev);
    ft_leave(t);
}

static void rec_cas(ft_thread *t, uintptr_t pc, uintptr_t a, unsigned size, int mo,
                    uint64_t expected, uint64_t desired, uint64_t old, int ok)
{
    if (ok && expected != desired)
        ft_rt.wseq++;
    ft_event ev = {.kind = FT_EV_ATOMIC_CAS, .site = ft_site_id(pc), .addr = a,
                   .size = (uint16_t)size, .mo = (uint8_t)order(mo),
                   .value = expected, .value2 = desired, .value3 = old,
                   .arg = (uint32_t)ok};
    ft_emit(&ev);
    ft_leave(t);
}

/* Enter first (this may switch threads), then operate, then record and
 * leave: no other recorded thread runs in between, so the event sits in
 * the stream exactly where the operation happened. */
#define ATOMIC_OPS(N, T, U)                                                   \
    T __tsan_atomic##N##_load(const volatile T *a, int mo);                   \
    T __tsan_atomic##N##_load(const volatile T *a, int mo)                    \
    {                                                                         \
        ft_thread *t = ft_enter_kp(FT_KP_AREAD, (uintptr_t)a, 0);                                            \
                T v = __atomic_load_n(a, SC);                                         \
        if (t) rec_load(t, FT_PC(), (uintptr_t)a, N / 8, mo, (U)v);              \
        return v;                                                             \
    }                                                                         \
    void __tsan_atomic##N##_store(volatile T *a, T v, int mo);                \
    void __tsan_atomic##N##_store(volatile T *a, T v, int mo)                 \
    {                                                                         \
        ft_thread *t = ft_enter_kp(FT_KP_AWRITE, (uintptr_t)a, 0);         \
                __atomic_store_n(a, v, SC);                                           \
        if (t) rec_store(t, FT_PC(), (uintptr_t)a, N / 8, mo, (U)v);             \
    }                                                                         \
    RMW(N, T, U, exchange, FT_RMW_XCHG, __atomic_exchange_n(a, v, SC), v)     \
    RMW(N, T, U, fetch_add, FT_RMW_ADD, __atomic_fetch_add(a, v, SC), old + v) \
    RMW(N, T, U, fetch_sub, FT_RMW_SUB, __atomic_fetch_sub(a, v, SC), old - v) \
    RMW(N, T, U, fetch_and, FT_RMW_AND, __atomic_fetch_and(a, v, SC), old & v) \
    RMW(N, T, U, fetch_or, FT_RMW_OR, __atomic_fetch_or(a, v, SC), old | v)   \
    RMW(N, T, U, fetch_xor, FT_RMW_XOR, __atomic_fetch_xor(a, v, SC), old ^ v) \
    RMW(N, T, U, fetch_nand, FT_RMW_NAND, __atomic_fetch_nand(a, v, SC),      \
        ~(old & v))                                                           \
    CAS(N, T, U, compare_exchange_strong)                                     \
    CAS(N, T, U, compare_exchange_weak)                                       \
    T __tsan_atomic##N##_compare_exchange_val(volatile T *a, T c, T v, int mo, \
                                              int fmo);                       \
    T __tsan_atomic##N##_compare_exchange_val(volatile T *a, T c, T v, int mo, \
                                              int fmo)                        \
    {                                                                         \
        (void)fmo;                                                            \
        ft_thread *t = ft_enter_kp(FT_KP_AWRITE, (uintptr_t)a, 0);         \
                T exp = c;                                                            \
        int ok = __atomic_compare_exchange_n(a, &c, v, 0, SC, SC);            \
        if (t) rec_cas(t, FT_PC(), (uintptr_t)a, N / 8, mo, (U)exp, (U)v, (U)c, ok); \
        return c;                                                             \
    }

#define RMW(N, T, U, name, op, expr, newexpr)                                 \
    T __tsan_atomic##N##_##name(volatile T *a, T v, int mo);                  \
    T __tsan_atomic##N##_##name(volatile T *a, T v, int mo)                   \
    {                                                                         \
        ft_thread *t = ft_enter_kp(FT_KP_AWRITE, (uintptr_t)a, 0);         \
                T old = expr;                                                         \
        if (t) rec_rmw(t, FT_PC(), (uintptr_t)a, N / 8, mo, op, (U)old,          \
                       (U)(T)(newexpr));                                      \
        return old;                                                           \
    }

#define CAS(N, T, U, name)                                                    \
    int __tsan_atomic##N##_##name(volatile T *a, T *c, T v, int mo, int fmo); \
    int __tsan_atomic##N##_##name(volatile T *a, T *c, T v, int mo, int fmo)  \
    {                                                                         \
        (void)fmo;                                                            \
        ft_thread *t = ft_enter_kp(FT_KP_AWRITE, (uintptr_t)a, 0);         \
                T exp = *c;                                                           \
        int ok = __atomic_compare_exchange_n(a, c, v, 0, SC, SC);             \
        if (t) {                                                              \
            if (!ok) /* the old value went to *c: program memory */         \
                ft_emit_libc_write(ft_site_id(FT_PC()), (uintptr_t)c, N / 8);  \
            rec_cas(t, FT_PC(), (uintptr_t)a, N / 8, mo, (U)exp, (U)v,        \
                    (U)(ok ? exp : *c), ok);                                  \
        }                                                                     \
        return ok;                                                            \
    }

ATOMIC_OPS(8, char, uint8_t)
ATOMIC_OPS(16, short, uint16_t)
ATOMIC_OPS(32, int, uint32_t)
ATOMIC_OPS(64, long long, uint64_t)

typedef __int128 a128;

static void rec_wide128(ft_thread *t, uintptr_t pc, uintptr_t a,
                        const a128 *old, const a128 *new_)
{
    if (new_)
        ft_rt.wseq++;
    uint32_t site = ft_site_id(pc);
    if (old)
        ft_emit_wide(FT_EV_READ_WIDE, site, a, 16, old);
    if (new_)
        ft_emit_wide(FT_EV_WRITE_WIDE, site, a, 16, new_);
    ft_leave(t);
}

a128 __tsan_atomic128_load(const volatile a128 *a, int mo);
a128 __tsan_atomic128_load(const volatile a128 *a, int mo)
{
    (void)mo;
    ft_thread *t = ft_enter_kp(FT_KP_AREAD, (uintptr_t)a, 0);
    a128 v = __atomic_load_n(a, SC);
    if (t)
        rec_wide128(t, FT_PC(), (uintptr_t)a, &v, NULL);
    return v;
}

void __tsan_atomic128_store(volatile a128 *a, a128 v, int mo);
void __tsan_atomic128_store(volatile a128 *a, a128 v, int mo)
{
    (void)mo;
    ft_thread *t = ft_enter_kp(FT_KP_AWRITE, (uintptr_t)a, 0);
    __atomic_store_n(a, v, SC);
    if (t)
        rec_wide128(t, FT_PC(), (uintptr_t)a, NULL, &v);
}

#define RMW128(name, expr, newexpr)                                           \
    a128 __tsan_atomic128_##name(volatile a128 *a, a128 v, int mo);           \
    a128 __tsan_atomic128_##name(volatile a128 *a, a128 v, int mo)            \
    {                                                                         \
        (void)mo;                                                             \
        ft_thread *t = ft_enter_kp(FT_KP_AWRITE, (uintptr_t)a, 0);         \
        a128 old = expr;                                                      \
        a128 nv = newexpr;                                                    \
        if (t)                                                                \
            rec_wide128(t, FT_PC(), (uintptr_t)a, &old, &nv);                 \
        return old;                                                           \
    }
RMW128(exchange, __atomic_exchange_n(a, v, SC), v)
RMW128(fetch_add, __atomic_fetch_add(a, v, SC), old + v)
RMW128(fetch_sub, __atomic_fetch_sub(a, v, SC), old - v)
RMW128(fetch_and, __atomic_fetch_and(a, v, SC), old & v)
RMW128(fetch_or, __atomic_fetch_or(a, v, SC), old | v)
RMW128(fetch_xor, __atomic_fetch_xor(a, v, SC), old ^ v)
RMW128(fetch_nand, __atomic_fetch_nand(a, v, SC), ~(old & v))

static int cas128(volatile a128 *a, a128 *c, a128 v, uintptr_t pc)
{
    ft_thread *t = ft_enter_kp(FT_KP_AWRITE, (uintptr_t)a, 0);
    int ok = __atomic_compare_exchange_n(a, c, v, 0, SC, SC);
    if (t) {
        if (!ok) /* the old value went to *c: program memory */
            ft_emit_libc_write(ft_site_id(pc), (uintptr_t)c, sizeof *c);
        rec_wide128(t, pc, (uintptr_t)a, c, ok ? &v : NULL);
    }
    return ok;
}

int __tsan_atomic128_compare_exchange_strong(volatile a128 *a, a128 *c, a128 v,
                                             int mo, int fmo);
int __tsan_atomic128_compare_exchange_strong(volatile a128 *a, a128 *c, a128 v,
                                             int mo, int fmo)
{
    (void)mo, (void)fmo;
    return cas128(a, c, v, FT_PC());
}

int __tsan_atomic128_compare_exchange_weak(volatile a128 *a, a128 *c, a128 v,
                                           int mo, int fmo);
int __tsan_atomic128_compare_exchange_weak(volatile a128 *a, a128 *c, a128 v,
                                           int mo, int fmo)
{
    (void)mo, (void)fmo;
    return cas128(a, c, v, FT_PC());
}

a128 __tsan_atomic128_compare_exchange_val(volatile a128 *a, a128 c, a128 v,
                                           int mo, int fmo);
a128 __tsan_atomic128_compare_exchange_val(volatile a128 *a, a128 c, a128 v,
                                           int mo, int fmo)
{
    (void)mo, (void)fmo;
    cas128(a, &c, v, FT_PC());
    return c;
}

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_thread_fence(int mo)
{
    ft_thread *t = ft_enter();
    __atomic_thread_fence(SC);
    if (t) {
        ft_event ev = {.kind = FT_EV_FENCE, .site = ft_site_id(FT_PC()),
                       .mo = (uint8_t)order(mo)};
        ft_emit(&ev);
        ft_leave(t);
    }
}

/* A signal fence only restrains the compiler; nothing to record. */
void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_signal_fence(int mo)
{
    (void)mo;
    __atomic_signal_fence(SC);
}
