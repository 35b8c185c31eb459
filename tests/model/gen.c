/* SPDX-License-Identifier: MIT */
/* gen.c - the random trace generator: threads pick random operations
 * that are possible in the current state (locks only when free, waits only
 * with their mutex held, ...), a random scheduler interleaves them, and
 * the resulting run is a valid trace by construction: reads return the
 * last write, trylocks fail only on held locks, notifications wake real
 * waiters or are lost. */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GT 4
#define GV 8

#define VAR(i) (0x1000u + 8u * (i))
#define MUTEX(i) (0x2000u + 64u * (i))
#define COND(i) (0x3000u + 64u * (i))
#define SEM(i) (0x4000u + 64u * (i))
#define RW(i) (0x5000u + 64u * (i))

void evbuf_push(evbuf *b, const ft_event *e)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->ev = realloc(b->ev, b->cap * sizeof *b->ev);
        if (!b->ev)
            abort();
    }
    b->ev[b->n] = *e;
    b->ev[b->n].index = b->n;
    b->n++;
}

void evbuf_add(evbuf *b, unsigned kind, uint32_t tid, uint64_t addr,
               uint64_t obj2, uint64_t value, uint32_t arg, int32_t rc)
{
    ft_event e;
    memset(&e, 0, sizeof e);
    e.kind = (uint16_t)kind;
    e.tid = tid;
    e.addr = addr;
    e.obj2 = obj2;
    e.value = value;
    e.arg = arg;
    e.rc = rc;
    e.site = 1 + (uint32_t)b->n;
    if (kind >= FT_EV_READ && kind <= FT_EV_ATOMIC_CAS)
        e.size = 8;
    evbuf_push(b, &e);
}

void evbuf_free(evbuf *b)
{
    free(b->ev);
    memset(b, 0, sizeof *b);
}

int trace_write(const char *path, const evbuf *b)
{
    ft_header h;
    memset(&h, 0, sizeof h);
    h.version = FT_FORMAT_VERSION;
    h.program = "generated";
    ft_error err;
    ft_writer *w = ft_writer_open(path, &h, &err);
    if (!w)
        return -1;
    int rc = 0;
    /* site ids are dense from 1 (docs/trace-format.md): define them all */
    uint32_t maxsite = 0;
    for (size_t i = 0; i < b->n; i++)
        if (b->ev[i].site > maxsite)
            maxsite = b->ev[i].site;
    for (uint32_t id = 1; id <= maxsite && !rc; id++) {
        ft_site s;
        memset(&s, 0, sizeof s);
        s.id = id;
        s.offset = 0x400000u + 4u * s.id;
        rc = ft_writer_site(w, &s);
    }
    for (size_t i = 0; i < b->n && !rc; i++)
        rc = ft_writer_event(w, &b->ev[i]);
    ft_end end;
    memset(&end, 0, sizeof end);
    end.present = 1;
    end.events = b->n;
    end.exit_status = 0;
    end.reason = "exit";
    if (ft_writer_close(w, &end))
        rc = -1;
    return rc;
}

void temp_trace_path(char *buf, size_t len, const char *tag)
{
    static unsigned counter;
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s/ft-model-%s-%d-%u.ftrace", dir ? dir : "/tmp", tag,
             (int)getpid(), counter++);
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static unsigned pick(uint64_t *s, unsigned n)
{
    return n ? (unsigned)(rnd(s) % n) : 0;
}

enum { RUN, WAITING, DONE };

struct gth {
    int state, started, exited;
    unsigned budget;
    int cond, wmutex, notified;
    unsigned held[16]; /* mutex stack */
    unsigned nheld;
    int rw_held[GV]; /* 0 none, 1 read, 2 write */
    unsigned joined;
};

struct gsim {
    const gen_params *p;
    uint64_t seed;
    evbuf *b;
    struct gth th[GT];
    uint64_t val[GV];
    int owner[GV], count[GV], recursive[GV];
    int64_t sem[GV];
    int rw_writer[GV], rw_readers[GV];
};

