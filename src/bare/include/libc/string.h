/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtf-bare has no libc: the string functions it (and src/shared/) needs, in lib/string.c. */
#pragma once

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
