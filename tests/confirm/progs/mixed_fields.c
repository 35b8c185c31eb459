/* SPDX-License-Identifier: MIT */
/* mixed_fields.c - a status of two ints read whole: the reader copies it
 * in one 8-byte load, while a filler and a finisher set one field each
 * under the lock.  The finisher does not wait for the filler, so the
 * reader can see the status finished and empty, and aborts.  For
 * tests/confirm/mixed_fields.sh: only a model that knows the load covers
 * both fields (docs/ctm.md, "Mixed-size accesses") predicts that
 * interleaving from a passing run. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h> /* memcpy */

struct status {
    int len;
    int done;
};

static struct status st;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *reader(void *arg)
{
    (void)arg;
    struct status s;
    uint64_t word;
    pthread_mutex_lock(&mu);
    memcpy(&word, &st, sizeof word); /* one 8-byte load of both fields */
    pthread_mutex_unlock(&mu);
    memcpy(&s, &word, sizeof s);
    if (s.done && s.len == 0) {
        fprintf(stderr, "finished with nothing in it\n");
        abort();
    }
    return NULL;
}

static void *filler(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    st.len = 1;
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void *finisher(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    st.done = 1;
    pthread_mutex_unlock(&mu);
    return NULL;
}

int main(void)
{
    pthread_t r, f, d;
    st.len = 0; /* known values, whatever order the recording takes */
    st.done = 0;
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&f, NULL, filler, NULL);
    pthread_create(&d, NULL, finisher, NULL);
    pthread_join(r, NULL);
    pthread_join(f, NULL);
    pthread_join(d, NULL);
    printf("len %d done %d\n", st.len, st.done);
    return 0;
}
