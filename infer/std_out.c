/* SPDX-License-Identifier: MIT */
/* std_out.c - writes an fi_trace in RAPID's STD format: the exporter used
 * by the round-trip tests and to hand our recorded traces to RAPID.  Only
 * what STD can say is written: accesses (atomics as plain r/w), lock
 * acquire/release (a condition wait as the release and re-acquire of its
 * mutex), fork, join, begin and end.  Objects keep the names an STD import
 * gave them; others are named by address (V<hex>, L<hex>) and tid (T<n>). */
#include "infer/internal.h"
#include "infer/u64map.h"

#include <inttypes.h>
#include <string.h>

typedef struct names {
    fi_u64map v, l, t; /* key -> index into trace names */
} names;

static const char *name_of(const fi_trace *tr, const fi_u64map *m, char ns,
                           uint64_t key, char *buf, size_t len)
{
    uint32_t i = fi_u64map_get(m, key);
    if (i != UINT32_MAX)
        return tr->names[i].name;
    if (ns == 'T')
        snprintf(buf, len, "T%" PRIu64, key);
    else
        snprintf(buf, len, "%c%" PRIx64, ns, key);
    return buf;
}

static void loc_of(const fi_trace *t, uint32_t site, char *buf, size_t len)
{
    const ft_site *s = fi_trace_site_get(t, site);
    if (!s)
        snprintf(buf, len, "0");
    else if (s->file && s->line)
        snprintf(buf, len, "%s:%u", s->file, s->line);
    else if (s->file)
        snprintf(buf, len, "%s", s->file);
    else
        snprintf(buf, len, "%u", s->line);
}

long fi_std_write(const fi_trace *t, FILE *out, int with_values)
{
    names nm;
    memset(&nm, 0, sizeof nm);
    for (size_t i = 0; i < t->nnames; i++) {
        fi_u64map *m = t->names[i].ns == 'V'   ? &nm.v
                       : t->names[i].ns == 'L' ? &nm.l
                                               : &nm.t;
        int added;
        if (fi_u64map_intern(m, t->names[i].key, (uint32_t)i, &added) ==
            UINT32_MAX)
            return -1;
    }
    long written = 0;
    char tb[32], ob[32], loc[512];
    for (size_t i = 0; i < t->nev; i++) {
        const fi_event *e = &t->ev[i];
        const char *op = NULL;
        char ns = 'V';
        uint64_t key = e->addr;
        int value = 0;
        switch (e->kind) {
        case FT_EV_READ:
        case FT_EV_READ_WIDE:
        case FT_EV_ATOMIC_LOAD:
            op = "r", value = e->kind != FT_EV_READ_WIDE;
            break;
        case FT_EV_WRITE:
        case FT_EV_WRITE_WIDE:
        case FT_EV_ATOMIC_STORE:
            op = "w", value = e->kind != FT_EV_WRITE_WIDE;
            break;
        case FT_EV_ATOMIC_RMW:
            op = "w";
            break;
        case FT_EV_ATOMIC_CAS:
            op = e->arg ? "w" : "r";
            break;
        case FT_EV_MUTEX_LOCK:
        case FT_EV_RW_RDLOCK:
        case FT_EV_RW_WRLOCK:
            op = e->rc == 0 ? "acq" : NULL, ns = 'L';
            break;
        case FT_EV_MUTEX_UNLOCK:
        case FT_EV_RW_UNLOCK:
            op = "rel", ns = 'L';
            break;
        case FT_EV_COND_WAIT:
            op = "rel", ns = 'L', key = fi_ev_obj2(t, e);
            break;
        case FT_EV_COND_WAKE:
            op = "acq", ns = 'L', key = fi_ev_obj2(t, e);
            break;
        case FT_EV_THREAD_CREATE:
            op = "fork", ns = 'T', key = e->value;
            break;
        case FT_EV_THREAD_JOIN:
            op = "join", ns = 'T', key = e->value;
            break;
        case FT_EV_REGION_BEGIN:
            op = "begin", ns = 0;
            break;
        case FT_EV_REGION_END:
            op = "end", ns = 0;
            break;
        default:
            break;
        }
        if (!op)
            continue;
        const fi_u64map *m = ns == 'V' ? &nm.v : ns == 'L' ? &nm.l : &nm.t;
        const char *thread = name_of(t, &nm.t, 'T', e->tid, tb, sizeof tb);
        const char *obj =
            ns ? name_of(t, m, ns, key, ob, sizeof ob) : "0";
        loc_of(t, e->site, loc, sizeof loc);
        int rc;
        if (with_values && value)
            rc = fprintf(out, "%s|%s(%s)|%s|%" PRIu64 "\n", thread, op, obj,
                         loc, e->value);
        else
            rc = fprintf(out, "%s|%s(%s)|%s\n", thread, op, obj, loc);
        if (rc < 0) {
            written = -1;
            break;
        }
        written++;
    }
    fi_u64map_free(&nm.v);
    fi_u64map_free(&nm.l);
    fi_u64map_free(&nm.t);
    return written;
}
