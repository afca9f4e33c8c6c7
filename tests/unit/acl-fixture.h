/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the tests of rtfd's access-control policy (test-acl-*.c) share: a fake
 * name service, a parser wrapper that checks the parser's contract on every
 * call, and requests and subjects to check a policy against.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl.h"

#define FILENAME "t.acl"

/* The plugins a policy may name: "EDF", "RM", "FP", "RR". */
extern const char *const acl_plugins[4];
/* Users root, user1 (1001), user2 (1002), user1alias (1001), "1234" (4321),
 * broken (-EIO); groups cdrom (24), audio (29), video (44), broken (-EIO). */
extern const struct acl_lookup acl_fake_lookup;
/* The message of the last parse. */
extern char acl_err[512];

/* main(): runs each test, and checks that the fake name service was asked. */
int acl_tests_run(void (*const *tests)(void), size_t n);

/*
 * Parses from a heap copy of exactly `len` bytes, without a terminating NUL,
 * so that AddressSanitizer catches any read past the end; checks that *ret is
 * untouched on error and that no message is left on success.
 */
int parse_n(const char *text, size_t len, struct acl_policy *ret);
int parse(const char *text, struct acl_policy *ret);

/* Parses text that must be valid, without warnings. */
struct acl_policy parse_ok(const char *text, const char *src_file, int src_line);
#define PARSE_OK(text) parse_ok(text, __FILE__, __LINE__)

/*
 * Checks that `text` is refused with `expected` (an errno) and
 * "t.acl:LINE: ..." (LINE 0: "t.acl: ...") containing `what`.
 */
void expect_error_r(const char *text, size_t len, int expected, unsigned line, const char *what,
                    const char *src_file, int src_line);
#define EXPECT_ERROR_N(text, len, expected, line, what) \
        expect_error_r(text, len, expected, line, what, __FILE__, __LINE__)
#define EXPECT_ERROR(text, line, what) EXPECT_ERROR_N(text, strlen(text), -EINVAL, line, what)

bool reason_has(const struct acl_verdict *v, const char *what);

extern const struct acl_subject user1, user2;       /* uid 1001 and 1002, gid 100 */

/* A request with a runtime and a period, and its utilisation. */
struct acl_request req_rt(uint64_t runtime, uint64_t period);

/* acl_check() without usage accounting. */
int check(const struct acl_policy *pol, const struct acl_subject *s, const char *plugin,
          const struct acl_request *req, struct acl_verdict *v);

/* Allowed, or prints why not; checks that the verdict agrees with the result. */
bool allowed(const struct acl_policy *pol, const struct acl_subject *s, const char *plugin,
             const struct acl_request *req);
