/* SPDX-License-Identifier: MIT */
/* gen_locks.c - runs of nested critical sections: two workers take two
 * or three locks (mutexes, recursive mutexes, rwlocks in either mode) nested
 * in random orders, touch shared variables inside, and release them,
 * scheduled at random with exact lock semantics (a thread asking for a
 * held lock waits, leaving no event).  Opposite lock orders in two
 * threads are common, so lock cycles are too; a run that deadlocks while
 * generated is discarded and another drawn, so every run recorded passed,
 * as a user's would.  For the property-kind tests (tests/predict/
 * test_kinds_random.c). */
#include "gen.h"

#include <string.h>

#define LT 3  /* threads at most (main included) */
#define LL 3  /* locks */
#define LOPS 16

#define L_VAR(i) (0x8000u + 8u * (i))
#define L_MUTEX(i) (0x8100u + 64u * (i))
#define L_RW(i) (0x8200u + 64u * (i))

enum { P_LOCK, P_UNLOCK, P_READ, P_WRITE };

typedef struct lop {
    uint8_t op, k, mode; /* mode: rwlock read hold; lock: how */
} lop;

static uint64_t lrnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A worker: one or two sections, each nesting one or two locks in a
 * random order around a read or write, released innermost first or not. */
static unsigned program(uint64_t *s, unsigned nl, const int *rw, lop *out)
{
    unsigned n = 0, sections = 1 + (unsigned)(lrnd(s) % 2);
    for (unsigned i = 0; i < sections; i++) {
        unsigned k = lrnd(s) % 4 ? 2 : 1;
        uint8_t ls[2];
        ls[0] = (uint8_t)(lrnd(s) % nl);
        ls[1] = (uint8_t)((ls[0] + 1 + lrnd(s) % (nl - 1)) % nl);
        for (unsigned j = 0; j < k; j++)
            out[n++] = (lop){P_LOCK, ls[j],
                             (uint8_t)(rw[ls[j]] ? lrnd(s) % 2
                                       : lrnd(s) % 5 == 0 ? FT_HOW_TRY
                                                           : FT_HOW_BLOCK)};
        if (lrnd(s) % 4)
            out[n++] = (lop){(uint8_t)(lrnd(s) % 2 ? P_READ : P_WRITE),
                             (uint8_t)(lrnd(s) % 2), 0};
        int lifo = (int)(lrnd(s) % 3 != 0);
        for (unsigned j = 0; j < k; j++)
            out[n++] = (lop){P_UNLOCK, ls[lifo ? k - 1 - j : j], 0};
    }
    return n;
}

