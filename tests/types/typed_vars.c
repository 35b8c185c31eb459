/* SPDX-License-Identifier: MIT */
/* typed_vars.c - memory whose names and values the trace's TYPES chunk
 * must carry (tests/types/types.sh): a global struct with a nested
 * struct and an array, an array of longs, a bool, an enum, a double, a
 * char, and a heap struct a worker updates through `pool->completed`
 * and through a cast, `((struct pool *)arg)->load`.
 * main reads pool->completed and colour while the worker may write them
 * (data races analyze names). */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

enum colour { RED, GREEN = 5, BLUE = -2 };

struct inner {
    int flag;
    long count;
};

struct global_state {
    char tag;
    struct inner inner;
    short hist[4];
};

struct pool {
    long submitted;
    long completed;
    double load;
};

struct global_state g;
long arr[6];
bool ready;
enum colour colour = GREEN;
double ratio;

static void *worker(void *arg)
{
    struct pool *pool = arg;
    pool->completed += 3;
    ((struct pool *)arg)->load = 0.75; /* named through the cast */
    arr[3] = -42;
    colour = RED;
    return NULL;
}

int main(void)
{
    struct pool *pool = calloc(1, sizeof *pool);
    pthread_t t;
    g.tag = 'Q';
    g.inner.count = -7;
    g.hist[2] = 300;
    ready = true;
    colour = BLUE;
    ratio = 2.5;
    pool->submitted = 4;
    pthread_create(&t, NULL, worker, pool);
    long seen = pool->completed;       /* races with the worker */
    enum colour now = colour;          /* so does this */
    pthread_join(t, NULL);
    printf("seen %ld %d\n", seen, (int)now);
    printf("%ld %ld %d %d %g %ld %d\n", pool->completed, arr[3],
           (int)ready, (int)colour, ratio, g.inner.count, g.hist[2]);
    free(pool);
    return 0;
}
