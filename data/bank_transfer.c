/* bank_transfer.c - race-free atomicity violation: the classic bank
 * account.  Every access to the balances holds `bank_lock`, but a
 * transfer reads the source balance in one critical section and debits it
 * in another, so two concurrent transfers can both pass the funds check.
 *
 * Kind: atomicity-racefree.  Variables: `balance[0]`, `balance[1]`.  The
 * intended atomic region spans read_balance() and debit() (BUG lines).
 * Failure: the source account goes negative: assert(balance[0] >= 0) in
 * main; the total stays right, so only the atomicity is broken.
 * Natural run: usually passes (one transfer finishes before the other
 * starts); under recording only a switch between the two critical
 * sections shows it.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define INITIAL 100
#define AMOUNT 80

static pthread_mutex_t bank_lock = PTHREAD_MUTEX_INITIALIZER;
static long balance[2] = {INITIAL, 0};

static long read_balance(int acct)
{
    pthread_mutex_lock(&bank_lock);
    long b = balance[acct]; /* BUG: checked in one critical section */
    pthread_mutex_unlock(&bank_lock);
    return b;
}

static void debit(int from, int to, long amount)
{
    pthread_mutex_lock(&bank_lock);
    balance[from] -= amount; /* BUG: debited in another */
    balance[to] += amount;
    pthread_mutex_unlock(&bank_lock);
}

static void *transfer(void *arg)
{
    long amount = *(const long *)arg;
    if (read_balance(0) >= amount)
        debit(0, 1, amount);
    return NULL;
}

int main(void)
{
    static const long amount = AMOUNT;
    pthread_t t1, t2;
    pthread_create(&t1, NULL, transfer, (void *)&amount);
    pthread_create(&t2, NULL, transfer, (void *)&amount);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("balances: %ld %ld\n", balance[0], balance[1]);
    assert(balance[0] + balance[1] == INITIAL);
    assert(balance[0] >= 0);
    return 0;
}
/* SPDX-License-Identifier: MIT */
