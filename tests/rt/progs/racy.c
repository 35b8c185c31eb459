/* racy.c - unsynchronised threads hammering shared memory through every
 * kind of access the instrumentation reports: 1/2/4/8/16-byte loads and
 * stores, bitfields and packed fields (range hooks), struct copies and
 * memset/memcpy, all the atomic operations (CAS included), 128-bit
 * atomics, malloc/realloc/free.  Recorded with tiny quanta, the trace
 * must still be sequentially consistent: every read returns the last
 * write. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define ROUNDS 120

struct big { long a[6]; };
struct bits { unsigned x : 3, y : 7, z : 13; };
struct __attribute__((packed)) packed { char c; int i; long l; };

static volatile uint8_t b8;
static uint16_t b16;
static uint32_t b32;
static uint64_t b64;
static __int128 b128;
static struct big big1, big2;
static struct bits bits;
static struct packed packed;
static atomic_int ai;
static atomic_long al;
static _Atomic __int128 a128;
static char buf[64];
static int *_Atomic shared_ptr;

static void *run(void *arg)
{
    long id = (long)arg;
    for (int r = 0; r < ROUNDS; r++) {
        b8 = (uint8_t)(b8 + id);
        b16 = (uint16_t)(b16 * 3 + (uint16_t)r);
        b32 ^= (uint32_t)(r * 2654435761u);
        b64 += b32;
        b128 = b128 + b64;
        bits.y = (unsigned)(bits.y + 1);
        bits.z = bits.x + (unsigned)r;
        packed.i += (int)id;
        packed.l = packed.l * 7 + packed.c;
        big1.a[r % 6] = r + id;
        big2 = big1;
        memset(buf + (r % 32), (int)id, 16);
        memcpy(buf + 32, buf + (r % 16), 24);
        atomic_fetch_add(&ai, 1);
        atomic_fetch_xor_explicit(&al, r, memory_order_relaxed);
        int expect = atomic_load(&ai);
        atomic_compare_exchange_strong(&ai, &expect, expect + 1);
        long e2 = 12345;
        atomic_compare_exchange_weak(&al, &e2, 7);
        atomic_exchange(&al, atomic_load(&al) | 1);
        __int128 old = atomic_load(&a128);
        atomic_compare_exchange_strong(&a128, &old, old + 1);
        if (r % 10 == 0) {
            int *p = malloc(sizeof *p * 4);
            p[0] = r;
            p = realloc(p, sizeof *p * 8);
            p[7] = p[0];
            free(atomic_exchange(&shared_ptr, p));
        }
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, run, (void *)(i + 1));
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    free(shared_ptr);
    return 0;
}
/* SPDX-License-Identifier: MIT */
