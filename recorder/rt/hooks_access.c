/* SPDX-License-Identifier: MIT */
/* hooks_access.c - the plain memory-access and function hooks that
 * -fsanitize=thread code calls, in every spelling gcc and clang emit
 * (aligned, unaligned, volatile, _pc, compound read-write, ranges, vptr).
 * A read records *addr now (we hold the baton, so it is the value the
 * access returns); a write becomes the thread's pending write, recorded
 * with its value at the thread's next event. */
#include "rt_emit.h"

static inline uint64_t load_le(uintptr_t a, unsigned size)
{
    switch (size) {
    case 1: return *(const volatile uint8_t *)a;
    case 2: { uint16_t v; __builtin_memcpy(&v, (const void *)a, 2); return v; }
    case 4: { uint32_t v; __builtin_memcpy(&v, (const void *)a, 4); return v; }
    default: { uint64_t v; __builtin_memcpy(&v, (const void *)a, 8); return v; }
    }
}

static inline void pending_flush_inline(ft_thread *t)
{
    uint32_t size = t->pw_size;
    t->pw_size = 0;
    if (FT_LIKELY(size <= 8 && (size & (size - 1)) == 0))
        ft_emit_access_fast(FT_EV_WRITE, t->pw_site, t->pw_addr, size,
                            load_le(t->pw_addr, size));
    else
        ft_emit_wide(FT_EV_WRITE_WIDE, t->pw_site, t->pw_addr, size, NULL);
}

void ft_pending_flush_slow(ft_thread *t)
{
    pending_flush_inline(t);
}

void ft_emit_libc_write(uint32_t site, uintptr_t addr, size_t size)
{
    if (size <= 8 && (size & (size - 1)) == 0)
        ft_emit_access(FT_EV_WRITE, site, addr, (uint32_t)size,
                       load_le(addr, (unsigned)size));
    else
        ft_emit_wide(FT_EV_WRITE_WIDE, site, addr, size, NULL);
}

/* ft_enter_kp with the pending write's flush inlined; *deferp: the
 * write stays pending (a read, see ft_enter_core). */
static inline __attribute__((always_inline)) ft_thread *
enter(int kind, uintptr_t addr, size_t size, uintptr_t pc, int *deferp)
{
    ft_thread *t = ft_enter_core(kind, addr, size, pc, deferp);
    if (t && !*deferp && t->pw_size != 0)
        pending_flush_inline(t);
    return t;
}

/* A read recorded while the thread's write stays pending is a paired
 * read (opcodes 14, 15; trace.h): no other thread runs between it and
 * the thread's next event (that write, or another paired read), and the
 * model keeps the two together, since the store may have happened first
 * (`x = 2; r = y;`).  Choosing the opcode is a branch on defer, which
 * ft_enter_core computed anyway; both opcodes use the read register. */
static inline void on_read(uintptr_t a, size_t size, uintptr_t pc)
{
    int defer;
    ft_thread *t = enter(FT_KP_READ, a, size, pc, &defer);
    if (!t)
        return;
    if (FT_UNLIKELY(a < 4096)) {
        /* A null dereference: the program's own load faults, in its own
         * code (signals.c takes the site from there), not ours. */
        ft_leave(t);
        return;
    }
    uint32_t site = ft_site_id_fast(pc);
    if (size <= 8 && (size & (size - 1)) == 0)
        ft_emit_access_fast(defer ? FT_OP_READ_PAIRED : FT_EV_READ, site, a,
                            (uint32_t)size, load_le(a, (unsigned)size));
    else if (size)
        ft_emit_wide(defer ? FT_OP_READ_WIDE_PAIRED : FT_EV_READ_WIDE, site,
                     a, size, NULL);
    ft_leave(t);
}

static inline void on_write(uintptr_t a, size_t size, uintptr_t pc)
{
    int defer; /* never: only reads defer */
    ft_thread *t = enter(FT_KP_WRITE, a, size, pc, &defer);
    if (!t)
        return;
    if (size) {
        t->pw_site = ft_site_id_fast(pc);
        t->pw_addr = a;
        t->pw_size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    }
    ft_leave(t);
}

