/* SPDX-License-Identifier: MIT */
/* stdtrace.h - tests that write a trace as RAPID's STD text and run the
 * pipeline on it as `foretell analyze` does (test_budget.c,
 * test_groups.c). */
#ifndef FT_TESTS_STDTRACE_H
#define FT_TESTS_STDTRACE_H

#include "predict/predict.h"

#include <stddef.h>

/* Writes text (STD lines) as the foretell trace /tmp/ft_<tag>_<pid>.ftrace,
 * whose name goes to path.  0, -1 (with the error on stderr). */
int ft_test_trace_from_std(const char *text, const char *tag, char *path,
                           size_t len);

/* Loads path (under b, which may be NULL), infers with the defaults and
 * predicts with po, into pl.  0, -1. */
int ft_test_pipeline_run(ft_pipeline *pl, const char *path, ft_budget *b,
                         const ft_predict_opts *po);

#endif