static void do_op(struct gsim *g, unsigned t)
{
    struct gth *h = &g->th[t];
    const gen_params *p = g->p;
    evbuf *b = g->b;
    for (int tries = 0; tries < 20; tries++) {
        static const unsigned heavy[] = {5, 5, 5, 6, 8, 9, 10};
        unsigned what = p->sync_heavy && pick(&g->seed, 2)
                            ? heavy[pick(&g->seed, 7)]
                            : pick(&g->seed, 12);
        unsigned v = pick(&g->seed, p->nvars ? p->nvars : 1);
        switch (what) {
        case 0:
        case 1:
            if (!p->nvars)
                continue;
            evbuf_add(b, FT_EV_READ, t, VAR(v), 0, g->val[v], 0, 0);
            return;
        case 2:
        case 3: {
            if (!p->nvars)
                continue;
            uint64_t nv = pick(&g->seed, 3);
            evbuf_add(b, FT_EV_WRITE, t, VAR(v), 0, nv, 0, 0);
            g->val[v] = nv;
            return;
        }
        case 4: {
            if (!p->nvars)
                continue;
            ft_event e;
            memset(&e, 0, sizeof e);
            e.kind = FT_EV_ATOMIC_RMW;
            e.tid = t;
            e.addr = VAR(v);
            e.size = 8;
            e.arg = FT_RMW_ADD;
            e.value = g->val[v];
            e.value2 = g->val[v] + 1;
            g->val[v]++;
            evbuf_push(b, &e);
            return;
        }
        case 5: { /* lock or trylock */
            if (!p->nlocks || h->nheld >= 15)
                continue;
            unsigned m = pick(&g->seed, p->nlocks);
            int mine = g->owner[m] == (int)t;
            if (g->owner[m] < 0 || (mine && g->recursive[m])) {
                evbuf_add(b, FT_EV_MUTEX_LOCK, t, MUTEX(m), 0, 0,
                          pick(&g->seed, 2) ? FT_HOW_TRY : FT_HOW_BLOCK, 0);
                g->owner[m] = (int)t;
                g->count[m]++;
                h->held[h->nheld++] = m;
            } else if (!mine) {
                evbuf_add(b, FT_EV_MUTEX_LOCK, t, MUTEX(m), 0, 0, FT_HOW_TRY,
                          16);
            } else {
                continue;
            }
            return;
        }
        case 6: /* unlock the innermost */
        case 7: {
            if (!h->nheld)
                continue;
            unsigned m = h->held[--h->nheld];
            evbuf_add(b, FT_EV_MUTEX_UNLOCK, t, MUTEX(m), 0, 0, 0, 0);
            if (--g->count[m] == 0)
                g->owner[m] = -1;
            return;
        }
        case 8: { /* wait on cond k with mutex k, held once */
            if (!p->nconds || !h->nheld)
                continue;
            unsigned m = h->held[h->nheld - 1];
            if (m >= p->nconds || g->count[m] != 1)
                continue;
            evbuf_add(b, FT_EV_COND_WAIT, t, COND(m), MUTEX(m), 0, 0, 0);
            h->nheld--;
            g->owner[m] = -1;
            g->count[m] = 0;
            h->state = WAITING;
            h->cond = (int)m;
            h->wmutex = (int)m;
            h->notified = 0;
            return;
        }
        case 9: { /* signal or broadcast */
            if (!p->nconds)
                continue;
            unsigned k = pick(&g->seed, p->nconds);
            unsigned ws[GT], nw = 0;
            for (unsigned u = 0; u < p->nthreads; u++)
                if (g->th[u].state == WAITING && g->th[u].cond == (int)k &&
                    !g->th[u].notified)
                    ws[nw++] = u;
            if (pick(&g->seed, 3) == 0) {
                for (unsigned i = 0; i < nw; i++)
                    g->th[ws[i]].notified = 1;
                evbuf_add(b, FT_EV_COND_BROADCAST, t, COND(k), 0, 0, nw, 0);
            } else if (nw) {
                unsigned u = ws[pick(&g->seed, nw)];
                g->th[u].notified = 1;
                evbuf_add(b, FT_EV_COND_SIGNAL, t, COND(k), 0, u, 1, 0);
            } else {
                evbuf_add(b, FT_EV_COND_SIGNAL, t, COND(k), 0, 0, 0, 0);
            }
            return;
        }
        case 10: { /* semaphores */
            if (!p->nsems)
                continue;
            unsigned s = pick(&g->seed, p->nsems);
            unsigned how = pick(&g->seed, 3);
            if (how == 0) {
                evbuf_add(b, FT_EV_SEM_POST, t, SEM(s), 0, 0, 0, 0);
                g->sem[s]++;
            } else if (g->sem[s] > 0) {
                evbuf_add(b, FT_EV_SEM_WAIT, t, SEM(s), 0, 0, FT_HOW_BLOCK,
                          0);
                g->sem[s]--;
            } else {
                evbuf_add(b, FT_EV_SEM_WAIT, t, SEM(s), 0, 0, FT_HOW_TRY, 11);
            }
            return;
        }
        case 11: { /* rwlocks */
            if (!p->nrw)
                continue;
            unsigned r = pick(&g->seed, p->nrw);
            if (h->rw_held[r]) {
                evbuf_add(b, FT_EV_RW_UNLOCK, t, RW(r), 0, 0, 0, 0);
                if (h->rw_held[r] == 2)
                    g->rw_writer[r] = -1;
                else
                    g->rw_readers[r]--;
                h->rw_held[r] = 0;
            } else if (pick(&g->seed, 2)) {
                int ok = g->rw_writer[r] < 0;
                evbuf_add(b, FT_EV_RW_RDLOCK, t, RW(r), 0, 0,
                          ok ? FT_HOW_BLOCK : FT_HOW_TRY, ok ? 0 : 16);
                if (ok) {
                    g->rw_readers[r]++;
                    h->rw_held[r] = 1;
                }
            } else {
                int ok = g->rw_writer[r] < 0 && g->rw_readers[r] == 0;
                evbuf_add(b, FT_EV_RW_WRLOCK, t, RW(r), 0, 0,
                          ok ? FT_HOW_BLOCK : FT_HOW_TRY, ok ? 0 : 16);
                if (ok) {
                    g->rw_writer[r] = (int)t;
                    h->rw_held[r] = 2;
                }
            }
            return;
        }
        }
    }
    if (p->nvars) /* nothing else fitted: a read always does */
        evbuf_add(b, FT_EV_READ, t, VAR(0), 0, g->val[0], 0, 0);
}