static inline void on_read_write(uintptr_t a, size_t size, uintptr_t pc)
{
    int defer; /* never: a write key point */
    ft_thread *t = enter(FT_KP_WRITE, a, size, pc, &defer);
    if (!t)
        return;
    if (FT_UNLIKELY(a < 4096)) { /* as on_read */
        ft_leave(t);
        return;
    }
    uint32_t site = ft_site_id_fast(pc);
    if (size <= 8)
        ft_emit_access_fast(FT_EV_READ, site, a, (uint32_t)size,
                            load_le(a, (unsigned)size));
    else
        ft_emit_wide(FT_EV_READ_WIDE, site, a, size, NULL);
    t->pw_site = site;
    t->pw_addr = a;
    t->pw_size = (uint32_t)size;
    ft_leave(t);
}

#define ACCESS_HOOKS(N)                                                       \
    void __tsan_read##N(void *a) { on_read((uintptr_t)a, N, FT_PC()); }       \
    void __tsan_write##N(void *a) { on_write((uintptr_t)a, N, FT_PC()); }     \
    void __tsan_unaligned_read##N(void *a) { on_read((uintptr_t)a, N, FT_PC()); } \
    void __tsan_unaligned_write##N(void *a) { on_write((uintptr_t)a, N, FT_PC()); } \
    void __tsan_volatile_read##N(void *a) { on_read((uintptr_t)a, N, FT_PC()); } \
    void __tsan_volatile_write##N(void *a) { on_write((uintptr_t)a, N, FT_PC()); } \
    void __tsan_unaligned_volatile_read##N(void *a)                           \
    { on_read((uintptr_t)a, N, FT_PC()); }                                    \
    void __tsan_unaligned_volatile_write##N(void *a)                          \
    { on_write((uintptr_t)a, N, FT_PC()); }                                   \
    void __tsan_read##N##_pc(void *a, void *pc)                               \
    { on_read((uintptr_t)a, N, (uintptr_t)pc); }                              \
    void __tsan_write##N##_pc(void *a, void *pc)                              \
    { on_write((uintptr_t)a, N, (uintptr_t)pc); }                             \
    void __tsan_unaligned_read##N##_pc(void *a, void *pc)                     \
    { on_read((uintptr_t)a, N, (uintptr_t)pc); }                              \
    void __tsan_unaligned_write##N##_pc(void *a, void *pc)                    \
    { on_write((uintptr_t)a, N, (uintptr_t)pc); }                             \
    void __tsan_read_write##N(void *a) { on_read_write((uintptr_t)a, N, FT_PC()); } \
    void __tsan_unaligned_read_write##N(void *a)                              \
    { on_read_write((uintptr_t)a, N, FT_PC()); }

/* Declared here so -Wmissing-prototypes style checks stay quiet. */
#define ACCESS_DECLS(N)                                                       \
    void __tsan_read##N(void *); void __tsan_write##N(void *);                \
    void __tsan_unaligned_read##N(void *); void __tsan_unaligned_write##N(void *); \
    void __tsan_volatile_read##N(void *); void __tsan_volatile_write##N(void *); \
    void __tsan_unaligned_volatile_read##N(void *);                           \
    void __tsan_unaligned_volatile_write##N(void *);                          \
    void __tsan_read##N##_pc(void *, void *); void __tsan_write##N##_pc(void *, void *); \
    void __tsan_unaligned_read##N##_pc(void *, void *);                       \
    void __tsan_unaligned_write##N##_pc(void *, void *);                      \
    void __tsan_read_write##N(void *); void __tsan_unaligned_read_write##N(void *);

ACCESS_DECLS(1) ACCESS_DECLS(2) ACCESS_DECLS(4) ACCESS_DECLS(8) ACCESS_DECLS(16)
ACCESS_HOOKS(1)
ACCESS_HOOKS(2)
ACCESS_HOOKS(4)
ACCESS_HOOKS(8)
ACCESS_HOOKS(16)

void __tsan_read_range(void *a, unsigned long n);
void __tsan_write_range(void *a, unsigned long n);
void __tsan_read_range_pc(void *a, unsigned long n, void *pc);
void __tsan_write_range_pc(void *a, unsigned long n, void *pc);
void __tsan_vptr_read(void **vptr);
void __tsan_vptr_update(void **vptr, void *new_val);
void __tsan_func_entry(void *caller_pc);
void __tsan_func_exit(void);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
void __tsan_init(void);

