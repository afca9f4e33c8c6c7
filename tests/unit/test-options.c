/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>

#include "options.h"
#include "tap.h"

int main(void) {
        char *argv[] = { "rtf-x", "--json", "extra" };
        uint64_t v = 7;
        uint32_t w = 7;

        CHECK_EQ(options_parse_u64("42", 1, 100, &v), 0);
        CHECK_EQ(v, 42);
        CHECK_EQ(options_parse_u64("0", 0, 0, &v), 0);
        CHECK_EQ(v, 0);
        CHECK_EQ(options_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
        CHECK(v == UINT64_MAX);
        v = 7;
        /* Neither a number nor in range: nothing written. */
        CHECK_EQ(options_parse_u64("", 0, 100, &v), -EINVAL);
        CHECK_EQ(options_parse_u64(NULL, 0, 100, &v), -EINVAL);
        CHECK_EQ(options_parse_u64("-1", 0, UINT64_MAX, &v), -EINVAL);
        CHECK_EQ(options_parse_u64("+1", 0, 100, &v), -EINVAL);
        CHECK_EQ(options_parse_u64(" 1", 0, 100, &v), -EINVAL);
        CHECK_EQ(options_parse_u64("1 ", 0, 100, &v), -EINVAL);
        CHECK_EQ(options_parse_u64("1,2", 0, 100, &v), -EINVAL);
        CHECK_EQ(options_parse_u64("0x10", 0, 100, &v), -EINVAL);
        CHECK_EQ(options_parse_u64("101", 0, 100, &v), -ERANGE);
        CHECK_EQ(options_parse_u64("0", 1, 100, &v), -ERANGE);
        CHECK_EQ(options_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
        CHECK_EQ(v, 7);

        CHECK_EQ(options_u32("rtf-x", "--n", "4294967295", 0, UINT32_MAX, &w), 0);
        CHECK(w == UINT32_MAX);
        w = 7;
        CHECK_EQ(options_u32("rtf-x", "--n", "4294967296", 0, UINT32_MAX, &w), -EINVAL);
        CHECK_EQ(options_u32("rtf-x", "--n", "x", 0, 10, &w), -EINVAL);
        CHECK_EQ(w, 7);

        CHECK_EQ(options_no_operands("rtf-x", 3, argv, 3), 0);
        CHECK_EQ(options_no_operands("rtf-x", 3, argv, 2), -EINVAL);
        return test_done();
}
