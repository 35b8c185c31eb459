// cxx_condvar.cc - three std::threads take turns through a
// std::condition_variable (waits and notify_all inside libstdc++), then
// sleep with std::this_thread::sleep_for; main does a timed wait_for.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

static std::mutex m;
static std::condition_variable cv;
static int turn;
static long sum;

int main()
{
    std::vector<std::thread> ts;
    for (int k = 0; k < 3; k++)
        ts.emplace_back([k] {
            for (int r = 0; r < 20; r++) {
                std::unique_lock<std::mutex> l(m);
                cv.wait(l, [k] { return turn % 3 == k; });
                sum += k;
                turn++;
                cv.notify_all();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
    for (auto &t : ts)
        t.join();
    std::unique_lock<std::mutex> l(m);
    cv.wait_for(l, std::chrono::milliseconds(5));
    std::printf("sum=%ld turn=%d\n", sum, turn);
    return sum == 60 && turn == 60 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
