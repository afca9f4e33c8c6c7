/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* text_escape(): what a client sends cannot forge or colour a log line. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "text.h"

static void check_clean(const char *s) {
        for (; *s; s++)
                CHECK(*s >= 0x20 && *s < 0x7f);
}

int main(void) {
        char out[64];

        CHECK_EQ(text_escape("FP", out, sizeof(out)), 2);
        CHECK(strcmp(out, "FP") == 0);
        text_escape("x\naudit: uid 0 granted", out, sizeof(out));
        CHECK(strcmp(out, "x\\x0aaudit: uid 0 granted") == 0);
        text_escape("\x1b[2J<2>", out, sizeof(out));
        CHECK(strcmp(out, "\\x1b[2J<2>") == 0);
        text_escape("a\\x0a", out, sizeof(out));            /* a backslash cannot fake an escape */
        CHECK(strcmp(out, "a\\\\x0a") == 0);
        text_escape("\xc2\x9b" "1m\x7f", out, sizeof(out));  /* C1 CSI, DEL */
        CHECK(strcmp(out, "\\xc2\\x9b1m\\x7f") == 0);
        /* Never a cut escape, always terminated. */
        CHECK_EQ(text_escape("ab\ncd", out, 5), 2);
        CHECK(strcmp(out, "ab") == 0);
        CHECK_EQ(text_escape("ab\ncd", out, 7), 6);
        CHECK(strcmp(out, "ab\\x0a") == 0);
        CHECK_EQ(text_escape("abc", out, 1), 0);
        CHECK(out[0] == 0);
        CHECK_EQ(text_escape("abc", out, 0), 0);

        /* Any input: only printable ASCII out, within the size. */
        srand(1);
        for (int i = 0; i < 20000; i++) {
                char in[40];
                size_t n = (size_t)(rand() % 39), size = (size_t)(rand() % (int)sizeof(out)) + 1;

                for (size_t k = 0; k < n; k++)
                        in[k] = (char)(rand() % 255 + 1);
                in[n] = 0;
                memset(out, 'Z', sizeof(out));
                CHECK(text_escape(in, out, size) < size);
                CHECK(strlen(out) < size);
                check_clean(out);
        }
        return test_done();
}
