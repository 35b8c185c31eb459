/* rpro_d2.c - deadlock d2 of RPro (Cai, Yang et al., figure 2, adapted
 * there from a JDBC connector bug): t1 and t2 deadlock on locks p and n
 * (t1: p at s06 then n at s08; t2: n at s15 then p at s16), but only if
 * two more ordering constraints hold: t2 must pass its s critical section
 * (s13, s14) before t1 takes s at s03 (t1 holds s until after s08), and
 * t1 must release n at s05 before t2 takes it at s15 (t1's s04..s05 would
 * otherwise block on n and let t2 finish).  Bug depth 4.
 *
 * Kind: deadlock (BUG lines: the acquisitions that block).
 * Failure: the program hangs (the recorder reports DEADLOCK).
 * Natural run: passes (t1 usually takes s first, so t2 waits at s13 until
 * t1 is done).
 * Deviation: the paper shows the figure only as a picture; the listing of
 * sites s01..s16 is reconstructed from its text (locks k, s, n, p; the
 * four ordering constraints named there).  Sites s09..s12 of t2 are work
 * on k not spelled out in the text.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t k = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t s = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t p = PTHREAD_MUTEX_INITIALIZER;
static int connections, statements, lookups;

static void *t1(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&k);   /* s01 */
    pthread_mutex_unlock(&k); /* s02 */
    pthread_mutex_lock(&s);   /* s03 */
    pthread_mutex_lock(&n);   /* s04 */
    pthread_mutex_unlock(&n); /* s05 */
    pthread_mutex_lock(&p);   /* s06 */
    connections++;            /* s07 */
    pthread_mutex_lock(&n);   /* s08  BUG: blocks if t2 holds n */
    statements++;
    pthread_mutex_unlock(&n);
    pthread_mutex_unlock(&p);
    pthread_mutex_unlock(&s);
    return NULL;
}

static void *t2(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&k);   /* s09 */
    lookups++;                /* s10 */
    pthread_mutex_unlock(&k); /* s11 */
    int seen = lookups;       /* s12 */
    pthread_mutex_lock(&s);   /* s13 */
    pthread_mutex_unlock(&s); /* s14 */
    pthread_mutex_lock(&n);   /* s15 */
    pthread_mutex_lock(&p);   /* s16  BUG: blocks if t1 holds p */
    connections += seen > 0;
    pthread_mutex_unlock(&p);
    pthread_mutex_unlock(&n);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, t1, NULL);
    pthread_create(&b, NULL, t2, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("connections = %d, statements = %d, lookups = %d\n", connections,
           statements, lookups);
    return connections == 2 && statements == 1 && lookups == 1 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
