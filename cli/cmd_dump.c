/* SPDX-License-Identifier: MIT */
/* cmd_dump.c - `foretell dump`: a trace as text, one event per line, or
 * as JSON Lines.  Heap addresses are also named by the allocation that
 * owns them (site#count+offset), which is what stays the same from run to
 * run; the reader streams, so dumping a huge trace costs no memory beyond
 * the live heap objects.  With the trace's TYPES, an access names the
 * member or element it touches ("balance[1]", "pool->completed") and its
 * values print by their type ("value=-5", "value=RED"). */
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "recorder/event_format.h"
#include "recorder/heapmap.h"
#include "recorder/trace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const ft_opt dump_opts[] = {
    {"json", 0, NULL, "one JSON object per line"},
    /* -T: -t is --time wherever else it appears */
    {"thread", 'T', "T", "only events of thread T"},
    {"kind", 'k', "K", "only events of kind K (read, mutex_lock, ...)"},
    {"max", 'n', "N", "print at most N events"},
    {"limit", 0, "N", NULL}, /* --max's old name, not listed */
    {NULL, 0, NULL, NULL},
};

enum { OPT_JSON, OPT_THREAD, OPT_KIND, OPT_LIMIT, OPT_LIMIT_OLD };

typedef struct dump_ctx {
    ft_reader *r;
    ft_heapmap *heap;
    int json;
    ft_json j;
    /* the event being printed, if a memory access: */
    const char *heap_name; /* its heap member's name ("pool->completed") */
    uint32_t type;         /* the type it reads or writes whole, 0 none */
    uint16_t size;
    char heap_buf[256];
} dump_ctx;

/* Value fields of accesses: what they print by the access's type. */
static int is_value_field(const char *name)
{
    return !strcmp(name, "value") || !strcmp(name, "old") ||
           !strcmp(name, "new") || !strcmp(name, "expected") ||
           !strcmp(name, "desired");
}

static int is_access(unsigned kind)
{
    return (kind >= FT_EV_READ && kind <= FT_EV_WRITE_WIDE) ||
           (kind >= FT_EV_ATOMIC_LOAD && kind <= FT_EV_ATOMIC_CAS);
}

/* What the TYPES chunk says the access ev touches (dump_ctx above). */
static void access_type(dump_ctx *d, const ft_event *ev)
{
    char buf[256];
    const ft_heap_obj *o;
    d->heap_name = NULL;
    d->type = 0;
    d->size = ev->size;
    if (!is_access(ev->kind))
        return;
    if ((o = ft_heapmap_find(d->heap, ev->addr)))
        d->heap_name = ft_reader_heap_name(d->r, ev->site, o->addr, o->size,
                                           ev->addr, ev->size, d->heap_buf,
                                           sizeof d->heap_buf, &d->type);
    else
        ft_reader_mem_name(d->r, ev->addr, ev->size, buf, sizeof buf,
                           &d->type);
}

/* A value field's typed text, NULL when the type is not known. */
static const char *typed(const dump_ctx *d, const ft_field *f, char *buf,
                         size_t len)
{
    return d->type && is_value_field(f->name)
               ? ft_reader_value_text(d->r, d->type, f->u, d->size, buf,
                                      len)
               : NULL;
}

/* Wide content in text form: at most this many bytes, then "...". */
#define TEXT_BYTES 32

