/* SPDX-License-Identifier: MIT */
/* names.c - the printable side of a trace: event kind names (the
 * lowercase spelling users type after --kind) and site lookup/formatting
 * ("file:line", or "function", or "module+0xoff", or "?"). */
#include "recorder/reader_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const kind_names[FT_EV_KIND_MAX + 1] = {
    [FT_EV_SWITCH] = "switch",
    [FT_EV_THREAD_START] = "thread_start",
    [FT_EV_THREAD_CREATE] = "thread_create",
    [FT_EV_THREAD_EXIT] = "thread_exit",
    [FT_EV_THREAD_JOIN] = "thread_join",
    [FT_EV_THREAD_DETACH] = "thread_detach",
    [FT_EV_THREAD_CANCEL] = "thread_cancel",
    [FT_EV_THREAD_CANCELED] = "thread_canceled",
    [FT_EV_READ] = "read",
    [FT_EV_WRITE] = "write",
    [FT_EV_READ_WIDE] = "read_wide",
    [FT_EV_WRITE_WIDE] = "write_wide",
    [FT_EV_ATOMIC_LOAD] = "atomic_load",
    [FT_EV_ATOMIC_STORE] = "atomic_store",
    [FT_EV_ATOMIC_RMW] = "atomic_rmw",
    [FT_EV_ATOMIC_CAS] = "atomic_cas",
    [FT_EV_FENCE] = "fence",
    [FT_EV_MUTEX_INIT] = "mutex_init",
    [FT_EV_MUTEX_LOCK] = "mutex_lock",
    [FT_EV_MUTEX_UNLOCK] = "mutex_unlock",
    [FT_EV_RW_RDLOCK] = "rw_rdlock",
    [FT_EV_RW_WRLOCK] = "rw_wrlock",
    [FT_EV_RW_UNLOCK] = "rw_unlock",
    [FT_EV_MUTEX_DESTROY] = "mutex_destroy",
    [FT_EV_RW_DESTROY] = "rw_destroy",
    [FT_EV_COND_WAIT] = "cond_wait",
    [FT_EV_COND_WAKE] = "cond_wake",
    [FT_EV_COND_SIGNAL] = "cond_signal",
    [FT_EV_COND_BROADCAST] = "cond_broadcast",
    [FT_EV_SEM_INIT] = "sem_init",
    [FT_EV_SEM_POST] = "sem_post",
    [FT_EV_SEM_WAIT] = "sem_wait",
    [FT_EV_BARRIER_INIT] = "barrier_init",
    [FT_EV_BARRIER_ARRIVE] = "barrier_arrive",
    [FT_EV_BARRIER_LEAVE] = "barrier_leave",
    [FT_EV_ONCE_ENTER] = "once_enter",
    [FT_EV_ONCE_DONE] = "once_done",
    [FT_EV_MALLOC] = "malloc",
    [FT_EV_FREE] = "free",
    [FT_EV_REALLOC] = "realloc",
    [FT_EV_FUNC_ENTRY] = "func_entry",
    [FT_EV_FUNC_EXIT] = "func_exit",
    [FT_EV_SLEEP] = "sleep",
    [FT_EV_YIELD] = "yield",
    [FT_EV_REGION_BEGIN] = "region_begin",
    [FT_EV_REGION_END] = "region_end",
    [FT_EV_STEAL] = "steal",
    [FT_EV_DEADLOCK] = "deadlock",
    [FT_EV_SIGNAL] = "signal",
    [FT_EV_DIVERGE] = "diverge",
    [FT_EV_HEAP_ERROR] = "heap_error",
    [FT_EV_BLOCKED] = "blocked",
    [FT_EV_ABORT] = "abort",
    [FT_EV_MISUSE] = "misuse",
};

const char *ft_kind_name(unsigned kind)
{
    if (kind <= FT_EV_KIND_MAX && kind_names[kind])
        return kind_names[kind];
    return "?";
}

int ft_kind_from_name(const char *name)
{
    for (unsigned k = 0; k <= FT_EV_KIND_MAX; k++)
        if (kind_names[k] && !strcmp(kind_names[k], name))
            return (int)k;
    return -1;
}

const ft_site *ft_reader_site(const ft_reader *r, uint32_t id)
{
    /* the reader accepts only tables dense from 1 (reader_meta.c) */
    return id >= 1 && id <= r->nsites ? &r->sites[id - 1] : NULL;
}

uint32_t ft_reader_nsites(const ft_reader *r) { return r->nsites; }

const ft_site *ft_reader_site_at(const ft_reader *r, uint32_t i)
{
    return i < r->nsites ? &r->sites[i] : NULL;
}

const char *ft_site_format(const ft_reader *r, uint32_t site, char *buf,
                           size_t len)
{
    if (!len)
        return buf;
    const ft_site *s = ft_reader_site(r, site);
    if (!s) {
        snprintf(buf, len, "?");
    } else if (s->file && s->line) {
        snprintf(buf, len, "%s:%u", s->file, s->line);
    } else if (s->function) {
        snprintf(buf, len, "%s", s->function);
    } else if (s->module < r->nmodules) {
        const char *path = r->modules[s->module].path;
        const char *base = strrchr(path, '/');
        snprintf(buf, len, "%s+0x%llx", base ? base + 1 : path,
                 (unsigned long long)s->offset);
    } else {
        snprintf(buf, len, "?+0x%llx", (unsigned long long)s->offset);
    }
    return buf;
}

/* path with "." and "dir/.." taken out, lexically (clang names headers
 * /usr/bin/../lib/gcc/...). */
static const char *normalise(const char *path, char *buf, size_t len)
{
    size_t n = 0;
    const char *p = path;
    if (strlen(path) >= len)
        return path;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == 1 && p[0] == '.') {
        } else if (l == 2 && p[0] == '.' && p[1] == '.' && n > 0) {
            while (n > 0 && buf[n - 1] != '/')
                n--;
            if (n > 1)
                n--; /* the slash before the dropped name */
        } else if (l > 0 || n == 0) {
            if (n > 0 && buf[n - 1] != '/')
                buf[n++] = '/';
            memcpy(buf + n, p, l);
            n += l;
        }
        if (!e)
            break;
        p = e + 1;
        if (n == 0)
            buf[n++] = '/';
    }
    buf[n] = 0;
    return buf;
}

int ft_path_is_system(const char *file)
{
    static const char *const prefixes[] = {
        "/usr/include/", "/usr/lib/", "/usr/local/include/", "/usr/local/lib/",
        "/usr/src/", "/usr/share/", "/build/", "<built-in>",
    };
    if (!file || !*file)
        return 1;
    char buf[4096];
    const char *p = normalise(file, buf, sizeof buf);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(p, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

const char *ft_site_format_user(const ft_reader *r, uint32_t site, char *buf,
                                size_t len)
{
    const ft_site *s = ft_reader_site(r, site);
    if (!s || !len)
        return NULL;
    if (s->file && s->line && !ft_path_is_system(s->file))
        return ft_site_format(r, site, buf, len);
    if (s->user_file && s->user_line) {
        snprintf(buf, len, "%s:%u", s->user_file, s->user_line);
        return buf;
    }
    return NULL;
}
