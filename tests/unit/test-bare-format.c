/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtf-bare's printf (src/bare/lib/format.c) against the C library's snprintf. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/format.h"
#include "tap.h"

#define SAME(...) do {                                                          \
                char a[128], b[128];                                            \
                int ra = fmt_snprintf(a, sizeof(a), __VA_ARGS__);               \
                int rb = snprintf(b, sizeof(b), __VA_ARGS__);                   \
                CHECK_EQ(ra, rb);                                               \
                CHECK(strcmp(a, b) == 0);                                       \
                if (strcmp(a, b))                                               \
                        fprintf(stderr, "  got \"%s\", libc \"%s\"\n", a, b);   \
        } while (0)

int main(void) {
        char small[5];

        SAME("plain");
        SAME("%d %i %u", 0, -1, 4000000000u);
        SAME("%d %d", INT_MIN, INT_MAX);
        SAME("%ld %lu", LONG_MIN, ULONG_MAX);
        SAME("%lld %llu", LLONG_MIN, ULLONG_MAX);
        SAME("%lld", -1234567890123456789LL);
        SAME("%llu", 18446744073709551615ULL);
        SAME("%llu %llu %llu", 9999999999ULL, 10000000000ULL, 10ULL);
        SAME("%x %X %llx", 0xdeadbeefu, 0xabcdefu, 0x123456789abcdefULL);
        SAME("[%5d] [%-5d] [%05d] [%05d]", 42, 42, 42, -42);
        SAME("[%8s] [%-8s] [%s]", "ab", "cd", "");
        SAME("%c%c%%", 'x', 'y');
        SAME("%06u%s", 123u, "x");
        SAME("%zu", (size_t) 12345);
        for (uint64_t v = 1; v < UINT64_MAX / 7; v = v * 7 + 3)
                SAME("%llu|%lld", (unsigned long long) v, -(long long) v);

        /* Truncation: the length the whole output would have, NUL-terminated. */
        CHECK_EQ(fmt_snprintf(small, sizeof(small), "%s", "abcdefgh"), 8);
        CHECK(strcmp(small, "abcd") == 0);
        CHECK_EQ(fmt_snprintf(NULL, 0, "%d", 12345), 5);
        return test_done();
}
