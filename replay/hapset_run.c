/* SPDX-License-Identifier: MIT */
/* hapset_run.c - one run as the HaPSet search sees it: its decisions
 * (from the decision log, FORETELL_EXPLORE_LOG) and its blocks of events
 * (from the trace), each event reduced to its statement and the objects
 * it touches.  The trace is the authority on what ran: it has every
 * access with its site and address, every synchronisation call, and the
 * calls that give a statement its context; the log says where the
 * scheduler decided, and its mark "@M" says which trace event starts the
 * chosen thread's block.  Writes are emitted at the thread's next key
 * point; the mark counts that pending write as before the decision, so
 * it lands in the block that made it. */
#define _GNU_SOURCE
#include "replay/explore.h"
#include "replay/hapset.h"
#include "recorder/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FH_MAX_WORDS 1024 /* words of one wide access or heap block */
#define FH_MAX_DEPTH 256  /* call stack kept per thread (deeper calls: the
                             context of the 256th) */
#define FH_MAX_THREADS 4096 /* threads a run may have (a larger tid: the
                               run is unusable) */

static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 256;
    while (nc < need)
        nc *= 2;
    void *nv = realloc(*v, nc * elem);
    if (!nv)
        return -1;
    *v = nv;
    *cap = nc;
    return 0;
}

void fh_run_init(fh_run *r)
{
    memset(r, 0, sizeof *r);
}

void fh_run_free(fh_run *r)
{
    free(r->dec);
    free(r->blk);
    free(r->acc);
    free(r->ev);
    free(r->creator);
    memset(r, 0, sizeof *r);
}

void fh_run_decision(fh_run *r, const fh_decision *d)
{
    if (grow((void **)&r->dec, &r->capdec, r->ndec + 1, sizeof *r->dec) < 0) {
        r->oom = 1;
        return;
    }
    r->dec[r->ndec++] = *d;
}

static void note_thread(fh_run *r, int tid)
{
    if (tid < 0 || tid + 1 <= r->nthreads)
        return;
    if (grow((void **)&r->creator, &r->capcreator, (size_t)tid + 1,
             sizeof *r->creator) < 0) {
        r->oom = 1;
        return;
    }
    for (int t = r->nthreads; t <= tid; t++)
        r->creator[t] = -1;
    r->nthreads = tid + 1;
}

uint32_t fh_run_block(fh_run *r, int tid, int64_t dec)
{
    note_thread(r, tid);
    if (grow((void **)&r->blk, &r->capblk, r->nblk + 1, sizeof *r->blk) < 0) {
        r->oom = 1;
        return r->nblk ? (uint32_t)r->nblk - 1 : 0;
    }
    r->blk[r->nblk] = (fh_block){.tid = tid, .dec = dec};
    return (uint32_t)r->nblk++;
}

uint32_t fh_run_event(fh_run *r, uint64_t stmt, uint64_t ctx)
{
    if (grow((void **)&r->ev, &r->capev, r->nev + 1, sizeof *r->ev) < 0) {
        r->oom = 1;
        return 0;
    }
    r->ev[r->nev] = (fh_event){stmt, ctx};
    return (uint32_t)r->nev++;
}

void fh_run_access(fh_run *r, uint32_t blk, uint32_t ev, uint64_t obj, int op)
{
    if (grow((void **)&r->acc, &r->capacc, r->nacc + 1, sizeof *r->acc) < 0) {
        r->oom = 1;
        return;
    }
    r->acc[r->nacc++] = (fh_access){.obj = obj, .ev = ev, .blk = blk,
                                    .op = (uint8_t)op};
}

void fh_run_created(fh_run *r, int child, uint32_t blk)
{
    note_thread(r, child);
    if (child >= 0 && child < r->nthreads && r->creator[child] < 0)
        r->creator[child] = blk;
}

int fh_run_finish(fh_run *r)
{
    if (r->oom)
        return -1;
    /* Counting sort by block, stable: accesses of a block stay in the
     * order of its events. */
    size_t *start = calloc(r->nblk + 1, sizeof *start);
    fh_access *out = malloc((r->nacc ? r->nacc : 1) * sizeof *out);
    if (!start || !out) {
        free(start);
        free(out);
        r->oom = 1;
        return -1;
    }
    for (size_t i = 0; i < r->nacc; i++)
        start[r->acc[i].blk + 1]++;
    for (size_t b = 0; b < r->nblk; b++) {
        start[b + 1] += start[b];
        r->blk[b].acc = (uint32_t)start[b];
        r->blk[b].nacc = (uint32_t)(start[b + 1] - start[b]);
    }
    for (size_t i = 0; i < r->nacc; i++)
        out[start[r->acc[i].blk]++] = r->acc[i];
    free(start);
    free(r->acc);
    r->acc = out;
    r->capacc = r->nacc ? r->nacc : 1;
    return 0;
}

