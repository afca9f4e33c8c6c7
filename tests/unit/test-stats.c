/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdint.h>

#include "stats.h"
#include "tap.h"

int main(void) {
        struct hist h, g;
        uint64_t v[] = { 5, 1, 4, 2, 3 };

        CHECK_EQ(hist_init(&h, 0), -22);
        CHECK_EQ(hist_init(&h, 100), 0);
        CHECK_EQ(hist_percentile_ns(&h, 0.5), 0);
        CHECK_EQ(hist_avg_ns(&h), 0);
        /* 98 samples at 10.x us, one at 50 us, one beyond the range. */
        for (int i = 0; i < 98; i++)
                hist_add(&h, 10000 + (uint64_t)i);
        hist_add(&h, 50999);
        hist_add(&h, 250000);
        CHECK_EQ(h.count, 100);
        CHECK_EQ(h.overflows, 1);
        CHECK_EQ(h.buckets[10], 98);
        CHECK_EQ(h.buckets[50], 1);
        CHECK_EQ(h.min_ns, 10000);
        CHECK_EQ(h.max_ns, 250000);
        CHECK_EQ(hist_percentile_ns(&h, 0.5), 10000);
        CHECK_EQ(hist_percentile_ns(&h, 0.98), 10000);
        CHECK_EQ(hist_percentile_ns(&h, 0.99), 50000);
        CHECK_EQ(hist_percentile_ns(&h, 1.0), 250000);     /* the overflow: its exact maximum */
        CHECK_EQ(hist_avg_ns(&h), (98 * 10000 + 97 * 98 / 2 + 50999 + 250000 + 50) / 100);

        /* Bucket-only samples (cyclictest) count at the bucket's middle. */
        CHECK_EQ(hist_init(&g, 100), 0);
        hist_add_bucket(&g, 7, 4);
        hist_add_bucket(&g, 200, 1);
        CHECK_EQ(g.count, 5);
        CHECK_EQ(g.overflows, 1);
        CHECK_EQ(g.sum_ns, 4 * 7500 + 200500);
        hist_note_extremes(&g, 7000, 200000);
        CHECK_EQ(g.min_ns, 7000);
        CHECK_EQ(hist_merge(&h, &g), 0);
        CHECK_EQ(h.count, 105);
        CHECK_EQ(h.min_ns, 7000);
        CHECK_EQ(h.buckets[7], 4);
        hist_reset(&g);
        CHECK_EQ(g.count, 0);
        CHECK_EQ(g.n_buckets, 100);
        CHECK_EQ(g.buckets[7], 0);
        hist_deinit(&g);
        CHECK_EQ(hist_init(&g, 50), 0);
        CHECK_EQ(hist_merge(&h, &g), -22);
        hist_deinit(&g);
        hist_deinit(&h);

        qsort(v, 5, sizeof(v[0]), u64_compare);
        CHECK_EQ(v[0], 1);
        CHECK_EQ(v[4], 5);
        CHECK_EQ(samples_percentile(v, 5, 0.5), 3);
        CHECK_EQ(samples_percentile(v, 5, 0.99), 5);
        CHECK_EQ(samples_percentile(v, 5, 0.2), 1);
        CHECK_EQ(samples_percentile(v, 0, 0.5), 0);
        return test_done();
}
