/* SPDX-License-Identifier: MIT */
/* rt.h - private interface between the parts of foretell's runtime: the
 * thread table and baton (sched.c), the scheduling policy, the trace buffer
 * (tracebuf.c), the sync-object models (objtab.c, sync_*.c) and the hooks.
 *
 * One runtime serves recording now and replay/exploration later: threads
 * run one at a time ("the baton"), every sync primitive is modelled here and
 * never blocks in a real pthread call, and every choice (who runs next,
 * whether to preempt, which waiter a signal wakes, whether a timed wait
 * times out) is made by a policy (struct ft_policy).  docs/recorder.md
 * explains the design.
 */
#ifndef FORETELL_RT_H
#define FORETELL_RT_H

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "recorder/encode.h"
#include "recorder/progress.h"
#include "recorder/trace.h"

#define FT_MAX_THREADS FT_TRACE_MAX_THREADS
#define FT_WIDE_MAX 4096
#define FT_SPIN_ADDRS 8 /* addresses a spin loop may look at */
#define FT_SPIN_LOOKS 1000 /* looks before a spinning thread yields */
#define FT_FAIR_KPS 1000000 /* key points before a running thread yields */

#define FT_LIKELY(x) __builtin_expect(!!(x), 1)
#define FT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define FT_PC() ((uintptr_t)__builtin_return_address(0))

/* Thread states as the scheduler sees them. */
enum ft_tstate {
    FT_T_FREE = 0,
    FT_T_RUNNABLE, /* enabled: waits for the baton */
    FT_T_RUNNING,  /* holds the baton */
    FT_T_BLOCKED,  /* waits on a modelled object */
    FT_T_OUTSIDE,  /* sleeping for real, or stolen by the watchdog */
    FT_T_EXITED,
};

/* What a blocked thread waits for (printed on deadlock). */
enum ft_wait {
    FT_W_NONE = 0, FT_W_MUTEX, FT_W_RDLOCK, FT_W_WRLOCK, FT_W_COND,
    FT_W_SEM, FT_W_BARRIER, FT_W_ONCE, FT_W_JOIN,
};

typedef struct ft_thread {
    /* Hot fields, touched by the hooks' fast path. */
    int in_hook;          /* re-entrancy guard; the watchdog never steals */
    int has_baton;        /* cleared by the watchdog when it steals */
    int64_t budget;       /* key points left before the policy may preempt */
    uintptr_t pw_addr;    /* pending write: read back at the next event */
    uint32_t pw_size;
    uint32_t pw_site;
    uint64_t keypoints;   /* progress, watched by the watchdog */
    /* The key point being entered, stored only on the slow path (an
     * exploring policy keeps budget at 1 to see every one of them). */
    int kp_kind;          /* enum ft_kp */
    uintptr_t kp_addr;    /* accessed address or sync object, or 0 */
    size_t kp_size;       /* bytes accessed, 0 unknown */
    uintptr_t kp_pc;      /* the access hook's return address, 0 unknown */
    int kp_defer;         /* a read that leaves the pending write pending
                             (never preempted at: ft_enter_core) */

    /* Scheduler fields, under the scheduler lock. */
    int tid;
    int parent;
    int state;            /* enum ft_tstate */
    int go;               /* futex: 1 = this thread may take the baton */
    int wait_kind;        /* enum ft_wait */
    uintptr_t wait_obj;
    uintptr_t wait_pc;
    uint64_t wait_seq;    /* blocking order: a signal wakes the oldest */
    uint64_t wait_gen;    /* barrier generation waited for */
    int64_t deadline_ns;  /* CLOCK_REALTIME deadline of a timed wait, or 0 */
    int timedout;
    int woken;            /* condvar: chosen by a signal/broadcast */
    int detached, joined;
    pthread_t pthread;
    void *(*start)(void *);
    void *arg;
    /* Replay and oracles (sched.c): the policy's budget while the heap
     * oracle keeps budget at 1; a heap error waits for the next key point
     * to abort (after the faulty access is recorded). */
    int64_t pbudget;
    int heap_abort;
    uint64_t kp_counted;  /* keypoints already added to ft_rt.kp_total */
    /* Cancellation (cancel.c): a request not acted on yet, the thread's
     * cancel state and type, and the futex word a real sleep waits on. */
    int cancel_pending, cancel_disabled, cancel_async;
    int sleep_word;
    int ktid;             /* the kernel's thread id (signals are sent to it) */
    uint64_t sig_pending; /* signals whose handler waits for the baton */
    /* Spin detection (sched.c): the key points since ft_rt.wseq was
     * spin_wseq that only looked at state, on these few addresses. */
    uint64_t spin_wseq;
    uint64_t spin_looks;
    uint64_t run_kps;     /* key points since it last took the baton */
    int spin_naddr;
    uintptr_t spin_addr[FT_SPIN_ADDRS];
} ft_thread;

