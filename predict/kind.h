/* SPDX-License-Identifier: MIT */
/* kind.h - property kinds: every kind of concurrency bug foretell predicts
 * from one run besides BEST's causal atomicity (CA, CMA: findav.c), behind
 * one interface, one file per kind (kind_*.c), so that a new kind touches
 * nothing else.  A kind says
 *
 *   candidates  which properties the run suggests (the model, its
 *               locksets, the trace's events), few enough to stay near
 *               linear in the trace: each names its transitions (targets)
 *               and a static group (the sites that make it the same bug);
 *   goal        the violation, stated over the schedule formula of smt/
 *               (positions, the data rule, the sync semantics) of the
 *               property's slice, or of the whole model when the goal is
 *               about every thread (a blocked state);
 *   witness     how a model's schedule is cut into the schedule file, what
 *               is marked, and what the replay must observe (expect);
 *   describe    its events with their roles, for the compiler-style text,
 *               the JSON and the fingerprint (kind + sites).
 *
 * kinds.c holds what every kind shares: the registry, solving one
 * property (slice, encode, check, witness), the pipeline step that makes
 * and solves the candidates of a trace, and the fingerprint.
 * docs/prediction.md ("Property kinds") has each kind's definition. */
#ifndef FORETELL_PREDICT_KIND_H
#define FORETELL_PREDICT_KIND_H

#include "predict/predict.h"

struct ft_value_order; /* vorder.c */

/* A growable array of properties. */
typedef struct ft_props {
    ft_prop *v;
    size_t n, cap;
} ft_props;
int ft_props_push(ft_props *a, const ft_prop *p);
void ft_props_free(ft_props *a);

/* What candidates are made from.  ti and trace may be NULL (the model
 * tests have neither): a kind then does without what they tell (which
 * accesses are atomic, calls, allocations). */
typedef struct ft_pkind_src {
    ft_ctm *c;
    const ft_reduced *whole;   /* c reduced: the locksets */
    const ft_trace_info *ti;
    const fi_trace *trace;
    uint32_t per_group;        /* dynamic candidates kept per static group */
    uint32_t max_props;        /* candidates per kind at most */
} ft_pkind_src;

/* An event of a finding: a transition of the model and what it does in
 * the bug ("holds", "waits", "reads", "writes", "frees", ...). */
typedef struct ft_kevent {
    const char *role;
    uint32_t trans;
} ft_kevent;
#define FT_KEVENTS_MAX 16

/* Whether e is a key event of its finding (docs/batch.md,
 * "Fingerprints"): every event but the write an order violation's read
 * read from in this witness ("from"), which another witness of the same
 * bug may take from another write. */
static inline int ft_kevent_is_key(const ft_kevent *e)
{
    return !(e->role[0] == 'f' && !__builtin_strcmp(e->role, "from"));
}

/* What the replay of a witness must show for the finding to count as a
 * bug (replay/confirm_kind.c). */
enum ft_expect {
    FT_EXPECT_FOLLOWED = 0, /* every step followed: the state is reached;
                               the program's own checks decide what
                               follows (failure: harmful) */
    FT_EXPECT_DEADLOCK,     /* the run ends in the runtime's deadlock */
    FT_EXPECT_BLOCKED,      /* a deadlock, a hang, or the failure a
                               timed wait's expiry leads to */
    FT_EXPECT_UAF,          /* the heap oracle's use after free */
    FT_EXPECT_NULL,         /* a crash through the null pointer (or
                               another crash); a run that went on and
                               failed otherwise (its own check saw the
                               null) does not show a null dereference */
};

