/* SPDX-License-Identifier: MIT */
/* context.c - the Z3 context an encoding is built in, kept per thread and
 * handed to the thread's next encoding.  An analysis builds one encoding
 * per property it solves, and creating a context costs Z3 ~2 ms (it
 * allocates and fills an 8 MB table): a tenth of a small property's whole
 * solve.  Under ASan every such table lands on fresh pages and a context
 * costs ~110 ms, which made the sanitized oracle tests the slowest part of
 * CI.  A context keeps every term made in it until it is deleted, so one
 * is reused only while it is small (a bounded number of encodings and of
 * Z3's memory) and only if nothing went wrong in it: an error, an
 * interrupt (smt/check.c) or an unknown result retire it. */
#include "smt/smt.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Encodings per context before it is replaced. */
#define FT_SMT_CONTEXT_USES 32u
/* Z3's memory (all contexts of the process) above which a context is not
 * kept: a quarter of the high watermark order.c gives it by default. */
#define FT_SMT_CONTEXT_KEEP_BYTES (32ull << 20)

typedef struct kept {
    Z3_context z;
    unsigned uses;
} kept;

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;

/* A thread that ends deletes the context it kept. */
static void drop_kept(void *p)
{
    kept *k = p;
    if (k->z)
        Z3_del_context(k->z);
    free(k);
}

static void make_key(void)
{
    key_ok = pthread_key_create(&key, drop_kept) == 0;
}

static kept *this_thread(void)
{
    pthread_once(&key_once, make_key);
    if (!key_ok)
        return NULL;
    kept *k = pthread_getspecific(key);
    if (!k && (k = calloc(1, sizeof *k)) && pthread_setspecific(key, k)) {
        free(k);
        k = NULL;
    }
    return k;
}

static Z3_context fresh(void)
{
    Z3_config cfg = Z3_mk_config();
    if (!cfg)
        return NULL;
    Z3_set_param_value(cfg, "model", "true");
    Z3_context z = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    if (z)
        Z3_set_error_handler(z, NULL);
    return z;
}

Z3_context ft_smt_context_take(void)
{
    kept *k = this_thread();
    if (k && k->z) {
        Z3_context z = k->z;
        k->z = NULL;
        return z;
    }
    if (k)
        k->uses = 0;
    return fresh();
}

void ft_smt_context_give(Z3_context z, int clean)
{
    if (!z)
        return;
    kept *k = this_thread();
    if (k && !k->z && clean && Z3_get_error_code(z) == Z3_OK &&
        ++k->uses < FT_SMT_CONTEXT_USES &&
        Z3_get_estimated_alloc_size() < FT_SMT_CONTEXT_KEEP_BYTES) {
        k->z = z;
        return;
    }
    if (k)
        k->uses = 0;
    Z3_del_context(z);
}
