/* SPDX-License-Identifier: MIT */
/* test_u32pool.c - infer/u32pool.c: lists of every size, short ones cut
 * from shared chunks and long ones (over a chunk) in their own, each
 * keeps what was written to it while thousands more are cut, and none
 * overlaps another (under ASan, none runs past its chunk). */
#include "infer/u32pool.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#define NLISTS 4000

static void lists_keep_their_values(void **state)
{
    (void)state;
    static uint32_t *list[NLISTS];
    static size_t len[NLISTS];
    fi_u32pool *pool = NULL;
    uint64_t x = 88172645463325252ull; /* xorshift: sizes 0 .. 40000 */
    for (size_t i = 0; i < NLISTS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        len[i] = i % 97 == 0 ? 16384 + x % 24000 : x % 9;
        list[i] = fi_u32pool_alloc(&pool, len[i]);
        assert_non_null(list[i]);
        for (size_t k = 0; k < len[i]; k++)
            list[i][k] = (uint32_t)(i * 65537 + k);
        if (len[i] == 0)
            list[i][0] = (uint32_t)i; /* room for one */
    }
    for (size_t i = 0; i < NLISTS; i++) {
        for (size_t k = 0; k < len[i]; k++)
            if (list[i][k] != (uint32_t)(i * 65537 + k))
                fail_msg("list %zu (%zu values) changed at %zu", i, len[i],
                         k);
        if (len[i] == 0)
            assert_int_equal(list[i][0], (uint32_t)i);
    }
    fi_u32pool_free(&pool);
    assert_null(pool);
    fi_u32pool_free(&pool); /* again: nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists_keep_their_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