typedef struct ft_pkind {
    uint8_t kind;            /* enum ft_prop_kind */
    const char *name;        /* "deadlock": JSON "kind", schedule "kind:",
                                schedule file names */
    const char *stage;       /* "deadlock candidates": the progress line
                                while its candidates are made */
    const char *title;       /* "deadlock", as people read it */
    const char *rule;        /* "Deadlock": SARIF's rule name */
    const char *summary;     /* one or two sentences: what the bug is
                                (SARIF's rule description, docs) */
    int whole_model;         /* solved on the whole model, not a slice */
    int expect;              /* enum ft_expect */
    int (*candidates)(const ft_pkind_src *s, ft_props *out);
    /* Optional: 1 when a cheap argument proves p holds (no solver call),
     * 0 when it must be solved; whole is c reduced; vo the value order
     * (vorder.c) when there is one and it may be used, else NULL. */
    int (*holds)(const ft_ctm *c, const ft_reduced *whole,
                 const struct ft_value_order *vo, const ft_prop *p);
    /* Optional: 1 when the value order (vorder.c) proves p holds. */
    int (*vholds)(const ft_ctm *c, const struct ft_value_order *vo,
                  const ft_prop *p);
    /* Optional: a search for a violation before the solver (whole is c
     * reduced; deadline CLOCK_MONOTONIC s, 0 none).  1 found, res filled
     * (verdict, witness); 0 not found, res untouched; -1 out of memory. */
    int (*search)(ft_ctm *c, const ft_reduced *whole, const ft_prop *p,
                  double deadline, ft_presult *res);
    /* The violation over e's model; tb[i] is the block of p->tgt[i] in
     * it.  May assert side conditions; NULL on out of memory. */
    Z3_ast (*goal)(ft_smt *e, const ft_prop *p, const uint32_t *tb);
    /* The witness from the blocks order[0..n) a model executed: steps (c's
     * ids), marks, cut; tb as for goal.  0, -1 out of memory. */
    int (*witness)(const ft_ctm *c, const ft_reduced *r, const ft_prop *p,
                   const uint32_t *order, uint32_t n, const uint32_t *tb,
                   ft_presult *res);
    /* The finding's events (at most max) and a one-line message. */
    uint32_t (*describe)(const ft_ctm *c, const ft_trace_info *ti,
                         const ft_prop *p, const ft_presult *res,
                         ft_kevent *ev, uint32_t max, char *msg,
                         size_t len);
} ft_pkind;

/* The kind of p->kind, NULL for CA/CMA (findav.c) and unknown kinds. */
const ft_pkind *ft_pkind_of(unsigned kind);
/* By name ("deadlock"), NULL if none. */
const ft_pkind *ft_pkind_by_name(const char *name);
/* All kinds, in the order their candidates are made and reported. */
extern const ft_pkind *const ft_pkinds[];
extern const unsigned ft_npkinds;

/* For the tests: whether the lost wake-up kind's cut search, with the
 * value order vo (NULL: without it), refuses (or never tries) the state
 * in which each thread t stands at position cut[t] (c->len[t]:
 * finished; UINT32_MAX: not begun), p's thread at p's wait
 * (kind_stuck.c).  -1 out of memory. */
int ft_stuck_refuses(const ft_ctm *c, const ft_reduced *whole,
                     const struct ft_value_order *vo, const ft_prop *p,
                     const uint32_t *cut);

/* The kinds, each in its file. */
extern const ft_pkind ft_pkind_deadlock; /* kind_deadlock.c */
extern const ft_pkind ft_pkind_stuck;    /* kind_stuck.c */
extern const ft_pkind ft_pkind_order;    /* kind_order.c */
extern const ft_pkind ft_pkind_null;     /* kind_order.c */
extern const ft_pkind ft_pkind_uaf;      /* kind_uaf.c */
extern const ft_pkind ft_pkind_race;     /* kind_race.c */

/* kind_order_search.c: whether write y can give read r another value
 * than its recorded one (want, when specific): it writes another, or it
 * is an atomic update whose own read may return another value, making
 * what it writes unknown: not when its thread must go past it before r
 * (r's own thread before r; another thread by the value order vo, or by
 * must happen-before when vo is NULL), since every read a thread goes past
 * returns its recorded value in the property's prefixes (the data rule).
 * And whether the value order proves that read r =
 * p->tgt[0] returns its recorded value (vholds), and a violation (r
 * returns another value, want when specific) found by holding one thread
 * back in the recorded run (search). */
int ft_order_other(const ft_ctm *c, const struct ft_value_order *vo, uint32_t y,
                   uint32_t r, int specific, uint64_t want);
int ft_order_vholds(const ft_ctm *c, const struct ft_value_order *vo,
                    const ft_prop *p, int specific, uint64_t want);
int ft_order_search(ft_ctm *c, const ft_reduced *whole, const ft_prop *p,
                    int specific, uint64_t want, double deadline,
                    ft_presult *res);

/* kind_race_search.c: a race p found by holding a thread back in the
 * recorded run (search, as above); and the end of every race witness:
 * res (a prefix) cut to the causal past of where the two threads stand,
 * then both accesses marked, the other order in alt_steps.  0, -1 out
 * of memory. */
int ft_race_search(ft_ctm *c, const ft_reduced *whole, const ft_prop *p,
                   double deadline, ft_presult *res);
/* ... and a race p that holds because the value order puts one access
 * before the other's thread reaches it (vholds). */
