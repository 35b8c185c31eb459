/* SPDX-License-Identifier: MIT */
/* gen_counter.c - runs of lock-protected counter updates, the shape of
 * bench/recorder/locks.c in miniature: workers bump counters under their
 * mutex, in one critical section or split in two (an atomicity bug), and
 * read a shared bound that only main writes.  A quantum scheduler runs
 * one thread for several steps at a time, as the recorder does, so that
 * a later update reads a value an earlier one wrote: the shape the value
 * order (predict/vorder.c) decides and the windows cannot.  A third of
 * the runs guard the counters with rwlocks instead: updates under the
 * write hold, and read-only peeks under read holds that may overlap. */
#include "gen.h"

#include <string.h>

#define CW 3 /* workers at most */
#define CK 2 /* counters at most */
#define COPS 40

#define C_BOUND 0x7000u
#define C_COUNTER(k) (0x7100u + 8u * (k))
#define C_MUTEX(k) (0x7200u + 64u * (k))

enum { OP_BOUND, OP_LOCK, OP_READ, OP_UNLOCK, OP_WRITE, OP_RDLOCK, OP_PEEK,
       OP_RDUNLOCK };

typedef struct cop {
    uint8_t op, k;
} cop;

static uint64_t crnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* One worker's program: iters updates of random counters, with a peek
 * at one before each update half the time when peeks (rwlocks) are on. */
static unsigned program(uint64_t *s, unsigned iters, unsigned nk, int peeks,
                        int rereads, cop *out)
{
    unsigned n = 0;
    for (unsigned i = 0; i < iters; i++) {
        uint8_t k = (uint8_t)(crnd(s) % nk);
        int split = (int)(crnd(s) % 2);
        out[n++] = (cop){OP_BOUND, 0};
        if (peeks && crnd(s) % 2) {
            uint8_t j = (uint8_t)(crnd(s) % nk);
            out[n++] = (cop){OP_RDLOCK, j};
            out[n++] = (cop){OP_PEEK, j};
            out[n++] = (cop){OP_RDUNLOCK, j};
        }
        out[n++] = (cop){OP_LOCK, k};
        out[n++] = (cop){OP_READ, k};
        if (split) {
            out[n++] = (cop){OP_UNLOCK, k};
            out[n++] = (cop){OP_LOCK, k};
        }
        if (rereads && crnd(s) % 2) /* after the read, or a section on */
            out[n++] = (cop){OP_PEEK, k};
        out[n++] = (cop){OP_WRITE, k};
        if (rereads && crnd(s) % 2) /* after its own write */
            out[n++] = (cop){OP_PEEK, k};
        out[n++] = (cop){OP_UNLOCK, k};
    }
    return n;
}

static int counters(uint64_t seed, evbuf *b, int rereads)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    if (!s)
        s = 1;
    unsigned nw = 2 + (unsigned)(crnd(&s) % 2);
    unsigned nk = 1 + (unsigned)(crnd(&s) % CK);
    unsigned iters = nw == 2 ? 2 + (unsigned)(crnd(&s) % 2) : 1;
    if (rereads) { /* small enough for the enumerator of every read */
        nw = 2;
        iters = 1;
    }
    int rw = seed % 3 == 0;
    cop prog[CW][COPS];
    unsigned len[CW], pc[CW] = {0}, seen[CW] = {0}, readers[CK] = {0};
    int owner[CK] = {-1, -1};
    uint64_t val[CK] = {0};
    for (unsigned w = 0; w < nw; w++)
        len[w] = program(&s, iters, nk, rw, rereads, prog[w]);
    /* main: the bound, the counters' initial values, the workers */
    evbuf_add(b, FT_EV_WRITE, 0, C_BOUND, 0, iters, 0, 0);
    for (unsigned k = 0; k < nk; k++)
        evbuf_add(b, FT_EV_READ, 0, C_COUNTER(k), 0, 0, 0, 0);
    for (unsigned w = 0; w < nw; w++) {
        evbuf_add(b, FT_EV_THREAD_CREATE, 0, 0, 0, w + 1, 0, 0);
        evbuf_add(b, FT_EV_THREAD_START, w + 1, 0, 0, 0, 0, 0);
    }
    unsigned cur = (unsigned)(crnd(&s) % nw), quantum = 0;
    for (unsigned guard = 0; guard < 10000; guard++) {
        unsigned live = 0;
        for (unsigned w = 0; w < nw; w++)
            live += pc[w] < len[w];
        if (!live)
            break;
        const cop *o = pc[cur] < len[cur] ? &prog[cur][pc[cur]] : NULL;
        int blocked = o && ((o->op == OP_LOCK &&
                             (owner[o->k] >= 0 || readers[o->k])) ||
                            (o->op == OP_RDLOCK && owner[o->k] >= 0));
        if (!o || blocked || quantum == 0) {
            cur = (unsigned)(crnd(&s) % nw);
            quantum = 1 + (unsigned)(crnd(&s) % 12);
            continue;
        }
        uint32_t t = cur + 1;
        switch (o->op) {
        case OP_BOUND:
            evbuf_add(b, FT_EV_READ, t, C_BOUND, 0, iters, 0, 0);
            break;
        case OP_LOCK:
            evbuf_add(b, rw ? FT_EV_RW_WRLOCK : FT_EV_MUTEX_LOCK, t,
                      C_MUTEX(o->k), 0, 0, FT_HOW_BLOCK, 0);
            owner[o->k] = (int)cur;
            break;
        case OP_RDLOCK:
            evbuf_add(b, FT_EV_RW_RDLOCK, t, C_MUTEX(o->k), 0, 0,
                      FT_HOW_BLOCK, 0);
            readers[o->k]++;
            break;
        case OP_PEEK:
            evbuf_add(b, FT_EV_READ, t, C_COUNTER(o->k), 0, val[o->k], 0, 0);
            break;
        case OP_RDUNLOCK:
            evbuf_add(b, FT_EV_RW_UNLOCK, t, C_MUTEX(o->k), 0, 0, 0, 0);
            readers[o->k]--;
            break;
        case OP_READ:
            seen[cur] = (unsigned)val[o->k];
            evbuf_add(b, FT_EV_READ, t, C_COUNTER(o->k), 0, val[o->k], 0, 0);
            break;
        case OP_WRITE:
            val[o->k] = seen[cur] + 1;
            evbuf_add(b, FT_EV_WRITE, t, C_COUNTER(o->k), 0, val[o->k], 0, 0);
            break;
        default:
            evbuf_add(b, rw ? FT_EV_RW_UNLOCK : FT_EV_MUTEX_UNLOCK, t,
                      C_MUTEX(o->k), 0, 0, 0, 0);
            owner[o->k] = -1;
            break;
        }
        pc[cur]++;
        quantum--;
        if (pc[cur] == len[cur])
            evbuf_add(b, FT_EV_THREAD_EXIT, t, 0, 0, 0, 0, 0);
    }
    for (unsigned w = 0; w < nw; w++)
        evbuf_add(b, FT_EV_THREAD_JOIN, 0, 0, 0, w + 1, 0, 0);
    for (unsigned k = 0; k < nk; k++)
        evbuf_add(b, FT_EV_READ, 0, C_COUNTER(k), 0, val[k], 0, 0);
    return rw;
}

uint64_t gen_counters_bound_addr(void)
{
    return C_BOUND;
}

int gen_counters(uint64_t seed, evbuf *b)
{
    return counters(seed, b, 0);
}

int gen_counters_reread(uint64_t seed, evbuf *b)
{
    return counters(seed, b, 1);
}
