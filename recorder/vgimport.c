/* SPDX-License-Identifier: MIT */
/* vgimport.c - turns what the Valgrind tool wrote (recorder/valgrind/,
 * records of ftvg_raw.h) into a foretell trace, after the run.
 *
 * The tool sees the run but cannot write our format (it runs without
 * libc); this side has the writer, and sees the whole run, so it also
 * works out what the tool could only learn later: which waiter a
 * pthread_cond_signal woke (the first of the waiters it found whose wait
 * then returned not timed out) and how many a broadcast woke, the site
 * table (each code address with its module and offset, symbolised later
 * as any trace is), and each allocation's count at its site.  Two passes
 * over the file, streamed: memory grows with sites, modules and the
 * condition variables' waiters, not with the run. */
#define _GNU_SOURCE
#include "recorder/straight.h"
#include "recorder/trace.h"
#include "recorder/valgrind/ftvg_raw.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_MODULES 512
#define MAX_CONDS 4096
#define MAX_PATH_LEN 4096

typedef struct vg_module {
    char *path;
    uint64_t text, text_size, bias, end;
    char build_id[128];
    /* its code, opened at its first access site (instructions) */
    int tried, fd;
    Elf *elf;
    ft_straight *code;
} vg_module;

typedef struct vg_cond {
    uint64_t addr;
    uint32_t *waiting;           /* tids in a wait no notify reached */
    size_t nwaiting, capwaiting;
    uint64_t *pending;           /* signals with waiters, not yet matched */
    size_t npending, cappending, headpending;
} vg_cond;

typedef struct woken {
    uint64_t rec;                /* the signal's record number */
    uint32_t tid;
} woken;

/* A map from nonzero 64-bit keys to 32-bit values, open addressing:
 * code addresses to site ids, atomic variables. */
typedef struct u64map {
    uint64_t *key;
    uint32_t *val;
    size_t cap, n;
} u64map;

static size_t u64map_home(uint64_t k, size_t cap)
{
    return (size_t)(k * 0x9e3779b97f4a7c15ULL) & (cap - 1);
}

/* The value of key k (nonzero), 0 when absent. */
static uint32_t u64map_get(const u64map *m, uint64_t k)
{
    if (!m->cap)
        return 0;
    for (size_t h = u64map_home(k, m->cap); m->key[h];
         h = (h + 1) & (m->cap - 1))
        if (m->key[h] == k)
            return m->val[h];
    return 0;
}

/* Where key k's value is (k inserted with 0 if it was absent), NULL when
 * out of memory. */
static uint32_t *u64map_slot(u64map *m, uint64_t k)
{
    if (m->n * 2 >= m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1024;
        uint64_t *key = calloc(cap, sizeof *key);
        uint32_t *val = calloc(cap, sizeof *val);
        if (!key || !val) {
            free(key);
            free(val);
            return NULL;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->key[i]) {
                size_t h = u64map_home(m->key[i], cap);
                while (key[h])
                    h = (h + 1) & (cap - 1);
                key[h] = m->key[i];
                val[h] = m->val[i];
            }
        free(m->key);
        free(m->val);
        m->key = key;
        m->val = val;
        m->cap = cap;
    }
    size_t h = u64map_home(k, m->cap);
    while (m->key[h] && m->key[h] != k)
        h = (h + 1) & (m->cap - 1);
    if (!m->key[h]) {
        m->key[h] = k;
        m->n++;
    }
    return &m->val[h];
}

typedef struct importer {
    FILE *in;
    uint64_t off;                /* of the next record in the file */
    unsigned char *block;        /* read ahead (take) */
    size_t bpos, blen;
    const char *raw;
    ft_error *err;
    vg_module mods[MAX_MODULES];
    uint32_t nmods;
    vg_cond *conds;
    size_t nconds;
    woken *wk;
    size_t nwk, capwk;
    uint64_t pid, records;
    int clean;                   /* a TAIL record: the tool ended */
    uint64_t ab_idx, ab_from;    /* a final ALLBLOCKED record, and where
                                    the BLOCKED records before it begin */
    int ab_final;
    uint32_t ab_tid;             /* the thread that wrote it */
    u64map sites;                /* pc -> site id */
    uint32_t nsites;
    uint32_t *alloc_count;       /* per site id */
    size_t alloc_cap;
    u64map atomics;              /* addresses a locked instruction
                                    changed -> 1 */
} importer;

