/* psort.c - a parallel quicksort: worker threads take ranges from a work
 * list guarded by a mutex and a condition variable, partition them in
 * place, push the larger half back and go on with the smaller; ranges of
 * at most 8 elements are insertion-sorted.  `outstanding` counts ranges
 * not yet finished; the worker that brings it to zero wakes the others.
 * The shape of the 1 677-event quicksort (issue 16,
 * bench/predict).
 * Usage: psort [N [WORKERS]]  (default 48 elements, 3 workers).  Exit 1
 * when the result is not sorted. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct range {
    int lo, hi; /* [lo, hi) */
} range;

static int *a;
static range *work;
static int nwork, outstanding;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void push(int lo, int hi)
{
    pthread_mutex_lock(&mu);
    work[nwork++] = (range){lo, hi};
    outstanding++;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

static void finished(void)
{
    pthread_mutex_lock(&mu);
    if (--outstanding == 0)
        pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static int partition(int lo, int hi)
{
    int pivot = a[(lo + hi) / 2], i = lo, j = hi - 1;
    while (i <= j) {
        while (a[i] < pivot)
            i++;
        while (a[j] > pivot)
            j--;
        if (i <= j) {
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
    }
    return i;
}

static void sort_range(int lo, int hi)
{
    while (hi - lo > 8) {
        int m = partition(lo, hi);
        if (m - lo > hi - m) {
            push(lo, m);
            lo = m;
        } else {
            push(m, hi);
            hi = m;
        }
    }
    for (int i = lo + 1; i < hi; i++)
        for (int j = i; j > lo && a[j - 1] > a[j]; j--) {
            int t = a[j];
            a[j] = a[j - 1];
            a[j - 1] = t;
        }
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&mu);
        while (nwork == 0 && outstanding > 0)
            pthread_cond_wait(&cv, &mu);
        if (nwork == 0) {
            pthread_mutex_unlock(&mu);
            return NULL;
        }
        range r = work[--nwork];
        pthread_mutex_unlock(&mu);
        sort_range(r.lo, r.hi);
        finished();
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 48;
    int nworkers = argc > 2 ? atoi(argv[2]) : 3;
    a = malloc(sizeof *a * (size_t)n);
    work = malloc(sizeof *work * (size_t)(n + 1));
    unsigned x = 12345;
    for (int i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        a[i] = (int)(x >> 16) % 1000;
    }
    push(0, n);
    pthread_t *th = malloc(sizeof *th * (size_t)nworkers);
    for (int i = 0; i < nworkers; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < nworkers; i++)
        pthread_join(th[i], NULL);
    int ok = 1;
    for (int i = 1; i < n; i++)
        ok &= a[i - 1] <= a[i];
    printf("%d elements %s\n", n, ok ? "sorted" : "NOT sorted");
    free(a);
    free(work);
    free(th);
    return ok ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
