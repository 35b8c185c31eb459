// wsdeque.cpp - a Chase-Lev work-stealing deque (C++ std::atomic, CAS on
// top) with one owner and two thieves: the owner pushes ITEMS tasks at the
// bottom and pops them back, the thieves steal from the top; every task is
// run exactly once.  The slots are plain memory written by the owner and
// read by whoever takes the task (published by the seq_cst stores of
// bottom).  Each task adds to a per-thread tally and marks its slot of
// `taken` (the test's own check).
// The shape of the 2 528-event 3-thread CAS work-stealing queue
// (issue 16, bench/predict).
// Usage: wsdeque [ITEMS]  (default 64).  Exit 1 when a task ran twice or
// never.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>

namespace {

constexpr long kCap = 1 << 12;

class Deque {
public:
    void push(long v)
    {
        long b = bottom_.load();
        slot_[b % kCap] = v;
        bottom_.store(b + 1);
    }
    // the owner: -1 when empty
    long pop()
    {
        long b = bottom_.load() - 1;
        bottom_.store(b);
        long t = top_.load();
        if (t > b) {
            bottom_.store(b + 1);
            return -1;
        }
        long v = slot_[b % kCap];
        if (t == b) {
            if (!top_.compare_exchange_strong(t, t + 1))
                v = -1;
            bottom_.store(b + 1);
        }
        return v;
    }
    // a thief: -1 when empty, -2 when it lost a race
    long steal()
    {
        long t = top_.load();
        long b = bottom_.load();
        if (t >= b)
            return -1;
        long v = slot_[t % kCap];
        if (!top_.compare_exchange_strong(t, t + 1))
            return -2;
        return v;
    }

private:
    std::atomic<long> top_{0}, bottom_{0};
    long slot_[kCap];
};

Deque dq;
std::atomic<int> done{0};
long items = 64;
int *taken;
long tally[3];

void run_task(int who, long v)
{
    taken[v]++;
    tally[who] += v;
}

void *thief(void *arg)
{
    int who = (int)(long)arg;
    while (!done.load()) {
        long v = dq.steal();
        if (v >= 0)
            run_task(who, v);
    }
    for (long v; (v = dq.steal()) != -1;)
        if (v >= 0)
            run_task(who, v);
    return nullptr;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1)
        items = atol(argv[1]);
    if (items < 1 || items > kCap)
        return 2;
    taken = static_cast<int *>(calloc(items, sizeof *taken));
    pthread_t th[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&th[i], nullptr, thief, reinterpret_cast<void *>(i + 1));
    for (long i = 0; i < items; i++) {
        dq.push(i);
        if (i % 4 == 3) // run some of its own work as it goes
            for (int k = 0; k < 2; k++) {
                long v = dq.pop();
                if (v >= 0)
                    run_task(0, v);
            }
    }
    for (long v; (v = dq.pop()) != -1;)
        run_task(0, v);
    done.store(1);
    for (auto &t : th)
        pthread_join(t, nullptr);
    int bad = 0;
    for (long i = 0; i < items; i++)
        bad += taken[i] != 1;
    std::printf("%ld tasks, %d run other than once; tallies %ld %ld %ld\n",
                items, bad, tally[0], tally[1], tally[2]);
    free(taken);
    return bad ? 1 : 0;
}
/* SPDX-License-Identifier: MIT */
