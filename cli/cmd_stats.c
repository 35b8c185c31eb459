/* SPDX-License-Identifier: MIT */
/* cmd_stats.c - `foretell stats`: what a trace contains, in one screen:
 * events by kind and by thread, sync objects by kind, shared variables
 * (addresses touched by two or more threads - the candidates for the
 * analysis), sites, heap objects, and whether the run ended cleanly.
 * Streams the trace once; memory grows with distinct addresses only. */
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "recorder/heapmap.h"
#include "recorder/trace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const ft_opt stats_opts[] = {
    {"json", 0, NULL, "print one JSON object"},
    {NULL, 0, NULL, NULL},
};

/* A u64-keyed open-addressing table; vals are three counters a user of
 * the table interprets. */
typedef struct slot {
    uint64_t key;
    uint64_t a, b, c;
    ft_heap_obj heap; /* vars: the heap object at the first access */
    uint32_t site;    /* vars: the first access's site and size */
    uint16_t size;
    uint8_t used;
} slot;

typedef struct table {
    slot *s;
    size_t cap, n;
} table;

static size_t mix(uint64_t k)
{
    k ^= k >> 31;
    k *= 0x9e3779b97f4a7c15ull;
    return (size_t)(k ^ (k >> 29));
}

static slot *get(table *t, uint64_t key, int *is_new)
{
    if ((t->n + 1) * 4 > t->cap * 3) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        slot *n = calloc(cap, sizeof *n);
        if (!n)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->s[i].used)
                continue;
            size_t j = mix(t->s[i].key) & (cap - 1);
            while (n[j].used)
                j = (j + 1) & (cap - 1);
            n[j] = t->s[i];
        }
        free(t->s);
        t->s = n;
        t->cap = cap;
    }
    size_t i = mix(key) & (t->cap - 1);
    while (t->s[i].used && t->s[i].key != key)
        i = (i + 1) & (t->cap - 1);
    *is_new = !t->s[i].used;
    if (*is_new) {
        t->s[i] = (slot){.key = key, .used = 1};
        t->n++;
    }
    return &t->s[i];
}

enum sync_kind { S_MUTEX, S_RWLOCK, S_COND, S_SEM, S_BARRIER, S_ONCE, S_N };
static const char *const sync_names[S_N] = {"mutex", "rwlock", "cond",
                                            "sem", "barrier", "once"};

typedef struct stats {
    uint64_t by_kind[FT_EV_KIND_MAX + 1];
    uint64_t events;
    table threads; /* tid -> a = events */
    table sync;    /* obj -> a = sync_kind */
    uint64_t sync_by_kind[S_N];
    table vars;    /* addr -> a = first tid, b = shared flag, c = accesses */
    uint64_t mallocs, heap_bytes;
    ft_heapmap *heap;
    int oom;
} stats;

static int sync_kind_of(unsigned k)
{
    switch (k) {
    case FT_EV_MUTEX_INIT: case FT_EV_MUTEX_LOCK: case FT_EV_MUTEX_UNLOCK:
    case FT_EV_MUTEX_DESTROY:
        return S_MUTEX;
    case FT_EV_RW_RDLOCK: case FT_EV_RW_WRLOCK: case FT_EV_RW_UNLOCK:
    case FT_EV_RW_DESTROY:
        return S_RWLOCK;
    case FT_EV_COND_WAIT: case FT_EV_COND_WAKE: case FT_EV_COND_SIGNAL:
    case FT_EV_COND_BROADCAST:
        return S_COND;
    case FT_EV_SEM_INIT: case FT_EV_SEM_POST: case FT_EV_SEM_WAIT:
        return S_SEM;
    case FT_EV_BARRIER_INIT: case FT_EV_BARRIER_ARRIVE:
    case FT_EV_BARRIER_LEAVE:
        return S_BARRIER;
    case FT_EV_ONCE_ENTER: case FT_EV_ONCE_DONE:
        return S_ONCE;
    default:
        return -1;
    }
}

static int is_access(unsigned k)
{
    return (k >= FT_EV_READ && k <= FT_EV_WRITE_WIDE) ||
           (k >= FT_EV_ATOMIC_LOAD && k <= FT_EV_ATOMIC_CAS);
}

static void note_sync(stats *st, uint64_t obj, int kind)
{
    int fresh;
    slot *s = get(&st->sync, obj, &fresh);
    if (!s) {
        st->oom = 1;
        return;
    }
    if (fresh) {
        s->a = (uint64_t)kind;
        st->sync_by_kind[kind]++;
    }
}

