// vector_at.cc - std::vector::at out of range in a worker: the abort is
// raised inside libstdc++; it is reported at the line that calls at().
#include <cstdio>
#include <pthread.h>
#include <vector>

static std::vector<int> v(4);
static int idx = 4;

static void *worker(void *arg)
{
    int x = v.at(idx); // out of range
    std::printf("%d\n", x);
    return arg;
}

int main()
{
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    return 0;
}
/* SPDX-License-Identifier: MIT */
