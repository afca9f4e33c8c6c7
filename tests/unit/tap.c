/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "tap.h"

unsigned test_checks, test_failures;

int test_done(void) {
        fprintf(stderr, "%u checks, %u failed\n", test_checks, test_failures);
        return test_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

char *test_copy_exact(const char *text, size_t len) {
        char *copy = malloc(len ? len : 1);

        if (!copy)
                abort();
        return memcpy(copy, text, len);
}

void check_parse_error(int r, int expected, const char *err, const char *file, unsigned line, const char *what,
                       const char *src_file, int src_line) {
        char prefix[128];

        if (line > 0)
                snprintf(prefix, sizeof(prefix), "%s:%u: ", file, line);
        else
                snprintf(prefix, sizeof(prefix), "%s: ", file);
        if (r != expected || strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
                fprintf(stderr, "%s:%d: got r=%d err=\"%s\", expected \"%s...%s...\"\n",
                        src_file, src_line, r, err, prefix, what);
        CHECK_EQ(r, expected);
        CHECK(strncmp(err, prefix, strlen(prefix)) == 0);
        CHECK(strstr(err, what) != NULL);
}