/* What kind of key point a thread is entering (ft_thread.kp_kind), for
 * policies that preempt only at some of them (policy_explore.c). */
enum ft_kp {
    FT_KP_OTHER = 0, FT_KP_READ, FT_KP_WRITE, FT_KP_LOCK, FT_KP_FUNC,
    FT_KP_UNLOCK, /* mutex, spin or rwlock release (kp_addr: it) */
    /* atomics (hooks_atomic.c, kp_addr: the address): a load, or anything
     * that may write (store, read-modify-write, compare-exchange) */
    FT_KP_AREAD, FT_KP_AWRITE,
    FT_KP_DESTROY, /* mutex, spin or rwlock destroy (kp_addr: it) */
};

/* Scheduling decisions.  The recording policy is policy_record.c; replay
 * and exploration will provide others. */
typedef struct ft_policy {
    /* Key points the current thread may run before preempt() is asked. */
    int64_t (*budget)(int tid);
    /* The running thread reached a key point with an exhausted budget:
     * nonzero to offer the baton to another enabled thread. */
    int (*preempt)(int tid);
    /* Next thread among enabled[0..n) (n >= 1); cur is the thread giving
     * the baton up (-1 if none), possibly itself among the enabled. */
    int (*pick)(const int *enabled, int n, int cur);
    /* Which of the condvar waiters (oldest first) a signal wakes. */
    int (*pick_waiter)(const int *waiters, int n);
    /* Whether tid's timed wait times out now (checked at every switch and
     * watchdog tick).  Independently of this, a timed wait times out when
     * no other thread can run. */
    int (*expire)(int tid, int64_t deadline_ns, int64_t now_ns);
} ft_policy;

extern const ft_policy ft_policy_record;
/* policy_replay.c: "none" (no preemption, round-robin, timed waits expire
 * only when nothing else can run: deterministic) and the schedule
 * follower.  ft_policy_tail runs after the schedule ends (or from the
 * start, when no schedule is given and an exploration policy set it). */
extern const ft_policy ft_policy_none;
extern const ft_policy ft_policy_replay;
/* 1 when a schedule was loaded and has been followed to its end (the
 * tail policy runs): the progress page says it to the harness. */
int ft_replay_in_tail(void);
/* The watchdog, under the lock: marks the schedule done when its last
 * step is although no key point has come since (policy_replay.c). */
void ft_replay_poll_tail(void);
extern const ft_policy *ft_policy_tail;
/* Loads FORETELL_SCHEDULE (no malloc: mmap); 0, or -1 with "PATH:LINE:
 * what" in why.  Makes ft_policy_replay current. */
int ft_replay_load(const char *path, int diverge_continue, char *why,
                   size_t len);
/* Watchdog: may it steal the baton from tid now?  While a schedule is
 * followed only where the schedule has the STEAL. */
