/* SPDX-License-Identifier: MIT */
/* stdtrace.h - tests that write a trace as RAPID's STD text and need it
 * in the foretell format (test_budget.c, test_groups.c). */
#ifndef FT_TESTS_STDTRACE_H
#define FT_TESTS_STDTRACE_H

/* Converts the STD file std into the foretell trace out, then removes
 * std.  0, -1 (with the error on stderr). */
int ft_test_std_to_trace(const char *std, const char *out);

#endif
