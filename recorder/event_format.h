/* SPDX-License-Identifier: MIT */
/* event_format.h - an event's fields as named, typed values, so every
 * printer (dump's text and JSON, replay and explore messages) shows the
 * same names for the same wire fields (docs/trace-format.md). */
#ifndef FORETELL_EVENT_FORMAT_H
#define FORETELL_EVENT_FORMAT_H

#include "recorder/trace.h"

enum ft_field_type {
    FT_F_UINT,  /* decimal */
    FT_F_INT,   /* signed decimal (rc, woken) */
    FT_F_HEX,   /* values and addresses */
    FT_F_ADDR,  /* an address or sync object: hex, may be a heap object */
    FT_F_NAME,  /* a symbolic name in .name (memory order, rmw op, ...) */
    FT_F_BYTES, /* wide content: .bytes/.nbytes, NULL bytes = elided */
    FT_F_SITE,  /* a code site id (call_site) */
};

typedef struct ft_field {
    const char *name;
    enum ft_field_type type;
    uint64_t u;          /* UINT, HEX, ADDR, SITE */
    int64_t i;           /* INT */
    const char *str;     /* NAME */
    const uint8_t *bytes;
    uint32_t nbytes;
} ft_field;

#define FT_MAX_FIELDS 8

/* Fills out[] with ev's fields after site; returns how many. */
unsigned ft_event_fields(const ft_event *ev, ft_field out[FT_MAX_FIELDS]);

const char *ft_mo_name(unsigned mo);     /* "relaxed" ... "seq_cst" */
const char *ft_rmw_name(unsigned op);    /* "xchg", "add", ... */
const char *ft_how_name(unsigned how);   /* "block", "try", ... */

#endif
