/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

unsigned test_checks, test_failures;

int test_done(void) {
        fprintf(stderr, "%u checks, %u failed\n", test_checks, test_failures);
        return test_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