/* ---- the decision log ---- */

static void read_log(fh_run *r, const char *path)
{
    uint64_t n = 0;
    fx_decision *v = path ? fx_read_log(path, &n) : NULL;
    for (uint64_t i = 0; i < n; i++) {
        if (!v[i].has_mark) /* an older log without marks cannot be aligned */
            break;
        if ((i & 0xffff) == 0xffff && fx_time_up())
            break;
        fh_decision d = {.step = v[i].step, .mark = v[i].mark,
                         .cur = v[i].cur, .chosen = v[i].chosen,
                         .kind = v[i].kind, .enabled = v[i].enabled_mask};
        fh_run_decision(r, &d);
    }
    free(v);
}

/* ---- the trace ---- */

typedef struct tstate {
    uint64_t *calls;  /* call sites, innermost last */
    int depth;
} tstate;

typedef struct builder {
    fh_run *r;
    ft_reader *rd;
    int ctx_depth;
    tstate *th;
    int nth;
    size_t next_dec;
    int64_t latest;      /* the block being extended, -1 none */
    int latest_used;     /* it holds an event that touches objects */
    /* heap blocks (address -> size) and write-held rwlocks (lock ->
     * tid + 1), small open-addressing tables */
    uint64_t *hkey, *hval;
    size_t hcap, hn;
} builder;

static uint64_t stmt_of(const builder *b, uint32_t site)
{
    const ft_site *s = site ? ft_reader_site(b->rd, site) : NULL;
    if (!s)
        return 0;
    return ((uint64_t)s->module << 48) | (s->offset & ((1ull << 48) - 1));
}

static tstate *thread_state(builder *b, int tid)
{
    if (tid < 0 || tid >= FH_MAX_THREADS)
        return NULL;
    if (tid >= b->nth) {
        tstate *n = realloc(b->th, (size_t)(tid + 1) * sizeof *n);
        if (!n)
            return NULL;
        memset(n + b->nth, 0, (size_t)(tid + 1 - b->nth) * sizeof *n);
        b->th = n;
        b->nth = tid + 1;
    }
    tstate *t = &b->th[tid];
    if (!t->calls && !(t->calls = calloc(FH_MAX_DEPTH, sizeof *t->calls)))
        return NULL;
    return t;
}

/* FNV-1a over the innermost ctx_depth call sites. */
static uint64_t ctx_of(const builder *b, const tstate *t)
{
    uint64_t h = 0xcbf29ce484222325ull;
    int from = t->depth > FH_MAX_DEPTH ? FH_MAX_DEPTH : t->depth;
    for (int i = from - 1, k = 0; i >= 0 && k < b->ctx_depth; i--, k++) {
        h ^= t->calls[i];
        h *= 0x100000001b3ull;
    }
    return b->ctx_depth ? h : 0;
}

static uint64_t *slot(builder *b, uint64_t key, int make)
{
    if (make && (b->hn + 1) * 2 > b->hcap) {
        size_t nc = b->hcap ? b->hcap * 2 : 256;
        uint64_t *nk = calloc(nc, sizeof *nk), *nv = calloc(nc, sizeof *nv);
        if (!nk || !nv) {
            free(nk);
            free(nv);
            return NULL;
        }
        for (size_t i = 0; i < b->hcap; i++) {
            if (!b->hkey[i])
                continue;
            size_t j = (b->hkey[i] * 0x9e3779b97f4a7c15ull) & (nc - 1);
            while (nk[j])
                j = (j + 1) & (nc - 1);
            nk[j] = b->hkey[i];
            nv[j] = b->hval[i];
        }
        free(b->hkey);
        free(b->hval);
        b->hkey = nk;
        b->hval = nv;
        b->hcap = nc;
    }
    if (!b->hcap)
        return NULL;
    size_t j = (key * 0x9e3779b97f4a7c15ull) & (b->hcap - 1);
    while (b->hkey[j] && b->hkey[j] != key)
        j = (j + 1) & (b->hcap - 1);
    if (!b->hkey[j]) {
        if (!make)
            return NULL;
        b->hkey[j] = key;
        b->hn++;
    }
    return &b->hval[j];
}

static void words(builder *b, uint32_t blk, uint32_t ev, uint64_t addr,
                  uint64_t size, int op)
{
    if (!size)
        size = 1;
    uint64_t first = addr >> 3, last = (addr + size - 1) >> 3;
    if (last - first >= FH_MAX_WORDS)
        last = first + FH_MAX_WORDS - 1;
    for (uint64_t w = first; w <= last; w++)
        fh_run_access(b->r, blk, ev, FH_OBJ(FH_SPACE_MEM, w), op);
}