static void add_event(stats *st, const ft_event *ev)
{
    int fresh;
    st->events++;
    st->by_kind[ev->kind]++;
    slot *t = get(&st->threads, ev->tid, &fresh);
    if (!t) {
        st->oom = 1;
        return;
    }
    t->a++;
    int sk = sync_kind_of(ev->kind);
    if (sk >= 0) {
        note_sync(st, ev->addr, sk);
        if (ev->kind == FT_EV_COND_WAIT || ev->kind == FT_EV_COND_WAKE)
            note_sync(st, ev->obj2, S_MUTEX);
    } else if (is_access(ev->kind)) {
        slot *v = get(&st->vars, ev->addr, &fresh);
        if (!v) {
            st->oom = 1;
            return;
        }
        if (fresh) {
            v->a = ev->tid;
            v->site = ev->site;
            v->size = ev->size;
            const ft_heap_obj *o = ft_heapmap_find(st->heap, ev->addr);
            if (o)
                v->heap = *o;
        } else if (v->a != ev->tid)
            v->b = 1;
        v->c++;
    } else if (ev->kind == FT_EV_MALLOC || ev->kind == FT_EV_REALLOC) {
        st->mallocs++;
        st->heap_bytes += ev->value;
    }
    if (ft_heapmap_update(st->heap, ev) < 0)
        st->oom = 1;
}

static void shared_totals(const stats *st, uint64_t *vars, uint64_t *acc)
{
    *vars = *acc = 0;
    for (size_t i = 0; i < st->vars.cap; i++)
        if (st->vars.s[i].used && st->vars.s[i].b) {
            (*vars)++;
            *acc += st->vars.s[i].c;
        }
}

/* Most accessed first, then by address: the variables worth a look. */
static int by_accesses(const void *a, const void *b)
{
    const slot *x = a, *y = b;
    if (x->c != y->c)
        return x->c > y->c ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* The shared variables (touched by two or more threads), sorted. */
static slot *sorted_shared(const stats *st, size_t *n)
{
    slot *v = malloc((st->vars.n + 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < st->vars.cap; i++)
        if (st->vars.s[i].used && st->vars.s[i].b)
            v[(*n)++] = st->vars.s[i];
    qsort(v, *n, sizeof *v, by_accesses);
    return v;
}

/* A global by its data symbol (and member: TYPES), a heap member as the
 * first access's line names it ("pool->completed"), a heap object by
 * allocation site and count, else NULL. */
static const char *var_name(const ft_reader *r, const slot *v, char *buf,
                            size_t len)
{
    if (ft_reader_mem_name(r, v->key, v->size, buf, len, NULL))
        return buf;
    if ((v->heap.site || v->heap.count) &&
        ft_reader_heap_name(r, v->site, v->heap.addr, v->heap.size, v->key,
                            v->size, buf, len, NULL))
        return buf;
    if (v->heap.site || v->heap.count) {
        char obj[240];
        ft_heap_obj_name(r, &v->heap, v->key, obj, sizeof obj);
        snprintf(buf, len, "heap@%s", obj);
        return buf;
    }
    return NULL;
}

#define TEXT_SHARED 10 /* shared variables listed in text; JSON has all */

static int by_key(const void *a, const void *b)
{
    const slot *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Threads sorted by tid (the table is small: one slot per thread). */
static slot *sorted_threads(const stats *st, size_t *n)
{
    slot *v = malloc((st->threads.n + 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < st->threads.cap; i++)
        if (st->threads.s[i].used)
            v[(*n)++] = st->threads.s[i];
    qsort(v, *n, sizeof *v, by_key);
    return v;
}

static uint32_t symbolised_sites(const ft_reader *r)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ft_reader_nsites(r); i++) {
        const ft_site *s = ft_reader_site_at(r, i);
        n += s->function || s->file;
    }
    return n;
}

/* Sites whose straight-line span is known (STRAIGHT: how far prediction
 * lets a thread go on after a read that returned another value). */
static uint32_t spanned_sites(const ft_reader *r)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ft_reader_nsites(r); i++)
        n += ft_reader_site_at(r, i)->straight != 0;
    return n;
}

static const char *ending(const ft_reader *r, int damaged)
{
    if (damaged)
        return "damaged";
    return ft_reader_end(r)->present ? "end" : "cut";
}

