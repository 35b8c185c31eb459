/* SPDX-License-Identifier: MIT */
/* gen_condq.c - runs of a bounded queue guarded by one mutex and one or
 * two condition variables: main produces two items, one or two workers
 * consume them, each waiting while the count says it cannot go on (or
 * once, with `if` instead of `while`), writing the count and notifying
 * the other side.  Where the notify sits (in the section after the
 * write, before it, or after the unlock), whether it is a signal or a
 * broadcast, whether both sides share one condition, whether a side
 * notifies the wrong one, and whether the count is written outside the
 * section vary with the seed, so that some
 * programs can lose a wake-up and some cannot.  Scheduled at random with
 * exact pthread semantics; a run that blocked while generated is drawn
 * again, so every run recorded passed.  For the lost wake-up kind's
 * rules that order the waits' sections (tests/predict/
 * test_kinds_random.c, predict/kind_stuck_wake.c). */
#include "gen.h"

#include <string.h>

#define QT 3 /* threads: main (the producer) and up to two consumers */
#define Q_LEN 0xA000u
#define Q_MUTEX 0xA100u
#define Q_COND(i) (0xA200u + 64u * (i))

enum { N_IN, N_BEFORE, N_OUTSIDE }; /* where a notify sits */

typedef struct qside {
    int cond;      /* the condition it waits on */
    int other;     /* the condition it notifies */
    int broadcast; /* its notify */
    int where;     /* N_* */
    int loop;      /* while (1) or if (0) around its wait */
    int racy;      /* writes the count after its unlock */
    int wrong_at;  /* with this many items left (0: never) it notifies
                      its own condition instead */
} qside;

static uint64_t qrnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* One thread's place in its item: lock, guard read, wait, wake, the
 * count's read and write, notify, unlock (in the order its side says). */
enum { S_LOCK, S_GUARD, S_WAKE, S_BODY, S_NOTIFY, S_UNLOCK, S_NEXT };

typedef struct qth {
    const qside *side;
    int prod, items, step, waiting, notified, did_body, did_notify;
} qth;

/* Whether thread h must wait, the count being len. */
static int blocked(const qth *h, uint64_t len, unsigned cap)
{
    return h->prod ? len >= cap : len == 0 || (int64_t)len < 0;
}

