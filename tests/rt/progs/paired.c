/* paired.c - reads recorded while the thread's write is pending (test
 * rt_paired_reads).  gcc instruments `x = 2; r = y;` as write-hook(x),
 * store, read-hook(y), load, and a struct copy `*a = *b;` as
 * write-hook(a), read-hook(b), load, store (8 bytes: the range hooks, 16:
 * write16/read16; a scalar `*a = *b` reads first).  In both the write
 * stays pending across the read, which the trace marks as paired (READ or
 * READ_WIDE ... paired=1), directly before the write.  A read with no
 * write pending (z) or of the pending write's own bytes (x again) is an
 * ordinary read.  A second thread runs beside it, so that a switch could
 * happen anywhere else. */
#include <pthread.h>

struct s8 {
    int lo, hi;
};
struct s16 {
    long a, b;
};

volatile int x, y = 7, z = 5, noise;
struct s8 src8 = {0x11, 0x22}, dst8;
struct s16 src16 = {0x33, 0x44}, dst16;

static __attribute__((noinline)) void copy8(struct s8 *a, const struct s8 *b)
{
    *a = *b;
}

static __attribute__((noinline)) void copy16(struct s16 *a,
                                             const struct s16 *b)
{
    *a = *b;
}

static void *work(void *arg)
{
    int r0 = z; /* nothing pending (function entry flushed): not paired */
    x = 2;
    int r = y;  /* x pending: paired, then WRITE x */
    x = r0 + r;
    int s = x;  /* the pending write's own bytes: flushed first */
    copy8(&dst8, &src8);
    copy16(&dst16, &src16);
    return (void *)(long)(s + dst8.hi + dst16.b);
}

static void *busy(void *arg)
{
    for (int i = 0; i < 200; i++)
        noise = noise + 1;
    return arg;
}

int main(void)
{
    pthread_t a, b;
    void *ret;
    pthread_create(&b, NULL, busy, NULL);
    pthread_create(&a, NULL, work, NULL);
    pthread_join(a, &ret);
    pthread_join(b, NULL);
    return (long)ret == 12 + 0x22 + 0x44 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
