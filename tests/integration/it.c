/* SPDX-License-Identifier: MIT */
/* it.c - process, manifest and trace helpers of the integration tests
 * (it.h).  Programs are started with posix_spawn so that a test sees the
 * exact exit status foretell or the program produced. */
#include "tests/integration/it.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

const char *it_bin_dir(void) { return env_or("FT_BIN", "build/bin"); }
const char *it_data_dir(void) { return env_or("FT_DATA", "data"); }
const char *it_inst_dir(void) { return env_or("FT_INST", "build/data/inst"); }

const char *it_work_dir(void)
{
    const char *w = env_or("FT_WORK", "/tmp/ft-it");
    mkdir(w, 0777);
    return w;
}

int it_run(char *const argv[], char *const extra_env[], const char *out_path,
           const char *err_path)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    while (extra_env && extra_env[k])
        k++;
    char **envp = calloc(n + k + 1, sizeof *envp);
    if (!envp)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        envp[m++] = extra_env[i];
    for (size_t i = 0; i < n; i++) {
        /* an extra entry overrides the inherited one */
        const char *eq = strchr(environ[i], '=');
        size_t klen = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        int shadowed = 0;
        for (size_t j = 0; j < k; j++)
            if (!strncmp(extra_env[j], environ[i], klen) &&
                extra_env[j][klen] == '=')
                shadowed = 1;
        if (!shadowed)
            envp[m++] = environ[i];
    }
    envp[m] = NULL;

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path ? err_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

int it_exit_code(int status)
{
    if (status < 0)
        return -1;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

int it_record(const char *trace, const char *quantum, const char *seed,
              const char *timeout, const char *prog, char *const args[],
              const char *err_path)
{
    char foretell[512];
    snprintf(foretell, sizeof foretell, "%s/foretell", it_bin_dir());
    char *argv[64];
    int n = 0;
    argv[n++] = foretell;
    argv[n++] = "record";
    argv[n++] = "-o";
    argv[n++] = (char *)trace;
    if (quantum) {
        argv[n++] = "--quantum";
        argv[n++] = (char *)quantum;
    }
    if (seed) {
        argv[n++] = "--seed";
        argv[n++] = (char *)seed;
    }
    if (timeout) {
        argv[n++] = "--timeout";
        argv[n++] = (char *)timeout;
    }
    argv[n++] = "--";
    argv[n++] = (char *)prog;
    for (int i = 0; args && args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return it_exit_code(it_run(argv, NULL, NULL, err_path));
}

static void copy_field(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", strcmp(src, "-") ? src : "");
}

int it_manifest(it_example *rows, int max)
{
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/examples.tsv", it_data_dir());
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    int n = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *field[9];
        int nf = 0;
        char *save, *p = strtok_r(line, "\t", &save);
        while (p && nf < 9) {
            field[nf++] = p;
            p = strtok_r(NULL, "\t", &save);
        }
        if (nf != 9 || n >= max) {
            fprintf(stderr, "%s:%d: expected 9 tab-separated fields, got %d\n",
                    path, lineno, nf);
            fclose(f);
            return -1;
        }
        it_example *ex = &rows[n++];
        copy_field(ex->name, sizeof ex->name, field[0]);
        copy_field(ex->source, sizeof ex->source, field[1]);
        copy_field(ex->lang, sizeof ex->lang, field[2]);
        copy_field(ex->kind, sizeof ex->kind, field[3]);
        copy_field(ex->failure, sizeof ex->failure, field[4]);
        copy_field(ex->args, sizeof ex->args, field[5]);
        ex->threads = atoi(field[6]);
        copy_field(ex->natural, sizeof ex->natural, field[7]);
    }
    fclose(f);
    return n;
}

void it_example_prog(const it_example *ex, char *buf, size_t len)
{
    char stem[64];
    snprintf(stem, sizeof stem, "%s", ex->source);
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = 0;
    snprintf(buf, len, "%s/%s", it_inst_dir(), stem);
}

/* Does a "BUG: fig 2, 3, 9: ..." marker include figure fig? */
static int marker_applies(const char *marker, int fig)
{
    const char *p = strstr(marker, "fig ");
    if (!p || p - marker > 8)
        return 1;
    p += 4;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v == fig)
            return 1;
        p = end;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return 0;
}

int it_bug_lines(const it_example *ex, unsigned *lines, int max)
{
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/%s", it_data_dir(), ex->source);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int fig = atoi(ex->args), n = 0;
    unsigned lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        /* a marker is "BUG:" inside a comment that follows code; the
         * header comment's lines start with '*' and do not count */
        char *m = strstr(line, "BUG:");
        char *c = strstr(line, "/*");
        if (!c)
            c = strstr(line, "//");
        const char *first = line + strspn(line, " \t");
        if (m && c && c < m && *first != '*' && first != c &&
            marker_applies(m + 4, fig) && n < max)
            lines[n++] = lineno;
    }
    fclose(f);
    return n;
}

it_trace *it_trace_load(const char *path, char *why, size_t len)
{
    ft_error err;
    it_trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->r = ft_reader_open(path, &err);
    if (!t->r) {
        snprintf(why, len, "%s: %s (offset %llu)", err.path, err.message,
                 (unsigned long long)err.offset);
        free(t);
        return NULL;
    }
    t->damaged = ft_reader_damage(t->r, &t->damage);
    size_t cap = 1024;
    t->ev = malloc(cap * sizeof *t->ev);
    ft_event ev;
    int rc;
    while (t->ev && (rc = ft_reader_next(t->r, &ev)) == 1) {
        if (t->n == cap) {
            cap *= 2;
            ft_event *grown = realloc(t->ev, cap * sizeof *t->ev);
            if (!grown)
                break;
            t->ev = grown;
        }
        ev.bytes = NULL; /* only valid until the next read */
        t->ev[t->n++] = ev;
    }
    if (t->ev && rc < 0)
        t->read_error = 1;
    return t;
}

void it_trace_free(it_trace *t)
{
    if (!t)
        return;
    ft_reader_close(t->r);
    free(t->ev);
    free(t);
}

int it_trace_threads(const it_trace *t)
{
    return (int)it_trace_count(t, FT_EV_THREAD_START);
}

size_t it_trace_count(const it_trace *t, unsigned kind)
{
    size_t c = 0;
    for (size_t i = 0; i < t->n; i++)
        c += t->ev[i].kind == kind;
    return c;
}

int it_trace_hits_line(const it_trace *t, const char *file, unsigned line)
{
    size_t flen = strlen(file);
    uint32_t ns = ft_reader_nsites(t->r);
    for (uint32_t i = 0; i < ns; i++) {
        const ft_site *s = ft_reader_site_at(t->r, i);
        if (!s || !s->file || s->line != line)
            continue;
        size_t slen = strlen(s->file);
        if (slen < flen || strcmp(s->file + slen - flen, file) ||
            (slen > flen && s->file[slen - flen - 1] != '/'))
            continue;
        for (size_t k = 0; k < t->n; k++)
            if (t->ev[k].site == s->id)
                return 1;
    }
    return 0;
}

int64_t it_consistency(const char *path)
{
    ft_error err;
    ft_reader *r = ft_reader_open(path, &err);
    if (!r)
        return -1;
    uint64_t v = ft_check_consistency(r, stderr, 5);
    ft_reader_close(r);
    return (int64_t)v;
}
