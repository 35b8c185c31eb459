// cxx_threads.cc - C++: std::thread, std::mutex, new/delete and a
// thread_local with a destructor, built with foretell-c++.
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

static std::mutex m;
static long total;

struct Tally {
    long n = 0;
    ~Tally() { std::lock_guard<std::mutex> g(m); total += n; }
};
static thread_local Tally tally;

static void work(int k)
{
    for (int i = 0; i < 100; i++) {
        int *p = new int(k);
        tally.n += *p;
        delete p;
    }
}

int main()
{
    std::vector<std::thread> ts;
    for (int k = 1; k <= 3; k++)
        ts.emplace_back(work, k);
    for (auto &t : ts)
        t.join();
    std::printf("total=%ld\n", total);
    return total == 600 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
