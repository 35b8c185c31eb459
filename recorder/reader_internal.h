/* SPDX-License-Identifier: MIT */
/* reader_internal.h - the reader's private state, shared by the files that
 * implement it: reader.c (frames, streaming), reader_meta.c (msgpack-c
 * decoding of header/sites/modules/symbols/end), reader_decode.c (the
 * hand-written event decoder) and the tools that append chunks
 * (symbolize.c, append.c).  Not for other stages: they use trace.h. */
#ifndef FORETELL_READER_INTERNAL_H
#define FORETELL_READER_INTERNAL_H

#include "recorder/encode.h"
#include "recorder/trace.h"
#include "recorder/zchunk.h"
#include "recorder/typetab.h"

#include <stdarg.h>

/* Largest HEADER / metadata element accepted: bounds what msgpack-c may
 * allocate (it allocates 24 bytes per array element before reading it). */
#define FT_HEADER_MAX_BODY (4u << 20)
#define FT_META_MAX_ELEMENT (64u << 10)

/* Where an EVENTS chunk lies in the file. */
typedef struct ft_chunk_ref {
    uint64_t offset;   /* start of the frame */
    uint32_t body_len; /* stored bytes */
    uint32_t crc;
    uint32_t raw_len;  /* decoded bytes: body_len, or the size a compressed
                          body declares (at most FT_CHUNK_MAX_BODY) */
    int zstd;          /* the body is compressed (zchunk.h) */
} ft_chunk_ref;

/* What reading compressed bodies needs: room for the stored bytes and a
 * decompression context, one per thread that loads chunks. */
typedef struct ft_unz {
    uint8_t *buf;
    size_t cap;
    ZSTD_DCtx *dctx;
} ft_unz;
void ft_unz_free(ft_unz *z);

/* A compressed body may hold this many times its stored bytes, for
 * ft_reader_event_bytes: a declared size is only the writer's word until
 * the chunk is decompressed, and a bound proportional to the file keeps
 * a hostile trace from pre-sizing tables by sizes it merely declares.
 * Events compress 5-10 times at zstd level 1 (docs/benchmarks.md). */
#define FT_ZSTD_RATIO_BOUND 64u

/* Strings owned by the reader, allocated in blocks so that pointers stay
 * valid for the reader's lifetime. */
typedef struct ft_strblock {
    struct ft_strblock *next;
    size_t used, cap;
    char data[];
} ft_strblock;

struct ft_reader {
    /* source: a file descriptor, or a caller's memory */
    int fd;
    const uint8_t *mem;
    uint64_t size; /* bytes of the file when opened */
    char name[256];

    ft_header header;
    ft_module *modules;
    uint32_t nmodules, capmodules;
    const char **argv;
    ft_site *sites;    /* sorted by id once open: sites[i].id == i + 1 */
    uint32_t nsites, capsites;
    uint64_t *site_at; /* while open: file offset of each entry */
    uint64_t elem_at;  /* file offset of the metadata entry being decoded */
    ft_end end;
    uint64_t end_threads;
    struct ft_datasym *data; /* sorted by (module, offset) once open */
    uint32_t ndata, capdata;
    ft_typetab types;        /* TYPES: type descriptions, heap derefs */
    struct ft_vartype *vartypes; /* TYPES: sorted by (module, offset) */
    uint32_t nvartypes, capvartypes;
    ft_strblock *strings;

    ft_chunk_ref *chunks; /* EVENTS chunks in file order */
    size_t nchunks, capchunks;
    uint64_t valid_end;  /* end of the last intact frame */
    uint64_t next_seq;   /* seq the next appended chunk must carry */

    /* damage: where and why reading must stop (frame walk or streaming) */
    int damaged;
    uint64_t damage_offset;
    char damage_why[200];
    ft_error error; /* last error for ft_reader_error */

    /* streaming */
    size_t cur_chunk;      /* index of the next chunk to load */
    uint8_t *body;         /* current chunk's body (decompressed) */
    size_t body_cap;
    ft_unz unz;            /* compressed bodies, for open and streaming */
    uint8_t *meta_raw;     /* a compressed metadata body, decompressed */
    size_t meta_raw_cap;
    const uint8_t *pos, *body_end;
    uint64_t body_offset;  /* file offset of body[0] */
    ft_addr_regs addr_regs;
    uint32_t tid;
    uint64_t delivered;    /* events delivered so far */
    int stream_done;       /* 1: end or damage reached */

