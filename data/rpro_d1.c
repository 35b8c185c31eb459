/* rpro_d1.c - deadlock d1 of RPro (Cai, Yang et al., figure 1): thread t1
 * takes m then n, thread t2 takes n then m; sites s01..s08 as in the
 * paper (labelled in the comments).
 *
 * Kind: deadlock, bug depth 2: acq m at s01 before acq m at s06, and acq
 * n at s05 before acq n at s02 (the BUG lines are the inner acquisitions
 * that block).
 * Failure: the program hangs (the recorder reports DEADLOCK).
 * Natural run: usually passes (t1's nested section is a few instructions).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;
static int done;

static void *t1(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);   /* s01 */
    pthread_mutex_lock(&n);   /* s02  BUG: blocks if t2 holds n */
    pthread_mutex_unlock(&n); /* s03 */
    pthread_mutex_unlock(&m); /* s04 */
    __atomic_add_fetch(&done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void *t2(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&n);   /* s05 */
    pthread_mutex_lock(&m);   /* s06  BUG: blocks if t1 holds m */
    pthread_mutex_unlock(&m); /* s07 */
    pthread_mutex_unlock(&n); /* s08 */
    __atomic_add_fetch(&done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, t1, NULL);
    pthread_create(&b, NULL, t2, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("done = %d\n", done);
    return done == 2 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