static void print_text(const stats *st, const ft_reader *r, const char *path,
                       int damaged)
{
    const ft_header *h = ft_reader_header(r);
    const ft_end *e = ft_reader_end(r);
    uint64_t svars, sacc;
    char how[160];
    shared_totals(st, &svars, &sacc);
    printf("trace:            %s\n", path);
    printf("program:          %s", h->program);
    for (uint32_t i = 1; i < h->argc; i++)
        printf(" %s", h->argv[i]);
    printf("\nevents:           %" PRIu64 "\n", st->events);
    if (damaged)
        printf("ended:            damaged (see the warning below)\n");
    else if (e->present)
        printf("ended:            %s\n",
               ft_status_text(e->reason, e->exit_status, how, sizeof how));
    else
        printf("ended:            cut (no END chunk: the run was killed or "
               "is still running)\n");
    printf("threads:          %zu\n", st->threads.n);
    printf("sync objects:     %zu", st->sync.n);
    const char *sep = " (";
    for (int k = 0; k < S_N; k++)
        if (st->sync_by_kind[k]) {
            printf("%s%s %" PRIu64, sep, sync_names[k], st->sync_by_kind[k]);
            sep = ", ";
        }
    printf("%s\n", st->sync.n ? ")" : "");
    printf("addresses:        %zu accessed, %" PRIu64 " by more than one "
           "thread (%" PRIu64 " accesses to those)\n", st->vars.n, svars,
           sacc);
    printf("sites:            %u (%u symbolised, %u with code spans)\n",
           ft_reader_nsites(r), symbolised_sites(r), spanned_sites(r));
    printf("heap objects:     %" PRIu64 " allocated (%" PRIu64 " bytes), "
           "peak %" PRIu64 " live\n", st->mallocs, st->heap_bytes,
           ft_heapmap_peak(st->heap));
    printf("events by kind:\n");
    for (unsigned k = 0; k <= FT_EV_KIND_MAX; k++)
        if (st->by_kind[k])
            printf("  %-16s %" PRIu64 "\n", ft_kind_name(k), st->by_kind[k]);
    size_t nt;
    slot *t = sorted_threads(st, &nt);
    printf("events by thread:\n");
    for (size_t i = 0; t && i < nt; i++)
        printf("  t%-15" PRIu64 " %" PRIu64 "\n", t[i].key, t[i].a);
    free(t);
    size_t ns;
    slot *sv = sorted_shared(st, &ns);
    if (sv && ns)
        printf("shared variables (most accessed first):\n");
    char name[256];
    for (size_t i = 0; sv && i < ns && i < TEXT_SHARED; i++) {
        const char *n = var_name(r, &sv[i], name, sizeof name);
        printf("  0x%-14" PRIx64 " %6" PRIu64 " accesses  %s\n", sv[i].key,
               sv[i].c, n ? n : "");
    }
    if (ns > TEXT_SHARED)
        printf("  ... %zu more (--json lists all)\n", ns - TEXT_SHARED);
    free(sv);
}

