/* SPDX-License-Identifier: MIT */
/* sync.c - an oracle for recorded traces: replays the events against
 * simple models of the pthread primitives and of the heap, and reports any
 * event that a correct pthreads implementation could not have produced at
 * that point (a second owner of a mutex, a semaphore below zero, a barrier
 * left early, a join before the child's exit, a wake without a signal).
 * It shares no code with the runtime, so it checks the runtime's models
 * and its serialisation from the outside. */
#include "tests/integration/it.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OBJ 512
#define MAX_THR 256
#define MAX_BLK 4096

struct obj {
    uint64_t addr;
    int owner, depth;         /* mutex; rwlock writer */
    int readers;              /* rwlock */
    int64_t sem;              /* semaphore value, -1: unknown */
    int64_t count, arrivals, leaves, serials; /* barrier */
};

struct thr {
    int started, exited;
    uint64_t waiting_cond; /* 0: not in a condvar wait */
    int signalled;
    int saved_depth;
};

struct blk {
    uint64_t addr, size;
    int live;
};

struct model {
    struct obj obj[MAX_OBJ];
    int nobj;
    struct thr thr[MAX_THR];
    struct blk blk[MAX_BLK];
    int nblk;
    it_sync_report *rep;
};

static void violation(struct model *m, const ft_event *ev, const char *fmt,
                      ...)
{
    if (m->rep->violations++ == 0) {
        int k = snprintf(m->rep->first, sizeof m->rep->first,
                         "event %llu (thread %u, %s): ",
                         (unsigned long long)ev->index, ev->tid,
                         ft_kind_name(ev->kind));
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->rep->first + k, sizeof m->rep->first - (size_t)k, fmt,
                  ap);
        va_end(ap);
    }
}

static struct obj *obj_of(struct model *m, uint64_t addr)
{
    for (int i = 0; i < m->nobj; i++)
        if (m->obj[i].addr == addr)
            return &m->obj[i];
    if (m->nobj == MAX_OBJ)
        return NULL;
    struct obj *o = &m->obj[m->nobj++];
    memset(o, 0, sizeof *o);
    o->addr = addr;
    o->owner = -1;
    o->sem = -1;
    o->count = -1;
    return o;
}

static struct blk *block_containing(struct model *m, uint64_t addr, int live)
{
    for (int i = m->nblk - 1; i >= 0; i--) {
        struct blk *b = &m->blk[i];
        if (b->live == live && addr >= b->addr && addr < b->addr + b->size)
            return b;
    }
    return NULL;
}

static void heap_alloc(struct model *m, uint64_t addr, uint64_t size)
{
    /* memory handed out again is no longer "freed" */
    for (int i = 0; i < m->nblk; i++) {
        struct blk *b = &m->blk[i];
        if (!b->live && b->addr < addr + size && addr < b->addr + b->size)
            b->size = 0;
    }
    if (m->nblk < MAX_BLK)
        m->blk[m->nblk++] = (struct blk){addr, size ? size : 1, 1};
}

static void heap_free(struct model *m, const ft_event *ev, uint64_t addr)
{
    if (!addr)
        return;
    for (int i = m->nblk - 1; i >= 0; i--)
        if (m->blk[i].addr == addr && m->blk[i].size) {
            if (m->blk[i].live) {
                m->blk[i].live = 0;
                return;
            }
            break;
        }
    (void)ev;
    m->rep->double_frees++;
}

static void mutex_acquire(struct model *m, const ft_event *ev, uint64_t addr,
                          int depth)
{
    struct obj *o = obj_of(m, addr);
    if (!o)
        return;
    if (o->owner >= 0 && o->owner != (int)ev->tid)
        violation(m, ev, "mutex %#llx acquired while thread %d holds it",
                  (unsigned long long)addr, o->owner);
    if (o->readers > 0)
        violation(m, ev, "lock %#llx acquired while %d readers hold it",
                  (unsigned long long)addr, o->readers);
    o->owner = (int)ev->tid;
    o->depth += depth;
}

