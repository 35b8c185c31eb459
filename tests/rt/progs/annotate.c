/* annotate.c - a deposit bracketed by foretell_atomic_begin/end (recorder/
 * foretell.h): recorded as REGION_BEGIN/REGION_END (run_rt_test.sh). */
#include <foretell.h>
#include <pthread.h>
static int balance, history[8], n;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *deposit(void *p)
{
    (void)p;
    foretell_atomic_begin();
    pthread_mutex_lock(&m);
    int b = balance;
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    balance = b + 10;
    history[n++ & 7] = 10;
    pthread_mutex_unlock(&m);
    foretell_atomic_end();
    return 0;
}
int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, deposit, 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    return balance == 20 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
