/* SPDX-License-Identifier: MIT */
/* build.c - turns trace events into CTM transitions: one transition per
 * memory access or sync operation, variables interned by (address, kind)
 * in an open-addressing table, arrays grown geometrically so nothing is
 * allocated per event.  The mapping from event kinds to operations is the
 * table in docs/ctm.md. */
#include "ctm/ctm.h"
#include "recorder/heapmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FT_CTM_MAX_THREADS FT_TRACE_MAX_THREADS
#define FT_CTM_MAX_TRANS (UINT32_MAX - 1u)
/* The address of thread tid's cancellation flag: in the kernel half of
 * the address space, which no program's memory is. */
#define FT_CTM_CANCEL_FLAG(tid) (0xffffff0000000000ull | (uint64_t)(tid))

void ft_prefault(void *base, size_t elem, uint64_t from, uint64_t to)
{
#ifdef MADV_POPULATE_WRITE
    if (!base || to <= from)
        return;
    long page = sysconf(_SC_PAGESIZE);
    /* the pages around the range's ends hold the range, so they are
     * mapped; populating never changes what a page holds */
    uintptr_t a = (uintptr_t)base + elem * from;
    uintptr_t b = (uintptr_t)base + elem * to;
    a &= ~((uintptr_t)page - 1);
    b = (b + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
    (void)base, (void)elem, (void)from, (void)to;
#endif
}

static int grow(void **p, size_t elem, uint32_t cap)
{
    void *q = realloc(*p, elem * (size_t)cap);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

int ft_ctm_reserve_trans(ft_ctm *c, uint32_t want)
{
    if (want <= c->cap_trans)
        return 0;
    uint64_t cap = c->cap_trans ? c->cap_trans : 1024;
    while (cap < want)
        cap *= 2;
    if (cap > FT_CTM_MAX_TRANS)
        cap = FT_CTM_MAX_TRANS;
    uint32_t n = (uint32_t)cap;
    if (grow((void **)&c->op, 1, n) || grow((void **)&c->tid, 4, n) ||
        grow((void **)&c->pos, 4, n) || grow((void **)&c->obj, 4, n) ||
        grow((void **)&c->obj2, 4, n) || grow((void **)&c->value, 8, n) ||
        grow((void **)&c->site, 4, n) || grow((void **)&c->event, 4, n))
        return -1;
    c->cap_trans = n;
    c->prefaulted = c->ntrans; /* the arrays may have moved */
    return 0;
}

static int reserve_threads(ft_ctm *c, uint32_t want)
{
    if (want <= c->cap_threads)
        return 0;
    uint32_t n = c->cap_threads ? c->cap_threads : 16;
    while (n < want)
        n *= 2;
    if (grow((void **)&c->len, 4, n) || grow((void **)&c->parent, 4, n) ||
        grow((void **)&c->fork_trans, 4, n) ||
        grow((void **)&c->join_trans, 4, n))
        return -1;
    for (uint32_t t = c->cap_threads; t < n; t++) {
        c->len[t] = 0;
        c->parent[t] = c->fork_trans[t] = c->join_trans[t] = FT_CTM_NONE;
    }
    c->cap_threads = n;
    return 0;
}

ft_ctm *ft_ctm_new(void)
{
    ft_ctm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->hash_cap = 1024;
    c->pair_open = FT_CTM_NONE;
    c->hash = calloc(c->hash_cap, sizeof *c->hash);
    if (!c->hash || ft_ctm_reserve_trans(c, 1024) || reserve_threads(c, 16)) {
        ft_ctm_free(c);
        return NULL;
    }
    return c;
}

void ft_ctm_free(ft_ctm *c)
{
    if (!c)
        return;
    free(c->op);
    free(c->tid);
    free(c->pos);
    free(c->obj);
    free(c->obj2);
    free(c->value);
    free(c->rmw_id);
    free(c->rmw_val);
    free(c->glue_id);
    free(c->site);
    free(c->event);
    free(c->first);
    free(c->len);
    free(c->by_thread);
    free(c->parent);
    free(c->fork_trans);
    free(c->join_trans);
    free(c->vars);
    free(c->hash);
    ft_heapmap_free(c->heap);
    free(c->frees);
    free(c->size_id);
    free(c->size_val);
    free(c->wide_id);
    free(c->wide_at);
    free(c->wide_bytes);
    free(c->hb_vc);
    free(c->hb_first);
    free(c->hb_count);
    free(c->hb_pos);
    if (c->code_owned)
        free(c->code);
    free(c);
}

static uint32_t hash_key(uint64_t addr, unsigned kind)
{
    uint64_t h = (addr ^ ((uint64_t)kind << 59)) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

#define SLOT_VAR(s) (((s)->var1_kind & ((1u << 29) - 1)) - 1)
#define SLOT_KEY(v, kind) (((uint32_t)(kind) << 29) | ((v) + 1))
/* the slot's state word: the touching thread (tids stay below 2^20) or
 * one of two marks, then two flags of memory variables */
#define SLOT_TID_MASK 0xffffffu
#define SLOT_NONE 0xffffffu   /* no thread yet (only an INIT event) */
#define SLOT_SHARED 0xfffffeu /* two or more threads */
#define SLOT_SEEN (1u << 30)    /* first access handled: init is decided */
/* bits 24..29 of a memory variable's state: its first access's size (63:
 * that or more, then the variable's own field tells), so an access of
 * another size is noticed without touching the variable (ctm/mixed.c) */
#define SLOT_SIZE_SHIFT 24
#define SLOT_SIZE_MASK (63u << SLOT_SIZE_SHIFT)
#define SLOT_WRITTEN (1u << 31) /* some transition writes it */

static int rehash(ft_ctm *c)
{
    uint32_t cap = c->hash_cap * 2;
    ft_ctm_slot *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t i = 0; i < c->hash_cap; i++) {
        ft_ctm_slot *o = &c->hash[i];
        if (!o->var1_kind)
            continue;
        uint32_t j = hash_key(o->addr, o->var1_kind >> 29) & (cap - 1);
        while (h[j].var1_kind)
            j = (j + 1) & (cap - 1);
        h[j] = *o;
    }
    free(c->hash);
    c->hash = h;
    c->hash_cap = cap;
    return 0;
}

uint32_t ft_ctm_append_var(ft_ctm *c, uint64_t addr, unsigned kind,
                           uint32_t tid)
{
    if (c->nvars >= FT_CTM_MAX_VARS)
        return FT_CTM_NONE;
    if (c->nvars == c->cap_vars) {
        uint32_t n = c->cap_vars ? c->cap_vars * 2 : 256;
        if (grow((void **)&c->vars, sizeof(ft_ctm_var), n))
            return FT_CTM_NONE;
        c->cap_vars = n;
    }
    uint32_t v = c->nvars++;
    memset(&c->vars[v], 0, sizeof c->vars[v]);
    c->vars[v].addr = addr;
    c->vars[v].kind = (uint8_t)kind;
    c->vars[v].first_tid = tid;
    return v;
}

/* A new variable for (addr, kind) in the empty slot sl. */
static ft_ctm_slot *add_var(ft_ctm *c, ft_ctm_slot *sl, uint64_t addr,
                            unsigned kind, uint32_t tid)
{
    uint32_t v = ft_ctm_append_var(c, addr, kind, tid);
    if (v == FT_CTM_NONE)
        return NULL;
    *sl = (ft_ctm_slot){addr, SLOT_KEY(v, kind),
                        tid == FT_CTM_NONE ? SLOT_NONE : tid};
    if ((uint64_t)c->nvars * 2 > c->hash_cap) {
        if (rehash(c))
            return NULL;
        /* find it again in the new table */
        uint32_t mask = c->hash_cap - 1, i = hash_key(addr, kind) & mask;
        while (c->hash[i].var1_kind != SLOT_KEY(v, kind))
            i = (i + 1) & mask;
        sl = &c->hash[i];
    }
    return sl;
}

/* The slot of the variable for (addr, kind), created on first use; touched
 * by tid (FT_CTM_NONE: only described, by an INIT event, which shares
 * nothing).  Sharedness is tracked in the slot and copied to the
 * variables by ft_ctm_finish, so a lookup touches one slot and nothing
 * else.  NULL on out of memory. */
static inline ft_ctm_slot *intern(ft_ctm *c, uint64_t addr, unsigned kind,
                                  uint32_t tid)
{
    uint32_t mask = c->hash_cap - 1;
    uint32_t i = hash_key(addr, kind) & mask;
    ft_ctm_slot *sl;
    while ((sl = &c->hash[i])->var1_kind) {
        if (sl->addr == addr && sl->var1_kind >> 29 == kind) {
            uint32_t st = sl->state & SLOT_TID_MASK;
            if (st != tid && tid != FT_CTM_NONE && st != SLOT_SHARED)
                sl->state = (sl->state & ~SLOT_TID_MASK) |
                            (st == SLOT_NONE ? tid : SLOT_SHARED);
            return sl;
        }
        i = (i + 1) & mask;
    }
    return add_var(c, sl, addr, kind, tid);
}

/* The variable index of (addr, kind), FT_CTM_NONE on out of memory. */
static uint32_t intern_var(ft_ctm *c, uint64_t addr, unsigned kind,
                           uint32_t tid)
{
    ft_ctm_slot *sl = intern(c, addr, kind, tid);
    return sl ? SLOT_VAR(sl) : FT_CTM_NONE;
}

/* A memory access of addr by tid, of size bytes (wide contents: bytes,
 * NULL when elided or narrow): the variable, with its initial value known
 * when the trace reads it before any write (docs/ctm.md), decided at its
 * first access; the variable is written only then and when it is first
 * written.  An access of another size than the variable's first is noted
 * for the mixed-size split (ctm/mixed.c). */
static inline uint32_t intern_access(ft_ctm *c, uint64_t addr, uint32_t tid,
                                     unsigned op, uint64_t val, uint32_t size,
                                     const uint8_t *bytes, uint32_t nbytes,
                                     int uniform)
{
    ft_ctm_slot *sl = intern(c, addr, FT_VAR_MEMORY, tid);
    if (!sl)
        return FT_CTM_NONE;
    uint32_t v = SLOT_VAR(sl);
    int writes = op == FT_OP_WRITE || op == FT_OP_RMW;
    uint32_t code = (size ? (size < 63 ? size : 63) : 1) << SLOT_SIZE_SHIFT;
    if (__builtin_expect(!(sl->state & SLOT_SEEN), 0)) {
        sl->state |= SLOT_SEEN | code;
        c->vars[v].size = size ? size : 1;
        if (op != FT_OP_WRITE) {
            c->vars[v].has_init = 1;
            c->vars[v].init = val;
        }
    } else if (__builtin_expect((sl->state & SLOT_SIZE_MASK) != code, 0) ||
               (code == SLOT_SIZE_MASK && c->vars[v].size != size)) {
        if (ft_ctm_note_size(c, c->ntrans, size ? size : 1, NULL, 0, 0))
            return FT_CTM_NONE;
    }
    if (bytes && ft_ctm_note_size(c, c->ntrans, 0, bytes, nbytes, uniform))
        return FT_CTM_NONE;
    if (writes && !(sl->state & SLOT_WRITTEN)) {
        sl->state |= SLOT_WRITTEN;
        c->vars[v].written = 1;
    }
    return v;
}

/* Faults in the next window of every transition array at once: they
 * grow by first touch, and on this kind of machine a page fault per 4 KiB
 * costs more than the work done on the page (docs/benchmarks.md).  The
 * window is small so the model's resident size stays what it uses. */
#define PREFAULT_WINDOW 8192u

static void prefault_window(ft_ctm *c)
{
    uint32_t from = c->prefaulted, to = from + PREFAULT_WINDOW;
    if (to > c->cap_trans || to < from)
        to = c->cap_trans;
    ft_prefault(c->op, 1, from, to);
    ft_prefault(c->tid, 4, from, to);
    ft_prefault(c->pos, 4, from, to);
    ft_prefault(c->obj, 4, from, to);
    ft_prefault(c->obj2, 4, from, to);
    ft_prefault(c->value, 8, from, to);
    ft_prefault(c->site, 4, from, to);
    ft_prefault(c->event, 4, from, to);
    c->prefaulted = to;
}

static inline int emit(ft_ctm *c, const ft_event *ev, unsigned op,
                       uint32_t obj, uint32_t obj2, uint64_t value,
                       uint64_t value2)
{
    if (__builtin_expect(c->ntrans >= c->prefaulted, 0)) {
        if (c->ntrans == FT_CTM_MAX_TRANS ||
            ft_ctm_reserve_trans(c, c->ntrans + 1))
            return -1;
        prefault_window(c);
    }
    uint32_t x = c->ntrans;
    if (op == FT_OP_RMW) {
        if (c->nrmw == c->cap_rmw) {
            uint32_t cap = c->cap_rmw ? 2 * c->cap_rmw : 64;
            if (grow((void **)&c->rmw_id, 4, cap) ||
                grow((void **)&c->rmw_val, 8, cap))
                return -1;
            c->cap_rmw = cap;
        }
        c->rmw_id[c->nrmw] = x;
        c->rmw_val[c->nrmw++] = value2;
    }
    /* A paired read is glued to its thread's next transition; another
     * thread's transition in between contradicts the mark (the runtime
     * never switches there): then nothing is glued. */
    if (c->pair_open != FT_CTM_NONE) {
        if (c->tid[c->pair_open] == ev->tid) {
            if (c->nglue == c->cap_glue) {
                uint32_t cap = c->cap_glue ? 2 * c->cap_glue : 64;
                if (grow((void **)&c->glue_id, 4, cap))
                    return -1;
                c->cap_glue = cap;
            }
            c->glue_id[c->nglue++] = c->pair_open;
        }
        c->pair_open = FT_CTM_NONE;
    }
    if ((ev->kind == FT_EV_READ || ev->kind == FT_EV_READ_WIDE) &&
        ev->arg == FT_READ_PAIRED)
        c->pair_open = x;
    c->ntrans++;
    c->op[x] = (uint8_t)op;
    c->tid[x] = ev->tid;
    c->pos[x] = c->len[ev->tid]++;
    c->obj[x] = obj;
    c->obj2[x] = obj2;
    c->value[x] = value;
    c->site[x] = ev->site;
    c->event[x] = (uint32_t)ev->index;
    return 0;
}

#define OOM(msg, len) (snprintf(msg, len, "out of memory"), -1)

int ft_ctm_add(ft_ctm *c, const ft_event *ev, char *msg, size_t msglen)
{
    c->nevents++;
    uint32_t t = ev->tid;
    if (ev->index >= UINT32_MAX) {
        snprintf(msg, msglen, "event %llu: a model holds at most %u events",
                 (unsigned long long)ev->index, UINT32_MAX);
        return -1;
    }
    if (t >= FT_CTM_MAX_THREADS) {
        snprintf(msg, msglen, "event %llu: thread id %u beyond the limit %u",
                 (unsigned long long)ev->index, t, FT_CTM_MAX_THREADS);
        return -1;
    }
    if (reserve_threads(c, t + 1))
        return OOM(msg, msglen);
    if (t + 1 > c->nthreads)
        c->nthreads = t + 1;
    uint32_t v = FT_CTM_NONE, v2 = FT_CTM_NONE;
    unsigned op = 0;
    uint64_t val = 0, val2 = 0;
    switch (ev->kind) {
    case FT_EV_THREAD_CREATE:
    case FT_EV_THREAD_JOIN: {
        uint64_t child = ev->value;
        if (child >= FT_CTM_MAX_THREADS || child == t) {
            snprintf(msg, msglen, "event %llu: %s of thread %llu by thread %u",
                     (unsigned long long)ev->index, ft_kind_name(ev->kind),
                     (unsigned long long)child, t);
            return -1;
        }
        if (reserve_threads(c, (uint32_t)child + 1))
            return OOM(msg, msglen);
        if (child + 1 > c->nthreads)
            c->nthreads = (uint32_t)child + 1;
        op = ev->kind == FT_EV_THREAD_CREATE ? FT_OP_FORK : FT_OP_JOIN;
        val = child;
        if (op == FT_OP_FORK) {
            c->parent[child] = t;
            c->fork_trans[child] = c->ntrans;
        } else if (c->join_trans[child] == FT_CTM_NONE) {
            c->join_trans[child] = c->ntrans;
        }
        break;
    }
    case FT_EV_READ:
    case FT_EV_WRITE:
    case FT_EV_ATOMIC_LOAD:
    case FT_EV_ATOMIC_STORE:
        op = (ev->kind == FT_EV_READ || ev->kind == FT_EV_ATOMIC_LOAD)
                 ? FT_OP_READ
                 : FT_OP_WRITE;
        val = ev->value;
        v = intern_access(c, ev->addr, t, op, val, ev->size, NULL, 0, 0);
        break;
    case FT_EV_THREAD_CANCEL:
    case FT_EV_THREAD_CANCELED:
        /* A write of the target's cancellation flag, and the target's
         * read of it where it acts on the request: the data rule orders
         * the cancel before the action (docs/ctm.md). */
        op = ev->kind == FT_EV_THREAD_CANCEL ? FT_OP_WRITE : FT_OP_READ;
        val = 1;
        v = intern_access(c,
                          FT_CTM_CANCEL_FLAG(ev->kind == FT_EV_THREAD_CANCEL
                                                 ? ev->value
                                                 : (uint64_t)t),
                          t, op, val, 1, NULL, 0, 0);
        break;
    case FT_EV_READ_WIDE:
    case FT_EV_WRITE_WIDE: {
        /* wide contents stand for one value (0: elided); a wide range
         * keeps its length in value (trace.h) */
        uint32_t size = ev->value > UINT32_MAX ? UINT32_MAX
                        : ev->value            ? (uint32_t)ev->value
                                               : ev->size;
        op = ev->kind == FT_EV_READ_WIDE ? FT_OP_READ : FT_OP_WRITE;
        val = ev->bytes
                  ? ft_ctm_wide_value(ev->bytes, ev->nbytes, size, ev->uniform)
                  : 0;
        v = intern_access(c, ev->addr, t, op, val, size, ev->bytes,
                          ev->bytes ? ev->nbytes : 0, ev->uniform);
        break;
    }
    case FT_EV_ATOMIC_RMW:
        op = FT_OP_RMW;
        val = ev->value;
        val2 = ev->value2;
        v = intern_access(c, ev->addr, t, op, val, ev->size, NULL, 0, 0);
        break;
    case FT_EV_ATOMIC_CAS:
        op = ev->arg ? FT_OP_RMW : FT_OP_READ;
        val = ev->value3;
        val2 = ev->value2;
        v = intern_access(c, ev->addr, t, op, val, ev->size, NULL, 0, 0);
        break;
    case FT_EV_MUTEX_INIT:
        v = intern_var(c, ev->addr, FT_VAR_MUTEX, FT_CTM_NONE);
        if (v == FT_CTM_NONE)
            return OOM(msg, msglen);
        c->vars[v].mutex_type = (uint8_t)ev->arg;
        c->vars[v].has_init = 1;
        return 0;
    case FT_EV_MUTEX_LOCK:
        op = ev->rc == 0 ? FT_OP_LOCK : FT_OP_LOCK_FAIL;
        v = intern_var(c, ev->addr, FT_VAR_MUTEX, t);
        val = ev->rc == 0 ? ev->arg : 0; /* how: a try never blocks */
        break;
    case FT_EV_MUTEX_UNLOCK:
        if (ev->rc != 0)
            return 0; /* a failed unlock changes nothing */
        op = FT_OP_UNLOCK;
        v = intern_var(c, ev->addr, FT_VAR_MUTEX, t);
        break;
    case FT_EV_RW_RDLOCK:
    case FT_EV_RW_WRLOCK:
        v = intern_var(c, ev->addr, FT_VAR_RWLOCK, t);
        if (ev->rc != 0) {
            op = FT_OP_RWLOCK_FAIL;
            val = ev->kind == FT_EV_RW_WRLOCK;
        } else {
            op = ev->kind == FT_EV_RW_RDLOCK ? FT_OP_RDLOCK : FT_OP_WRLOCK;
            val = ev->arg; /* how */
        }
        break;
    case FT_EV_RW_UNLOCK:
        if (ev->rc != 0)
            return 0;
        op = FT_OP_RWUNLOCK;
        v = intern_var(c, ev->addr, FT_VAR_RWLOCK, t);
        break;
    case FT_EV_COND_WAIT:
    case FT_EV_COND_WAKE:
        op = ev->kind == FT_EV_COND_WAIT ? FT_OP_WAIT_PRE : FT_OP_WAIT_POST;
        v = intern_var(c, ev->addr, FT_VAR_COND, t);
        v2 = intern_var(c, ev->obj2, FT_VAR_MUTEX, t);
        if (v2 == FT_CTM_NONE)
            return OOM(msg, msglen);
        val = ev->kind == FT_EV_COND_WAKE && ev->arg;
        break;
    case FT_EV_COND_SIGNAL:
    case FT_EV_COND_BROADCAST:
        op = ev->kind == FT_EV_COND_SIGNAL ? FT_OP_NOTIFY : FT_OP_NOTIFY_ALL;
        v = intern_var(c, ev->addr, FT_VAR_COND, t);
        break;
    case FT_EV_SEM_INIT:
        op = FT_OP_SEM_INIT;
        v = intern_var(c, ev->addr, FT_VAR_SEM, t);
        val = ev->value;
        if (v != FT_CTM_NONE && !c->vars[v].has_init) {
            c->vars[v].has_init = 1;
            c->vars[v].init = ev->value;
        }
        break;
    case FT_EV_SEM_POST:
        op = FT_OP_SEM_POST;
        v = intern_var(c, ev->addr, FT_VAR_SEM, t);
        break;
    case FT_EV_SEM_WAIT:
        op = ev->rc == 0 ? FT_OP_SEM_WAIT : FT_OP_SEM_FAIL;
        v = intern_var(c, ev->addr, FT_VAR_SEM, t);
        val = ev->rc == 0 ? ev->arg : 0; /* how */
        break;
    case FT_EV_BARRIER_INIT:
        v = intern_var(c, ev->addr, FT_VAR_BARRIER, FT_CTM_NONE);
        if (v == FT_CTM_NONE)
            return OOM(msg, msglen);
        c->vars[v].init = ev->value;
        c->vars[v].has_init = 1;
        return 0;
    case FT_EV_BARRIER_ARRIVE:
    case FT_EV_BARRIER_LEAVE:
        op = ev->kind == FT_EV_BARRIER_ARRIVE ? FT_OP_BARRIER_ARRIVE
                                              : FT_OP_BARRIER_LEAVE;
        v = intern_var(c, ev->addr, FT_VAR_BARRIER, t);
        break;
    case FT_EV_ONCE_ENTER:
    case FT_EV_ONCE_DONE:
        op = ev->kind == FT_EV_ONCE_DONE ? FT_OP_ONCE_DONE
             : ev->arg                   ? FT_OP_ONCE_RUN
                                         : FT_OP_ONCE_SKIP;
        v = intern_var(c, ev->addr, FT_VAR_ONCE, t);
        break;
    case FT_EV_MALLOC:
    case FT_EV_FREE:
    case FT_EV_REALLOC: {
        /* a free (or a moving realloc) of a known object is a transition
         * (use after free, kind_uaf.c); allocations only size it */
        uint64_t gone = ev->kind == FT_EV_FREE ? ev->addr
                        : ev->kind == FT_EV_REALLOC && ev->obj2 != ev->addr
                            ? ev->obj2
                            : 0;
        if (!c->heap && !(c->heap = ft_heapmap_new()))
            return OOM(msg, msglen);
        const ft_heap_obj *o = gone ? ft_heapmap_find(c->heap, gone) : NULL;
        if (o && o->addr == gone) {
            if (ft_ctm_note_free(c, gone, o->size))
                return OOM(msg, msglen);
            op = FT_OP_FREE;
            val = o->size;
            v = intern_var(c, gone, FT_VAR_HEAP, t);
        }
        if (ft_heapmap_update(c->heap, ev) < 0)
            return OOM(msg, msglen);
        if (!op)
            return 0;
        break;
    }
    default:
        return 0; /* not a transition: calls, markers, ... */
    }
    if (op != FT_OP_FORK && op != FT_OP_JOIN && v == FT_CTM_NONE)
        return OOM(msg, msglen);
    if (emit(c, ev, op, v, v2, val, val2))
        return OOM(msg, msglen);
    return 0;
}

int ft_ctm_finish(ft_ctm *c)
{
    for (uint32_t i = 0; i < c->hash_cap; i++) {
        const ft_ctm_slot *sl = &c->hash[i];
        if (!sl->var1_kind)
            continue;
        ft_ctm_var *v = &c->vars[SLOT_VAR(sl)];
        uint32_t st = sl->state & SLOT_TID_MASK;
        v->shared = st == SLOT_SHARED;
        if (v->first_tid == FT_CTM_NONE && st != SLOT_SHARED)
            v->first_tid = st == SLOT_NONE ? FT_CTM_NONE : st;
    }
    /* mixed sizes may add transitions: before the thread sequences */
    c->pair_open = FT_CTM_NONE;
    if (ft_ctm_split_mixed(c) < 0)
        return -1;
    free(c->first);
    free(c->by_thread);
    c->first = malloc(sizeof *c->first * (c->nthreads + 1));
    c->by_thread = malloc(sizeof *c->by_thread * (c->ntrans + 1));
    if (!c->first || !c->by_thread)
        return -1;
    ft_prefault(c->by_thread, sizeof *c->by_thread, 0, c->ntrans);
    uint32_t sum = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        c->first[t] = sum;
        sum += c->len[t];
    }
    c->first[c->nthreads] = sum;
    if (ft_ctm_split_incarnations(c) < 0)
        return -1;
    ft_heapmap_free(c->heap); /* no more events */
    c->heap = NULL;
    c->nlocal_vars = c->nglobal_vars = c->nglobal_accesses = 0;
    for (uint32_t v = 0; v < c->nvars; v++)
        if (c->vars[v].kind == FT_VAR_MEMORY) {
            if (c->vars[v].shared)
                c->nglobal_vars++;
            else
                c->nlocal_vars++;
        }
    /* one pass in trace order: thread sequences and global accesses */
    uint64_t global = 0;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        c->by_thread[c->first[c->tid[x]] + c->pos[x]] = x;
        uint32_t o = c->obj[x];
        global += o != FT_CTM_NONE && c->vars[o].kind == FT_VAR_MEMORY &&
                  c->vars[o].shared;
    }
    c->nglobal_accesses = global;
    return 0;
}

