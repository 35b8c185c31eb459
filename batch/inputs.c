/* SPDX-License-Identifier: MIT */
/* inputs.c - which traces a batch analyzes: paths given one by one,
 * directories walked for trace files, @lists of paths; each trace's
 * content hash (SHA-256), which is its identity in the store, so a trace
 * moved or copied is still the same trace; and the shard of a job array
 * that owns it, by that hash, so that any shard can be re-run alone and
 * finds the same traces. */
#define _GNU_SOURCE
#include "batch/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(ft_error *err, const char *path, const char *fmt,
                const char *what)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path);
    snprintf(err->message, sizeof err->message, fmt, what);
    return -1;
}

static int push(fb_inputs *in, const char *path)
{
    if (in->n == in->cap) {
        size_t nc = in->cap ? 2 * in->cap : 64;
        fb_input *v = realloc(in->v, nc * sizeof *v);
        if (!v)
            return -1;
        in->v = v;
        in->cap = nc;
    }
    fb_input *x = &in->v[in->n];
    memset(x, 0, sizeof *x);
    x->path = strdup(path);
    if (!x->path)
        return -1;
    in->n++;
    return 0;
}

/* A foretell trace opens with a chunk: fixarray(4), then kind 1
 * (HEADER); STD traces are text, found by their extension. */
static int looks_like_trace(const char *path)
{
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".std") == 0)
        return 1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    unsigned char b[2];
    ssize_t got = read(fd, b, 2);
    close(fd);
    return got == 2 && b[0] == 0x94 && b[1] == 0x01;
}

/* nftw has no context argument: the walk in progress. */
static fb_inputs *walk_in;
static int walk_oom;

static int walk_one(const char *path, const struct stat *st, int type,
                    struct FTW *ftw)
{
    (void)ftw;
    if (type != FTW_F || !S_ISREG(st->st_mode) || !looks_like_trace(path))
        return 0;
    if (push(walk_in, path) < 0) {
        walk_oom = 1;
        return 1;
    }
    return 0;
}

static int add_dir(fb_inputs *in, const char *dir, ft_error *err)
{
    walk_in = in;
    walk_oom = 0;
    int rc = nftw(dir, walk_one, 32, FTW_PHYS);
    if (walk_oom)
        return fail(err, dir, "%s", "out of memory listing the directory");
    if (rc != 0)
        return fail(err, dir, "cannot walk the directory: %s",
                    strerror(errno));
    return 0; /* the order is the directory's: fb_inputs_hash sorts */
}

static int add_path(fb_inputs *in, const char *path, ft_error *err,
                    int from_list)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return fail(err, path, from_list ? "listed trace: %s"
                                         : "cannot read: %s",
                    strerror(errno));
    if (S_ISDIR(st.st_mode))
        return add_dir(in, path, err);
    if (!S_ISREG(st.st_mode))
        return fail(err, path, "%s", "not a regular file (a FIFO or a "
                    "device is not a trace)");
    if (push(in, path) < 0)
        return fail(err, path, "%s", "out of memory");
    return 0;
}

static int add_list(fb_inputs *in, const char *list, ft_error *err)
{
    FILE *f = strcmp(list, "-") == 0 ? stdin : fopen(list, "r");
    if (!f)
        return fail(err, list, "cannot read the list: %s", strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned lineno = 0;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (len == 0 || line[0] == '#')
            continue;
        if (add_path(in, line, err, 1) < 0) {
            char msg[sizeof err->message], path[sizeof err->path];
            snprintf(msg, sizeof msg, "%s", err->message);
            snprintf(path, sizeof path, "%s", err->path);
            snprintf(err->message, sizeof err->message, "line %u: %.100s: "
                     "%.120s", lineno, path, msg);
            snprintf(err->path, sizeof err->path, "%.250s", list);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f))
        rc = fail(err, list, "cannot read the list: %s", strerror(errno));
    free(line);
    if (f != stdin)
        fclose(f);
    return rc;
}

int fb_inputs_add(fb_inputs *in, const char *arg, ft_error *err)
{
    if (arg[0] == '@')
        return add_list(in, arg + 1, err);
    return add_path(in, arg, err, 0);
}

int fb_hash_file(const char *path, char out[FB_HASH_LEN + 1], uint64_t *size,
                 ft_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(err, path, "cannot read: %s", strerror(errno));
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    static unsigned char buf[1 << 16];
    uint64_t total = 0;
    int rc = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) ? 0 : -1;
    for (;;) {
        if (rc < 0)
            break;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fail(err, path, "cannot read: %s", strerror(errno));
            rc = -2;
            break;
        }
        if (n == 0)
            break;
        total += (uint64_t)n;
        if (!EVP_DigestUpdate(ctx, buf, (size_t)n))
            rc = -1;
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    if (rc == 0 && (!EVP_DigestFinal_ex(ctx, md, &mdlen) ||
                    mdlen * 2 != FB_HASH_LEN))
        rc = -1;
    EVP_MD_CTX_free(ctx);
    close(fd);
    if (rc == -1)
        return fail(err, path, "%s", "cannot compute SHA-256 (libcrypto)");
    if (rc < 0)
        return -1;
    static const char hexd[] = "0123456789abcdef";
    for (unsigned i = 0; i < mdlen; i++) {
        out[2 * i] = hexd[md[i] >> 4];
        out[2 * i + 1] = hexd[md[i] & 15];
    }
    out[FB_HASH_LEN] = 0;
    if (size)
        *size = total;
    return 0;
}

