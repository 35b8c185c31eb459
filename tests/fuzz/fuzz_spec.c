/* SPDX-License-Identifier: MIT */
/* fuzz_spec.c - libFuzzer target for the spec reader (infer/spec.c):
 * any bytes are read as a spec file of atomic function names. */
#include "infer/infer.h"
#include "tests/fuzz/fuzz_mem.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_stream(data, size);
    if (!f)
        return 0;
    char **names;
    size_t n;
    ft_error err;
    size_t sink = 0;
    if (fi_spec_read_file(f, "fuzz.spec", &names, &n, &err) == 0) {
        for (size_t i = 0; i < n; i++)
            sink += strlen(names[i]);
        fi_spec_free(names, n);
    }
    fclose(f);
    return sink == (size_t)-1;
}
