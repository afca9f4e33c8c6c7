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
