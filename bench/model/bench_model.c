/* SPDX-License-Identifier: MIT */
/* bench_model.c - cost of stage i and the linear passes of stage ii on
 * big traces: `bench_model gen N OUT` writes a synthetic N-event trace
 * (threads running lock-protected and racy updates of shared variables
 * amid local accesses and calls), `bench_model run TRACE [--mat]` loads
 * it into a CTM, runs must-HB, merging and locksets (and optionally MAT)
 * and prints events per second and resident bytes per event as JSON. */
#include "ctm/ctm.h"
#include "reduce/reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int gen(uint64_t n, const char *out, unsigned nthreads)
{
    ft_header h;
    memset(&h, 0, sizeof h);
    h.version = FT_FORMAT_VERSION;
    h.program = "bench_model";
    ft_error err;
    ft_writer *w = ft_writer_open(out, &h, &err);
    if (!w) {
        fprintf(stderr, "bench_model: %s: %s\n", out, err.message);
        return 1;
    }
    enum { NSHARED = 4096, NLOCKS = 64, NLOCAL = 1024, NSITES = 256 };
    for (uint32_t s = 1; s <= NSITES; s++) {
        ft_site site;
        memset(&site, 0, sizeof site);
        site.id = s;
        site.offset = 0x1000 + 16 * s;
        ft_writer_site(w, &site);
    }
    static uint64_t shared[NSHARED];
    uint64_t seed = 88172645463325252ull, i = 0;
    ft_event e;
    memset(&e, 0, sizeof e);
    for (uint32_t t = 1; t < nthreads; t++) { /* main forks the workers */
        e.kind = FT_EV_THREAD_CREATE;
        e.tid = 0;
        e.value = t;
        e.site = 1;
        ft_writer_event(w, &e);
        i++;
    }
    while (i < n) {
        uint32_t t = (uint32_t)(rnd(&seed) % nthreads);
        for (int k = 0; k < 64 && i < n; k++) {
            memset(&e, 0, sizeof e);
            e.tid = t;
            e.site = 1 + (uint32_t)(rnd(&seed) % NSITES);
            uint64_t r = rnd(&seed) % 16;
            uint64_t v = rnd(&seed) % NSHARED;
            if (r < 6) { /* local */
                e.kind = r < 3 ? FT_EV_READ : FT_EV_WRITE;
                e.addr = 0x7f0000000000ull + 0x100000ull * t +
                         8 * (rnd(&seed) % NLOCAL);
                e.size = 8;
                e.value = r;
            } else if (r < 8) {
                e.kind = r == 6 ? FT_EV_FUNC_ENTRY : FT_EV_FUNC_EXIT;
                e.value = e.site;
            } else if (r < 10) { /* racy shared */
                e.kind = r == 8 ? FT_EV_READ : FT_EV_WRITE;
                e.addr = 0x600000 + 8 * v;
                e.size = 8;
                if (r == 9)
                    shared[v] = rnd(&seed) % 100;
                e.value = shared[v];
            } else if (r < 14 && i + 4 < n) { /* critical section */
                uint64_t m = 0x700000 + 64 * (v % NLOCKS);
                e.kind = FT_EV_MUTEX_LOCK;
                e.addr = m;
                ft_writer_event(w, &e);
                e.kind = FT_EV_READ;
                e.addr = 0x600000 + 8 * v;
                e.size = 8;
                e.value = shared[v];
                ft_writer_event(w, &e);
                e.kind = FT_EV_WRITE;
                e.value = ++shared[v];
                ft_writer_event(w, &e);
                e.kind = FT_EV_MUTEX_UNLOCK;
                e.addr = m;
                e.size = 0;
                e.value = 0;
                i += 3;
            } else {
                e.kind = FT_EV_ATOMIC_RMW;
                e.addr = 0x600000 + 8 * v;
                e.size = 8;
                e.arg = FT_RMW_ADD;
                e.value = shared[v];
                e.value2 = ++shared[v];
            }
            if (ft_writer_event(w, &e)) {
                fprintf(stderr, "bench_model: write failed\n");
                return 1;
            }
            i++;
        }
    }
    ft_end end;
    memset(&end, 0, sizeof end);
    end.present = 1;
    end.events = i;
    end.reason = "exit";
    return ft_writer_close(w, &end) ? 1 : 0;
}

static int run(const char *path, int mat)
{
    long rss0 = rss_kb();
    double t0 = now();
    ft_error err;
    memset(&err, 0, sizeof err);
    ft_ctm *c = ft_ctm_load(path, &err);
    if (!c) {
        fprintf(stderr, "bench_model: %s: %s\n", path, err.message);
        return 1;
    }
    double t1 = now();
    ft_reduced *r =
        ft_reduce(c, FT_REDUCE_NO_COUNT | (mat ? 0 : FT_REDUCE_NO_MAT));
    double t2 = now();
    if (!r) {
        fprintf(stderr, "bench_model: out of memory\n");
        return 1;
    }
    long rss1 = rss_kb();
    double ev = (double)c->nevents;
    printf("{\"trace\":\"%s\",\"events\":%llu,\"transitions\":%u,"
           "\"threads\":%u,\"blocks\":%u,\"load_s\":%.3f,\"passes_s\":%.3f,"
           "\"events_per_s\":%.0f,\"load_events_per_s\":%.0f,"
           "\"bytes_per_event\":%.1f,\"peak_rss_mb\":%.1f,\"mat\":%s",
           path, (unsigned long long)c->nevents, c->ntrans, c->nthreads,
           r->nblocks, t1 - t0, t2 - t1, ev / (t2 - t0), ev / (t1 - t0),
           (double)(rss1 - rss0) * 1024.0 / ev, rss1 / 1024.0,
           mat ? "true" : "false");
    if (mat)
        printf(",\"cxt\":%llu,\"mats\":%llu",
               (unsigned long long)r->stats.cs_mat,
               (unsigned long long)r->stats.nmats);
    printf("}\n");
    ft_reduced_free(r);
    ft_ctm_free(c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "gen"))
        return gen(strtoull(argv[2], NULL, 10), argv[3],
                   argc > 4 ? (unsigned)atoi(argv[4]) : 8);
    if (argc >= 3 && !strcmp(argv[1], "run"))
        return run(argv[2], argc > 3 && !strcmp(argv[3], "--mat"));
    fprintf(stderr, "usage: bench_model gen N OUT [THREADS]\n"
                    "       bench_model run TRACE [--mat]\n");
    return 2;
}
