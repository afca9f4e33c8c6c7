/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A minimal test harness: CHECK() records a failure with file:line and goes
 * on; test_done() prints a summary and returns the exit code.  The counters
 * live in tap.c, linked into every test, so that a check in a fixture shared
 * by several tests (acl-fixture.c, ...) counts like one in the test itself.
 */
#pragma once

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define ELEMS(x) (sizeof(x) / sizeof((x)[0]))

extern unsigned test_checks, test_failures;

#define CHECK(cond) do {                                                        \
                test_checks++;                                                  \
                if (!(cond)) {                                                  \
                        test_failures++;                                        \
                        fprintf(stderr, "%s:%d: CHECK failed: %s\n",            \
                                __FILE__, __LINE__, #cond);                     \
                }                                                               \
        } while (0)

#define CHECK_EQ(a, b) do {                                                     \
                long long _a = (long long)(a), _b = (long long)(b);             \
                test_checks++;                                                  \
                if (_a != _b) {                                                 \
                        test_failures++;                                        \
                        fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n", \
                                __FILE__, __LINE__, #a, _a, #b, _b);            \
                }                                                               \
        } while (0)

int test_done(void);

/*
 * A heap copy of exactly `len` bytes, without a terminating NUL, so that
 * AddressSanitizer catches a parser that reads past the end; aborts when out
 * of memory.  Freed with free().
 */
char *test_copy_exact(const char *text, size_t len);

/*
 * Checks a parser's refusal: its result `r` is `expected`, and its message
 * `err` reads "FILE:LINE: ..." ("FILE: ..." for line 0) and contains `what`;
 * otherwise says what it got, at the test's src_file:src_line.
 */
void check_parse_error(int r, int expected, const char *err, const char *file, unsigned line, const char *what,
                       const char *src_file, int src_line);