/* One attempt: 0 when the run finished, -1 when it blocked. */
static int attempt(uint64_t s, evbuf *b)
{
    unsigned ncons = 1 + (unsigned)(qrnd(&s) % 2), nt = ncons + 1;
    int items = 2 + (int)(qrnd(&s) % 2); /* 3: counts repeat */
    unsigned cap = 1 + (unsigned)(qrnd(&s) % 2);
    int one_cond = qrnd(&s) % 4 == 0;
    qside side[2]; /* 0 the producer's, 1 the consumers' */
    for (int k = 0; k < 2; k++) {
        unsigned r = (unsigned)(qrnd(&s) % 16);
        side[k] = (qside){one_cond ? 0 : k,
                          one_cond ? 0 : 1 - k,
                          qrnd(&s) % 3 == 0,
                          r < 11   ? N_IN
                          : r < 14 ? N_BEFORE
                                   : N_OUTSIDE,
                          qrnd(&s) % 5 != 0,
                          qrnd(&s) % 12 == 0,
                          qrnd(&s) % 4 == 0 ? 1 + (int)(qrnd(&s) % 2) : 0};
    }
    qth th[QT];
    memset(th, 0, sizeof th);
    th[0] = (qth){&side[0], 1, items, S_LOCK, 0, 0, 0, 0};
    for (unsigned t = 1; t < nt; t++) /* the second takes what is left */
        th[t] = (qth){&side[1], 0, ncons == 1 ? items : t == 1 ? 1 : items - 1,
                      S_LOCK,   0, 0,
                      0,        0};
    uint64_t len = 0;
    int owner = -1;
    unsigned forked = 1, joined = 1;
    int done[QT] = {0};
    evbuf_add(b, FT_EV_READ, 0, Q_LEN, 0, 0, 0, 0);
    for (unsigned guard = 0; guard < 4096; guard++) {
        unsigned can[QT], nc = 0;
        for (unsigned t = 0; t < nt; t++) {
            const qth *h = &th[t];
            if (done[t] || (t && t >= forked))
                continue;
            if (t == 0 && forked < nt) {
                can[nc++] = t;
                continue;
            }
            if (h->items == 0) { /* main joins, a worker exits */
                if (t || joined == nt || done[joined])
                    can[nc++] = t;
                continue;
            }
            if ((h->step == S_LOCK && owner >= 0) ||
                (h->step == S_WAKE && (!h->notified || owner >= 0)))
                continue;
            can[nc++] = t;
        }
        if (!nc)
            return -1;
        unsigned t = can[qrnd(&s) % nc];
        qth *h = &th[t];
        const qside *sd = h->side;
        if (t == 0 && forked < nt) {
            evbuf_add(b, FT_EV_THREAD_CREATE, 0, 0, 0, forked, 0, 0);
            evbuf_add(b, FT_EV_THREAD_START, forked, 0, 0, 0, 0, 0);
            forked++;
            continue;
        }
        if (h->items == 0) {
            if (t == 0 && joined < nt) {
                evbuf_add(b, FT_EV_THREAD_JOIN, 0, 0, 0, joined, 0, 0);
                joined++;
                continue;
            }
            evbuf_add(b, FT_EV_THREAD_EXIT, t, 0, 0, 0, 0, 0);
            done[t] = 1;
            if (t == 0)
                return 0;
            continue;
        }
        switch (h->step) {
        case S_LOCK:
            evbuf_add(b, FT_EV_MUTEX_LOCK, t, Q_MUTEX, 0, 0, FT_HOW_BLOCK, 0);
            owner = (int)t;
            h->step = S_GUARD;
            h->did_body = h->did_notify = 0;
            break;
        case S_GUARD:
            evbuf_add(b, FT_EV_READ, t, Q_LEN, 0, len, 0, 0);
            if (blocked(h, len, cap)) {
                evbuf_add(b, FT_EV_COND_WAIT, t, Q_COND(sd->cond), Q_MUTEX, 0,
                          0, 0);
                owner = -1;
                h->waiting = 1;
                h->notified = 0;
                h->step = S_WAKE;
            } else {
                h->step = sd->where == N_BEFORE ? S_NOTIFY : S_BODY;
            }
            break;
        case S_WAKE:
            evbuf_add(b, FT_EV_COND_WAKE, t, Q_COND(sd->cond), Q_MUTEX, 0, 0,
                      0);
            owner = (int)t;
            h->waiting = 0;
            h->step = sd->loop                ? S_GUARD
                      : sd->where == N_BEFORE ? S_NOTIFY
                                              : S_BODY;
            break;
        case S_BODY:
            if (sd->racy && owner == (int)t) {
                h->step = S_UNLOCK;
                break;
            }
            evbuf_add(b, FT_EV_READ, t, Q_LEN, 0, len, 0, 0);
            len += h->prod ? 1 : (uint64_t)-1;
            evbuf_add(b, FT_EV_WRITE, t, Q_LEN, 0, len, 0, 0);
            h->did_body = 1;
            h->step = sd->where == N_IN        ? S_NOTIFY
                      : owner == (int)t        ? S_UNLOCK
                      : sd->where == N_OUTSIDE ? S_NOTIFY
                                               : S_NEXT;
            break;
        case S_NOTIFY: {
            unsigned ws[QT], nw = 0;
            int cv = h->items == sd->wrong_at ? sd->cond : sd->other;
            for (unsigned u = 0; u < nt; u++)
                if (th[u].waiting && !th[u].notified && th[u].side->cond == cv)
                    ws[nw++] = u;
            if (sd->broadcast) {
                for (unsigned i = 0; i < nw; i++)
                    th[ws[i]].notified = 1;
                evbuf_add(b, FT_EV_COND_BROADCAST, t, Q_COND(cv), 0, 0, nw, 0);
            } else if (nw) {
                unsigned u = ws[qrnd(&s) % nw];
                th[u].notified = 1;
                evbuf_add(b, FT_EV_COND_SIGNAL, t, Q_COND(cv), 0, u, 1, 0);
            } else {
                evbuf_add(b, FT_EV_COND_SIGNAL, t, Q_COND(cv), 0, 0, 0, 0);
            }
            h->did_notify = 1;
            h->step = !h->did_body      ? S_BODY
                      : owner == (int)t ? S_UNLOCK
                                        : S_NEXT;
            break;
        }
        case S_UNLOCK:
            evbuf_add(b, FT_EV_MUTEX_UNLOCK, t, Q_MUTEX, 0, 0, 0, 0);
            owner = -1;
            h->step = !h->did_body     ? S_BODY
                      : !h->did_notify ? S_NOTIFY
                                       : S_NEXT;
            break;
        }
        if (h->step == S_NEXT) {
            h->items--;
            h->step = S_LOCK;
        }
    }
    return -1;
}

void gen_condq(uint64_t seed, evbuf *b)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    for (int tries = 0; tries < 40; tries++) {
        b->n = 0;
        if (attempt(s + (uint64_t)tries * 0x2545f4914f6cdd1dull, b) == 0)
            return;
    }
    b->n = 0; /* none passed: no events (the caller skips it) */
}