/* One step of thread t, if it can move; 0 if it cannot. */
static int step(struct gsim *g, unsigned t)
{
    struct gth *h = &g->th[t];
    const gen_params *p = g->p;
    if (h->state == DONE || !h->started)
        return 0;
    if (h->state == WAITING) {
        unsigned m = (unsigned)h->wmutex;
        if (g->owner[m] >= 0)
            return 0;
        int timeout = !h->notified && pick(&g->seed, 8) == 0;
        if (!h->notified && !timeout)
            return 0;
        evbuf_add(g->b, FT_EV_COND_WAKE, t, COND(h->cond), MUTEX(m), 0,
                  (uint32_t)timeout, 0);
        g->owner[m] = (int)t;
        g->count[m] = 1;
        h->held[h->nheld++] = m;
        h->state = RUN;
        return 1;
    }
    if (t == 0 && p->fork_join && h->budget > 0) {
        for (unsigned u = 1; u < p->nthreads; u++)
            if (!g->th[u].started && pick(&g->seed, 2)) {
                evbuf_add(g->b, FT_EV_THREAD_CREATE, 0, 0, 0, u, 0, 0);
                g->th[u].started = 1;
                evbuf_add(g->b, FT_EV_THREAD_START, u, 0, 0, 0, 0, 0);
                return 1;
            }
    }
    if (h->budget > 0) {
        h->budget--;
        do_op(g, t);
        return 1;
    }
    /* cleanup: release everything, then main forks the rest and joins */
    if (h->nheld) {
        unsigned m = h->held[--h->nheld];
        evbuf_add(g->b, FT_EV_MUTEX_UNLOCK, t, MUTEX(m), 0, 0, 0, 0);
        if (--g->count[m] == 0)
            g->owner[m] = -1;
        return 1;
    }
    for (unsigned r = 0; r < p->nrw; r++)
        if (h->rw_held[r]) {
            evbuf_add(g->b, FT_EV_RW_UNLOCK, t, RW(r), 0, 0, 0, 0);
            if (h->rw_held[r] == 2)
                g->rw_writer[r] = -1;
            else
                g->rw_readers[r]--;
            h->rw_held[r] = 0;
            return 1;
        }
    if (t == 0 && p->fork_join) {
        for (unsigned u = 1; u < p->nthreads; u++)
            if (!g->th[u].started) {
                evbuf_add(g->b, FT_EV_THREAD_CREATE, 0, 0, 0, u, 0, 0);
                g->th[u].started = 1;
                evbuf_add(g->b, FT_EV_THREAD_START, u, 0, 0, 0, 0, 0);
                return 1;
            }
        for (unsigned u = 1; u < p->nthreads; u++)
            if (!(h->joined >> u & 1)) {
                if (g->th[u].state != DONE)
                    return 0;
                evbuf_add(g->b, FT_EV_THREAD_JOIN, 0, 0, 0, u, 0, 0);
                h->joined |= 1u << u;
                return 1;
            }
    }
    evbuf_add(g->b, FT_EV_THREAD_EXIT, t, 0, 0, 0, 0, 0);
    h->state = DONE;
    return 1;
}

