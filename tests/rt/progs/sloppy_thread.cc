// sloppy_thread.cc - a C++ thread function without a return statement
// (undefined, but common): the instrumented build must behave as the
// native one does.
#include <cstdio>
#include <pthread.h>

static int g;

static void *run(void *)
{
    g++;
}

int main()
{
    pthread_t t;
    pthread_create(&t, nullptr, run, nullptr);
    pthread_join(t, nullptr);
    std::printf("g=%d\n", g);
    return 0;
}
/* SPDX-License-Identifier: MIT */
