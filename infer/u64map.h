/* SPDX-License-Identifier: MIT */
/* u64map.h - a small open-addressing hash map from 64-bit keys to dense
 * 32-bit ids, shared by the variable interning, the STD importer and
 * exporter.  Private to infer/: keys are addresses or (namespace, key)
 * mixes, values are positions in the caller's own arrays. */
#ifndef FORETELL_INFER_U64MAP_H
#define FORETELL_INFER_U64MAP_H

#include <stdint.h>
#include <stdlib.h>

typedef struct fi_u64map {
    uint64_t *keys;
    uint32_t *vals; /* UINT32_MAX: empty slot */
    size_t cap, n;  /* cap: power of two or 0 */
} fi_u64map;

static inline size_t fi_u64map_slot(uint64_t k, size_t mask)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & mask;
}

static inline void fi_u64map_free(fi_u64map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->n = 0;
}

/* Value for k, or UINT32_MAX. */
static inline uint32_t fi_u64map_get(const fi_u64map *m, uint64_t k)
{
    if (!m->cap)
        return UINT32_MAX;
    size_t mask = m->cap - 1;
    for (size_t i = fi_u64map_slot(k, mask);; i = (i + 1) & mask) {
        if (m->vals[i] == UINT32_MAX)
            return UINT32_MAX;
        if (m->keys[i] == k)
            return m->vals[i];
    }
}

static inline int fi_u64map_grow(fi_u64map *m)
{
    size_t cap = m->cap ? 2 * m->cap : 1024;
    uint64_t *keys = malloc(cap * sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        vals[i] = UINT32_MAX;
    for (size_t j = 0; j < m->cap; j++) {
        if (m->vals[j] == UINT32_MAX)
            continue;
        size_t i = fi_u64map_slot(m->keys[j], cap - 1);
        while (vals[i] != UINT32_MAX)
            i = (i + 1) & (cap - 1);
        keys[i] = m->keys[j];
        vals[i] = m->vals[j];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

/* Value for k; inserts v when k is new (*added = 1).  UINT32_MAX: no
 * memory. */
static inline uint32_t fi_u64map_intern(fi_u64map *m, uint64_t k, uint32_t v,
                                        int *added)
{
    *added = 0;
    if (2 * (m->n + 1) > m->cap && fi_u64map_grow(m) < 0)
        return UINT32_MAX;
    size_t mask = m->cap - 1;
    size_t i = fi_u64map_slot(k, mask);
    for (; m->vals[i] != UINT32_MAX; i = (i + 1) & mask)
        if (m->keys[i] == k)
            return m->vals[i];
    m->keys[i] = k;
    m->vals[i] = v;
    m->n++;
    *added = 1;
    return v;
}

#endif
