/* SPDX-License-Identifier: MIT */
/* spin_after.c - a waiter that spins for good in code without a key
 * point once it has read 0: `while (!flag) ;` on a plain int, whose load
 * -O1 hoists out of the loop (the shape of SV-COMP qrcu-2's
 * `while (ctr2 > 0);`).  Main sets the flag right after creating the
 * waiter, which first does some work, so a recorded run reads 1 and
 * passes; the order finding "the waiter reads 0" is then replayed, and
 * the replay spins right after the witness's last step (the read).  The
 * harness must see that the run is past its schedule (its share of
 * --time applies, the other witnesses get theirs), though no key point
 * follows (tests/confirm/spin_after.sh). */
#include <pthread.h>

static int flag;
int work[64]; /* not static: the stores stay */

static void *waiter(void *arg)
{
    (void)arg;
    for (int i = 0; i < 64; i++) /* key points: main writes the flag */
        work[i] = i;
    while (!flag)
        ;
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    flag = 1;
    pthread_join(t, NULL);
    return 0;
}