static void text_field(dump_ctx *d, const ft_field *f)
{
    char buf[512];
    const ft_heap_obj *o;
    switch (f->type) {
    case FT_F_UINT:
        printf(" %s=%" PRIu64, f->name, f->u);
        break;
    case FT_F_INT:
        printf(" %s=%" PRId64, f->name, f->i);
        break;
    case FT_F_HEX:
        if (typed(d, f, buf, sizeof buf))
            printf(" %s=%s", f->name, buf);
        else
            printf(" %s=0x%" PRIx64, f->name, f->u);
        break;
    case FT_F_ADDR:
        printf(" %s=0x%" PRIx64, f->name, f->u);
        if ((o = ft_heapmap_find(d->heap, f->u)))
            printf("[%s%s%s]", d->heap_name ? d->heap_name : "",
                   d->heap_name ? ", " : "",
                   ft_heap_obj_name(d->r, o, f->u, buf, sizeof buf));
        else if (ft_reader_mem_name(d->r, f->u, d->size, buf, sizeof buf,
                                    NULL))
            printf("[%s]", buf);
        break;
    case FT_F_NAME:
        printf(" %s=%s", f->name, f->str);
        break;
    case FT_F_BYTES:
        if (!f->bytes) {
            printf(" %s=elided", f->name);
            break;
        }
        printf(" %s=", f->name);
        for (uint32_t i = 0; i < f->nbytes && i < TEXT_BYTES; i++)
            printf("%02x", f->bytes[i]);
        if (f->nbytes > TEXT_BYTES)
            printf("...");
        break;
    case FT_F_SITE:
        printf(" %s=%s", f->name, ft_site_format(d->r, (uint32_t)f->u, buf,
                                                 sizeof buf));
        break;
    }
}

static void json_field(dump_ctx *d, const ft_field *f)
{
    char buf[512];
    const ft_heap_obj *o;
    ft_json *j = &d->j;
    switch (f->type) {
    case FT_F_UINT: ft_json_kuint(j, f->name, f->u); break;
    case FT_F_INT: ft_json_kint(j, f->name, f->i); break;
    case FT_F_HEX:
        ft_json_khex(j, f->name, f->u);
        if (typed(d, f, buf, sizeof buf)) {
            char key[64];
            snprintf(key, sizeof key, "%s_text", f->name);
            ft_json_kstr(j, key, buf);
        }
        break;
    case FT_F_ADDR:
        ft_json_khex(j, f->name, f->u);
        if ((o = ft_heapmap_find(d->heap, f->u))) {
            char key[64];
            snprintf(key, sizeof key, "%s_object", f->name);
            ft_json_kstr(j, key, ft_heap_obj_name(d->r, o, f->u, buf,
                                                  sizeof buf));
            if (d->heap_name) {
                snprintf(key, sizeof key, "%s_field", f->name);
                ft_json_kstr(j, key, d->heap_name);
            }
        } else if (ft_reader_mem_name(d->r, f->u, d->size, buf, sizeof buf,
                                      NULL)) {
            char key[64];
            snprintf(key, sizeof key, "%s_variable", f->name);
            ft_json_kstr(j, key, buf);
        }
        break;
    case FT_F_NAME: ft_json_kstr(j, f->name, f->str); break;
    case FT_F_BYTES:
        ft_json_key(j, f->name);
        if (f->bytes)
            ft_json_bytes_hex(j, f->bytes, f->nbytes);
        else
            ft_json_null(j);
        break;
    case FT_F_SITE:
        ft_json_kstr(j, f->name, ft_site_format(d->r, (uint32_t)f->u, buf,
                                                sizeof buf));
        break;
    }
}

static void print_event(dump_ctx *d, const ft_event *ev)
{
    ft_field f[FT_MAX_FIELDS];
    unsigned n = ft_event_fields(ev, f);
    char where[512];
    const ft_site *s = ft_reader_site(d->r, ev->site);
    ft_site_format(d->r, ev->site, where, sizeof where);
    access_type(d, ev);
    if (d->json) {
        ft_json *j = &d->j;
        ft_json_begin_object(j);
        ft_json_kuint(j, "index", ev->index);
        ft_json_kuint(j, "tid", ev->tid);
        ft_json_kstr(j, "kind", ft_kind_name(ev->kind));
        for (unsigned i = 0; i < n; i++)
            json_field(d, &f[i]);
        if (ev->site) {
            ft_json_kuint(j, "site", ev->site);
            ft_json_kstr(j, "loc", where);
            if (s && s->function)
                ft_json_kstr(j, "function", s->function);
        }
        ft_json_end_object(j);
        ft_json_line(j);
        return;
    }
    printf("%8" PRIu64 " t%-3u %-14s", ev->index, ev->tid,
           ft_kind_name(ev->kind));
    for (unsigned i = 0; i < n; i++)
        text_field(d, &f[i]);
    if (ev->site) {
        printf("  %s", where);
        if (s && s->function && s->file)
            printf(" (%s)", s->function);
    }
    putchar('\n');
}

