/* SPDX-License-Identifier: MIT */
/* report.c - what `foretell analyze --regions/--properties` prints: one
 * line per region or property for people, or one JSON document for tools.
 * Variables are printed by name when the trace came with names (STD
 * imports), otherwise by address. */
#include "infer/internal.h"
#include "infer/u64map.h"

#include <inttypes.h>
#include <string.h>

const char *fi_status_name(unsigned status)
{
    switch (status) {
    case FI_ST_OPEN: return "open";
    case FI_ST_PROVED: return "proved atomic";
    case FI_ST_NOCONFLICT: return "no conflict";
    case FI_ST_OBSERVED: return "observed violation";
    default: return "?";
    }
}

const char *fi_source_name(unsigned source)
{
    switch (source) {
    case FI_SRC_INFERRED: return "inferred";
    case FI_SRC_ANNOTATED: return "annotated";
    case FI_SRC_SPEC: return "spec";
    default: return "?";
    }
}

static const char *proof_name(unsigned proof)
{
    switch (proof) {
    case FI_PROOF_MAT: return "i-transaction";
    case FI_PROOF_SINGLE: return "single conflicting event";
    case FI_PROOF_LOCK: return "lock held throughout";
    case FI_PROOF_REDUCTION: return "reduction";
    default: return NULL;
    }
}

