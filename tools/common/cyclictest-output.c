/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyclictest-output.h"

static int summary_value(const char *line, const char *key, uint64_t *value) {
        size_t k = strlen(key);
        char *end;

        if (strncmp(line, key, k) != 0)
                return 0;
        *value = strtoull(line + k, &end, 10);
        return end != line + k;
}

int cyclictest_parse(const char *text, size_t len, struct hist *h, struct cyclictest_summary *ret) {
        struct cyclictest_summary s = { 0 };
        size_t pos = 0;
        uint64_t buckets = 0;

        while (pos < len) {
                const char *nl = memchr(text + pos, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
                char line[256];

                if (n < sizeof(line)) {
                        memcpy(line, text + pos, n);
                        line[n] = '\0';
                        if (line[0] == '#') {
                                s.have_total |= summary_value(line, "# Total: ", &s.total);
                                s.have_min |= summary_value(line, "# Min Latencies: ", &s.min_us);
                                summary_value(line, "# Avg Latencies: ", &s.avg_us);
                                s.have_max |= summary_value(line, "# Max Latencies: ", &s.max_us);
                                summary_value(line, "# Histogram Overflows: ", &s.overflows);
                        } else if (line[0] >= '0' && line[0] <= '9') {
                                char *end, *end2;
                                uint64_t us = strtoull(line, &end, 10), count;

                                count = strtoull(end, &end2, 10);
                                if (end2 != end && *end2 == '\0' && us <= UINT32_MAX && count > 0) {
                                        hist_add_bucket(h, (uint32_t)us, count);
                                        buckets += count;
                                }
                        }
                }
                pos += n + 1;
        }
        if (!buckets && !s.have_total)
                return -EINVAL;
        if (s.overflows) {
                h->overflows += s.overflows;
                h->count += s.overflows;
                /* Only their floor is known: count them at the maximum. */
                h->sum_ns += s.overflows * s.max_us * 1000;
        }
        if (s.have_min && s.have_max && (buckets || s.overflows))
                hist_note_extremes(h, s.min_us * 1000, s.max_us * 1000);
        *ret = s;
        return 0;
}
