/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Latency statistics for the measurement tools, as pure functions: a
 * histogram of 1 us buckets with an overflow count (rtf-latency, and
 * cyclictest's histogram merged into the same shape), and percentiles of a
 * sample array (rtf-bench).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hist {
        uint64_t *buckets;              /* buckets[i]: samples in [i, i+1) us */
        uint32_t n_buckets;
        uint64_t overflows;             /* samples >= n_buckets us */
        uint64_t count;
        uint64_t sum_ns;
        uint64_t min_ns;
        uint64_t max_ns;
};

#define HIST_NULL ((struct hist){ .min_ns = UINT64_MAX })
#define HIST_MAX_BUCKETS (1u << 24)

int hist_init(struct hist *h, uint32_t n_buckets);
void hist_deinit(struct hist *h);
void hist_reset(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
/*
 * Add `count` samples known only by their bucket (a cyclictest histogram):
 * they count at the bucket's middle for the sum; min and max are left to
 * hist_note_extremes().
 */
void hist_add_bucket(struct hist *h, uint32_t us, uint64_t count);
void hist_note_extremes(struct hist *h, uint64_t min_ns, uint64_t max_ns);
/* dst += src; both must have the same number of buckets. */
int hist_merge(struct hist *dst, const struct hist *src);
/* The mean in ns, 0 without samples. */
uint64_t hist_avg_ns(const struct hist *h);
/*
 * The q-quantile (0 < q <= 1): the lower edge of the bucket that holds the
 * ceil(q*count)-th sample, in ns; max_ns if that sample overflowed; 0
 * without samples.
 */
uint64_t hist_percentile_ns(const struct hist *h, double q);

int u64_compare(const void *a, const void *b);
/* The q-quantile of sorted[0..n) (nearest rank), 0 if n == 0. */
uint64_t samples_percentile(const uint64_t *sorted, size_t n, double q);
