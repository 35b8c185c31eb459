/* SPDX-License-Identifier: MIT */
/* typetab.h - the type descriptions of a TYPES chunk (docs/trace-format.md)
 * and the two things done with them: naming a byte offset inside a typed
 * object as the program does ("inner.count", "[3]") and printing a value
 * by its type (-5, true, 2.5, RED).  The symboliser builds the entries
 * from DWARF after the run (recorder/dwtypes.c); the reader
 * (recorder/datatypes.c) holds them in this table.  Nothing here trusts
 * the table: type references may be missing, cyclic or absurd, and every
 * walk is bounded in depth and output. */
#ifndef FORETELL_TYPETAB_H
#define FORETELL_TYPETAB_H

#include <stddef.h>
#include <stdint.h>

/* Type kinds, as written in TYPES entries (their first element). */
enum ft_type_kind {
    FT_TYPE_VAR = 0,     /* not a type: [0, module, offset, type] binds a
                            global variable to its type */
    FT_TYPE_BASE = 1,    /* [1, id, size, name, encoding] */
    FT_TYPE_POINTER = 2, /* [2, id, size, name] */
    FT_TYPE_STRUCT = 3,  /* [3, id, size, name, [[member, offset, type]...]] */
    FT_TYPE_UNION = 4,   /* as STRUCT */
    FT_TYPE_ARRAY = 5,   /* [5, id, size, name, element type, count] */
    FT_TYPE_ENUM = 6,    /* [6, id, size, name, signed, [[name, value]...]] */
    FT_TYPE_DEREF = 16,  /* not a type: [16, site, base, field, type]: the
                            site's source line dereferences `base->field`,
                            base pointing to type (heap naming) */
};

/* Base type encodings (FT_TYPE_BASE). */
enum ft_type_enc {
    FT_ENC_SIGNED = 1,
    FT_ENC_UNSIGNED = 2,
    FT_ENC_BOOL = 3,
    FT_ENC_FLOAT = 4,
    FT_ENC_CHAR = 5, /* signed or unsigned char: printed as a character */
};

/* A struct or union member, or an enumerator (value in offset). */
typedef struct ft_tmember {
    const char *name; /* "" for an anonymous member or a base class */
    uint64_t offset;  /* bytes from the start; an enumerator's value */
    uint32_t type;    /* 0 unknown (bit-fields too) */
} ft_tmember;

typedef struct ft_type {
    uint32_t id;
    uint8_t kind;   /* enum ft_type_kind */
    uint8_t enc;    /* base: enum ft_type_enc; enum: 1 signed */
    uint64_t size;  /* bytes */
    const char *name; /* NULL unnamed */
    uint32_t elem;  /* array: element type */
    uint64_t count; /* array: elements, 0 unknown (flexible) */
    uint32_t first, nmembers; /* into ft_typetab.members */
} ft_type;

/* A site's dereference of a heap object (FT_TYPE_DEREF). */
typedef struct ft_tderef {
    uint32_t site;
    const char *base, *field;
    uint32_t type;
} ft_tderef;

typedef struct ft_typetab {
    ft_type *types;      /* sorted by id once built (ft_typetab_finish) */
    uint32_t ntypes, captypes;
    ft_tmember *members;
    uint32_t nmembers, capmembers;
    ft_tderef *derefs;   /* sorted by site once built */
    uint32_t nderefs, capderefs;
} ft_typetab;

/* Walks no deeper than this many nested types. */
#define FT_TYPE_MAX_DEPTH 24

/* Sorts the table for lookups; of entries with one id, one is kept. */
void ft_typetab_finish(ft_typetab *t);
void ft_typetab_free(ft_typetab *t);
const ft_type *ft_typetab_get(const ft_typetab *t, uint32_t id);

/* The path to byte off of an object of type `type`, appended to out
 * (which already holds the object's own name, len its room): ".m",
 * "[i]", nested as deep as the access still fits ("inner.count",
 * "[3]"), then "+N" when off is not the start of a leaf member.
 * Members named by reserved identifiers (__data, _M_i) are walked
 * through unnamed, like anonymous ones and base classes.  size is
 * the access's byte count (0 unknown: descend to the leaf).  *leaf (may
 * be NULL) receives the type the access reads as a whole, 0 when it does
 * not cover one exactly (then values print as hex).  Returns the first
 * member name the path went through ("" for an array index or none),
 * a pointer into the table. */
const char *ft_typetab_path(const ft_typetab *t, uint32_t type, uint64_t off,
                            uint64_t size, char *out, size_t len,
                            uint32_t *leaf);

/* value (size bytes, little-endian, zero-extended; 0: the type's size)
 * as a value of type:
 * "-5", "130", "true", "'A'", "2.5", "0x7f..", "RED"; NULL (buf
 * untouched) when the type is unknown or not a scalar of that size. */
const char *ft_typetab_value(const ft_typetab *t, uint32_t type,
                             uint64_t value, uint64_t size, char *buf,
                             size_t len);

#endif
