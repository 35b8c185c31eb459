/* SPDX-License-Identifier: MIT */
/* u32pool.h - short uint32_t lists (a region's variables, a CMA pair's)
 * carved from shared chunks and freed all at once.  10^5 regions and
 * 10^5 pairs of a long trace have one or two variables each: as mallocs
 * of 4-8 bytes each took a 32-byte chunk, 6 MB of bench/predict's split
 * trace.  Private to infer/. */
#ifndef FORETELL_INFER_U32POOL_H
#define FORETELL_INFER_U32POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct fi_u32pool fi_u32pool;

/* Room for n values (n 0 gives room for one), valid until the pool is
 * freed; NULL out of memory.  *pool is made on first use. */
uint32_t *fi_u32pool_alloc(fi_u32pool **pool, size_t n);
void fi_u32pool_free(fi_u32pool **pool);

#endif
