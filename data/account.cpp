/* account.cpp - a C++ single-variable atomicity violation: an Account
 * class whose methods each lock its mutex (RAII guard), used by callers
 * that check the balance with one call and withdraw with another.
 *
 * Kind: atomicity-single (race-free: every access holds the account's
 * mutex).  Variable: Account::balance_.  Two withdrawals can both pass the
 * check (first BUG line) before either debits (second BUG line).
 * Failure: assert(acct.balance() >= 0) in main (abort).
 * Natural run: usually passes (one withdrawal completes first).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

namespace {

class Guard {
public:
    explicit Guard(pthread_mutex_t &m) : m_(m) { pthread_mutex_lock(&m_); }
    ~Guard() { pthread_mutex_unlock(&m_); }
    Guard(const Guard &) = delete;
    Guard &operator=(const Guard &) = delete;

private:
    pthread_mutex_t &m_;
};

class Account {
public:
    explicit Account(long initial) : balance_(initial)
    {
        pthread_mutex_init(&mu_, nullptr);
    }
    ~Account() { pthread_mutex_destroy(&mu_); }
    long balance()
    {
        Guard g(mu_);
        return balance_; // BUG: checked under the lock ...
    }
    void withdraw(long amount)
    {
        Guard g(mu_);
        balance_ -= amount; // BUG: ... debited under it again, later
    }

private:
    pthread_mutex_t mu_;
    long balance_;
};

Account acct(100);

void *spend(void *arg)
{
    long amount = *static_cast<const long *>(arg);
    if (acct.balance() >= amount)
        acct.withdraw(amount);
    return nullptr;
}

} // namespace

int main()
{
    static const long amount = 60;
    pthread_t a, b;
    pthread_create(&a, nullptr, spend, const_cast<long *>(&amount));
    pthread_create(&b, nullptr, spend, const_cast<long *>(&amount));
    pthread_join(a, nullptr);
    pthread_join(b, nullptr);
    printf("balance = %ld\n", acct.balance());
    assert(acct.balance() >= 0);
    return 0;
}
/* SPDX-License-Identifier: MIT */
