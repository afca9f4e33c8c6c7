/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The line-oriented text of rtfd's files (configuration, access-control
 * policy): lines, `#` comments, whitespace-separated words, strict decimal
 * numbers.  Pure functions over caller-owned buffers, shared by the parsers
 * and fuzzed with them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool text_is_digit(char c) {
        return c >= '0' && c <= '9';
}

static inline bool text_is_space(char c) {
        /* '\r' so that a file edited on another system still parses. */
        return c == ' ' || c == '\t' || c == '\r';
}

static inline bool text_is_control(char c) {
        return (unsigned char)c < 0x20 || c == 0x7f;
}

/* Outcomes of text_for_each_line() besides the callback's own errors. */
enum {
        TEXT_E_LONG_LINE = -2000,       /* a line is longer than line_max */
        TEXT_E_NUL,                     /* a NUL byte in a line */
};

/*
 * Call fn for every line of buf[0..len) (not NUL-terminated) with its number
 * (from 1) and a writable, NUL-terminated copy of at most line_max
 * characters.  Stops at the first negative return of fn and returns it, or a
 * TEXT_E_* code; *ret_line is the line that stopped it.  -ENOMEM if the
 * line buffer cannot be allocated.
 */
int text_for_each_line(const char *buf, size_t len, size_t line_max,
                       int (*fn)(void *data, unsigned line, char *text), void *data, unsigned *ret_line);

/*
 * Cut a `#` comment, then split `text` in place into whitespace-separated
 * words.  At most max_words are stored, but all are counted in *ret_n.
 * -EILSEQ with *ret_bad set if the line holds a control character (it would
 * end up in logs and lookups).
 */
int text_split_words(char *text, char **words, size_t max_words, size_t *ret_n, unsigned char *ret_bad);

/*
 * Strict decimal of n characters: digits only, no sign, no blanks, at most
 * max.  (strtoull() takes "-1" for UINT64_MAX and " 1" for 1.)  -EINVAL or
 * -ERANGE.
 */
int text_parse_decimal(const char *s, size_t n, uint64_t max, uint64_t *ret);

/*
 * Make `in` (NUL-terminated) safe for one log line: every byte outside
 * printable ASCII (newlines, which would forge a line; ESC and the other
 * controls, which a terminal obeys; bytes >= 0x80, C1 controls included)
 * becomes \xNN, and a backslash \\, so that the escaped text says exactly
 * what the client sent.  A log line starts with rtfd's own prefix, so a
 * "<N>" inside it cannot set the journal priority.  Writes at most size - 1
 * characters and a NUL (size >= 1), never a cut escape; returns the length
 * written.
 */
size_t text_escape(const char *in, char *out, size_t size);
