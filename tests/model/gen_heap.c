/* SPDX-License-Identifier: MIT */
/* gen_heap.c - runs around a shared heap object: main allocates it
 * (MALLOC of a 16-byte block), may fork two workers first (and join them
 * last); the threads read
 * and write its two fields and a shared flag, take a mutex, post and wait
 * on a semaphore, and one of them frees the object at the end of its
 * work.  Scheduled at random with exact semantics, and only runs in which
 * nobody touched the object after its free are kept (every recorded run
 * passed, as a user's would).  For the use-after-free tests (tests/
 * predict/test_kinds_random.c). */
#include "gen.h"

#include <string.h>

#define HT 3
#define HOPS 12
#define H_OBJ 0x9000u
#define H_FLAG 0x9100u
#define H_MUTEX 0x9200u
#define H_SEM 0x9300u

enum { Q_READ, Q_WRITE, Q_FLAG_R, Q_FLAG_W, Q_LOCK, Q_UNLOCK, Q_POST,
       Q_WAIT, Q_FREE };

static uint64_t hrnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* One thread's program; the freeing thread ends with the free. */
static unsigned program(uint64_t *s, int frees, uint8_t *out)
{
    unsigned n = 0, ops = 2 + (unsigned)(hrnd(s) % 3);
    int locked = 0;
    for (unsigned i = 0; i < ops; i++) {
        unsigned what = (unsigned)(hrnd(s) % 7);
        if (what == Q_LOCK && locked)
            what = Q_UNLOCK;
        if (what == Q_UNLOCK && !locked)
            what = Q_READ;
        locked ^= what == Q_LOCK || what == Q_UNLOCK;
        out[n++] = (uint8_t)(what == 6 ? (hrnd(s) % 2 ? Q_POST : Q_WAIT)
                                       : what);
    }
    if (locked)
        out[n++] = Q_UNLOCK;
    if (frees)
        out[n++] = Q_FREE;
    return n;
}

static int attempt(uint64_t s, evbuf *b)
{
    int fork = (int)(hrnd(&s) % 2);
    unsigned nt = 3, freer = (unsigned)(hrnd(&s) % nt);
    uint8_t prog[HT][HOPS];
    unsigned len[HT], pc[HT] = {0};
    for (unsigned t = 0; t < nt; t++)
        len[t] = program(&s, t == freer, prog[t]);
    uint64_t field[2] = {0, 0}, flag = 0;
    int owner = -1, sem = (int)(hrnd(&s) % 2), freed = 0;
    int started[HT] = {1, !fork, !fork}, done[HT] = {0};
    unsigned forked = 1, joined = 1;
    evbuf_add(b, FT_EV_SEM_INIT, 0, H_SEM, 0, (uint64_t)sem, 0, 0);
    evbuf_add(b, FT_EV_READ, 0, H_FLAG, 0, 0, 0, 0);
    ft_event e;
    memset(&e, 0, sizeof e);
    e.kind = FT_EV_MALLOC;
    e.addr = H_OBJ;
    e.value = 16;
    e.value2 = 1;
    e.site = 1 + (uint32_t)b->n;
    evbuf_push(b, &e);
    for (int guard = 0; guard < 200; guard++) {
        unsigned can[HT], nc = 0;
        for (unsigned t = 0; t < nt; t++) {
            if (done[t] || !started[t])
                continue;
            if (t == 0 && fork && (forked < nt || pc[0] == len[0])) {
                if (forked < nt || joined == nt || done[joined])
                    can[nc++] = t;
                continue;
            }
            if (pc[t] == len[t]) {
                can[nc++] = t;
                continue;
            }
            uint8_t q = prog[t][pc[t]];
            if ((q == Q_LOCK && owner >= 0) || (q == Q_WAIT && sem == 0))
                continue;
            can[nc++] = t;
        }
        if (!nc)
            return -1; /* stuck while generated */
        unsigned t = can[hrnd(&s) % nc];
        if (t == 0 && fork && (forked < nt || pc[0] == len[0])) {
            if (forked < nt) {
                evbuf_add(b, FT_EV_THREAD_CREATE, 0, 0, 0, forked, 0, 0);
                started[forked] = 1;
                evbuf_add(b, FT_EV_THREAD_START, forked, 0, 0, 0, 0, 0);
                forked++;
                continue;
            }
            if (joined < nt) {
                evbuf_add(b, FT_EV_THREAD_JOIN, 0, 0, 0, joined, 0, 0);
                joined++;
                continue;
            }
        }
        if (pc[t] == len[t]) {
            evbuf_add(b, FT_EV_THREAD_EXIT, t, 0, 0, 0, 0, 0);
            done[t] = 1;
            unsigned all = 1;
            for (unsigned u = 0; u < nt; u++)
                all &= (unsigned)done[u];
            if (all)
                return freed ? 0 : -1;
            continue;
        }
        uint8_t q = prog[t][pc[t]++];
        unsigned k = (unsigned)(hrnd(&s) % 2);
        switch (q) {
        case Q_READ:
        case Q_WRITE:
            if (freed)
                return -1; /* would use it after the free */
            if (q == Q_READ) {
                evbuf_add(b, FT_EV_READ, t, H_OBJ + 8 * k, 0, field[k], 0, 0);
            } else {
                field[k] = 1 + hrnd(&s) % 2;
                evbuf_add(b, FT_EV_WRITE, t, H_OBJ + 8 * k, 0, field[k], 0,
                          0);
            }
            break;
        case Q_FLAG_R:
            evbuf_add(b, FT_EV_READ, t, H_FLAG, 0, flag, 0, 0);
            break;
        case Q_FLAG_W:
            flag = 1 + hrnd(&s) % 2;
            evbuf_add(b, FT_EV_WRITE, t, H_FLAG, 0, flag, 0, 0);
            break;
        case Q_LOCK:
            owner = (int)t;
            evbuf_add(b, FT_EV_MUTEX_LOCK, t, H_MUTEX, 0, 0, FT_HOW_BLOCK, 0);
            break;
        case Q_UNLOCK:
            owner = -1;
            evbuf_add(b, FT_EV_MUTEX_UNLOCK, t, H_MUTEX, 0, 0, 0, 0);
            break;
        case Q_POST:
            sem++;
            evbuf_add(b, FT_EV_SEM_POST, t, H_SEM, 0, 0, 0, 0);
            break;
        case Q_WAIT:
            sem--;
            evbuf_add(b, FT_EV_SEM_WAIT, t, H_SEM, 0, 0, FT_HOW_BLOCK, 0);
            break;
        case Q_FREE:
            freed = 1;
            memset(&e, 0, sizeof e);
            e.kind = FT_EV_FREE;
            e.tid = t;
            e.addr = H_OBJ;
            e.site = 1 + (uint32_t)b->n;
            evbuf_push(b, &e);
            break;
        }
    }
    return -1;
}

void gen_heap(uint64_t seed, evbuf *b)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x5851f42d4c957f2dull;
    for (int tries = 0; tries < 40; tries++) {
        if (!s)
            s = 1;
        b->n = 0;
        if (attempt(s, b) == 0)
            return;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
    }
    b->n = 0;
}
