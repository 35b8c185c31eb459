/* best_fig2.c - the running example of BEST (Ganai, ASE 2011, section IV,
 * figure 2): threads Ma and Mb, locks L1 and L2, condition S, shared x, y
 * and z, statements s1..s16 (labelled in the comments).
 *
 * Kind: atomicity-multi.  BEST infers the atomic regions {s2, s3} (z and
 * x updated together: x is a buffer sized and stamped by z), {s10} and
 * {s13} (y computed from z and x).  Executing Mb's s12 s13 between Ma's s2
 * and s3 (the alternate run "s6 s8 s1 s2 s12 s13 s3") violates {s2, s3}:
 * s13 reads the new z with the old x (BUG lines).
 * Failure: assert(y == 0) after s13 (abort).  In that schedule the run
 * would deadlock right after anyway (Ma holds L2 and wants L1 at s4, Mb
 * holds L1 and wants L2 at s14), as would "s1 .. s8 s12 s13" (the
 * paper's deadlock at 7a/8b), and running s6..s8 before s5 loses the
 * notify (mismatched wait/notify: Ma waits forever).
 * Natural run: passes (Ma runs s1..s5, Mb s6..s8, Ma s9..s11, Mb
 * s12..s16: the observed run of the paper).
 * Deviations from the paper: x is filled by make_buf() so that reading it
 * is defined and the violation is checkable (the paper calls malloc
 * directly); the assert after s13 is ours; Mb sleeps 2 ms before s6 and
 * before s12 so that the paper's observed order is also the natural order
 * natively and under recording (the paper's figure shows no sleeps; without
 * them a run usually loses the notify, or deadlocks at 7a/8b because Mb
 * takes L1 back at s12 before Ma can leave its wait).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t L1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t L2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t S = PTHREAD_COND_INITIALIZER;
static int z;
static char *x;
static int y;

static char *make_buf(int n)
{
    char *b = malloc((size_t)n);
    if (!b)
        abort();
    b[0] = (char)n;
    return b;
}

static void *thread_ma(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&L2);    /* s1 */
    z++;                        /* s2  BUG: region {s2, s3} starts */
    x = make_buf(z);            /* s3  BUG: x catches up with z */
    pthread_mutex_lock(&L1);    /* s4 */
    pthread_cond_wait(&S, &L1); /* s5 */
    pthread_mutex_unlock(&L2);  /* s9 */
    y = z - x[0];               /* s10 */
    pthread_mutex_unlock(&L1);  /* s11 */
    return NULL;
}

static void *thread_mb(void *arg)
{
    (void)arg;
    usleep(2000);
    pthread_mutex_lock(&L1);   /* s6 */
    pthread_cond_signal(&S);   /* s7 */
    pthread_mutex_unlock(&L1); /* s8 */
    usleep(2000);
    pthread_mutex_lock(&L1);   /* s12 */
    y = z - x[0];              /* s13  BUG: may see new z, old x */
    assert(y == 0);
    pthread_mutex_lock(&L2);   /* s14 */
    pthread_mutex_unlock(&L2); /* s15 */
    pthread_mutex_unlock(&L1); /* s16 */
    return NULL;
}

int main(void)
{
    z = 1;
    x = make_buf(z);
    pthread_t ma, mb;
    pthread_create(&ma, NULL, thread_ma, NULL);
    pthread_create(&mb, NULL, thread_mb, NULL);
    pthread_join(ma, NULL);
    pthread_join(mb, NULL);
    printf("z = %d, y = %d\n", z, y);
    return y == 0 && z == 2 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
