/* vb_figures.c - the short programs of the variable- and thread-bounding
 * paper (Bindal, Bansal, Lal: "Variable and Thread Bounding for Systematic
 * Testing of Multithreaded Programs", figures 1-4 and 8-10).  The argument
 * picks the figure; each is a bug with context bound c, variable bound v
 * and thread bound t:
 *   1: c=0 v=0      T1 assert(a == 0) after T2's a++ (order only)
 *   2: c=1 v=1      T1 reads a twice, T2's a++ in between
 *   3: c=2 v=1      T1 reads a twice, between T2's a = 1 and a = 0
 *   4: c=2 v=2      T1 reads a, a, b; T2 writes a = 1, b = 1, b = 0
 *   8: c=0 v=0 t=3  T3 assert(a != 2) after T1's and T2's a++
 *   9: c=1 v=1 t=3  both increments between T1's two reads of a
 *  10: c=2 v=2 t=3  T2's a++ between T1's reads of a, and T3's b++ between
 *                   its reads of b
 * Kind: order-violation (1, 8), atomicity-single (2, 3, 9),
 * atomicity-multi (4, 10); every access is a data race (no locks), as in
 * the paper.  The BUG lines ("BUG: fig N") are the checking thread's
 * reads for figure N.
 * Failure: assert in the checking thread (abort).
 * Natural run: passes (the checking thread is created first and is
 * done before the writers start).
 * Deviations: figure 9's assertion reads "t1 <= t2 + 1" in the paper,
 * which cannot fail; the bug it describes (both increments between the
 * reads) is assert(t2 <= t1 + 1), used here.  In figure 8 the checking
 * thread (the paper's T3) is created first.  a and b are volatile so that the
 * compiler keeps both reads of a variable.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int a, b;
static int figure;

static void *check_thread(void *arg)
{
    (void)arg;
    int t1, t2, t3, t4;
    switch (figure) {
    case 1:
        assert(a == 0); /* BUG: fig 1: fails after T2's a++ */
        break;
    case 2:
    case 3:
    case 9:
        t1 = a; /* BUG: fig 2, 3, 9: first read */
        t2 = a; /* BUG: fig 2, 3, 9: second read */
        if (figure == 9)
            assert(t2 <= t1 + 1);
        else
            assert(t1 == t2);
        break;
    case 4:
        t1 = a; /* BUG: fig 4: a before T2's a = 1 */
        t2 = a; /* BUG: fig 4: a after it */
        t3 = b; /* BUG: fig 4: b between b = 1 and b = 0 */
        assert(t1 == t2 || t3 != 1);
        break;
    case 8:
        assert(a != 2); /* BUG: fig 8: fails after both increments */
        break;
    case 10:
        t1 = a; /* BUG: fig 10: a before T2's a++ */
        t2 = a; /* BUG: fig 10: a after it */
        t3 = b; /* BUG: fig 10: b before T3's b++ */
        t4 = b; /* BUG: fig 10: b after it */
        assert(t1 == t2 || t3 == t4);
        break;
    }
    return NULL;
}

static void *writer_thread(void *arg)
{
    long which = (long)arg; /* 0: the paper's thread 2, 1: thread 3 */
    switch (figure) {
    case 1:
    case 2:
        a++;
        break;
    case 3:
        a = 1;
        a = 0;
        break;
    case 4:
        a = 1;
        b = 1;
        b = 0;
        break;
    case 8:
    case 9:
        a++; /* thread 1 and 2 of fig 8; thread 2 and 3 of fig 9 */
        break;
    case 10:
        if (which == 0)
            a++;
        else
            b++;
        break;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    figure = argc > 1 ? atoi(argv[1]) : 2;
    int nwriters;
    switch (figure) {
    case 1: case 2: case 3: case 4:
        nwriters = 1;
        break;
    case 8: case 9: case 10:
        nwriters = 2;
        break;
    default:
        fprintf(stderr, "vb_figures: no figure %d (1-4, 8-10)\n", figure);
        return 2;
    }
    pthread_t checker, writers[2];
    pthread_create(&checker, NULL, check_thread, NULL);
    for (long i = 0; i < nwriters; i++)
        pthread_create(&writers[i], NULL, writer_thread, (void *)i);
    pthread_join(checker, NULL);
    for (int i = 0; i < nwriters; i++)
        pthread_join(writers[i], NULL);
    printf("figure %d: a = %d, b = %d\n", figure, a, b);
    return 0;
}
/* SPDX-License-Identifier: MIT */