int ft_race_vholds(const ft_ctm *c, const struct ft_value_order *vo,
                   const ft_prop *p);
int ft_race_finish(const ft_ctm *c, const ft_prop *p, ft_presult *res);
/* Where the step of access x begins: the first position of the glued
 * transitions (ctm.h ft_ctm_glued: paired reads) that run as one with
 * it, before it.  A race's threads stand there, at a point where either
 * may run (docs/prediction.md, "Races and glued steps"). */
uint32_t ft_race_step(const ft_ctm *c, uint32_t x);

/* Solves property p of a kind (ft_predict_one_in calls this for every
 * kind but CA/CMA): the kind's cheap decisions first (holds, vholds with
 * w's value order, search), then slices c for the targets (or takes
 * whole), encodes, checks, cuts the witness.  With o->window set and
 * targets farther than that from the trace's ends, a kind solved on a
 * slice is solved on windows instead, as CA/CMA are (window.c).  w: the
 * trace's window index (NULL: one is built when a kind needs its value
 * order or a window).  Returns the verdict. */
/* Encodes, checks and cuts the witness of kind property p on model r
 * (a slice of c, or a window's model that starts in state start; NULL:
 * the program's start): what ft_predict_model does for CA/CMA. */
int ft_pkind_predict_model(ft_ctm *c, const ft_reduced *r,
                           const ft_smt_start *start, const ft_prop *p,
                           const ft_predict_opts *o, double deadline,
                           ft_presult *res);
int ft_pkind_predict(ft_ctm *c, const ft_reduced *whole,
                    const ft_window_index *w, const ft_prop *p,
                    const ft_predict_opts *o, ft_presult *res);

/* groups.c: per static group (ft_prop.group), whether one of
 * props[0..n) is violated in res: what covers the group's other
 * instances.  NULL when nothing is covered (o->every_instance, or props
 * are not pl's atomicity properties) and, with *oom set, out of memory. */
uint8_t *ft_pipeline_violated_groups(const ft_pipeline *pl,
                                     const ft_prop *props,
                                     const ft_presult *res, size_t n,
                                     const ft_predict_opts *o, int *oom);
/* solve_job.c: when the solving of pl's properties ends (o->until, the
 * command's budget less a tenth, or t0 + o->total_ms; 0 none). */
double ft_pipeline_solve_until(const ft_pipeline *pl,
                               const ft_predict_opts *o, double t0);
/* solve_job.c: solves props[done0..n) into results in batches, in a
 * thread of its own that is abandoned (pl->abandoned) when it overruns
 * o->until by more than a grace; w is passed to the solving, own_w (may
 * be w) freed once both let go.  What is not solved becomes FT_UNKNOWN
 * with a reason.  Returns how many were solved (done0 included), -1 out
 * of memory. */
long ft_pipeline_solve_bounded(ft_pipeline *pl, const ft_prop *props,
                               ft_presult *results, size_t n, size_t done0,
                               const ft_predict_opts *o,
                               ft_window_index *w, ft_window_index *own_w,
                               size_t stop_after, const char *stage,
                               ft_progress_fn *progress, void *arg);

/* ---- helpers the kinds share (kinds.c) ------------------------------ */

/* Whether target i of p is the key of its block tb[i] in r.  A goal that
 * speaks of a target as its block's key asks first: a target can be
 * local in r (no other thread touches its object there, as in a window
 * of a long trace), merged into a block another transition keys, and
 * then takes part in no violation of r (test_kinds_random's order seed
 * 96 checked another read in its place). */
int ft_target_keyed(const ft_reduced *r, const ft_prop *p, const uint32_t *tb,
                    uint32_t i);

/* Witness steps from the executed blocks order[0..closing] (marked: the
 * blocks whose key is marked), as findav.c cuts them. */
int ft_witness_from_blocks(const ft_reduced *r, const uint32_t *order,
                           uint32_t closing, const uint8_t *mark,
                           ft_presult *res);
/* Completes the witness of the blocks order[0..n) with the local
 * transitions a thread runs by itself: those before the shared
 * transition it stands at, or after its last one when it has finished,
 * for each thread t with which[t] set (which NULL: every thread).  A
 * state about where threads stand holds only with them. */
int ft_witness_locals(const ft_ctm *c, const ft_reduced *r,
                      const uint32_t *order, uint32_t n, const uint8_t *which,
                      ft_presult *res);
