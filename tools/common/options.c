/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "options.h"
#include "rtf-config.h"

int options_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
        unsigned long long v;
        char *end;

        /* strtoull() alone would take blanks, a sign and "-1" as 2^64-1. */
        if (!s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (*end)
                return -EINVAL;
        if (errno || v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int options_u64(const char *tool, const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
        if (options_parse_u64(s, min, max, ret) < 0) {
                fprintf(stderr, "%s: %s must be a number in %" PRIu64 "..%" PRIu64 ", not \"%s\"\n", tool, what,
                        min, max, s ? s : "");
                return -EINVAL;
        }
        return 0;
}

int options_u32(const char *tool, const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *ret) {
        uint64_t v;
        int r;

        r = options_u64(tool, what, s, min, max, &v);
        if (r < 0)
                return r;
        *ret = (uint32_t)v;
        return 0;
}

void options_print_version(const char *tool) {
        printf("%s %s\n", tool, RTF_VERSION);
}

int options_no_operands(const char *tool, int argc, char *const argv[], int first) {
        if (first < argc) {
                fprintf(stderr, "%s: unexpected argument \"%s\"\n", tool, argv[first]);
                return -EINVAL;
        }
        return 0;
}