static int by_hash_then_path(const void *a, const void *b)
{
    const fb_input *x = a, *y = b;
    int c = strcmp(x->hash, y->hash);
    return c ? c : strcmp(x->path, y->path);
}

int fb_inputs_hash(fb_inputs *in, ft_error *err)
{
    for (size_t i = 0; i < in->n; i++)
        if (fb_hash_file(in->v[i].path, in->v[i].hash, &in->v[i].size,
                         err) < 0)
            return -1;
    qsort(in->v, in->n, sizeof *in->v, by_hash_then_path);
    size_t k = 0;
    for (size_t i = 0; i < in->n; i++) {
        if (k && strcmp(in->v[k - 1].hash, in->v[i].hash) == 0) {
            free(in->v[i].path);
            in->duplicates++;
            continue;
        }
        in->v[k++] = in->v[i];
    }
    in->n = k;
    return 0;
}

void fb_inputs_free(fb_inputs *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->v[i].path);
    free(in->v);
    memset(in, 0, sizeof *in);
}

/* ---- shards ----------------------------------------------------------- */

static int parse_u32(const char *s, uint32_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || s[0] == '-' || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int fb_shard_parse(const char *s, fb_shard *out)
{
    const char *slash = strchr(s, '/');
    char a[32];
    if (!slash || (size_t)(slash - s) >= sizeof a)
        return -1;
    memcpy(a, s, (size_t)(slash - s));
    a[slash - s] = 0;
    fb_shard sh;
    if (parse_u32(a, &sh.index) < 0 || parse_u32(slash + 1, &sh.count) < 0 ||
        sh.count == 0 || sh.index >= sh.count)
        return -1;
    *out = sh;
    return 0;
}

int fb_shard_from_env(fb_shard *out, uint32_t k8s_count, char *from,
                      size_t fromlen, char *why, size_t whylen)
{
    const char *id = getenv("SLURM_ARRAY_TASK_ID");
    if (id && *id) {
        const char *cnt = getenv("SLURM_ARRAY_TASK_COUNT");
        const char *min = getenv("SLURM_ARRAY_TASK_MIN");
        const char *step = getenv("SLURM_ARRAY_TASK_STEP");
        uint32_t i, n, lo = 0, st = 1;
        if (parse_u32(id, &i) < 0 || parse_u32(cnt, &n) < 0 || n == 0 ||
            (min && *min && parse_u32(min, &lo) < 0) ||
            (step && *step && (parse_u32(step, &st) < 0 || st == 0)) ||
            i < lo || (i - lo) % st != 0 || (i - lo) / st >= n) {
            snprintf(why, whylen, "SLURM_ARRAY_TASK_ID=%s with "
                     "SLURM_ARRAY_TASK_COUNT=%s (MIN=%s, STEP=%s) is not a "
                     "task of the array", id, cnt ? cnt : "(unset)",
                     min ? min : "(unset)", step ? step : "(unset)");
            return -1;
        }
        out->index = (i - lo) / st;
        out->count = n;
        snprintf(from, fromlen, "SLURM_ARRAY_TASK_ID=%s", id);
        return 1;
    }
    const char *k = getenv("JOB_COMPLETION_INDEX");
    if (k && *k) {
        uint32_t i;
        if (parse_u32(k, &i) < 0) {
            snprintf(why, whylen, "JOB_COMPLETION_INDEX=%s is not a number",
                     k);
            return -1;
        }
        if (k8s_count == 0) {
            snprintf(why, whylen, "JOB_COMPLETION_INDEX is set: give the "
                     "job's completions as --shard-count N (or --shard I/N)");
            return -1;
        }
        if (i >= k8s_count) {
            snprintf(why, whylen, "JOB_COMPLETION_INDEX=%s is not below "
                     "--shard-count %u", k, k8s_count);
            return -1;
        }
        out->index = i;
        out->count = k8s_count;
        snprintf(from, fromlen, "JOB_COMPLETION_INDEX=%s", k);
        return 1;
    }
    return 0;
}

int fb_shard_owns(const fb_shard *s, const char *hash)
{
    if (s->count == 0)
        return 1;
    uint64_t v = 0;
    for (int i = 0; i < 16 && hash[i]; i++) {
        char c = hash[i];
        v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    return v % s->count == s->index;
}
