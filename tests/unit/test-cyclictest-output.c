/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "cyclictest-output.h"
#include "tap.h"

/* What cyclictest 2.4 writes with -q -t1 -h200 --histfile. */
static const char sample[] =
        "# Histogram\n"
        "000005 000044\n"
        "000006 000099\n"
        "000007 000000\n"
        "000150 000002\n"
        "# Total: 000000146\n"
        "# Min Latencies: 00005\n"
        "# Avg Latencies: 00006\n"
        "# Max Latencies: 00401\n"
        "# Histogram Overflows: 00001\n"
        "# Histogram Overflow at cycle number:\n"
        "# Thread 0: 00077\n";

int main(void) {
        struct cyclictest_summary s;
        struct hist h;

        CHECK_EQ(hist_init(&h, 200), 0);
        CHECK_EQ(cyclictest_parse(sample, strlen(sample), &h, &s), 0);
        CHECK_EQ(s.total, 146);
        CHECK_EQ(s.min_us, 5);
        CHECK_EQ(s.avg_us, 6);
        CHECK_EQ(s.max_us, 401);
        CHECK_EQ(s.overflows, 1);
        CHECK_EQ(h.count, 146);
        CHECK_EQ(h.overflows, 1);
        CHECK_EQ(h.buckets[5], 44);
        CHECK_EQ(h.buckets[6], 99);
        CHECK_EQ(h.buckets[150], 2);
        CHECK_EQ(h.min_ns, 5000);
        CHECK_EQ(h.max_ns, 401000);
        CHECK_EQ(hist_percentile_ns(&h, 0.5), 6000);
        CHECK_EQ(hist_percentile_ns(&h, 1.0), 401000);

        /* Nothing that looks like cyclictest's output; a truncated last line. */
        hist_reset(&h);
        CHECK_EQ(cyclictest_parse("hello\n", 6, &h, &s), -22);
        CHECK_EQ(cyclictest_parse("000003 000002", 13, &h, &s), 0);
        CHECK_EQ(h.buckets[3], 2);
        CHECK_EQ(cyclictest_parse("", 0, &h, &s), -22);
        hist_deinit(&h);
        return test_done();
}
