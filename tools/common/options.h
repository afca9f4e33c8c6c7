/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the tools' command lines have in common (each tool keeps its own
 * getopt_long table and exit codes): bounded decimal integers with one
 * wording of the error, the --version line, and operands none of them takes.
 */
#pragma once

#include <stdint.h>

/*
 * `s` as a decimal integer in min..max: digits only (no sign, no blanks, not
 * empty).  Pure: 0, -EINVAL if it is not such a number, -ERANGE outside
 * min..max.
 */
int options_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret);
/*
 * The same for the argument of option `what` ("--period"): on failure
 * "TOOL: WHAT must be a number in MIN..MAX, not "S"" on stderr and -EINVAL.
 */
int options_u64(const char *tool, const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *ret);
int options_u32(const char *tool, const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *ret);
/* "TOOL VERSION" on stdout: what --version prints. */
void options_print_version(const char *tool);
/*
 * argv[first..argc) are operands and the tool takes none: 0 if there are
 * none, else "TOOL: unexpected argument "X"" on stderr and -EINVAL.
 */
int options_no_operands(const char *tool, int argc, char *const argv[], int first);
