#!/bin/sh
# SPDX-License-Identifier: MIT
# wrapper_projects.sh - builds a small multi-file project with make and with
# CMake using CC=foretell-cc (the way users build their programs), checks
# that the result is instrumented and linked with foretell's runtime, and
# records it.  (tests/rt covers the wrapper's modes one by one: -c, link
# only, -o, -static, -pie, -shared.)
set -u
work=$FT_WORK/wrapper_projects
rm -rf "$work" && mkdir -p "$work/src" && cd "$work" || exit 1
CC=$FT_BIN/foretell-cc
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >src/queue.h <<'C'
int queue_run(int nthreads, int items);
C
cat >src/queue.c <<'C'
#include <pthread.h>
#include "queue.h"
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int next_item, total, limit;
static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&mu);
        int item = next_item < limit ? next_item++ : -1;
        if (item >= 0)
            total += item;
        pthread_mutex_unlock(&mu);
        if (item < 0)
            return 0;
    }
}
int queue_run(int nthreads, int items)
{
    pthread_t t[8];
    limit = items;
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], 0);
    return total;
}
C
cat >src/main.c <<'C'
#include <stdio.h>
#include "queue.h"
int main(void)
{
    int total = queue_run(3, 50);
    printf("total %d\n", total);
    return total == 50 * 49 / 2 ? 0 : 1;
}
C
cat >src/Makefile <<'M'
CFLAGS ?= -O1 -Wall
queue: main.o queue.o
	$(CC) $(LDFLAGS) -o $@ main.o queue.o -pthread
%.o: %.c queue.h
	$(CC) $(CFLAGS) -c -o $@ $<
M
cat >src/CMakeLists.txt <<'K'
cmake_minimum_required(VERSION 3.18)
project(queue C)
find_package(Threads REQUIRED)
add_library(queue STATIC queue.c)
add_executable(queue_main main.c)
target_link_libraries(queue_main PRIVATE queue Threads::Threads)
K

check() { # check BINARY: instrumented, our runtime, records a good trace
    bin=$1
    nm "$bin" | grep -q __tsan_read4 || fail "$bin has no instrumentation hooks"
    nm "$bin" | grep -q ' ft_\| __tsan_init' || fail "$bin lacks the runtime"
    ! ldd "$bin" 2>/dev/null | grep -q libtsan || fail "$bin links libtsan"
    "$bin" >/dev/null || fail "$bin failed natively"
    "$FT_BIN/foretell" record -o "$bin.ft" -- "$bin" >/dev/null 2>"$bin.err" ||
        fail "$bin failed under record: $(cat "$bin.err")"
    "$FT_BIN/foretell" check "$bin.ft" >/dev/null || fail "$bin.ft inconsistent"
    "$FT_BIN/foretell" dump "$bin.ft" >"$bin.dump" || fail "cannot dump $bin.ft"
    grep -q 'queue.c:' "$bin.dump" || fail "$bin.ft has no sites in queue.c"
    [ "$(grep -c thread_start "$bin.dump")" = 4 ] || fail "$bin.ft: not 4 threads"
}

# make, in the source tree
make -C src CC="$CC" >make.log 2>&1 || fail "make: $(tail -5 make.log)"
check "$work/src/queue"

# CMake, out of tree, CC from the environment as users set it
CC="$CC" cmake -S src -B cbuild >cmake.log 2>&1 || fail "cmake: $(tail -5 cmake.log)"
cmake --build cbuild >>cmake.log 2>&1 || fail "cmake build: $(tail -5 cmake.log)"
check "$work/cbuild/queue_main"
echo "ok: make and CMake projects built with foretell-cc"