/* Events that touch objects (the others only move the call stack or
 * report). */
static int visible(int kind)
{
    return (kind >= FT_EV_THREAD_START && kind <= FT_EV_THREAD_JOIN) ||
           (kind >= FT_EV_READ && kind <= FT_EV_ATOMIC_CAS) ||
           (kind >= FT_EV_MUTEX_LOCK && kind <= FT_EV_ONCE_DONE) ||
           (kind >= FT_EV_MALLOC && kind <= FT_EV_REALLOC);
}

/* The block event e of thread tid belongs to: the one being extended if
 * it is tid's, else a block without a decision (a switch the scheduler
 * did not decide: the only thread enabled).  Where only one thread is
 * enabled every visible event is a transition of its own, as in the
 * paper's model: each is the thread's pending transition at its state. */
static uint32_t block_for(builder *b, const ft_event *e)
{
    fh_run *r = b->r;
    while (b->next_dec < r->ndec && r->dec[b->next_dec].mark <= e->index) {
        const fh_decision *d = &r->dec[b->next_dec];
        b->latest = fh_run_block(r, d->chosen, (int64_t)b->next_dec);
        b->latest_used = 0;
        b->next_dec++;
    }
    int vis = visible(e->kind);
    if (b->latest < 0 || r->blk[b->latest].tid != (int)e->tid ||
        (vis && b->latest_used && r->blk[b->latest].dec < 0)) {
        b->latest = fh_run_block(r, (int)e->tid, -1);
        b->latest_used = 0;
    }
    b->latest_used |= vis;
    return (uint32_t)b->latest;
}

static void blocked(builder *b, const ft_event *e)
{
    static const signed char op_of[] = {
        [1] = FH_ACQ, [2] = FH_RACQ, [3] = FH_ACQ, [4] = -1, [5] = FH_W,
        [6] = FH_W, [7] = FH_W, [8] = FH_HB,
    };
    static const unsigned char space_of[] = {
        [1] = FH_SPACE_LOCK, [2] = FH_SPACE_LOCK, [3] = FH_SPACE_LOCK,
        [5] = FH_SPACE_SYNC, [6] = FH_SPACE_SYNC, [7] = FH_SPACE_SYNC,
        [8] = FH_SPACE_THREAD,
    };
    int tid = (int)e->value;
    tstate *t = thread_state(b, tid);
    if (!t || e->arg < 1 || e->arg > 8 || op_of[e->arg] < 0)
        return;
    uint32_t blk = fh_run_block(b->r, tid, -1);
    uint32_t ev = fh_run_event(b->r, stmt_of(b, e->site), ctx_of(b, t));
    fh_run_access(b->r, blk, ev, FH_OBJ(space_of[e->arg], e->addr), op_of[e->arg]);
    b->latest = -1;
}

