/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The C library's string functions for rtf-bare (the compiler may call memcpy/memset itself). */
#include <stdint.h>
#include <string.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
        uint8_t *d = dst;
        const uint8_t *s = src;

        while (n--)
                *d++ = *s++;
        return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
        uint8_t *d = dst;
        const uint8_t *s = src;

        if (d < s)
                while (n--)
                        *d++ = *s++;
        else
                while (n--)
                        d[n] = s[n];
        return dst;
}

void *memset(void *dst, int c, size_t n) {
        uint8_t *d = dst;

        while (n--)
                *d++ = (uint8_t) c;
        return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
        const uint8_t *x = a, *y = b;

        for (size_t i = 0; i < n; i++)
                if (x[i] != y[i])
                        return x[i] < y[i] ? -1 : 1;
        return 0;
}

void *memchr(const void *s, int c, size_t n) {
        const uint8_t *p = s;

        for (size_t i = 0; i < n; i++)
                if (p[i] == (uint8_t) c)
                        return (void *) (p + i);
        return NULL;
}

size_t strlen(const char *s) {
        size_t n = 0;

        while (s[n])
                n++;
        return n;
}

int strcmp(const char *a, const char *b) {
        while (*a && *a == *b)
                a++, b++;
        return (unsigned char) *a - (unsigned char) *b;
}
