/* SPDX-License-Identifier: MIT */
/* fig2.h - the running example of the BEST paper (figure 2): threads Ma
 * and Mb, statements s1-s16, locks L1 and L2, condvar S, variables x, y
 * and z, recorded in the order of the observed run. */
#ifndef FORETELL_TEST_FIG2_H
#define FORETELL_TEST_FIG2_H

#include "gen.h"

#define FIG2_L1 0x2000u
#define FIG2_L2 0x2040u
#define FIG2_S 0x3000u
#define FIG2_X 0x1000u
#define FIG2_Y 0x1008u
#define FIG2_Z 0x1010u
#define FIG2_PTR 0x7f0000001000ull /* what malloc returned in s3 */

static inline void fig2_events(evbuf *b)
{
    enum { MA = 0, MB = 1 };
    /* s1 lock(L2); s2 a1 = z++ (one atomic read-write of z);
     * s3 x = malloc(a1); s4 lock(L1); s5 wait(S, L1): wait_pre */
    evbuf_add(b, FT_EV_MUTEX_LOCK, MA, FIG2_L2, 0, 0, FT_HOW_BLOCK, 0);
    ft_event rmw = {0};
    rmw.kind = FT_EV_ATOMIC_RMW;
    rmw.tid = MA;
    rmw.addr = FIG2_Z;
    rmw.size = 8;
    rmw.arg = FT_RMW_ADD;
    rmw.value = 0;
    rmw.value2 = 1;
    rmw.site = 2;
    evbuf_push(b, &rmw);
    evbuf_add(b, FT_EV_WRITE, MA, FIG2_X, 0, FIG2_PTR, 0, 0);
    evbuf_add(b, FT_EV_MUTEX_LOCK, MA, FIG2_L1, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(b, FT_EV_COND_WAIT, MA, FIG2_S, FIG2_L1, 0, 0, 0);
    /* s6 lock(L1); s7 notify(S) wakes Ma; s8 unlock(L1) */
    evbuf_add(b, FT_EV_MUTEX_LOCK, MB, FIG2_L1, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(b, FT_EV_COND_SIGNAL, MB, FIG2_S, 0, MA, 1, 0);
    evbuf_add(b, FT_EV_MUTEX_UNLOCK, MB, FIG2_L1, 0, 0, 0, 0);
    /* s5 returns: wait_post; s9 unlock(L2); s10 y = ...; s11 unlock(L1) */
    evbuf_add(b, FT_EV_COND_WAKE, MA, FIG2_S, FIG2_L1, 0, 0, 0);
    evbuf_add(b, FT_EV_MUTEX_UNLOCK, MA, FIG2_L2, 0, 0, 0, 0);
    evbuf_add(b, FT_EV_WRITE, MA, FIG2_Y, 0, 0, 0, 0);
    evbuf_add(b, FT_EV_MUTEX_UNLOCK, MA, FIG2_L1, 0, 0, 0, 0);
    /* s12 lock(L1); s13 y = z + x as b1 = z, b2 = x, y = b1 + b2;
     * s14 lock(L2); s15 unlock(L2); s16 unlock(L1) */
    evbuf_add(b, FT_EV_MUTEX_LOCK, MB, FIG2_L1, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(b, FT_EV_READ, MB, FIG2_Z, 0, 1, 0, 0);
    evbuf_add(b, FT_EV_READ, MB, FIG2_X, 0, FIG2_PTR, 0, 0);
    evbuf_add(b, FT_EV_WRITE, MB, FIG2_Y, 0, 1 + FIG2_PTR, 0, 0);
    evbuf_add(b, FT_EV_MUTEX_LOCK, MB, FIG2_L2, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(b, FT_EV_MUTEX_UNLOCK, MB, FIG2_L2, 0, 0, 0, 0);
    evbuf_add(b, FT_EV_MUTEX_UNLOCK, MB, FIG2_L1, 0, 0, 0, 0);
}

#endif