static void print_json(const stats *st, const ft_reader *r, const char *path,
                       int damaged)
{
    const ft_header *h = ft_reader_header(r);
    const ft_end *e = ft_reader_end(r);
    uint64_t svars, sacc;
    shared_totals(st, &svars, &sacc);
    ft_json j;
    ft_json_init(&j, stdout);
    ft_json_begin_object(&j);
    ft_json_kstr(&j, "trace", path);
    ft_json_kstr(&j, "program", h->program);
    ft_json_key(&j, "argv");
    ft_json_begin_array(&j);
    for (uint32_t i = 0; i < h->argc; i++)
        ft_json_str(&j, h->argv[i]);
    ft_json_end_array(&j);
    ft_json_kuint(&j, "events", st->events);
    ft_json_kstr(&j, "ended", ending(r, damaged));
    if (e->present) {
        /* The raw waitpid status decoded: exit code or signal. */
        char how[160];
        int64_t ws = e->exit_status;
        int known = ws >= 0 && ws <= 0xffff;
        ft_json_kstr(&j, "end_reason", e->reason);
        ft_json_kstr(&j, "status",
                     ft_status_text(e->reason, ws, how, sizeof how));
        if (known && WIFEXITED((int)ws))
            ft_json_kint(&j, "exit_code", WEXITSTATUS((int)ws));
        if (known && WIFSIGNALED((int)ws)) {
            char name[32];
            ft_json_kint(&j, "signal", WTERMSIG((int)ws));
            ft_json_kstr(&j, "signal_name",
                         ft_signal_name(WTERMSIG((int)ws), name,
                                        sizeof name));
        }
        ft_json_kint(&j, "wait_status", ws);
    }
    ft_json_kuint(&j, "threads", st->threads.n);
    ft_json_key(&j, "sync_objects");
    ft_json_begin_object(&j);
    ft_json_kuint(&j, "total", st->sync.n);
    for (int k = 0; k < S_N; k++)
        ft_json_kuint(&j, sync_names[k], st->sync_by_kind[k]);
    ft_json_end_object(&j);
    ft_json_kuint(&j, "addresses", st->vars.n);
    ft_json_kuint(&j, "shared_addresses", svars);
    ft_json_kuint(&j, "shared_accesses", sacc);
    ft_json_kuint(&j, "sites", ft_reader_nsites(r));
    ft_json_kuint(&j, "sites_symbolised", symbolised_sites(r));
    ft_json_kuint(&j, "sites_with_spans", spanned_sites(r));
    ft_json_kuint(&j, "heap_objects", st->mallocs);
    ft_json_kuint(&j, "heap_bytes", st->heap_bytes);
    ft_json_kuint(&j, "heap_peak_live", ft_heapmap_peak(st->heap));
    ft_json_key(&j, "by_kind");
    ft_json_begin_object(&j);
    for (unsigned k = 0; k <= FT_EV_KIND_MAX; k++)
        if (st->by_kind[k])
            ft_json_kuint(&j, ft_kind_name(k), st->by_kind[k]);
    ft_json_end_object(&j);
    ft_json_key(&j, "by_thread");
    ft_json_begin_object(&j);
    size_t nt;
    slot *t = sorted_threads(st, &nt);
    for (size_t i = 0; t && i < nt; i++) {
        char key[32];
        snprintf(key, sizeof key, "%" PRIu64, t[i].key);
        ft_json_kuint(&j, key, t[i].a);
    }
    free(t);
    ft_json_end_object(&j);
    ft_json_key(&j, "shared_variables");
    ft_json_begin_array(&j);
    size_t ns;
    slot *sv = sorted_shared(st, &ns);
    char name[256];
    for (size_t i = 0; sv && i < ns; i++) {
        ft_json_begin_object(&j);
        ft_json_khex(&j, "address", sv[i].key);
        ft_json_kstr(&j, "name", var_name(r, &sv[i], name, sizeof name));
        ft_json_kuint(&j, "accesses", sv[i].c);
        ft_json_end_object(&j);
    }
    free(sv);
    ft_json_end_array(&j);
    ft_json_end_object(&j);
    ft_json_line(&j);
}

int cmd_stats(int argc, char **argv)
{
    ft_optparse p;
    ft_opt_init(&p, "foretell stats", argc, argv);
    const char *path = NULL, *v;
    int json = 0, k;
    while ((k = ft_opt_next(&p, stats_opts, &v)) != FT_OPT_END) {
        if (k == FT_OPT_HELP) {
            ft_opt_usage(stdout, "foretell stats TRACE [--json]",
                         "Summarises TRACE: events by kind and thread, sync "
                         "objects, shared variables by name, sites, heap objects, "
                         "and how the run ended.", stats_opts);
            return FT_EXIT_OK;
        }
        if (k == FT_OPT_ERROR)
            return FT_EXIT_BAD_INPUT;
        if (k == 0) {
            json = 1;
            continue;
        }
        if (k == FT_OPT_DASHDASH) {
            if (p.i >= p.argc)
                continue;
            v = p.argv[p.i++];
        }
        if (path) {
            fprintf(stderr, "foretell stats: unexpected argument '%s'\n", v);
            return FT_EXIT_BAD_INPUT;
        }
        path = v;
    }
    if (!path) {
        fprintf(stderr, "foretell stats: missing TRACE (see 'foretell stats "
                "--help')\n");
        return FT_EXIT_BAD_INPUT;
    }
    ft_reader *r = ft_cli_open_trace(path);
    if (!r)
        return FT_EXIT_BAD_INPUT;
    stats *st = calloc(1, sizeof *st);
    if (st)
        st->heap = ft_heapmap_new();
    if (!st || !st->heap) {
        fprintf(stderr, "foretell stats: out of memory\n");
        ft_reader_close(r);
        free(st);
        return FT_EXIT_INTERNAL;
    }
    ft_event ev;
    while (!st->oom && ft_reader_next(r, &ev) == 1)
        add_event(st, &ev);
    int rc = FT_EXIT_OK;
    if (st->oom) {
        fprintf(stderr, "foretell stats: out of memory\n");
        rc = FT_EXIT_INTERNAL;
    } else {
        int damaged = ft_reader_damage(r, NULL);
        if (json)
            print_json(st, r, path, damaged);
        else
            print_text(st, r, path, damaged);
        rc = ft_cli_finish_trace(r, path, FT_EXIT_OK);
    }
    free(st->threads.s);
    free(st->sync.s);
    free(st->vars.s);
    ft_heapmap_free(st->heap);
    free(st);
    ft_reader_close(r);
    return rc;
}
