/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * printf-style formatting for rtf-bare (no libc): %d %i %u %x %X %c %s %p %%,
 * with the flags '-' and '0', a width, and the length modifiers l, ll, z.
 * Pure, so the host unit test compares it with the C library's snprintf.
 */
#pragma once

#include <stdarg.h>
#include <stddef.h>

/* Like vsnprintf: returns the length the whole output would have; writes at most size - 1 and a NUL. */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