void __tsan_read_range(void *a, unsigned long n) { on_read((uintptr_t)a, n, FT_PC()); }
void __tsan_write_range(void *a, unsigned long n) { on_write((uintptr_t)a, n, FT_PC()); }
void __tsan_read_range_pc(void *a, unsigned long n, void *pc)
{
    on_read((uintptr_t)a, n, (uintptr_t)pc);
}
void __tsan_write_range_pc(void *a, unsigned long n, void *pc)
{
    on_write((uintptr_t)a, n, (uintptr_t)pc);
}

void __tsan_vptr_read(void **vptr)
{
    on_read((uintptr_t)vptr, sizeof(void *), FT_PC());
}

void __tsan_vptr_update(void **vptr, void *new_val)
{
    (void)new_val;
    on_write((uintptr_t)vptr, sizeof(void *), FT_PC());
}

/* Function entry and exit.  The compiler calls __tsan_func_exit after a
 * function's last statement and before its return: in a function that
 * falls off its end (a `void main`, a non-void function without
 * `return`), the caller gets whatever was left in the return registers,
 * which natively is the last call's result.  So the two hooks are
 * assembly trampolines that keep rax, rdx and xmm0 around the C code:
 * the instrumented program then returns what the native one does. */
void ft_func_entry_hook(void *caller_pc, uintptr_t pc)
    __attribute__((visibility("hidden")));
void ft_func_exit_hook(void) __attribute__((visibility("hidden")));

void ft_func_entry_hook(void *caller_pc, uintptr_t pc)
{
    ft_thread *t = ft_enter_kp(FT_KP_FUNC, 0, 0);
    if (!t)
        return;
    uint32_t site = ft_site_id(pc);
    ft_emit_func_entry(site, ft_site_id((uintptr_t)caller_pc));
    ft_leave(t);
}

void ft_func_exit_hook(void)
{
    ft_thread *t = ft_enter_kp(FT_KP_FUNC, 0, 0);
    if (!t)
        return;
    ft_emit_func_exit();
    ft_leave(t);
}

/* At entry rsp is 8 mod 16; two pushes and 56 bytes make it 0 mod 16
 * again for the call.  The entry hook's own return address (the
 * instrumented function's site) is at 72(%rsp) then. */
#define SAVE_RETURN_REGS                                                      \
    "push %rax\n\tpush %rdx\n\tsub $56, %rsp\n\tmovdqu %xmm0, (%rsp)\n\t"
#define RESTORE_RETURN_REGS                                                   \
    "movdqu (%rsp), %xmm0\n\tadd $56, %rsp\n\tpop %rdx\n\tpop %rax\n\tret\n"
__asm__(".text\n"
        ".globl __tsan_func_entry\n"
        ".type __tsan_func_entry, @function\n"
        "__tsan_func_entry:\n\t"
        ".cfi_startproc\n\t" SAVE_RETURN_REGS
        ".cfi_adjust_cfa_offset 72\n\t"
        "mov 72(%rsp), %rsi\n\t"
        "call ft_func_entry_hook\n\t" RESTORE_RETURN_REGS
        ".cfi_endproc\n"
        ".size __tsan_func_entry, .-__tsan_func_entry\n"
        ".globl __tsan_func_exit\n"
        ".type __tsan_func_exit, @function\n"
        "__tsan_func_exit:\n\t"
        ".cfi_startproc\n\t" SAVE_RETURN_REGS
        ".cfi_adjust_cfa_offset 72\n\t"
        "call ft_func_exit_hook\n\t" RESTORE_RETURN_REGS
        ".cfi_endproc\n"
        ".size __tsan_func_exit, .-__tsan_func_exit\n");

/* Ignoring accesses would make the trace inconsistent (reads whose writes
 * are missing), so these annotations are accepted and have no effect. */
void __tsan_ignore_thread_begin(void) {}
void __tsan_ignore_thread_end(void) {}

void __tsan_init(void)
{
    ft_init();
}
