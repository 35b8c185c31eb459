/* SPDX-License-Identifier: MIT */
/* fuzz_std.c - libFuzzer target for the RAPID STD text reader
 * (infer/std.c): any bytes are read as an STD trace into an fi_trace.
 * Whatever the input, the reader must not crash, read out of bounds, or
 * allocate beyond what the text justifies (run with -malloc_limit_mb). */
#include "infer/infer.h"
#include "tests/fuzz/fuzz_mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_stream(data, size);
    if (!f)
        return 0;
    fi_trace t;
    fi_trace_init(&t);
    ft_error err;
    int rc = fi_std_read(&t, f, "fuzz.std", &err);
    fclose(f);
    /* what was read must be consistent enough to write back out */
    if (rc == 0) {
        FILE *out = fopen("/dev/null", "w");
        if (out) {
            fi_std_write(&t, out, 1);
            fclose(out);
        }
    }
    fi_trace_free(&t);
    return 0;
}