static int mutex_release(struct model *m, const ft_event *ev, uint64_t addr)
{
    struct obj *o = obj_of(m, addr);
    if (!o)
        return 0;
    if (o->owner != (int)ev->tid) {
        /* glibc lets a normal mutex be unlocked by anyone (undefined
         * behaviour, not a wrong trace); errorcheck/recursive ones say
         * EPERM, which is not rc 0 and never gets here */
        if (o->owner < 0 || ev->kind == FT_EV_MUTEX_UNLOCK)
            m->rep->misuse++;
        else
            violation(m, ev, "lock %#llx released by a thread that does "
                      "not hold it (owner %d)", (unsigned long long)addr,
                      o->owner);
        return 0;
    }
    int depth = o->depth;
    if (--o->depth <= 0) {
        o->owner = -1;
        o->depth = 0;
    }
    return depth;
}

static void step(struct model *m, const ft_event *ev)
{
    struct thr *me = ev->tid < MAX_THR ? &m->thr[ev->tid] : NULL;
    if (me && ev->kind != FT_EV_THREAD_START && !me->started &&
        ev->kind != FT_EV_STEAL)
        violation(m, ev, "event of a thread that has not started");
    /* a crash may come after THREAD_EXIT: glibc still frees the thread's
     * resources then (e.g. heap corruption found by free) */
    if (me && me->exited && ev->kind != FT_EV_STEAL &&
        ev->kind != FT_EV_SIGNAL)
        violation(m, ev, "event of a thread that has exited");
    if (me && me->waiting_cond && ev->kind != FT_EV_COND_WAKE &&
        ev->kind != FT_EV_STEAL && ev->kind != FT_EV_SIGNAL &&
        ev->kind != FT_EV_DEADLOCK && ev->kind != FT_EV_BLOCKED)
        violation(m, ev, "thread ran while waiting on condvar %#llx",
                  (unsigned long long)me->waiting_cond);
    struct obj *o;
    switch (ev->kind) {
    case FT_EV_THREAD_START:
        if (me)
            me->started = 1;
        break;
    case FT_EV_THREAD_EXIT:
        if (me)
            me->exited = 1;
        break;
    case FT_EV_THREAD_JOIN:
        if (ev->value >= MAX_THR || !m->thr[ev->value].exited)
            violation(m, ev, "join of thread %llu before it exited",
                      (unsigned long long)ev->value);
        break;
    case FT_EV_MUTEX_LOCK:
        if (!ev->addr)
            m->rep->null_objects++;
        if (ev->rc == 0)
            mutex_acquire(m, ev, ev->addr, 1);
        else if (ev->rc == EBUSY && (o = obj_of(m, ev->addr)) &&
                 o->owner < 0 && o->readers == 0)
            violation(m, ev, "trylock of free mutex %#llx failed",
                      (unsigned long long)ev->addr);
        break;
    case FT_EV_MUTEX_UNLOCK:
        if (!ev->addr)
            m->rep->null_objects++;
        if (ev->rc == 0)
            mutex_release(m, ev, ev->addr);
        break;
    case FT_EV_RW_WRLOCK:
        if (ev->rc == 0)
            mutex_acquire(m, ev, ev->addr, 1);
        break;
    case FT_EV_RW_RDLOCK:
        if (ev->rc == 0 && (o = obj_of(m, ev->addr))) {
            if (o->owner >= 0)
                violation(m, ev, "read lock %#llx taken while thread %d "
                          "writes", (unsigned long long)ev->addr, o->owner);
            o->readers++;
        }
        break;
    case FT_EV_RW_UNLOCK:
        if (ev->rc == 0 && (o = obj_of(m, ev->addr))) {
            if (o->owner == (int)ev->tid)
                mutex_release(m, ev, ev->addr);
            else if (o->readers > 0)
                o->readers--;
            else
                violation(m, ev, "rwlock %#llx unlocked but not held",
                          (unsigned long long)ev->addr);
        }
        break;
    case FT_EV_COND_WAIT:
        if (me) {
            me->saved_depth = mutex_release(m, ev, ev->obj2);
            me->waiting_cond = ev->addr;
            me->signalled = 0;
        }
        break;
    case FT_EV_COND_WAKE:
        if (me) {
            if (me->waiting_cond != ev->addr)
                violation(m, ev, "wake from condvar %#llx it did not wait on",
                          (unsigned long long)ev->addr);
            if (!ev->arg && !me->signalled)
                violation(m, ev, "woken without a signal or broadcast");
            me->waiting_cond = 0;
            mutex_acquire(m, ev, ev->obj2, me->saved_depth ? me->saved_depth
                                                           : 1);
        }
        break;
    case FT_EV_COND_SIGNAL:
        if (ev->arg) {
            if (ev->value >= MAX_THR ||
                m->thr[ev->value].waiting_cond != ev->addr)
                violation(m, ev, "signal woke thread %llu, which does not "
                          "wait on it", (unsigned long long)ev->value);
            else
                m->thr[ev->value].signalled = 1;
        }
        break;
    case FT_EV_COND_BROADCAST: {
        unsigned woken = 0;
        for (int i = 0; i < MAX_THR; i++)
            if (m->thr[i].waiting_cond == ev->addr && !m->thr[i].signalled) {
                m->thr[i].signalled = 1;
                woken++;
            }
        if (woken != ev->arg)
            violation(m, ev, "broadcast says %u woken, %u were waiting",
                      ev->arg, woken);
        break;
    }
    case FT_EV_SEM_INIT:
        if ((o = obj_of(m, ev->addr)))
            o->sem = (int64_t)ev->value;
        break;
    case FT_EV_SEM_POST:
        if ((o = obj_of(m, ev->addr)) && o->sem >= 0)
            o->sem++;
        break;
    case FT_EV_SEM_WAIT:
        if (ev->rc == 0 && (o = obj_of(m, ev->addr)) && o->sem >= 0) {
            if (o->sem == 0)
                violation(m, ev, "semaphore %#llx taken at zero",
                          (unsigned long long)ev->addr);
            else
                o->sem--;
        }
        break;
    case FT_EV_BARRIER_INIT:
        if ((o = obj_of(m, ev->addr))) {
            o->count = (int64_t)ev->value;
            o->arrivals = o->leaves = o->serials = 0;
        }
        break;
    case FT_EV_BARRIER_ARRIVE:
        if ((o = obj_of(m, ev->addr)))
            o->arrivals++;
        break;
    case FT_EV_BARRIER_LEAVE:
        if ((o = obj_of(m, ev->addr)) && o->count > 0) {
            int64_t gen = o->leaves / o->count;
            o->leaves++;
            if (o->arrivals < (gen + 1) * o->count)
                violation(m, ev, "left barrier %#llx after %lld of %lld "
                          "arrivals", (unsigned long long)ev->addr,
                          (long long)(o->arrivals - gen * o->count),
                          (long long)o->count);
            o->serials += ev->arg != 0;
            if (o->leaves % o->count == 0 && o->serials != gen + 1)
                violation(m, ev, "barrier round %lld had %lld serial "
                          "threads", (long long)gen,
                          (long long)(o->serials - gen));
        }
        break;
    case FT_EV_MALLOC:
        heap_alloc(m, ev->addr, ev->value);
        break;
    case FT_EV_REALLOC:
        heap_free(m, ev, ev->obj2);
        heap_alloc(m, ev->addr, ev->value);
        break;
    case FT_EV_FREE:
        heap_free(m, ev, ev->addr);
        break;
    case FT_EV_READ:
    case FT_EV_WRITE:
    case FT_EV_READ_WIDE:
    case FT_EV_WRITE_WIDE:
    case FT_EV_ATOMIC_LOAD:
    case FT_EV_ATOMIC_STORE:
    case FT_EV_ATOMIC_RMW:
    case FT_EV_ATOMIC_CAS:
        if (!block_containing(m, ev->addr, 1) &&
            block_containing(m, ev->addr, 0))
            m->rep->freed_accesses++;
        break;
    default:
        break;
    }
    if ((ev->kind == FT_EV_MUTEX_LOCK || ev->kind == FT_EV_MUTEX_UNLOCK) &&
        !block_containing(m, ev->addr, 1) && block_containing(m, ev->addr, 0))
        m->rep->freed_accesses++;
}

void it_check_sync(const it_trace *t, it_sync_report *rep)
{
    memset(rep, 0, sizeof *rep);
    struct model *m = calloc(1, sizeof *m);
    if (!m) {
        rep->violations = 1;
        snprintf(rep->first, sizeof rep->first, "out of memory");
        return;
    }
    m->rep = rep;
    for (size_t i = 0; i < t->n; i++)
        step(m, &t->ev[i]);
    free(m);
}
