/* SPDX-License-Identifier: MIT */
/* dense_bound.c - a lower bound for any recorder of dense.c: the same two
 * sweeps run at once, each thread encoding its own READ/WRITE events (the
 * runtime's bytes, recorder/encode.h) into private 1 MiB chunks that a
 * writer thread checksums (CRC-32C) and writes, as the runtime's writer
 * does.  No hooks, no baton, no ownership checks: what a parallel
 * recorder would still pay for the trace alone.  run.sh prints its time
 * beside libtsan's (docs/benchmarks.md).
 * Usage: dense_bound ROUNDS TRACE */
#define _GNU_SOURCE
#include "recorder/encode.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

uint32_t ft_crc32c(uint32_t crc, const void *data, size_t len);

#define N 4096
#define CHUNK (1u << 20)
#define SLOTS 64

static int table[N];
static long out[2][N];
static long rounds = 200;
static int fd;

/* The chunks handed to the writer, oldest first. */
static struct {
    uint8_t *buf[SLOTS];
    size_t len[SLOTS];
    unsigned head, tail;
    int done;
    pthread_mutex_t m;
    pthread_cond_t more, room;
} q = {.m = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER,
       .room = PTHREAD_COND_INITIALIZER};

static void submit(uint8_t *b, size_t n)
{
    pthread_mutex_lock(&q.m);
    while (q.head - q.tail >= SLOTS)
        pthread_cond_wait(&q.room, &q.m);
    q.buf[q.head % SLOTS] = b;
    q.len[q.head % SLOTS] = n;
    q.head++;
    pthread_cond_signal(&q.more);
    pthread_mutex_unlock(&q.m);
}

static void *writer(void *arg)
{
    (void)arg;
    uint32_t crc = 0;
    pthread_mutex_lock(&q.m);
    for (;;) {
        while (q.tail == q.head && !q.done)
            pthread_cond_wait(&q.more, &q.m);
        if (q.tail == q.head)
            break;
        unsigned k = q.tail % SLOTS;
        pthread_mutex_unlock(&q.m);
        crc ^= ft_crc32c(0, q.buf[k], q.len[k]);
        if (write(fd, q.buf[k], q.len[k]) != (ssize_t)q.len[k]) {
            perror("dense_bound: write");
            exit(1);
        }
        free(q.buf[k]);
        pthread_mutex_lock(&q.m);
        q.tail++;
        pthread_cond_signal(&q.room);
    }
    pthread_mutex_unlock(&q.m);
    return (void *)(uintptr_t)crc;
}

static uint8_t *new_chunk(void)
{
    uint8_t *b = malloc(CHUNK);
    if (!b) {
        perror("dense_bound");
        exit(1);
    }
    return b;
}

static void *sweep(void *arg)
{
    long id = (long)arg, sum = 0;
    uint8_t *b = new_chunk(), *p = b;
    uint64_t rreg = 0, wreg = 0; /* address registers, reset per chunk */
    for (long r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++) {
            if (p - b > (long)CHUNK - 2 * FT_EVENT_MAX_FIXED) {
                submit(b, (size_t)(p - b));
                b = p = new_chunk();
                rreg = wreg = 0;
            }
            int t = *(volatile int *)&table[i];
            p = ft_put_access(p, 1, 3, &rreg, (uintptr_t)&table[i], 4,
                              (uint32_t)t);
            sum += t ^ (int)r;
            out[id][i] = sum;
            p = ft_put_access(p, 2, 4, &wreg, (uintptr_t)&out[id][i], 8,
                              (uint64_t)sum);
        }
    submit(b, (size_t)(p - b));
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: dense_bound ROUNDS TRACE\n");
        return 2;
    }
    rounds = atol(argv[1]);
    fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(argv[2]);
        return 1;
    }
    for (int i = 0; i < N; i++)
        table[i] = i * 7 + 1;
    pthread_t w, t[2];
    pthread_create(&w, NULL, writer, NULL);
    for (long k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, sweep, (void *)k);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    pthread_mutex_lock(&q.m);
    q.done = 1;
    pthread_cond_signal(&q.more);
    pthread_mutex_unlock(&q.m);
    pthread_join(w, NULL);
    close(fd);
    printf("%ld\n", out[0][N - 1] + out[1][N - 1]);
    return 0;
}
