/* init_order.c - order violation (use before initialisation): main starts
 * the logger thread and only then publishes the configuration it uses.
 *
 * Kind: order-violation.  Variable: `config`.  The intended order is the
 * write in main (second BUG line) before the read in logger (first BUG
 * line); nothing enforces it.
 * Failure: assert(cfg != NULL) in logger (abort).
 * Natural run: usually passes (main runs on while the new thread starts);
 * recorded runs pass as long as main keeps running after pthread_create.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

struct log_config {
    int level;
    const char *prefix;
};

static struct log_config *config;
static int lines_logged;

static void *logger(void *arg)
{
    (void)arg;
    struct log_config *cfg = config; /* BUG: may run before main sets it */
    assert(cfg != NULL);
    if (cfg->level > 0)
        lines_logged++;
    return NULL;
}

int main(void)
{
    static struct log_config cfg = {1, "ex"};
    pthread_t t;
    pthread_create(&t, NULL, logger, NULL);
    config = &cfg; /* BUG: published only after the thread started */
    pthread_join(t, NULL);
    printf("logged %d line(s)\n", lines_logged);
    return lines_logged == 1 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
