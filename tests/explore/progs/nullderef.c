/* nullderef.c - a worker loads a null pointer (one line) and then
 * dereferences it (the next line): the failure is the second. */
#include <pthread.h>
#include <stdio.h>

struct node {
    int v;
    struct node *next;
};
static struct node a = {1, 0};
static struct node *head = &a;
static int sum;

static void *worker(void *arg)
{
    struct node *n = head->next;
    sum += n->v; /* the null dereference */
    return arg;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    printf("%d\n", sum);
    return 0;
}
/* SPDX-License-Identifier: MIT */