    /* batches (ft_reader_next_batch): decoded ahead on a second thread
     * (reader_pipe.c), or, when no thread can be had, filled here */
    struct ft_pipe *pipe;
    ft_event *seq_batch;
};

/* Reads EVENTS chunk k into body (room for its raw_len), decompressing it
 * through z if it is compressed, and checks its CRC (of the stored bytes)
 * and prologue, the chunk having to start at event expect_first.  0 with
 * *first_event and *tid set, or -1 with where and why reading must stop.
 * Reads only what open set, so the decoding thread may call it (with its
 * own z). */
int ft_chunk_check(const ft_reader *r, size_t k, uint8_t *body, ft_unz *z,
                   uint64_t expect_first, const uint8_t **first_event,
                   uint32_t *tid, uint64_t *damage_offset, char *why,
                   size_t whylen);
/* Where a malformed event at byte pos of chunk c's (decoded) body is: the
 * file offset of that byte, or for a compressed chunk the chunk's own
 * offset (a position in decompressed bytes is no place in the file). */
static inline uint64_t ft_event_offset(const ft_chunk_ref *c, size_t pos)
{
    return c->zstd ? c->offset : c->offset + FT_CHUNK_HEAD + (uint64_t)pos;
}
/* Why reading stopped at a malformed event (chunk offset, decoder's why). */
#define FT_MALFORMED_EVENT "malformed event in chunk at byte %llu: %s"

/* Events per batch of ft_reader_next_batch. */
#define FT_BATCH_EVENTS 1024u

/* Starts decoding ahead from the first chunk (reader_pipe.c); 0 or -1
 * when no thread could be started (then nothing changed). */
int ft_pipe_start(ft_reader *r);
/* The next batch from the decoding thread, as ft_reader_next_batch. */
long ft_pipe_next_batch(ft_reader *r, const ft_event **evs);
/* The next event from the decoding thread, as ft_reader_next. */
int ft_pipe_next(ft_reader *r, ft_event *ev);
/* Stops the decoding thread, waits for it and frees what it used; the
 * stream itself is left as it was.  Nothing happens without one. */
void ft_pipe_stop(ft_reader *r);

/* Reads len bytes at offset into buf; 0 or -1 (short or I/O error). */
int ft_reader_pread(ft_reader *r, void *buf, size_t len, uint64_t offset);