/* Appends transition x of c (a step the model did not execute). */
int ft_presult_append(ft_presult *res, uint32_t x, int mark);
/* Cuts the witness to the causal past of its marked steps and of the
 * steps with seed[i] set (trim.c's closure, every read keeping its
 * write).  0, -1 out of memory. */
int ft_presult_trim_seeds(const ft_ctm *c, ft_presult *res,
                          const uint8_t *seed);
/* The lock set thread tid(x) holds just before x (whole's locksets). */
uint32_t ft_pkind_held_before(const ft_reduced *whole, uint32_t x);
/* kind_order_search.c: the id of x's thread's latest transition at or
 * before x before which the thread holds no lock, so that holding the
 * thread there blocks no lock waiter. */
uint32_t ft_pkind_unlocked_before(const ft_reduced *whole, uint32_t x);
/* r's reason from the solver's why of unknown (findav.c). */
void ft_presult_why_smt(const ft_smt *e, ft_presult *r);
/* Whether lockset s of r holds lock; *read set to its mode. */
int ft_pkind_set_has(const ft_reduced *r, uint32_t s, uint32_t lock,
                    int *read);
/* "name" of variable v for messages (the trace's names, else the
 * address). */
const char *ft_pkind_var(const ft_ctm *c, const ft_trace_info *ti,
                        uint32_t v, char *buf, size_t len);
/* A value variable v held, for messages: by its type when the trace
 * records it ("-5", "true", "RED"), else hex ("0x64"). */
const char *ft_pkind_value(const ft_ctm *c, const ft_trace_info *ti,
                           uint32_t v, uint64_t value, char *buf,
                           size_t len);

/* The fingerprint of a finding: kind and its key events' sites
 * (function, file base name and line), 16 hex digits into buf (17
 * bytes). */
void ft_pkind_fingerprint(const ft_ctm *c, const ft_trace_info *ti,
                         const char *kind, const ft_kevent *ev, uint32_t n,
                         char *buf);

/* ---- the pipeline step (kinds.c) ------------------------------------ */

/* Which kinds `analyze` predicts: a bit per enum ft_prop_kind. */
#define FT_KINDS_ALL 0xffffffffu

/* The mask a --kinds LIST names (comma-separated kind names, "atomicity"
 * for CA and CMA, "all"): analyze's and batch analyze's option.  -1 with
 * err set ("unknown kind 'x' (atomicity, deadlock, ...)") for a name that
 * is none. */
int64_t ft_pkind_parse_mask(const char *list, char *err, size_t errlen);
/* Makes the candidates of the kinds in mask for pl (after
 * ft_pipeline_infer) into pl->kprops.  0, -1 out of memory. */
int ft_pipeline_kind_candidates(ft_pipeline *pl, uint32_t mask,
                                uint32_t per_group);
/* The timeout (ms) of a candidate's first pass (second 0) or second
 * pass (second 1) with o: the two add up to o->timeout_ms, so that
 * --timeout bounds a candidate's time; 0 for the second when there is
 * none (o->timeout_ms no longer than the first pass: one pass) or no
 * timeout at all. */
unsigned ft_kind_pass_ms(const ft_predict_opts *o, int second);
/* Solves them (o->jobs workers; o->total_ms and o->until as for the
 * atomicity properties) into pl->kresults: every candidate's cheap
 * decisions first, then the solver for the rest, with at most half of
 * the time left when the atomicity properties are still to be solved
 * (call this before ft_pipeline_predict).  Returns the number violated,
 * -1 out of memory. */
long ft_pipeline_predict_kinds(ft_pipeline *pl, const ft_predict_opts *o);
/* The schedule of kind property i for its result res (pl->kresults[i],
 * or that with the alternative steps): the steps, the kind line and the
 * property line (the kind's description).  0, -1 out of memory. */
int ft_pipeline_kind_schedule(const ft_pipeline *pl, size_t i,
                              const ft_presult *res, ft_schedule *s);
/* Writes the schedule of kind property i as DIR/<name>-<id>.schedule
 * (path set); the race kind's other order goes to
 * DIR/<name>-<id>.alt.schedule by ft_pipeline_write_kind_alt.  0, -1
 * with err. */
int ft_pipeline_write_kind_schedule(const ft_pipeline *pl, size_t i,
                                    const char *dir, char *path,
                                    size_t pathlen, char *err,
                                    size_t errlen);
int ft_pipeline_write_kind_alt(const ft_pipeline *pl, size_t i,
                               const char *dir, char *path, size_t pathlen,
                               char *err, size_t errlen);

#endif
