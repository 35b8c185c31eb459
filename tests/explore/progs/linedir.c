/* linedir.c - generated code: #line names a grammar file that is not
 * there.  Reports must name this file and its own line. */
#include <assert.h>
#include <pthread.h>

static int x;
#line 100 "gen/missing_grammar.y"
static void *worker(void *arg)
{
    x++;
    return arg;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    assert(x == 2); /* always fails: physical line 19 */
    return 0;
}
/* SPDX-License-Identifier: MIT */