/* One attempt: 0 when the run finished, -1 when it deadlocked. */
static int attempt(uint64_t s, evbuf *b)
{
    unsigned nt = 3;
    unsigned nl = 2 + (unsigned)(lrnd(&s) % 3 == 0);
    int fork = (int)(lrnd(&s) % 2);
    int rw[LL], rec[LL];
    for (unsigned l = 0; l < nl; l++) {
        rw[l] = lrnd(&s) % 4 == 0;
        rec[l] = !rw[l] && lrnd(&s) % 4 == 0;
        if (rec[l])
            evbuf_add(b, FT_EV_MUTEX_INIT, 0, L_MUTEX(l), 0, 0,
                      FT_MUTEX_RECURSIVE, 0);
    }
    lop prog[LT][LOPS];
    unsigned len[LT], pc[LT] = {0};
    int started[LT] = {0}, done[LT] = {0};
    uint64_t val[2] = {0, 0};
    int owner[LL], cnt[LL] = {0}, readers[LL] = {0};
    for (unsigned l = 0; l < LL; l++)
        owner[l] = -1;
    len[0] = 0; /* main only forks and joins */
    for (unsigned t = 1; t < nt; t++)
        len[t] = program(&s, nl, rw, prog[t]);
    started[0] = 1;
    done[0] = !fork; /* without fork/join main has no part */
    for (unsigned t = 1; t < nt; t++)
        started[t] = !fork;
    for (unsigned v = 0; v < 2; v++)
        evbuf_add(b, FT_EV_READ, 0, L_VAR(v), 0, 0, 0, 0);
    unsigned forked = 1, joined = 1;
    for (;;) {
        unsigned can[LT], nc = 0;
        for (unsigned t = 0; t < nt; t++) {
            if (done[t] || !started[t])
                continue;
            if (t == 0) {
                if (forked < nt || joined == nt || done[joined])
                    can[nc++] = t;
                continue;
            }
            if (pc[t] == len[t]) {
                can[nc++] = t;
                continue;
            }
            const lop *o = &prog[t][pc[t]];
            unsigned l = o->k;
            int free_ = o->op != P_LOCK ||
                        (rw[l] ? owner[l] < 0 && (o->mode || !readers[l])
                               : owner[l] < 0 ||
                                     (owner[l] == (int)t && rec[l]) ||
                                     o->mode == FT_HOW_TRY);
            if (free_)
                can[nc++] = t;
        }
        if (!nc)
            return -1;
        unsigned t = can[lrnd(&s) % nc];
        if (t == 0) {
            if (forked < nt) {
                evbuf_add(b, FT_EV_THREAD_CREATE, 0, 0, 0, forked, 0, 0);
                started[forked] = 1;
                evbuf_add(b, FT_EV_THREAD_START, forked, 0, 0, 0, 0, 0);
                forked++;
            } else if (joined < nt) {
                evbuf_add(b, FT_EV_THREAD_JOIN, 0, 0, 0, joined, 0, 0);
                joined++;
            } else {
                evbuf_add(b, FT_EV_THREAD_EXIT, 0, 0, 0, 0, 0, 0);
                return 0;
            }
            continue;
        }
        if (pc[t] == len[t]) {
            evbuf_add(b, FT_EV_THREAD_EXIT, t, 0, 0, 0, 0, 0);
            done[t] = 1;
            int all = 1;
            for (unsigned u = 0; u < nt; u++)
                all &= done[u];
            if (all)
                return 0;
            continue;
        }
        const lop *o = &prog[t][pc[t]++];
        unsigned l = o->k;
        switch (o->op) {
        case P_LOCK:
            if (rw[l]) {
                evbuf_add(b, o->mode ? FT_EV_RW_RDLOCK : FT_EV_RW_WRLOCK, t,
                          L_RW(l), 0, 0, FT_HOW_BLOCK, 0);
                if (o->mode)
                    readers[l]++;
                else
                    owner[l] = (int)t;
            } else if (owner[l] >= 0 && !(owner[l] == (int)t && rec[l])) {
                /* a failed trylock: the section runs without the lock,
                 * its unlock fails (and is dropped by the model) */
                evbuf_add(b, FT_EV_MUTEX_LOCK, t, L_MUTEX(l), 0, 0,
                          FT_HOW_TRY, 16);
                for (unsigned q = pc[t]; q < len[t]; q++)
                    if (prog[t][q].op == P_UNLOCK && prog[t][q].k == l) {
                        prog[t][q].op = P_READ;
                        break;
                    }
            } else {
                evbuf_add(b, FT_EV_MUTEX_LOCK, t, L_MUTEX(l), 0, 0, o->mode,
                          0);
                owner[l] = (int)t;
                cnt[l]++;
            }
            break;
        case P_UNLOCK:
            if (rw[l]) {
                evbuf_add(b, FT_EV_RW_UNLOCK, t, L_RW(l), 0, 0, 0, 0);
                if (owner[l] == (int)t)
                    owner[l] = -1;
                else
                    readers[l]--;
            } else {
                evbuf_add(b, FT_EV_MUTEX_UNLOCK, t, L_MUTEX(l), 0, 0, 0, 0);
                if (--cnt[l] == 0)
                    owner[l] = -1;
            }
            break;
        case P_READ:
            evbuf_add(b, FT_EV_READ, t, L_VAR(l % 2), 0, val[l % 2], 0, 0);
            break;
        case P_WRITE:
            val[l % 2] = 1 + lrnd(&s) % 2;
            evbuf_add(b, FT_EV_WRITE, t, L_VAR(l % 2), 0, val[l % 2], 0, 0);
            break;
        }
    }
}

void gen_locks(uint64_t seed, evbuf *b)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    for (int tries = 0; tries < 20; tries++) {
        if (!s)
            s = 1;
        b->n = 0;
        if (attempt(s, b) == 0)
            return;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
    }
    b->n = 0; /* every attempt deadlocked: an empty run */
}