int gen_run(uint64_t seed, const gen_params *p, evbuf *b)
{
    struct gsim g;
    memset(&g, 0, sizeof g);
    g.p = p;
    g.seed = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    if (!g.seed)
        g.seed = 1;
    g.b = b;
    for (unsigned i = 0; i < GV; i++) {
        g.owner[i] = g.rw_writer[i] = -1;
        g.recursive[i] = p->recursive && (i % 2 == 1);
    }
    for (unsigned t = 0; t < p->nthreads && t < GT; t++) {
        g.th[t].budget = p->ops;
        g.th[t].started = !p->fork_join || t == 0;
    }
    /* initial values are read once by main so the model knows them */
    for (unsigned m = 0; m < p->nlocks; m++)
        if (g.recursive[m])
            evbuf_add(b, FT_EV_MUTEX_INIT, 0, MUTEX(m), 0, 0,
                      FT_MUTEX_RECURSIVE, 0);
    for (unsigned s = 0; s < p->nsems; s++) {
        g.sem[s] = (int64_t)pick(&g.seed, 2);
        evbuf_add(b, FT_EV_SEM_INIT, 0, SEM(s), 0, (uint64_t)g.sem[s], 0, 0);
    }
    for (unsigned v = 0; v < p->nvars; v++)
        evbuf_add(b, FT_EV_READ, 0, VAR(v), 0, 0, 0, 0);
    for (unsigned guard = 0; guard < 100000; guard++) {
        unsigned order[GT], n = p->nthreads;
        for (unsigned i = 0; i < n; i++)
            order[i] = i;
        for (unsigned i = n; i > 1; i--) {
            unsigned j = pick(&g.seed, i), tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
        int moved = 0;
        for (unsigned i = 0; i < n && !moved; i++)
            moved = step(&g, order[i]);
        if (!moved) {
            /* nobody moved this round: stuck (all waiting/joining) or a
             * waiting thread declined to time out; retry a few times */
            int live = 0;
            for (unsigned t = 0; t < n; t++)
                live |= g.th[t].state == WAITING && g.owner[g.th[t].wmutex] < 0;
            if (!live)
                break;
        }
    }
    return 0;
}

void gen_small_params(uint64_t seed, gen_params *p)
{
    uint64_t s = seed * 0x2545f4914f6cdd1dull + 7;
    memset(p, 0, sizeof *p);
    p->nthreads = 2 + (unsigned)(rnd(&s) % 2);
    p->ops = p->nthreads == 2 ? 3 + (unsigned)(rnd(&s) % 3)
                              : 2 + (unsigned)(rnd(&s) % 2);
    p->nvars = 1 + (unsigned)(rnd(&s) % 2);
    p->nlocks = (unsigned)(rnd(&s) % 3);
    p->nconds = p->nlocks ? (unsigned)(rnd(&s) % 2) : 0;
    p->nsems = (unsigned)(rnd(&s) % 2);
    p->nrw = (unsigned)(rnd(&s) % 4 == 0);
    p->fork_join = (int)(rnd(&s) % 2);
    p->recursive = (int)(rnd(&s) % 4 == 0);
}

/* Marks, at random (half of the candidates), reads directly followed by
 * their thread's next read or write as the runtime marks a read made
 * while that thread's write was pending (FT_READ_PAIRED): the model
 * glues the two (ctm.h).  The run itself does not change. */
void gen_pair_reads(evbuf *b, uint64_t seed)
{
    uint64_t rs = seed * 0x2545f4914f6cdd1dull + 7;
    for (size_t i = 0; i + 1 < b->n; i++) {
        const ft_event *e = &b->ev[i], *f = &b->ev[i + 1];
        /* the runtime keeps a write pending across reads of other
         * addresses only */
        if (e->kind != FT_EV_READ || f->tid != e->tid ||
            (f->kind != FT_EV_READ && f->kind != FT_EV_WRITE) ||
            f->addr == e->addr)
            continue;
        rs = rs * 6364136223846793005ull + 1442695040888963407ull;
        if (rs >> 63)
            b->ev[i].arg = FT_READ_PAIRED;
    }
}