/* Sets r->error (and returns -1). */
int ft_reader_fail(ft_reader *r, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records damage at offset: reading stops there. */
void ft_reader_mark_damage(ft_reader *r, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copies a string into reader-owned storage; NULL on out of memory. */
const char *ft_reader_strdup(ft_reader *r, const char *s, size_t n);

/* ft_mp_validate (trace.h) checks chunk bodies before msgpack-c. */

/* msgpack-c decoding of metadata chunk bodies (reader_meta.c).  0 or -1
 * with r->error set; body_off is the body's file offset. */
int ft_meta_header(ft_reader *r, const uint8_t *body, size_t n,
                   uint64_t body_off);
int ft_meta_sites(ft_reader *r, const uint8_t *body, size_t n,
                  uint64_t body_off);
int ft_meta_modules(ft_reader *r, const uint8_t *body, size_t n,
                    uint64_t body_off);
/* A data symbol of a DATA chunk: a global or static variable. */
typedef struct ft_datasym {
    uint32_t module;
    uint64_t offset, size; /* offset from the module's load base */
    const char *name;
} ft_datasym;
int ft_meta_data(ft_reader *r, const uint8_t *body, size_t n,
                 uint64_t body_off);
/* A TYPES variable entry: the global at (module, offset) has type. */
typedef struct ft_vartype {
    uint32_t module, type;
    uint64_t offset;
} ft_vartype;
int ft_meta_types(ft_reader *r, const uint8_t *body, size_t n,
                  uint64_t body_off);
/* Sorts the data symbols and types once every chunk is read
 * (datasyms.c). */
void ft_meta_finish_data(ft_reader *r);
int ft_meta_symbols(ft_reader *r, const uint8_t *body, size_t n,
                    uint64_t body_off);
int ft_meta_source(ft_reader *r, const uint8_t *body, size_t n,
                   uint64_t body_off);
int ft_meta_end(ft_reader *r, const uint8_t *body, size_t n,
                uint64_t body_off);
int ft_meta_inlined(ft_reader *r, const uint8_t *body, size_t n,
                    uint64_t body_off);
int ft_meta_insn(ft_reader *r, const uint8_t *body, size_t n,
                 uint64_t body_off);
int ft_meta_straight(ft_reader *r, const uint8_t *body, size_t n,
                     uint64_t body_off);
/* Sorts the site table, merging SYMBOLS, SOURCE, INLINED and STRAIGHT into SITES
 * entries; -1 with r->error set when the ids are not dense from 1
 * (docs/trace-format.md: consumers index tables by site id, so a hostile
 * id must not size them). */
int ft_meta_finish_sites(ft_reader *r);

/* ---- linemap.c: the real source of a line named by #line ---- */
#define FT_SOURCES_CACHED 4
typedef struct ft_sources {
    char cu[4096];                         /* scratch for the CU's path */
    struct ft_linedirs *cache[FT_SOURCES_CACHED]; /* parsed, newest first */
} ft_sources;
/* file:*line as the line table says, in the compile unit whose source is
 * cu: when file does not exist but cu does, the physical line of cu that
 * its #line directives map there (cu into buf, *line updated); else file
 * unchanged. */
const char *ft_real_source(const char *cu, const char *file, int *line,
                           char *buf, size_t len, ft_sources *srcs);
void ft_sources_free(ft_sources *srcs);

/* The event decoder (reader_decode.c).  Decodes one event at *pp (not
 * past end), consuming SWITCH events into *tid.  Returns 1 with *ev
 * filled, 0 at end of body, -1 on malformed input with *why set and *pp
 * left at the offending byte. */
int ft_decode_event(const uint8_t **pp, const uint8_t *end, ft_addr_regs *reg,
                    uint32_t *tid, ft_event *ev, const char **why);
/* Decodes up to max events into ev[0..*n), numbering them from
 * first_index.  Returns 1 when max were decoded, 0 at the end of the body,
 * -1 at a malformed event (*why, *pp at it, the events before it in ev). */
int ft_decode_batch(const uint8_t **pp, const uint8_t *end, ft_addr_regs *reg,
                    uint32_t *tid, ft_event *ev, uint32_t max,
                    uint64_t first_index, uint32_t *n, const char **why);
/* Decodes an EVENTS body prologue (first index, tid). */
int ft_decode_prologue(const uint8_t **pp, const uint8_t *end,
                       uint64_t *first, uint32_t *tid, const char **why);

/* Appending chunks to an existing trace (append.c).  Open checks that the
 * file ends where its last intact chunk ends and learns the next seq. */
typedef struct ft_appender {
    int fd;
    uint64_t seq;
    uint8_t *buf; /* one chunk under construction */
    ft_chunk chunk;
    unsigned kind;
    int failed;     /* errno of the first failed write, 0 none */
    uint64_t start; /* the file's length at open */
} ft_appender;

#define FT_APPEND_CHUNK (1u << 20)

/* 0, -1 (err set: damaged tail, changed file) or -2 (the file cannot be
 * opened for writing: err names the OS error). */
int ft_appender_open(ft_appender *a, const char *path, ft_error *err);
/* The same with the trace already open as r (no second walk of its
 * chunks); r must have been opened on path. */
int ft_appender_open_reader(ft_appender *a, const ft_reader *r,
                            const char *path, ft_error *err);
/* Adds an END chunk (reason, events, exit status, threads). */
void ft_appender_put_end(ft_appender *a, const ft_end *end, uint64_t threads);
/* Room for need more body bytes in a chunk of this kind, flushing the
 * current chunk first if needed; NULL if need can never fit. */
uint8_t *ft_appender_reserve(ft_appender *a, unsigned kind, size_t need);
void ft_appender_commit(ft_appender *a, uint8_t *end);
/* Flushes and closes; 0, or -2 (err set) when a write failed: the file
 * then ends where it did at open. */
int ft_appender_close(ft_appender *a, const char *path, ft_error *err);

#endif
