/* SPDX-License-Identifier: MIT */
/* fuzz_model.c - libFuzzer target for loading the model from a trace: any
 * bytes are opened as a trace, loaded into infer/'s event stream
 * (fi_trace_read, as fi_trace_load does), turned into the concurrent trace
 * model event by event (ft_ctm_add, as the analyze pipeline does) and
 * streamed again through ft_ctm_build (as analyze --stats does), and the
 * inference of stage iii runs on it.  Ids, counts and sizes in the trace
 * (site ids, thread ids, END's event count) must never size a table beyond
 * what the file holds: run with -malloc_limit_mb. */
#include "ctm/ctm.h"
#include "infer/infer.h"

#include "tests/fuzz/fuzz_mem.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ft_reader *r = fuzz_trace(data, size);
    if (!r)
        return 0;
    ft_error err;
    fi_trace t;
    fi_trace_init(&t);
    if (fi_trace_read(&t, r, &err) >= 0) {
        ft_ctm *c = ft_ctm_new();
        char msg[200];
        int ok = c != NULL;
        for (size_t i = 0; ok && i < t.nev; i++) {
            ft_event ev;
            fi_trace_get(&t, i, &ev);
            ok = ft_ctm_add(c, &ev, msg, sizeof msg) == 0;
        }
        if (ok)
            ft_ctm_finish(c);
        ft_ctm_free(c);
        fi_options o;
        fi_options_default(&o);
        fi_analysis a;
        if (fi_analyze(&a, &t, &o) == 0)
            fi_properties(&a);
        fi_analysis_free(&a);
    }
    fi_trace_free(&t);
    ft_reader_rewind(r);
    ft_ctm *c2 = ft_ctm_build(r, &err);
    ft_ctm_free(c2);
    ft_reader_close(r);
    return 0;
}