int ft_replay_steal_ok(int tid);
/* policy_explore.c: FORETELL_STRATEGY (random, pct, rpro, pctvb); 0, or
 * refuses (ft_rt_refuse) when the spec is malformed. */
int ft_explore_select(const char *spec);
/* policy_prefix.c: "prefix:at=S.T,..." (ICB/IDB runs). */
int ft_prefix_select(const char *spec);
/* policy_period.c: "period:p=T.C,..." (Period runs). */
int ft_period_select(const char *spec);
/* policy_pos.c, policy_surw.c: POS (pos:seed=X) and SURW
 * (surw:seed=X:v=...:w=...). */
int ft_pos_select(const char *spec);
int ft_surw_select(const char *spec);
/* policy_explore.c: the variable an address belongs to, as the driver
 * names it (explore_calib.c): kind 'g' (global: module index and offset)
 * or 'h' (heap block: its allocation site's module and offset, when
 * ft_rt.explore_allocs is set).  0 for the stack or anonymous memory. */
int ft_explore_var_of(uintptr_t a, char *kind, int *mod, uint64_t *off);
/* heap.c tells the pctvb policy which allocation site owns a block. */
void ft_explore_note_alloc(uintptr_t pc, uintptr_t addr, size_t size);

/* Global runtime state. */
struct ft_rt {
    int recording;        /* FORETELL_TRACE set and init done */
    int finished;         /* END written: record nothing more */
    int verbose;
    int pid;
    int64_t quantum;
    uint64_t seed;
    int explore_allocs;   /* the policy wants ft_explore_note_alloc calls */
    int watchdog_ms;
    int flush_ms;         /* FORETELL_FLUSH_MS: the open chunk goes to the
                             writer when it was opened this long ago */
    int zstd_level;       /* FORETELL_COMPRESS: zstd level of EVENTS and
                             SITES chunks, 0 uncompressed (version 3) */
    const ft_policy *policy;
    int running;          /* tid holding the baton, -1 none */
    int nthreads;         /* tids handed out */
    uint64_t wait_seq;
    uint64_t switches;
    /* Replay and exploration (policy_replay.c, sched.c, heap.c). */
    int virtual_time;     /* sleeps are yields, no real sleeping */
    int heap_check;       /* heap oracle on: UAF, double free, null deref */
    uint64_t max_steps;   /* FORETELL_MAX_STEPS, 0 none */
    uint64_t kp_total;    /* key points counted so far (max_steps) */
    /* Spin detection (controlled runs): a thread that looks at the same
     * few addresses spin_looks times while nobody changes anything is
     * spinning, and yields (sched.c).  wseq counts the key points that
     * may change state (writes, atomics that change a value, other sync
     * than lock and unlock). */
    uint64_t spin_looks;
    uint64_t wseq;
    /* Fairness (controlled runs): a thread that keeps the baton this many
     * key points while others wait yields, as an OS would preempt it; 0
     * never.  Spin loops that write (a counter) are caught so. */
    uint64_t fair_kps;
    int asym_fence;       /* fence.c: hooks store in_hook without a fence */
};
extern struct ft_rt ft_rt;
extern ft_thread ft_threads[FT_MAX_THREADS];
extern __thread ft_thread *ft_self __attribute__((tls_model("initial-exec")));

/* ---- init.c: reports to the harness (docs/replay.md) ---- */
/* One line "WORD STATUS MESSAGE" on the status channel when the harness
 * gave one (FORETELL_STATUS_FD), else "foretell: MESSAGE" on stderr. */
