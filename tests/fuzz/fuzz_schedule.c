/* SPDX-License-Identifier: MIT */
/* fuzz_schedule.c - libFuzzer target for the schedule parsers: any bytes
 * are read both as `foretell replay` reads a schedule file
 * (ft_schedule_read over a stream) and as the runtime does
 * (ft_sched_parse_text over the mapped file, recorder/rt/policy_replay.c),
 * and the two must agree: both accept or both refuse, with the same steps
 * and the same line in the message.  Neither may crash, read out of
 * bounds, or allocate beyond what the file can hold. */
#define _GNU_SOURCE
#include "predict/predict.h"
#include "recorder/schedule_parse.h"
#include "tests/fuzz/fuzz_mem.h"

#include <stdlib.h>
#include <string.h>

typedef struct collect {
    const ft_schedule *cli; /* what the CLI read, NULL if it refused */
    size_t size;
    uint64_t n;
    int differs;
} collect;

static int take(void *ctx, int item, const ft_sched_parse *p,
                const ft_sched_line *l, char *err, size_t errlen)
{
    collect *c = ctx;
    (void)err, (void)errlen;
    if (item == FT_SI_STEPS && p->room > c->size / FT_SCHED_MIN_STEP_LINE)
        abort(); /* room for more steps than the file can hold */
    if (item == FT_SI_STEP && p->nsteps > p->room)
        abort(); /* a step beyond the room made */
    if (item != FT_SI_STEP)
        return 0;
    if (c->cli && c->n < c->cli->nsteps) {
        const ft_sched_step *s = &c->cli->steps[c->n];
        size_t kl = strlen(s->kind);
        c->differs |= s->tid != l->tid || s->tindex != l->tindex ||
                      kl != l->kindlen || memcmp(s->kind, l->kind, kl) ||
                      s->mark != (l->mark != 0);
    }
    c->n++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_file(data, size);
    if (!f)
        return 0;
    ft_schedule s;
    char err_cli[600], err_rt[200];
    int rc_cli = ft_schedule_read(f, "fuzz", &s, err_cli, sizeof err_cli);
    fclose(f);
    collect c = {rc_cli == 0 ? &s : NULL, size, 0, 0};
    unsigned line;
    int rc_rt = ft_sched_parse_text((const char *)data, size, take, &c,
                                    &line, err_rt, sizeof err_rt);
    if (rc_cli != rc_rt)
        abort(); /* one parser accepts what the other refuses */
    if (rc_cli == 0 && (c.differs || c.n != s.nsteps))
        abort(); /* they read different steps */
    if (rc_cli < 0) {
        char want[64];
        snprintf(want, sizeof want, "fuzz:%u: ", line);
        if (strncmp(err_cli, want, strlen(want)) ||
            strcmp(err_cli + strlen(want), err_rt))
            abort(); /* they name another line or reason */
    }
    if (rc_cli == 0)
        ft_schedule_free(&s);
    return 0;
}