static void json_str(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

typedef struct namer {
    fi_u64map map; /* var key -> index into trace names */
    const fi_trace *t;
    char buf[32];
} namer;

static void namer_init(namer *n, const fi_trace *t)
{
    memset(n, 0, sizeof *n);
    n->t = t;
    for (size_t i = 0; i < t->nnames; i++) {
        int added;
        if (t->names[i].ns != 'T')
            fi_u64map_intern(&n->map, t->names[i].key, (uint32_t)i, &added);
    }
}

static const char *var_name(namer *n, const fi_analysis *a, uint32_t v)
{
    uint64_t key = a->vars[v].key;
    uint32_t i = fi_u64map_get(&n->map, key);
    if (i != UINT32_MAX)
        return n->t->names[i].name;
    snprintf(n->buf, sizeof n->buf, "0x%" PRIx64, key);
    return n->buf;
}

static void print_vars(FILE *out, namer *nm, const fi_analysis *a,
                       const uint32_t *vars, uint32_t nvars, int json)
{
    if (json)
        fputc('[', out);
    for (uint32_t j = 0; j < nvars; j++) {
        if (j)
            fputc(json ? ',' : ' ', out);
        if (json)
            json_str(out, var_name(nm, a, vars[j]));
        else
            fputs(var_name(nm, a, vars[j]), out);
    }
    if (json)
        fputc(']', out);
    else if (!nvars)
        fputc('-', out);
}

static void print_region_json(FILE *out, namer *nm, const fi_analysis *a,
                              const fi_region *r)
{
    fprintf(out, "{\"id\":%u,\"thread\":%u,\"function\":", r->id, r->tid);
    json_str(out, r->function);
    fputs(",\"file\":", out);
    json_str(out, r->file);
    fprintf(out,
            ",\"lines\":[%u,%u],\"first\":%" PRIu64 ",\"last\":%" PRIu64
            ",\"events\":%u,\"accesses\":%u,\"variables\":",
            r->line_lo, r->line_hi, r->first, r->last, r->nevents,
            r->naccesses);
    print_vars(out, nm, a, r->vars, r->nvars, 1);
    fprintf(out, ",\"source\":\"%s\",\"status\":\"%s\",\"proof\":",
            fi_source_name(r->source), fi_status_name(r->status));
    json_str(out, proof_name(r->proof));
    if (r->status == FI_ST_OBSERVED)
        fprintf(out,
                ",\"witness\":{\"out\":%" PRIu64 ",\"via\":%" PRIu64
                ",\"in\":%" PRIu64 "}",
                fi_region_witness(a, r)->out, fi_region_witness(a, r)->via,
                fi_region_witness(a, r)->in);
    fputc('}', out);
}

void fi_print_regions(FILE *out, const fi_analysis *a, int json)
{
    namer nm;
    namer_init(&nm, a->trace);
    if (json) {
        fputs("{\"regions\":[", out);
        for (size_t k = 0; k < a->nregions; k++) {
            if (k)
                fputc(',', out);
            print_region_json(out, &nm, a, &a->regions[k]);
        }
        fputs("]}\n", out);
        fi_u64map_free(&nm.map);
        return;
    }
    fprintf(out, "%zu regions%s\n", a->nregions,
            a->itx_applied ? "" : " (MAT proof not applied)");
    for (size_t k = 0; k < a->nregions; k++) {
        const fi_region *r = &a->regions[k];
        fprintf(out, "R%u T%u %s %s:%u-%u events %" PRIu64 "-%" PRIu64
                     " vars ",
                r->id, r->tid, r->function ? r->function : "?",
                r->file ? r->file : "?", r->line_lo, r->line_hi, r->first,
                r->last);
        print_vars(out, &nm, a, r->vars, r->nvars, 0);
        fprintf(out, " [%s] %s", fi_source_name(r->source),
                fi_status_name(r->status));
        if (proof_name(r->proof))
            fprintf(out, " (%s)", proof_name(r->proof));
        if (r->status == FI_ST_OBSERVED)
            fprintf(out,
                    ": event %" PRIu64 " -> event %" PRIu64
                    " (other thread) -> event %" PRIu64,
                    fi_region_witness(a, r)->out, fi_region_witness(a, r)->via,
                fi_region_witness(a, r)->in);
        fputc('\n', out);
    }
    fi_u64map_free(&nm.map);
}

void fi_print_properties(FILE *out, const fi_analysis *a, int json)
{
    namer nm;
    namer_init(&nm, a->trace);
    if (json)
        fputs("{\"properties\":[", out);
    for (size_t k = 0; k < a->nprops; k++) {
        const fi_property *p = &a->props[k];
        const fi_region *r1 = &a->regions[p->r1], *r2 = &a->regions[p->r2];
        if (json) {
            if (k)
                fputc(',', out);
            fprintf(out, "{\"kind\":\"%s\",\"regions\":[",
                    p->kind == FI_PROP_CA ? "CA" : "CMA");
            print_region_json(out, &nm, a, r1);
            if (p->kind == FI_PROP_CMA) {
                fputc(',', out);
                print_region_json(out, &nm, a, r2);
                fprintf(out, "],\"conflicts\":%u,\"conflict_variables\":",
                        p->nconflicts);
                print_vars(out, &nm, a, p->vars, p->nvars, 1);
                fputc('}', out);
            } else {
                fputs("]}", out);
            }
            continue;
        }
        if (p->kind == FI_PROP_CA) {
            fprintf(out, "CA(R%u) T%u events %" PRIu64 "-%" PRIu64 "\n",
                    r1->id, r1->tid, r1->first, r1->last);
        } else {
            fprintf(out,
                    "CMA(R%u,R%u) T%u events %" PRIu64 "-%" PRIu64
                    " / T%u events %" PRIu64 "-%" PRIu64 " conflicts %u on ",
                    r1->id, r2->id, r1->tid, r1->first, r1->last, r2->tid,
                    r2->first, r2->last, p->nconflicts);
            print_vars(out, &nm, a, p->vars, p->nvars, 0);
            fputc('\n', out);
        }
    }
    if (json)
        fprintf(out, "],\"cma_dropped\":%zu}\n", a->ncma_dropped);
    else if (a->ncma_dropped)
        fprintf(out, "(%zu more CMA properties not generated: limit)\n",
                a->ncma_dropped);
    fi_u64map_free(&nm.map);
}

void fi_print_summary(FILE *out, const fi_analysis *a, int json)
{
    fi_summary s;
    fi_summarize(a, &s);
    if (json) {
        fprintf(out,
                "{\"ia\":%zu,\"ra\":%zu,\"ra2\":%zu,\"vavg\":%.2f,"
                "\"ca\":%zu,\"cma\":%zu,\"observed\":%zu,\"mat\":%s}\n",
                s.ia, s.ra, s.ra2, s.vavg, s.ca, s.cma, s.observed,
                a->itx_applied ? "true" : "false");
        return;
    }
    fprintf(out,
            "ia %zu  ra %zu  ra' %zu  vavg %.2f  CA %zu  CMA %zu  "
            "observed %zu%s\n",
            s.ia, s.ra, s.ra2, s.vavg, s.ca, s.cma, s.observed,
            a->itx_applied ? "" : "  (MAT proof not applied)");
}