/* x86 loads and stores are plain moves whether the program meant them
 * atomic or not (an acquire load, a relaxed or release store); only
 * read-modify-writes carry a lock prefix.  So a variable that some
 * locked instruction changes is taken for an atomic one, and its plain
 * loads and stores for atomic loads and stores: no race is reported
 * between an atomic_load and an atomic_fetch_add of one counter.  The
 * price is a race on such a variable between two plain accesses, which
 * the foretell-cc build would report, and this trace does not. */
static int atomic_add(importer *im, uint64_t a)
{
    uint32_t *v = a ? u64map_slot(&im->atomics, a) : NULL;
    if (a && !v)
        return -1;
    if (v)
        *v = 1;
    return 0;
}

static int atomic_has(const importer *im, uint64_t a)
{
    return a && u64map_get(&im->atomics, a);
}

static int fail(importer *im, uint64_t off, const char *what)
{
    snprintf(im->err->path, sizeof im->err->path, "%s", im->raw);
    im->err->offset = off;
    snprintf(im->err->message, sizeof im->err->message, "%s", what);
    return -1;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* n bytes of the file into dst, through a 1 MiB block (fread per 48-byte
 * record cost a tenth of the import); the count read. */
#define BLOCK (1u << 20)
static size_t take(importer *im, void *dst, size_t n)
{
    size_t done = 0;
    while (done < n) {
        if (im->bpos == im->blen) {
            im->blen = fread(im->block, 1, BLOCK, im->in);
            im->bpos = 0;
            if (!im->blen)
                break;
        }
        size_t k = im->blen - im->bpos < n - done ? im->blen - im->bpos
                                                  : n - done;
        memcpy((char *)dst + done, im->block + im->bpos, k);
        im->bpos += k;
        done += k;
    }
    return done;
}

/* Reads the next record (and a MODULE's path); 0 at the end. */
static int next_rec(importer *im, struct ftvg_rec *r, char *path)
{
    uint64_t off = im->off; /* not ftell: an lseek per record */
    size_t n = take(im, r, sizeof *r);
    if (n == 0)
        return 0;
    if (n != sizeof *r)
        return 0; /* a record cut short: the run was killed mid-write */
    im->off += n;
    if (r->op == 0 || r->op >= FTVG_OP_MAX)
        return fail(im, off, "not a record of foretell's "
                    "Valgrind tool");
    if (r->op == FTVG_MODULE) {
        if (r->b >= MAX_PATH_LEN)
            return fail(im, off, "module path too long");
        size_t padded = (size_t)(r->b + 7) / 8 * 8;
        char buf[MAX_PATH_LEN + 8];
        if (take(im, buf, padded) != padded)
            return 0;
        im->off += padded;
        memcpy(path, buf, (size_t)r->b);
        path[r->b] = 0;
    }
    if (r->tid >= FT_TRACE_MAX_THREADS)
        return fail(im, off, "thread id beyond 1024");
    return 1;
}

static vg_cond *cond_of(importer *im, uint64_t addr)
{
    for (size_t i = 0; i < im->nconds; i++)
        if (im->conds[i].addr == addr)
            return &im->conds[i];
    if (im->nconds == MAX_CONDS)
        return NULL; /* past it: signals say none woken */
    vg_cond *c = &im->conds[im->nconds++];
    memset(c, 0, sizeof *c);
    c->addr = addr;
    return c;
}

static int waiting_drop(vg_cond *c, uint32_t tid)
{
    for (size_t i = 0; i < c->nwaiting; i++)
        if (c->waiting[i] == tid) {
            c->waiting[i] = c->waiting[--c->nwaiting];
            return 1;
        }
    return 0;
}

/* Pass 1: modules, and whom each signal woke. */
static int scan(importer *im)
{
    struct ftvg_rec r;
    char path[MAX_PATH_LEN + 1];
    uint64_t idx = 0, run_start = 0;
    int k, in_blocked = 0;
    while ((k = next_rec(im, &r, path)) == 1) {
        if (idx == 0 && (r.op != FTVG_HEAD || r.a != FTVG_MAGIC))
            return fail(im, 0, "not a file of foretell's Valgrind tool");
        vg_cond *c;
        /* the last ALLBLOCKED, the BLOCKED run before it, and whether
         * anything came after it */
        if (r.op == FTVG_BLOCKED && !in_blocked) {
            in_blocked = 1;
            run_start = idx;
        }
        if (r.op == FTVG_ALLBLOCKED) {
            im->ab_idx = idx;
            im->ab_tid = r.tid;
            im->ab_from = in_blocked ? run_start : idx;
            im->ab_final = 1;
        } else if (r.op != FTVG_BLOCKED)
            im->ab_final = 0;
        if (r.op != FTVG_BLOCKED)
            in_blocked = 0;
        switch (r.op) {
        case FTVG_HEAD:
            im->pid = r.b;
            break;
        case FTVG_TAIL:
            im->clean = 1;
            break;
        case FTVG_CAS:
            if (atomic_add(im, r.addr) < 0)
                return fail(im, 0, "out of memory");
            break;
        case FTVG_MODULE:
            if (im->nmods < MAX_MODULES) {
                vg_module *m = &im->mods[im->nmods++];
                m->path = strdup(path);
                m->text = r.pc;
                m->text_size = r.a;
                m->bias = r.addr;
                m->end = r.c > r.pc + r.a ? r.c : r.pc + r.a;
                if (!m->path)
                    return fail(im, 0, "out of memory");
                if (ft_file_build_id(path, m->build_id,
                                     sizeof m->build_id) < 0)
                    m->build_id[0] = 0;
            }
            break;
        case FTVG_COND_WAIT:
            if ((c = cond_of(im, r.addr))) {
                if (grow((void **)&c->waiting, &c->capwaiting,
                         c->nwaiting + 1, sizeof *c->waiting) < 0)
                    return fail(im, 0, "out of memory");
                c->waiting[c->nwaiting++] = r.tid;
            }
            break;
        case FTVG_COND_WAKE:
            /* a waiter still listed was woken by a signal (or timed out,
             * or woke spuriously); one a broadcast released is not */
            if ((c = cond_of(im, r.addr)) && waiting_drop(c, r.tid) &&
                !r.b && c->headpending < c->npending) {
                if (grow((void **)&im->wk, &im->capwk, im->nwk + 1,
                         sizeof *im->wk) < 0)
                    return fail(im, 0, "out of memory");
                im->wk[im->nwk].rec = c->pending[c->headpending++];
                im->wk[im->nwk++].tid = r.tid;
            }
            break;
        case FTVG_COND_SIGNAL:
            if ((c = cond_of(im, r.addr)) &&
                c->nwaiting > c->npending - c->headpending) {
                if (grow((void **)&c->pending, &c->cappending,
                         c->npending + 1, sizeof *c->pending) < 0)
                    return fail(im, 0, "out of memory");
                c->pending[c->npending++] = idx;
            }
            break;
        case FTVG_COND_BROADCAST:
            if ((c = cond_of(im, r.addr))) {
                c->nwaiting = 0;
                c->headpending = c->npending;
            }
            break;
        }
        idx++;
    }
    if (k < 0)
        return -1;
    if (idx == 0)
        return fail(im, 0, "empty: the tool wrote nothing (did Valgrind "
                    "start?)");
    im->records = idx;
    return 0;
}

static int by_rec(const void *a, const void *b)
{
    const woken *x = a, *y = b;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* The module whose text holds pc, or -1. */
static int module_of(const importer *im, uint64_t pc)
{
    for (uint32_t i = 0; i < im->nmods; i++)
        if (pc >= im->mods[i].text &&
            pc - im->mods[i].text < im->mods[i].text_size)
            return (int)i;
    return -1;
}

/* The instruction of len bytes that ends at pc, in module m, as the
 * symboliser names one at a site without line information (INSN): an
 * access site is the address after its instruction, from which
 * `symbolize` would decode the next one. */
static const char *insn_of(vg_module *m, uint64_t pc, unsigned len,
                           char *buf, size_t cap)
{
    if (!len)
        return NULL;
    if (!m->tried) {
        m->tried = 1;
        m->fd = open(m->path, O_RDONLY | O_CLOEXEC);
        elf_version(EV_CURRENT);
        m->elf = m->fd >= 0 ? elf_begin(m->fd, ELF_C_READ, NULL) : NULL;
        m->code = m->elf ? ft_straight_open(m->elf) : NULL;
    }
    if (!m->code || ft_straight_insn(m->code, pc - m->bias - len, buf, cap))
        return NULL;
    return buf;
}

/* The site id of pc, defining it with the writer the first time (len:
 * the length of the instruction that ends there, 0 for a call site). */
static uint32_t site_of(importer *im, ft_writer *w, uint64_t pc,
                        unsigned len, int *bad)
{
    if (!pc)
        return 0;
    uint32_t *slot = u64map_slot(&im->sites, pc);
    if (!slot) {
        *bad = 1;
        return 0;
    }
    if (*slot)
        return *slot;
    int m = module_of(im, pc);
    if (m < 0)
        return 0; /* code outside every module the tool named */
    uint32_t id = ++im->nsites;
    ft_site s;
    char insn[160];
    memset(&s, 0, sizeof s);
    s.id = id;
    s.module = (uint32_t)m;
    s.offset = pc - im->mods[m].bias;
    s.insn = insn_of(&im->mods[m], pc, len, insn, sizeof insn);
    if (ft_writer_site(w, &s) < 0) {
        *bad = 1;
        return 0;
    }
    *slot = id;
    return id;
}

static uint32_t next_count(importer *im, uint32_t site, int *bad)
{
    size_t old = im->alloc_cap;
    if (grow((void **)&im->alloc_count, &im->alloc_cap, (size_t)site + 1,
             sizeof *im->alloc_count) < 0) {
        *bad = 1;
        return 0;
    }
    if (im->alloc_cap > old)
        memset(im->alloc_count + old, 0,
               (im->alloc_cap - old) * sizeof *im->alloc_count);
    return ++im->alloc_count[site];
}

/* One record as an event; 0 when it gives none. */
static int to_event(importer *im, ft_writer *w, const struct ftvg_rec *r,
                    uint64_t idx, size_t *wkat, ft_event *ev, int *bad)
{
    memset(ev, 0, sizeof *ev);
    ev->tid = r->tid;
    ev->addr = r->addr;
    switch (r->op) {
    case FTVG_READ:
    case FTVG_WRITE:
        if (r->size != 1 && r->size != 2 && r->size != 4 && r->size != 8)
            return 0;
        ev->kind = r->op == FTVG_READ ? FT_EV_READ : FT_EV_WRITE;
        if (atomic_has(im, r->addr)) {
            ev->kind = r->op == FTVG_READ ? FT_EV_ATOMIC_LOAD
                                          : FT_EV_ATOMIC_STORE;
            ev->mo = 5; /* not known: the strongest */
        }
        ev->size = r->size;
        ev->value = r->a;
        break;
    case FTVG_READ_WIDE:
    case FTVG_WRITE_WIDE:
        ev->kind = r->op == FTVG_READ_WIDE ? FT_EV_READ_WIDE
                                           : FT_EV_WRITE_WIDE;
        ev->size = r->size; /* content not recorded: unknown bytes */
        break;
    case FTVG_CAS:
        ev->kind = FT_EV_ATOMIC_CAS;
        ev->size = r->size;
        ev->mo = 5; /* a locked instruction is sequentially consistent */
        ev->value = r->a;
        ev->value2 = r->b;
        ev->value3 = r->c;
        ev->arg = r->a == r->c;
        break;
    case FTVG_THREAD_START:
        ev->kind = FT_EV_THREAD_START;
        ev->addr = 0;
        ev->value = r->a;
        break;
    case FTVG_THREAD_CREATE:
    case FTVG_THREAD_JOIN:
        ev->kind = r->op == FTVG_THREAD_CREATE ? FT_EV_THREAD_CREATE
                                               : FT_EV_THREAD_JOIN;
        ev->value = r->a;
        break;
    case FTVG_THREAD_EXIT:
        ev->kind = FT_EV_THREAD_EXIT;
        break;
    case FTVG_MUTEX_LOCK:
    case FTVG_RW_RDLOCK:
    case FTVG_RW_WRLOCK:
    case FTVG_SEM_WAIT:
        ev->kind = r->op == FTVG_MUTEX_LOCK  ? FT_EV_MUTEX_LOCK
                   : r->op == FTVG_RW_RDLOCK ? FT_EV_RW_RDLOCK
                   : r->op == FTVG_RW_WRLOCK ? FT_EV_RW_WRLOCK
                                             : FT_EV_SEM_WAIT;
        ev->arg = (uint32_t)r->a;
        ev->rc = (int32_t)r->b;
        break;
    case FTVG_MUTEX_UNLOCK:
    case FTVG_RW_UNLOCK:
        ev->kind = r->op == FTVG_MUTEX_UNLOCK ? FT_EV_MUTEX_UNLOCK
                                              : FT_EV_RW_UNLOCK;
        break;
    case FTVG_COND_WAIT:
        ev->kind = FT_EV_COND_WAIT;
        ev->obj2 = r->a;
        break;
    case FTVG_COND_WAKE:
        ev->kind = FT_EV_COND_WAKE;
        ev->obj2 = r->a;
        ev->arg = (uint32_t)r->b;
        break;
    case FTVG_COND_SIGNAL:
        ev->kind = FT_EV_COND_SIGNAL;
        while (*wkat < im->nwk && im->wk[*wkat].rec < idx)
            (*wkat)++;
        if (*wkat < im->nwk && im->wk[*wkat].rec == idx) {
            ev->arg = 1;
            ev->value = im->wk[*wkat].tid;
        }
        break;
    case FTVG_COND_BROADCAST:
        ev->kind = FT_EV_COND_BROADCAST;
        ev->arg = (uint32_t)r->c; /* filled in by the caller */
        break;
    case FTVG_SEM_INIT:
    case FTVG_BARRIER_INIT:
        ev->kind = r->op == FTVG_SEM_INIT ? FT_EV_SEM_INIT
                                          : FT_EV_BARRIER_INIT;
        ev->value = r->a;
        break;
    case FTVG_SEM_POST:
        ev->kind = FT_EV_SEM_POST;
        break;
    case FTVG_BARRIER_WAIT:
        ev->kind = r->b ? FT_EV_BARRIER_LEAVE : FT_EV_BARRIER_ARRIVE;
        ev->arg = r->b ? (uint32_t)r->a : 0;
        break;
    case FTVG_MALLOC:
    case FTVG_REALLOC:
        ev->kind = r->op == FTVG_MALLOC ? FT_EV_MALLOC : FT_EV_REALLOC;
        ev->value = r->a;
        ev->obj2 = r->op == FTVG_REALLOC ? r->b : 0;
        break;
    case FTVG_FREE:
        ev->kind = FT_EV_FREE;
        break;
    case FTVG_ABORT:
        ev->kind = FT_EV_ABORT;
        ev->addr = 0;
        break;
    case FTVG_FUNC_ENTRY:
        ev->kind = FT_EV_FUNC_ENTRY;
        ev->addr = 0;
        ev->value = site_of(im, w, r->a, 0, bad);
        break;
    case FTVG_FUNC_EXIT:
        ev->kind = FT_EV_FUNC_EXIT;
        ev->addr = 0;
        break;
    default:
        return 0;
    }
    ev->site = site_of(im, w, r->pc, r->len, bad);
    if (ev->kind == FT_EV_MALLOC || ev->kind == FT_EV_REALLOC)
        ev->value2 = next_count(im, ev->site, bad);
    return 1;
}

/* Waiters of each condition variable in pass 2, for broadcasts. */
static uint32_t broadcast_count(importer *im, const struct ftvg_rec *r)
{
    vg_cond *c = cond_of(im, r->addr);
    if (!c)
        return 0;
    if (r->op == FTVG_COND_WAIT)
        c->nwaiting++;
    else if (r->op == FTVG_COND_WAKE && c->nwaiting)
        c->nwaiting--;
    else if (r->op == FTVG_COND_BROADCAST) {
        uint32_t n = (uint32_t)c->nwaiting;
        c->nwaiting = 0;
        return n;
    }
    return 0;
}

int ft_vg_import(const char *raw, const char *trace, const char *program,
                 int argc, char *const *argv, int signo, int deadlock,
                 ft_error *err)
{
    memset(err, 0, sizeof *err);
    importer im;
    memset(&im, 0, sizeof im);
    im.raw = raw;
    im.err = err;
    im.conds = calloc(MAX_CONDS, sizeof *im.conds);
    im.block = malloc(BLOCK);
    im.in = fopen(raw, "rb");
    int rc = -1;
    ft_writer *w = NULL;
    if (!im.conds || !im.block || !im.in) {
        fail(&im, 0, im.in ? "out of memory" : strerror(errno));
        goto out;
    }
    if (scan(&im) < 0)
        goto out;
    if (im.nwk)
        qsort(im.wk, im.nwk, sizeof *im.wk, by_rec);
    for (size_t i = 0; i < im.nconds; i++)
        im.conds[i].nwaiting = 0;

    ft_module mods[MAX_MODULES];
    for (uint32_t i = 0; i < im.nmods; i++) {
        mods[i].path = im.mods[i].path;
        mods[i].base = im.mods[i].bias;
        mods[i].size = im.mods[i].end - im.mods[i].bias;
        mods[i].build_id = im.mods[i].build_id;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    ft_header h = {
        .version = 4,
        .program = program,
        .argc = (uint32_t)argc,
        .argv = (const char *const *)argv,
        .pid = im.pid,
        .start_time_ns = (uint64_t)now.tv_sec * 1000000000ull +
                         (uint64_t)now.tv_nsec,
        .nmodules = im.nmods,
        .modules = mods,
    };
    w = ft_writer_open_level(trace, &h, 1, err);
    if (!w)
        goto out;
    rewind(im.in);
    im.off = 0;
    im.bpos = im.blen = 0;
    struct ftvg_rec r;
    char path[MAX_PATH_LEN + 1];
    uint64_t idx = 0, events = 0;
    uint32_t last_tid = 0, threads = 0;
    size_t wkat = 0;
    int bad = 0, k;
    ft_event ev;
    while ((k = next_rec(&im, &r, path)) == 1) {
        uint32_t nb = 0;
        if (r.op == FTVG_COND_WAIT || r.op == FTVG_COND_WAKE ||
            r.op == FTVG_COND_BROADCAST)
            nb = broadcast_count(&im, &r);
        r.c = r.op == FTVG_COND_BROADCAST ? nb : r.c;
        int dl = deadlock && im.ab_final && idx >= im.ab_from &&
                 idx <= im.ab_idx;
        if (dl && r.op == FTVG_BLOCKED) {
            /* filed under the thread that found the deadlock, as the
             * runtime does; value names the waiting thread */
            memset(&ev, 0, sizeof ev);
            ev.kind = FT_EV_BLOCKED;
            ev.tid = im.ab_tid;
            ev.value = r.tid;
            ev.addr = r.addr;
            ev.arg = (uint32_t)r.a;
            ev.site = site_of(&im, w, r.pc, 0, &bad);
            ev.index = events++;
            if (!bad && ft_writer_event(w, &ev) < 0)
                bad = 1;
        } else if (dl && r.op == FTVG_ALLBLOCKED) {
            memset(&ev, 0, sizeof ev);
            ev.kind = FT_EV_DEADLOCK;
            ev.tid = r.tid;
            ev.index = events++;
            if (ft_writer_event(w, &ev) < 0)
                bad = 1;
        } else if (to_event(&im, w, &r, idx, &wkat, &ev, &bad)) {
            ev.index = events++;
            if (ft_writer_event(w, &ev) < 0)
                bad = 1;
            last_tid = ev.tid;
            if (ev.kind == FT_EV_THREAD_START && ev.tid + 1 > threads)
                threads = ev.tid + 1;
        }
        if (bad) {
            fail(&im, 0, "cannot write the trace");
            goto out;
        }
        idx++;
    }
    if (k < 0)
        goto out;
    if (signo > 0 && !(deadlock && im.ab_final)) {
        memset(&ev, 0, sizeof ev);
        ev.kind = FT_EV_SIGNAL;
        ev.tid = last_tid;
        ev.value = (uint64_t)signo;
        ev.index = events++;
        if (ft_writer_event(w, &ev) < 0) {
            fail(&im, 0, "cannot write the trace");
            goto out;
        }
    }
    int dead = deadlock && im.ab_final;
    ft_end end = {.present = 1, .events = events,
                  .exit_status = dead ? (int64_t)FT_DEADLOCK_STATUS << 8 : -1,
                  .reason = dead ? "deadlock" : signo > 0 ? "signal" : "exit",
                  .threads = threads};
    rc = ft_writer_close(w, &end);
    w = NULL;
    if (rc < 0)
        fail(&im, 0, "cannot write the trace");
    else if (dead)
        rc = 2;
    else if (!im.clean)
        rc = 1; /* imported, but the tool did not end cleanly */
out:
    if (w)
        ft_writer_close(w, NULL);
    if (im.in)
        fclose(im.in);
    for (uint32_t i = 0; i < im.nmods; i++) {
        free(im.mods[i].path);
        if (im.mods[i].code)
            ft_straight_close(im.mods[i].code);
        if (im.mods[i].elf)
            elf_end(im.mods[i].elf);
        if (im.mods[i].tried && im.mods[i].fd >= 0)
            close(im.mods[i].fd);
    }
    for (size_t i = 0; im.conds && i < im.nconds; i++) {
        free(im.conds[i].waiting);
        free(im.conds[i].pending);
    }
    free(im.conds);
    free(im.block);
    free(im.wk);
    free(im.sites.key);
    free(im.sites.val);
    free(im.alloc_count);
    free(im.atomics.key);
    free(im.atomics.val);
    return rc;
}
