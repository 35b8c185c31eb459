/* SPDX-License-Identifier: MIT */
/* analyze_stats.c - `foretell analyze --stats` (and --mats, --cxt,
 * --itrans): builds the concurrent trace model and runs the stage ii
 * reductions, then prints the figures of the paper's tables IV (n, e, l,
 * g, a) and V (rows a, b, d), and on request the MATs, the reduced context
 * switches and the i-transactions. */
#include "cli/analyze_cmd.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "ctm/ctm.h"
#include "reduce/reduce.h"

#include <stdio.h>
#include <string.h>

static double ratio(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

static void print_table(const ft_ctm *c, const ft_reduced *r)
{
    const ft_reduce_stats *s = &r->stats;
    printf("threads (n)                  %u\n", c->nthreads);
    printf("events (e)                   %llu\n",
           (unsigned long long)c->nevents);
    printf("local variables (l)          %llu\n",
           (unsigned long long)c->nlocal_vars);
    printf("global variables (g)         %llu\n",
           (unsigned long long)c->nglobal_vars);
    printf("global accesses (a)          %llu\n",
           (unsigned long long)c->nglobal_accesses);
    if (c->nmixed_split || c->nmixed_left)
        printf("mixed-size accesses split    %llu (groups left whole: "
               "%llu)\n",
               (unsigned long long)c->nmixed_split,
               (unsigned long long)c->nmixed_left);
    printf("transitions                  %llu\n",
           (unsigned long long)s->trans_before_merge);
    printf("transitions after merging    %llu\n",
           (unsigned long long)s->trans_after_merge);
    printf("context switches             %llu\n",
           (unsigned long long)s->cs_total);
    if (s->cs_lockset_hb == UINT64_MAX)
        printf("  after lockset/HB           (not counted: too many pairs)\n");
    else
        printf("  after lockset/HB           %llu\n",
               (unsigned long long)s->cs_lockset_hb);
    printf("  after MAT (CXT)            %llu\n",
           (unsigned long long)s->cs_mat);
    printf("MATs                         %llu\n",
           (unsigned long long)s->nmats);
    printf("i-transactions               %u\n", r->nitrans);
    if (s->cs_lockset_hb != UINT64_MAX) {
        printf("reduction lockset/HB (a)     %.2fx\n",
               ratio(s->cs_total, s->cs_lockset_hb));
        printf("reduction MAT (b)            %.2fx\n",
               ratio(s->cs_lockset_hb, s->cs_mat));
    }
    printf("reduction total              %.2fx\n",
           ratio(s->cs_total, s->cs_mat));
    printf("reduction merging (d)        %.2fx\n",
           ratio(s->trans_before_merge, s->trans_after_merge));
}

static void print_json(const ft_ctm *c, const ft_reduced *r, int mats,
                       int cxt, int itrans)
{
    const ft_reduce_stats *s = &r->stats;
    ft_json j;
    ft_json_init(&j, stdout);
    ft_json_begin_object(&j);
    ft_json_kuint(&j, "threads", c->nthreads);
    ft_json_kuint(&j, "events", c->nevents);
    ft_json_kuint(&j, "local_vars", c->nlocal_vars);
    ft_json_kuint(&j, "global_vars", c->nglobal_vars);
    ft_json_kuint(&j, "global_accesses", c->nglobal_accesses);
    ft_json_kuint(&j, "mixed_split", c->nmixed_split);
    ft_json_kuint(&j, "mixed_left", c->nmixed_left);
    ft_json_kuint(&j, "transitions", s->trans_before_merge);
    ft_json_kuint(&j, "transitions_merged", s->trans_after_merge);
    ft_json_kuint(&j, "cs_total", s->cs_total);
    ft_json_key(&j, "cs_lockset_hb");
    if (s->cs_lockset_hb == UINT64_MAX)
        ft_json_null(&j);
    else
        ft_json_uint(&j, s->cs_lockset_hb);
    ft_json_kuint(&j, "cs_mat", s->cs_mat);
    ft_json_kuint(&j, "mats", s->nmats);
    ft_json_kuint(&j, "itransactions", r->nitrans);
    ft_json_key(&j, "factor_lockset_hb");
    if (s->cs_lockset_hb == UINT64_MAX)
        ft_json_null(&j);
    else
        ft_json_double(&j, ratio(s->cs_total, s->cs_lockset_hb));
    ft_json_key(&j, "factor_mat");
    if (s->cs_lockset_hb == UINT64_MAX)
        ft_json_null(&j);
    else
        ft_json_double(&j, ratio(s->cs_lockset_hb, s->cs_mat));
    ft_json_key(&j, "factor_merge");
    ft_json_double(&j, ratio(s->trans_before_merge, s->trans_after_merge));
    if (mats) {
        ft_json_key(&j, "mat_list");
        ft_json_begin_array(&j);
        for (uint32_t i = 0; i < r->nmats; i++) {
            const ft_mat *m = &r->mats[i];
            ft_json_begin_object(&j);
            ft_json_kuint(&j, "a", m->a);
            ft_json_kuint(&j, "a_first", m->a_first);
            ft_json_kuint(&j, "a_last", m->a_last);
            ft_json_kuint(&j, "b", m->b);
            ft_json_kuint(&j, "b_first", m->b_first);
            ft_json_kuint(&j, "b_last", m->b_last);
            ft_json_kbool(&j, "conflict", m->conflict);
            ft_json_end_object(&j);
        }
        ft_json_end_array(&j);
    }
    if (cxt) {
        ft_json_key(&j, "cxt");
        ft_json_begin_array(&j);
        for (uint32_t i = 0; i < r->ncxt; i++) {
            const ft_cxt *x = &r->cxt[i];
            ft_json_begin_object(&j);
            ft_json_kuint(&j, "from_thread", x->from_thread);
            ft_json_kuint(&j, "from_block", x->from_block);
            ft_json_kuint(&j, "from_event", c->event[x->from_trans]);
            ft_json_kuint(&j, "to_thread", x->to_thread);
            ft_json_kuint(&j, "to_block", x->to_block);
            ft_json_kuint(&j, "to_event", c->event[x->to_trans]);
            ft_json_end_object(&j);
        }
        ft_json_end_array(&j);
    }
    if (itrans) {
        ft_json_key(&j, "itrans");
        ft_json_begin_array(&j);
        for (uint32_t i = 0; i < r->nitrans; i++) {
            const ft_itrans *t = &r->itrans[i];
            ft_json_begin_object(&j);
            ft_json_kuint(&j, "thread", t->thread);
            ft_json_kuint(&j, "first_pos", t->first_pos);
            ft_json_kuint(&j, "last_pos", t->last_pos);
            ft_json_end_object(&j);
        }
        ft_json_end_array(&j);
    }
    ft_json_end_object(&j);
    ft_json_line(&j);
}

static void print_lists(const ft_ctm *c, const ft_reduced *r, int mats,
                        int cxt, int itrans)
{
    if (mats)
        for (uint32_t i = 0; i < r->nmats; i++) {
            const ft_mat *m = &r->mats[i];
            printf("mat %u: thread %u blocks %u..%u, thread %u blocks %u..%u%s\n",
                   i, m->a, m->a_first, m->a_last, m->b, m->b_first,
                   m->b_last, m->conflict ? "" : " (to the ends)");
        }
    if (cxt)
        for (uint32_t i = 0; i < r->ncxt; i++) {
            const ft_cxt *x = &r->cxt[i];
            printf("cxt: thread %u after event %llu -> thread %u at event "
                   "%llu\n",
                   x->from_thread,
                   (unsigned long long)c->event[x->from_trans], x->to_thread,
                   (unsigned long long)c->event[x->to_trans]);
        }
    if (itrans)
        for (uint32_t i = 0; i < r->nitrans; i++) {
            const ft_itrans *t = &r->itrans[i];
            printf("i-transaction: thread %u transitions %u..%u (events "
                   "%llu..%llu)\n",
                   t->thread, t->first_pos, t->last_pos,
                   (unsigned long long)c->event[ft_ctm_at(c, t->thread,
                                                          t->first_pos)],
                   (unsigned long long)c->event[ft_ctm_at(c, t->thread,
                                                          t->last_pos)]);
        }
}

int analyze_stats(const char *path, int json, int table, int mats, int cxt,
                  int itrans, int skip_unreachable)
{
    ft_reader *rd = ft_cli_open_trace(path);
    if (!rd)
        return FT_EXIT_BAD_INPUT;
    ft_error err;
    memset(&err, 0, sizeof err);
    ft_ctm *c = ft_ctm_build(rd, &err);
    if (!c) {
        fprintf(stderr, "%s: error: at byte %llu: %s\n", path,
                (unsigned long long)err.offset, err.message);
        ft_reader_close(rd);
        return FT_EXIT_BAD_INPUT;
    }
    ft_reader_close(rd);
    ft_reduced *r =
        ft_reduce(c, skip_unreachable ? FT_REDUCE_SKIP_UNREACHABLE : 0);
    if (!r) {
        fprintf(stderr, "foretell analyze: out of memory\n");
        ft_ctm_free(c);
        return FT_EXIT_INTERNAL;
    }
    if (json)
        print_json(c, r, mats, cxt, itrans);
    else {
        if (table)
            print_table(c, r);
        print_lists(c, r, mats, cxt, itrans);
    }
    ft_reduced_free(r);
    ft_ctm_free(c);
    return FT_EXIT_OK;
}
