/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes rtf-bare's kernel command line parser (src/bare/lib/cmdline.c): the
 * boot loader hands the kernel whatever the user typed.  Aborts on a broken
 * invariant the kernel relies on: values within their ranges, an error that
 * leaves the options untouched and names a word of the input, and a parse
 * that never reads past `size` (the buffer below is exactly that long).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cmdline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const struct bare_options defaults = BARE_OPTIONS_DEFAULT;
        struct bare_options o = defaults;
        char err[32], *buf;
        int r;

        buf = malloc(size ? size : 1);
        if (!buf)
                return 0;
        memcpy(buf, data, size);
        r = cmdline_parse(buf, size, &o, err, sizeof(err));
        if (r < 0) {
                if (r != -EINVAL || memcmp(&o, &defaults, sizeof(o)) != 0 || strlen(err) >= sizeof(err))
                        abort();
                if (err[0] == '\0' || !memmem(buf, size, err, strlen(err)))
                        abort();
        } else {
                if (r != 0 || o.samples < 1 || o.samples > 10000000 || o.period_us < 10 ||
                    o.period_us > 100000 || o.clock > BARE_CLOCK_PIT || o.modes > 3 || o.loads > 3 ||
                    o.tests > 15)
                        abort();
        }
        free(buf);
        return 0;
}
