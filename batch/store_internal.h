/* SPDX-License-Identifier: MIT */
/* store_internal.h - what store.c, store_read.c and confirm.c share of
 * the store: the connection, cached statements, error helpers. */
#ifndef FORETELL_BATCH_STORE_INTERNAL_H
#define FORETELL_BATCH_STORE_INTERNAL_H

#include "batch/batch.h"

#include <sqlite3.h>

enum { FB_STMT_TRACE, FB_STMT_FINDING, FB_STMT_OCC, FB_STMT_EVENT,
       FB_STMT_CONFIRM, FB_NSTMT };

struct fb_store {
    sqlite3 *db;
    char path[4096];
    char options[512];          /* analysis options kept with each trace */
    sqlite3_stmt *stmt[FB_NSTMT];
};

/* err = "what: SQLite's message" for the store; returns -1. */
int fb_db_fail(fb_store *s, ft_error *err, const char *what);
int fb_db_exec(fb_store *s, const char *sql, ft_error *err);
/* A cached statement, reset (NULL when it does not prepare). */
sqlite3_stmt *fb_db_stmt(fb_store *s, int which, const char *sql);
/* Records a replay's result on the finding when it is better than the
 * one it has (store.c, "confirmations").  0, -1. */
int fb_db_confirm_finding(fb_store *s, const char *fp, const char *status,
                          const char *failure, const char *detail,
                          const char *trace, int64_t ns);

#endif
