/* SPDX-License-Identifier: MIT */
/* schedule_parse.h - the one parser of schedule files
 * (docs/schedule-format.md), line by line, for both readers: the CLI's
 * ft_schedule_read (predict/schedule.c) and the runtime's schedule
 * follower (recorder/rt/policy_replay.c), so that a schedule one accepts
 * the other accepts too, with the same limits and the same messages.
 * Built into the runtime: no allocation, no stdio streams. */
#ifndef FORETELL_SCHEDULE_PARSE_H
#define FORETELL_SCHEDULE_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define FT_SCHED_MAGIC "foretell-schedule"
#define FT_SCHED_VERSION 1
#define FT_SCHED_MAX_STEPS 100000000u
#define FT_SCHED_MAX_LINE 4095   /* bytes, without the '\n' */
#define FT_SCHED_KIND_MAX 31     /* bytes of a step's KIND */
/* The shortest step line, "0 0 k - s\n": the steps a file can hold are
 * bounded by the bytes left in it divided by this. */
#define FT_SCHED_MIN_STEP_LINE 10u

/* The kinds a schedule's `kind:` line may name: CA and CMA (BEST's
 * atomicity) and the names of predict/kind.h's property kinds, NULL
 * ended.  The runtime cannot ask predict/ which kinds exist, so the list
 * is here; test_kinds_random checks it names exactly predict's kinds. */
extern const char *const ft_sched_kinds[];

/* What one line was. */
enum ft_sched_item {
    FT_SI_ERROR = -1, /* bad input: err says what */
    FT_SI_NONE = 0,   /* magic line, comment or blank line */
    FT_SI_HEADER,     /* key and value set (not steps:) */
    FT_SI_STEPS,      /* the steps: header: count in declared, room */
    FT_SI_STEP,       /* a step line: the step fields set */
    FT_SI_END,        /* the end line */
};

typedef struct ft_sched_line {
    /* FT_SI_HEADER: key ("trace", "program", "kind", "property") and its
     * value, not NUL-terminated (they point into the caller's line) */
    const char *key, *value;
    size_t keylen, valuelen;
    /* FT_SI_STEP */
    uint32_t tid;
    uint64_t tindex;
    const char *kind, *site; /* not NUL-terminated */
    size_t kindlen, sitelen;
    int mark;                /* '!': a violating access */
    int with_next;           /* '+': runs with its thread's next step */
} ft_sched_line;

typedef struct ft_sched_parse {
    unsigned line;      /* lines given so far: the current line's number */
    int state;          /* private */
    int have_kind;
    uint64_t size;      /* bytes of the file, UINT64_MAX unknown */
    uint64_t consumed;  /* bytes of the lines given so far */
    uint64_t declared;  /* the steps: count */
    uint64_t room;      /* step lines to make room for: the declared
                           count, or fewer when the rest of the file
                           cannot hold that many (then the parse fails
                           later, where the lines stop) */
    uint64_t nsteps;    /* step lines so far */
} ft_sched_parse;

/* size: the file's size in bytes (UINT64_MAX when unknown: then only
 * FT_SCHED_MAX_STEPS bounds the declared count). */
void ft_sched_parse_init(ft_sched_parse *p, uint64_t size);
/* One line, without its '\n' (len bytes; it may hold NUL bytes, which are
 * refused).  Returns the item, or FT_SI_ERROR with the reason in err (the
 * caller prefixes "NAME:LINE: ", p->line being the line's number). */
int ft_sched_parse_line(ft_sched_parse *p, const char *line, size_t len,
                        ft_sched_line *out, char *err, size_t errlen);
/* At the end of the file: 0, or -1 with err (for line p->line + 1 when
 * the file stopped early, else p->line). */
int ft_sched_parse_finish(ft_sched_parse *p, char *err, size_t errlen);

/* A whole schedule in memory (the runtime maps the file), split into
 * lines at '\n' and parsed; fn is called for every item but FT_SI_NONE
 * and may stop the parse by returning nonzero with err set.  0, or -1
 * with err saying what and *line which line. */
typedef int (*ft_sched_item_fn)(void *ctx, int item, const ft_sched_parse *p,
                                const ft_sched_line *l, char *err,
                                size_t errlen);
int ft_sched_parse_text(const char *text, size_t len, ft_sched_item_fn fn,
                        void *ctx, unsigned *line, char *err, size_t errlen);

#endif