ft_ctm *ft_ctm_build(ft_reader *r, ft_error *err)
{
    ft_ctm *c = ft_ctm_new();
    if (!c) {
        snprintf(err->message, sizeof err->message, "out of memory");
        return NULL;
    }
    const ft_end *end = ft_reader_end(r);
    if (end && end->present && end->events < (1ull << 31) &&
        end->events <= ft_reader_event_bytes(r))
        ft_ctm_reserve_trans(c, (uint32_t)end->events + 1);
    /* batches: the reader decodes the next ones on its own thread while
     * this one builds the model */
    const ft_event *evs;
    long rc;
    char msg[200];
    while ((rc = ft_reader_next_batch(r, &evs)) > 0) {
        for (long i = 0; i < rc; i++) {
            if (!ft_ctm_add(c, &evs[i], msg, sizeof msg))
                continue;
            const ft_error *re = ft_reader_error(r);
            memset(err, 0, sizeof *err);
            if (re)
                snprintf(err->path, sizeof err->path, "%s", re->path);
            snprintf(err->message, sizeof err->message, "%s", msg);
            ft_ctm_free(c);
            return NULL;
        }
    }
    if (rc < 0) {
        const ft_error *re = ft_reader_error(r);
        if (re)
            *err = *re;
        ft_ctm_free(c);
        return NULL;
    }
    uint32_t ns = ft_reader_nsites(r);
    const ft_site *sites = ns ? ft_reader_site_at(r, 0) : NULL;
    if (ft_ctm_finish(c) || (sites && ft_ctm_set_code(c, sites, ns))) {
        snprintf(err->message, sizeof err->message, "out of memory");
        ft_ctm_free(c);
        return NULL;
    }
    return c;
}

ft_ctm *ft_ctm_load(const char *path, ft_error *err)
{
    ft_reader *r = ft_reader_open(path, err);
    if (!r)
        return NULL;
    ft_ctm *c = ft_ctm_build(r, err);
    ft_reader_close(r);
    return c;
}