static void add_event(builder *b, const ft_event *e)
{
    tstate *t = thread_state(b, (int)e->tid);
    if (!t) {
        b->r->oom = 1;
        return;
    }
    uint32_t blk = block_for(b, e);
    if (e->kind == FT_EV_FUNC_ENTRY) {
        if (t->depth < FH_MAX_DEPTH)
            t->calls[t->depth] = stmt_of(b, (uint32_t)e->value);
        t->depth++;
        return;
    }
    if (e->kind == FT_EV_FUNC_EXIT) {
        if (t->depth > 0)
            t->depth--;
        return;
    }
    fh_run *r = b->r;
    uint32_t ev = 0;
    int have = 0;
#define EV() (have ? ev : (have = 1, ev = fh_run_event(r, stmt_of(b, e->site), ctx_of(b, t))))
#define ACC(space, id, op) fh_run_access(r, blk, EV(), FH_OBJ(space, id), op)
    uint64_t *p;
    switch (e->kind) {
    case FT_EV_READ: case FT_EV_READ_WIDE: case FT_EV_ATOMIC_LOAD:
        words(b, blk, EV(), e->addr, e->size ? e->size : e->nbytes, FH_R);
        break;
    case FT_EV_WRITE: case FT_EV_WRITE_WIDE: case FT_EV_ATOMIC_STORE:
    case FT_EV_ATOMIC_RMW: case FT_EV_ATOMIC_CAS:
        words(b, blk, EV(), e->addr, e->size ? e->size : e->nbytes, FH_W);
        break;
    case FT_EV_MUTEX_LOCK:
        ACC(FH_SPACE_LOCK, e->addr, FH_ACQ);
        break;
    case FT_EV_RW_WRLOCK:
        ACC(FH_SPACE_LOCK, e->addr, FH_ACQ);
        if (e->rc == 0 && (p = slot(b, FH_OBJ(FH_SPACE_LOCK, e->addr), 1)))
            *p = e->tid + 1;
        break;
    case FT_EV_RW_RDLOCK:
        ACC(FH_SPACE_LOCK, e->addr, FH_RACQ);
        break;
    case FT_EV_MUTEX_UNLOCK:
        ACC(FH_SPACE_LOCK, e->addr, FH_REL);
        break;
    case FT_EV_MUTEX_DESTROY: /* ordered like an acquisition: a destroy
                               * while another thread holds it misuses */
    case FT_EV_RW_DESTROY:
        ACC(FH_SPACE_LOCK, e->addr, FH_ACQ);
        break;
    case FT_EV_RW_UNLOCK:
        p = slot(b, FH_OBJ(FH_SPACE_LOCK, e->addr), 0);
        if (p && *p == e->tid + 1) {
            *p = 0;
            ACC(FH_SPACE_LOCK, e->addr, FH_REL);
        } else {
            ACC(FH_SPACE_LOCK, e->addr, FH_RREL);
        }
        break;
    case FT_EV_COND_WAIT:
        ACC(FH_SPACE_COND, e->addr, FH_WAIT);
        ACC(FH_SPACE_LOCK, e->obj2, FH_REL);
        break;
    case FT_EV_COND_WAKE:
        ACC(FH_SPACE_COND, e->addr, FH_WAKE);
        ACC(FH_SPACE_LOCK, e->obj2, FH_ACQ);
        break;
    case FT_EV_COND_SIGNAL: case FT_EV_COND_BROADCAST:
        ACC(FH_SPACE_COND, e->addr, FH_NOTIFY);
        break;
    case FT_EV_SEM_INIT: case FT_EV_SEM_POST: case FT_EV_SEM_WAIT:
    case FT_EV_BARRIER_INIT: case FT_EV_BARRIER_ARRIVE: case FT_EV_BARRIER_LEAVE:
    case FT_EV_ONCE_ENTER: case FT_EV_ONCE_DONE:
        ACC(FH_SPACE_SYNC, e->addr, FH_W);
        break;
    case FT_EV_THREAD_CREATE:
        ACC(FH_SPACE_THREAD, e->value, FH_HB);
        fh_run_created(r, (int)e->value, blk);
        break;
    case FT_EV_THREAD_JOIN:
        ACC(FH_SPACE_THREAD, e->value, FH_HB);
        break;
    case FT_EV_THREAD_START: case FT_EV_THREAD_EXIT:
        ACC(FH_SPACE_THREAD, e->tid, FH_HB);
        break;
    case FT_EV_MALLOC:
        if ((p = slot(b, e->addr | (1ull << 63), 1)))
            *p = e->value;
        words(b, blk, EV(), e->addr, e->value, FH_W);
        break;
    case FT_EV_REALLOC:
        p = slot(b, e->obj2 | (1ull << 63), 0);
        words(b, blk, EV(), e->obj2, p ? *p : 1, FH_W);
        if ((p = slot(b, e->addr | (1ull << 63), 1)))
            *p = e->value;
        words(b, blk, EV(), e->addr, e->value, FH_W);
        break;
    case FT_EV_FREE:
        p = slot(b, e->addr | (1ull << 63), 0);
        words(b, blk, EV(), e->addr, p ? *p : 1, FH_W);
        break;
    case FT_EV_BLOCKED:
        /* A deadlock: what each blocked thread waits for is its pending
         * transition, never executed; a block of its own at the end. */
        blocked(b, e);
        break;
    default: /* switches, sleeps, yields, fences, the runtime's reports */
        break;
    }
#undef ACC
#undef EV
}

int fh_run_read(fh_run *r, const char *log_path, const char *trace_path,
                int ctx_depth)
{
    fh_run_init(r);
    read_log(r, log_path);
    if (fx_time_up())
        return -1; /* no time left to analyse the run */
    ft_error err;
    ft_reader *rd = ft_reader_open(trace_path, &err);
    if (!rd)
        return -1;
    builder b = {.r = r, .rd = rd, .ctx_depth = ctx_depth, .latest = -1};
    ft_event e;
    uint64_t nread = 0;
    while (ft_reader_next(rd, &e) == 1 && !r->oom &&
           ((++nread & 0xffff) || !fx_time_up()))
        add_event(&b, &e);
    if (fx_time_up()) /* the rest of a cut read would be analysed for nothing */
        r->ndec = b.next_dec;
    /* Decisions after the last event (a run cut short): empty blocks. */
    while (b.next_dec < r->ndec) {
        fh_run_block(r, r->dec[b.next_dec].chosen, (int64_t)b.next_dec);
        b.next_dec++;
    }
    ft_reader_close(rd);
    for (int i = 0; i < b.nth; i++)
        free(b.th[i].calls);
    free(b.th);
    free(b.hkey);
    free(b.hval);
    return fh_run_finish(r);
}