int cmd_dump(int argc, char **argv)
{
    ft_optparse p;
    ft_opt_init(&p, "foretell dump", argc, argv);
    const char *path = NULL, *v;
    int json = 0, kind = -1;
    uint64_t thread = UINT64_MAX, limit = UINT64_MAX;
    int k;
    while ((k = ft_opt_next(&p, dump_opts, &v)) != FT_OPT_END) {
        switch (k) {
        case FT_OPT_HELP:
            ft_opt_usage(stdout, "foretell dump TRACE [options]",
                         "Prints every event of TRACE: index, thread, kind, "
                         "fields, and code location.", dump_opts);
            return FT_EXIT_OK;
        case FT_OPT_ERROR:
            return FT_EXIT_BAD_INPUT;
        case FT_OPT_DASHDASH:
        case FT_OPT_POSITIONAL:
            if (k == FT_OPT_DASHDASH) {
                if (p.i >= p.argc)
                    break;
                v = p.argv[p.i++];
            }
            if (path) {
                fprintf(stderr, "foretell dump: unexpected argument '%s' "
                        "(one trace at a time)\n", v);
                return FT_EXIT_BAD_INPUT;
            }
            path = v;
            break;
        case OPT_JSON:
            json = 1;
            break;
        case OPT_THREAD:
            if (ft_opt_uint(&p, "thread", v, UINT32_MAX, &thread) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_KIND:
            if ((kind = ft_kind_from_name(v)) < 0 || kind == FT_EV_SWITCH) {
                fprintf(stderr, "foretell dump: unknown event kind '%s' "
                        "(kinds are named as in 'foretell stats': read, "
                        "write, mutex_lock, ...)\n", v);
                return FT_EXIT_BAD_INPUT;
            }
            break;
        case OPT_LIMIT:
        case OPT_LIMIT_OLD:
            if (ft_opt_uint(&p, dump_opts[k].name, v, UINT64_MAX, &limit) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        }
    }
    if (!path) {
        fprintf(stderr, "foretell dump: missing TRACE (see 'foretell dump "
                "--help')\n");
        return FT_EXIT_BAD_INPUT;
    }
    ft_reader *r = ft_cli_open_trace(path);
    if (!r)
        return FT_EXIT_BAD_INPUT;
    dump_ctx d = {.r = r, .heap = ft_heapmap_new(), .json = json};
    ft_json_init(&d.j, stdout);
    ft_event ev;
    uint64_t printed = 0;
    int rc = FT_EXIT_OK;
    while (printed < limit && ft_reader_next(r, &ev) == 1) {
        if (!d.heap || ft_heapmap_update(d.heap, &ev) < 0) {
            fprintf(stderr, "foretell dump: out of memory\n");
            rc = FT_EXIT_INTERNAL;
            break;
        }
        if ((thread != UINT64_MAX && ev.tid != thread) ||
            (kind >= 0 && ev.kind != kind))
            continue;
        print_event(&d, &ev);
        printed++;
        if (ferror(stdout)) /* main.c says why; no use going on */
            break;
    }
    /* with --limit the damage (if any) may lie beyond what was shown */
    if (rc == FT_EXIT_OK && printed < limit && !ferror(stdout))
        rc = ft_cli_finish_trace(r, path, FT_EXIT_OK);
    ft_heapmap_free(d.heap);
    ft_reader_close(r);
    return rc;
}
