/* SPDX-License-Identifier: MIT */
/* bench_serial.c - events per second of the observed-serializability
 * check (infer/serial.c) on large generated traces.  Not a test: numbers
 * depend on the machine.  The trace is generated before timing; threads
 * run in bursts like a real scheduler; most accesses are to thread-local
 * data, a tunable share to shared variables and locks; every thread
 * alternates between regions and code outside regions.
 *
 *   bench_infer_serial [events] [threads] [shared-vars] [shared-percent]
 *                      [window]
 * window: each thread works on a window of that many of its 10000 local
 * variables, moving on now and then (loops over data); 0 picks local
 * variables uniformly at random, the cache-hostile worst case.
 *   bench_infer_serial --std FILE    time STD import + analysis of FILE
 */
#include "infer/infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t seed = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (uint32_t)(seed % n);
}

static int bench_std(const char *path)
{
    fi_trace t;
    fi_trace_init(&t);
    ft_error err;
    double t0 = now();
    if (fi_std_read_path(&t, path, &err) < 0) {
        fprintf(stderr, "%s: %s\n", err.path, err.message);
        return 2;
    }
    double t1 = now();
    fi_options o;
    fi_options_default(&o);
    fi_analysis a;
    if (fi_analyze(&a, &t, &o) < 0 || fi_properties(&a) < 0) {
        fprintf(stderr, "out of memory\n");
        return 4;
    }
    double t2 = now();
    printf("%s: %zu events, import %.3f s (%.2f M ev/s), analysis %.3f s "
           "(%.2f M ev/s)\n",
           path, t.nev, t1 - t0, (double)t.nev / (t1 - t0) / 1e6, t2 - t1,
           (double)t.nev / (t2 - t1) / 1e6);
    fi_print_summary(stdout, &a, 0);
    fi_analysis_free(&a);
    fi_trace_free(&t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--std"))
        return bench_std(argv[2]);
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
    uint32_t T = argc > 2 ? (uint32_t)atoi(argv[2]) : 8;
    uint32_t shared = argc > 3 ? (uint32_t)atoi(argv[3]) : 1000;
    uint32_t pct = argc > 4 ? (uint32_t)atoi(argv[4]) : 10;
    uint32_t window = argc > 5 ? (uint32_t)atoi(argv[5]) : 64;
    const uint32_t local_per_thread = 10000, nlocks = 16;
    if (T < 1 || T > 1024 || n < 100 || shared < 1 || pct > 100 ||
        window > local_per_thread) {
        fprintf(stderr, "usage: %s [events] [threads 1-1024] [shared-vars] "
                        "[shared-percent]\n",
                argv[0]);
        return 2;
    }
    uint32_t nobj = shared + nlocks + T * local_per_thread;
    fi_sev *ev = malloc(n * sizeof *ev);
    fi_span *spans = malloc((n / 4 + 1) * sizeof *spans);
    uint64_t *open_at = malloc(T * sizeof *open_at);
    uint64_t *last_of = malloc(T * sizeof *last_of);
    uint8_t *in_region = calloc(T, 1);
    uint32_t *base = calloc(T, sizeof *base);
    if (!ev || !spans || !open_at || !last_of || !in_region || !base)
        return 4;
    size_t ns = 0;
    uint32_t t = 0, burst = 0;
    for (size_t i = 0; i < n; i++) {
        if (burst == 0) {
            t = rnd(T);
            burst = 1 + rnd(50);
        }
        burst--;
        fi_sev *e = &ev[i];
        e->tid = t;
        uint32_t c = rnd(100);
        if (c < 4) {
            e->op = FI_OP_WRITE; /* lock operation */
            e->obj = shared + rnd(nlocks);
        } else if (c < 8) {
            e->op = FI_OP_NONE;
        } else {
            e->op = rnd(100) < 65 ? FI_OP_READ : FI_OP_WRITE;
            uint32_t local;
            if (window) {
                if (rnd(1000) == 0)
                    base[t] = rnd(local_per_thread - window + 1);
                local = base[t] + rnd(window);
            } else {
                local = rnd(local_per_thread);
            }
            e->obj = rnd(100) < pct
                         ? rnd(shared)
                         : shared + nlocks + t * local_per_thread + local;
        }
        /* Regions: open or close one now and then. */
        if (rnd(100) < 5) {
            if (in_region[t]) {
                spans[ns++] = (fi_span){t, open_at[t], i};
                in_region[t] = 0;
            } else {
                open_at[t] = i;
                in_region[t] = 1;
            }
        }
        last_of[t] = i;
    }
    for (uint32_t u = 0; u < T; u++)
        if (in_region[u])
            spans[ns++] = (fi_span){u, open_at[u], last_of[u]};
    uint8_t *bad = malloc(ns ? ns : 1);
    fi_witness *wit = malloc((ns ? ns : 1) * sizeof *wit);
    double best = 1e30;
    long nv = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        nv = fi_serial_check(ev, n, T, nobj, spans, ns, bad, wit);
        double dt = now() - t0;
        if (nv < 0) {
            fprintf(stderr, "checker failed\n");
            return 4;
        }
        if (dt < best)
            best = dt;
    }
    printf("events %zu threads %u objects %u shared %u%% window %u "
           "regions %zu violated %ld: %.3f s, %.1f M events/s\n",
           n, T, nobj, pct, window, ns, nv, best, (double)n / best / 1e6);
    free(ev);
    free(spans);
    free(open_at);
    free(last_of);
    free(in_region);
    free(base);
    free(bad);
    free(wit);
    return 0;
}
