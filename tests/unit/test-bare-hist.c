/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The latency statistics of rtf-bare (src/bare/lib/hist.c). */
#include <errno.h>

#include "lib/hist.h"
#include "tap.h"

int main(void) {
        static struct hist h;

        CHECK_EQ(hist_init(&h, 0, 0), -EINVAL);
        CHECK_EQ(hist_init(&h, -1000, 100), 0);
        CHECK_EQ(hist_mean_ns(&h), 0);
        CHECK_EQ(hist_percentile_ns(&h, 990), 0);

        /* 1..1000 ns: p99 is the upper edge of the bucket holding the 990th sample. */
        for (int i = 1; i <= 1000; i++)
                hist_add(&h, i);
        CHECK_EQ(h.count, 1000);
        CHECK_EQ(h.min_ns, 1);
        CHECK_EQ(h.max_ns, 1000);
        CHECK_EQ(hist_mean_ns(&h), 500);
        CHECK_EQ(hist_percentile_ns(&h, 990), 1000);
        CHECK_EQ(hist_percentile_ns(&h, 500), 600);      /* sample 500 lies in [500, 600) */
        CHECK_EQ(hist_percentile_ns(&h, 1), 100);
        CHECK_EQ(h.buckets[10], 99);            /* [0, 100): 1..99 */

        /* Outside the buckets: counted, min/max exact, a percentile there is max_ns. */
        CHECK_EQ(hist_init(&h, 0, 10), 0);
        hist_add(&h, -5);
        hist_add(&h, 5);
        hist_add(&h, 1000000);
        CHECK_EQ(h.below, 1);
        CHECK_EQ(h.above, 1);
        CHECK_EQ(h.buckets[0], 1);
        CHECK_EQ(h.min_ns, -5);
        CHECK_EQ(hist_percentile_ns(&h, 1000), 1000000);
        CHECK_EQ(hist_percentile_ns(&h, 300), 0);   /* the sample below: lower edge */
        CHECK_EQ(hist_mean_ns(&h), 333333);

        /* Negative mean rounds toward zero. */
        CHECK_EQ(hist_init(&h, -100, 10), 0);
        hist_add(&h, -10);
        hist_add(&h, -5);
        CHECK_EQ(hist_mean_ns(&h), -7);
        return test_done();
}
