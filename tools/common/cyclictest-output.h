/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading what `cyclictest -q -t1 -h US --histfile=FILE` writes (rt-tests
 * 2.x): bucket lines "000012 000345" and the "# Min/Avg/Max Latencies",
 * "# Total", "# Histogram Overflows" summary lines.  A pure parser.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

struct cyclictest_summary {
        uint64_t total;
        uint64_t min_us, avg_us, max_us;
        uint64_t overflows;
        int have_total, have_min, have_max;
};

/*
 * Add the buckets of `text` to `h` (1 us buckets, as rtf-latency's) and fill
 * `ret`.  Returns 0, or -EINVAL if no bucket and no total was found.
 * Overflows are added to h (cyclictest counts them apart from its buckets).
 */
int cyclictest_parse(const char *text, size_t len, struct hist *h, struct cyclictest_summary *ret);