void ft_rt_status_line(const char *word, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same line on the status channel only (nothing without one). */
void ft_rt_status_note(const char *word, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The runtime refuses to run the program: reports "refuse" and exits with
 * status (FT_BAD_*_STATUS, FT_OPEN_FAIL_STATUS) before it ran. */
void ft_rt_refuse(int status, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* ---- sched.c ---- */
void ft_lock(void);
void ft_unlock(void);
int ft_trylock(void); /* 1 if taken; never blocks (signal handlers) */
void ft_futex_wait(int *addr, int val);
void ft_futex_wake(int *addr);
/* Makes t hold the baton, parking until it does (scheduler lock not held). */
void ft_acquire(ft_thread *t);
/* A new thread waits for its first turn. */
void ft_acquire_start(ft_thread *t);
/* Under the lock: t gives the baton up (its state already set); the policy
 * picks who runs; t parks until it is enabled and picked again, unless it
 * is no longer runnable-after (exited/outside).  Returns with the lock
 * released. */
void ft_switch_locked(ft_thread *t);
/* Under the lock: block t on obj until woken; returns with the baton and
 * the lock released.  deadline_ns 0 = untimed. */
void ft_block(ft_thread *t, int kind, uintptr_t obj, uintptr_t pc,
              int64_t deadline_ns);
/* Under the lock: every thread blocked on (kind, obj) becomes runnable. */
int ft_wake_all(int kind, uintptr_t obj);
/* Sets t's budget from the policy (and the oracles' needs). */
void ft_set_budget(ft_thread *t);
/* Key point slow path: baton lost or budget exhausted. */
void ft_keypoint_slow(ft_thread *t);
/* Yield point: another enabled thread may run. */
void ft_yield(ft_thread *t);
/* Watchdog, lock held: the baton is free; enable expired timed waits and
 * hand it to an enabled thread, if any. */
void ft_kick_locked(void);
/* Watchdog, lock held: nonzero if some thread other than the holder could run. */
int ft_others_enabled(int holder);
/* Hand the baton to the next thread without waiting for it back (exit,
 * sleep, steal); lock held on entry, released on return. */
void ft_release_locked(ft_thread *t, int newstate);
int64_t ft_now_ns(void);
int64_t ft_deadline_of(const struct timespec *abstime, int clk);
void ft_die_deadlock(void) __attribute__((noreturn));
/* Ends the run with reason and status (lock held or not): flushes, writes
 * END, _exit(status). */
void ft_die(const char *reason, int status) __attribute__((noreturn));

/* ---- tbio.c: where a failed trace write is reported ---- */
/* fd: the launcher's report pipe (FORETELL_STATUS_FD), or -1 for
 * stderr; path names the trace in messages. */
void ft_io_set_report(int fd, const char *path);
/* Reports a failed trace write (errno err, at fd's offset) once, and
 * stops all writing.  Async-signal-safe. */
void ft_io_fail(int err, int fd);
int ft_io_failed(void); /* the first failure's errno, or 0 */

/* ---- tracebuf.c ---- */
/* Opens (truncates) the trace and writes its header: 0, or -1 (errno;
 * a failed write is already reported). */
int ft_trace_open(const char *path, int use_writer);
uint32_t ft_site_id(uintptr_t pc);
uint32_t ft_site_alloc(uintptr_t pc, uint64_t *count);
void ft_emit(const ft_event *ev);            /* generic, via ft_encode_event */
void ft_emit_access(int kind, uint32_t site, uintptr_t addr, uint32_t size,
                    uint64_t value);
void ft_emit_wide(int kind, uint32_t site, uintptr_t addr, size_t size,
                  const void *content); /* NULL: read addr */
/* A write the runtime did on the program's behalf (pthread_create's
 * *thread, sem_getvalue's *value, ...): recorded with its current value. */
void ft_emit_libc_write(uint32_t site, uintptr_t addr, size_t size);
void ft_emit_func_entry(uint32_t site, uint32_t call_site);
void ft_emit_func_exit(void);
void ft_emit_switch(int tid);
void ft_trace_flush(void);                   /* seal and write the chunk */
/* Whether the open chunk holds events or sites handed to no writer for
 * interval_ns (the watchdog's timed flush, watchdog.c). */
int ft_trace_flush_due(int64_t interval_ns);
/* Set by the watchdog when it found the holder inside the runtime: the
 * holder hands the open chunk over itself at its next slow path. */
extern int ft_flush_req;
void ft_trace_end(const char *reason, int64_t status);
/* Before execve: flushes and writes END "exec"; the run is not finished
 * (if the exec fails, a later END wins). */
void ft_trace_exec(void);
/* exec.c: execl/execlp/execle ('l', 'p', 'e') through the vector forms'
 * wrappers; the LD_PRELOAD runtime's list forms call it too. */
int ft_exec_list(int how, const char *path, const char *arg, va_list ap);
int ft_trace_is_ours(const char *path); /* path is this run's trace file */
void ft_trace_signal(int signo, uintptr_t pc); /* async-signal-safe; pc:
                                                  where it was raised, 0 */
uintptr_t ft_abort_pc(void); /* abort.c: caller of assert/abort, or 0 */
int ft_trace_cur_tid(void);
int ft_module_of(uintptr_t pc, const char **path, uintptr_t *off);
void ft_trace_forget(void);                  /* fork child: stop writing */
/* Events the reader will attribute to tid so far (its next event's
 * per-thread index, not counting a pending write). */
uint64_t ft_trace_tid_events(int tid);

/* ---- heap.c: the heap oracle (ft_rt.heap_check) ---- */
/* At a key point's slow path: t is about to access t->kp_addr. */
void ft_heap_check_kp(ft_thread *t);
/* The same for a read that leaves the pending write pending (rt.h). */
void ft_heap_check_deferred(ft_thread *t);
/* A HEAP_ERROR event (what: enum ft_heap_what; site 0: the access is the
 * thread's next event; other_site: where the block was freed or
 * allocated), also on stderr. */
void ft_heap_report(int what, uint32_t site, uintptr_t addr,
                    uint32_t other_site);
/* ---- heap_bounds.c: heap corruption, at the write ---- */
void ft_heap_track(uintptr_t mem, size_t size, uint32_t site);
/* At free or realloc of mem: 1 when its chunk header was overwritten
 * (reported), else 0 (and mem is forgotten). */
int ft_heap_untrack(uintptr_t mem, uint32_t site);
/* Before a write of [a, a+n) (n 0: unknown, one byte): whether it
 * touches the bytes around a live block, FT_HEAP_WRITE_BEFORE or _AFTER
 * with the block's allocation site and the first such byte, else 0. */
int ft_heap_bad_write(uintptr_t a, size_t n, uint32_t *alloc_site,
                      uintptr_t *bad_byte);

/* Flushes t's pending write (its value is read back now). */
void ft_pending_flush_slow(ft_thread *t);
static inline void ft_pending_flush(ft_thread *t)
{
    if (FT_UNLIKELY(t->pw_size != 0))
        ft_pending_flush_slow(t);
}

/* A thread the runtime did not create (started by uninstrumented code)
 * reaching its first hook joins the run with the next tid. */
ft_thread *ft_adopt(void);

/* Entering a hook or wrapper of a recorded thread: NULL when this call is
 * not recorded (passthrough, nested, exited, or fork child).  On success
 * the thread holds the baton and has its pending write emitted.  The
 * global test comes first: with static glibc, libc's own startup calls the
 * wrapped memcpy before TLS exists.  kind, addr and size say what the key
 * point is (enum ft_kp; size 0 when unknown), and for the access hooks pc
 * where (0 unknown). */
static inline ft_thread *ft_enter_kp(int kind, uintptr_t addr, size_t size);
static inline ft_thread *ft_enter(void)
{
    return ft_enter_kp(FT_KP_OTHER, 0, 0);
}

/* gcc instruments a memory-to-memory assignment `*a = *b` as
 * write-hook(a), read-hook(b), load, store: the store happens after the
 * read hook.  So at a plain read that does not overlap the pending write,
 * the write stays pending (to be read back at the next key point) and the
 * thread is not preempted here; recording the read first is the order in
 * which the load and the store really happen. */
static inline __attribute__((always_inline)) ft_thread *
ft_enter_core(int kind, uintptr_t addr, size_t size, uintptr_t pc,
              int *deferp)
{
    if (FT_LIKELY(!ft_rt.recording))
        return NULL;
    ft_thread *t = ft_self;
    if (FT_UNLIKELY(t == NULL) && (t = ft_adopt()) == NULL)
        return NULL;
    if (t->in_hook)
        return NULL;
    /* The store-load fence of the watchdog handshake is on the watchdog's
     * side when membarrier works (fence.c); a compiler barrier is enough
     * here then. */
    if (FT_LIKELY(ft_rt.asym_fence)) {
        __atomic_store_n(&t->in_hook, 1, __ATOMIC_RELAXED);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    } else {
        __atomic_store_n(&t->in_hook, 1, __ATOMIC_SEQ_CST);
    }
    t->keypoints++;
    int defer = kind == FT_KP_READ && t->pw_size != 0 && size != 0 &&
                (addr + size <= t->pw_addr || t->pw_addr + t->pw_size <= addr);
    if (FT_UNLIKELY(!__atomic_load_n(&t->has_baton, __ATOMIC_RELAXED) ||
                    (--t->budget <= 0 && !defer))) {
        t->kp_kind = kind; /* the slow path only: recording pays nothing */
        t->kp_addr = addr;
        t->kp_size = size;
        t->kp_pc = pc;
        t->kp_defer = defer;
        ft_keypoint_slow(t);
        /* Only here: an exited thread has no baton, and ft_trace_end
         * takes every thread's baton when the run is finished. */
        if (FT_UNLIKELY(t->state == FT_T_EXITED || ft_rt.finished)) {
            __atomic_store_n(&t->in_hook, 0, __ATOMIC_RELEASE);
            return NULL;
        }
    } else if (FT_UNLIKELY(defer) && ft_rt.heap_check) {
        /* No key point for the scheduler, but the heap oracle must see
         * the read (its pending write stays pending). */
        t->kp_kind = kind;
        t->kp_addr = addr;
        t->kp_size = size;
        t->kp_pc = pc;
        ft_heap_check_deferred(t);
    }
    *deferp = defer;
    return t;
}

/* ft_enter_core, then the pending write flushed unless deferred.  The
 * access hooks do that flush themselves, inlined (hooks_access.c). */
static inline ft_thread *ft_enter_kp(int kind, uintptr_t addr, size_t size)
{
    int defer;
    ft_thread *t = ft_enter_core(kind, addr, size, 0, &defer);
    if (t && !defer)
        ft_pending_flush(t);
    return t;
}

static inline void ft_leave(ft_thread *t)
{
    __atomic_store_n(&t->in_hook, 0, __ATOMIC_RELEASE);
}

/* ---- objtab.c: modelled sync objects, keyed by address ---- */
typedef struct ft_obj {
    uintptr_t addr;       /* 0 free, 1 tombstone */
    int kind;             /* enum ft_wait of the object */
    int type;             /* mutex type */
    int owner;            /* mutex/rwlock writer tid, -1 none */
    int readers;
    int64_t count;        /* recursion, semaphore value, barrier arrivals;
                             an rwlock's last reader's tid + 1 */
    int64_t limit;        /* barrier count */
    uint64_t gen;         /* barrier generation */
    int once;             /* 0 new, 1 running, 2 done */
    int inited;           /* semaphore: count taken from the real object */
} ft_obj;
ft_obj *ft_obj_get(uintptr_t addr, int kind);
/* Forgets addr's object; returns the thread that owned it (a mutex's
 * holder), -1 for none or no object. */
int ft_obj_drop(uintptr_t addr);

/* ---- sync_mutex.c: API misuse (a MISUSE event, trace.h), emitted
 * without the scheduler lock; holder -1 for nobody ---- */
void ft_emit_misuse(uintptr_t pc, uintptr_t obj, int what, int holder);
/* An unlock of obj by a thread that does not hold it (holder: who does,
 * -1 nobody), called and returning with the scheduler lock held: the
 * MISUSE event, then obj's object (of kind) again. */
ft_obj *ft_misuse_bad_unlock(uintptr_t pc, uintptr_t obj, int holder, int kind);

/* ---- sync_mutex.c, for condvars (scheduler lock held) ---- */
int ft_mutex_release_all(ft_thread *t, uintptr_t obj);
void ft_mutex_reacquire(ft_thread *t, uintptr_t obj, int count, uintptr_t pc);

/* ---- sync_cond.c, thread.c: also called by the C++ wrappers (cxx.c) ---- */
int ft_cond_wait(pthread_cond_t *c, pthread_mutex_t *m,
                 const struct timespec *ts, int timed, int clk, uintptr_t pc);
int ft_cond_signal(pthread_cond_t *c, uintptr_t pc);
int ft_cond_broadcast(pthread_cond_t *c, uintptr_t pc);
int ft_thread_create(pthread_t *th, const pthread_attr_t *attr,
                     void *(*fn)(void *), void *arg, uintptr_t pc);
int ft_thread_join(pthread_t th, void **ret, uintptr_t pc);
int ft_thread_detach(pthread_t th, uintptr_t pc);
int ft_nanosleep(const struct timespec *req, struct timespec *rem, uintptr_t pc);

/* ---- thread.c ---- */
void ft_thread_init_main(void);
/* The recorded thread th, not yet joined, or NULL (lock held). */
ft_thread *ft_thread_of(pthread_t th);

/* ---- cancel.c ---- */
/* t has a cancellation request it must act on at a cancellation point. */
int ft_cancel_due(const ft_thread *t);
/* At a cancellation point (t in a hook, holding the baton, scheduler lock
 * not held): acts on a due request (does not return), else nothing. */
void ft_cancel_point(ft_thread *t, uintptr_t pc);
void ft_cancel_act(ft_thread *t, uintptr_t pc) __attribute__((noreturn));

/* ---- init.c ---- */
void ft_init(void);
void ft_rt_verbose(const char *fmt, ...);

/* ---- fence.c: the watchdog handshake's asymmetric fence ---- */
void ft_fence_init(void);
/* After clearing a holder's has_baton, before reading its in_hook: 0, or
 * -1 when the fence failed (then treat the holder as inside a hook). */
int ft_fence_remote(void);

/* ---- progress.c: the progress page for the harness (recorder/progress.h) ---- */
void ft_progress_init(void);
/* The watchdog's tick: progress (key points, CPU, thread states). */
void ft_progress_tick(void);
int ft_progress_active(void);

/* ---- watchdog.c / signals.c ---- */
void ft_watchdog_start(void);
void ft_signals_install(void);
/* The default action of sig as the runtime keeps it: its own dying
 * handler for the signals it writes the trace on, else SIG_DFL. */
int ft_signals_default(int sig);
/* Whether a disposition is the runtime's own dying handler. */
int ft_signals_is_runtime(const struct sigaction *sa);
/* ---- sigdeliver.c: program handlers, run holding the baton ---- */
void ft_signals_run(ft_thread *t);
/* t blocks: its queued process signals go to a thread that runs. */
void ft_signals_pass_on(ft_thread *t);

/* Real functions behind -Wl,--wrap. */
int __real_pthread_create(pthread_t *, const pthread_attr_t *,
                          void *(*)(void *), void *);
int __real_pthread_join(pthread_t, void **);
int __real_pthread_detach(pthread_t);
int __real_nanosleep(const struct timespec *, struct timespec *);
void *__real_malloc(size_t);
void __real_free(void *);
void *__real_memcpy(void *, const void *, size_t);
void *__real_memset(void *, int, size_t);

#endif
