/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Latency statistics of the paper's test: exact min, max and mean, and a
 * histogram of fixed-width buckets from which percentiles are read (to the
 * upper edge of a bucket, so a percentile is never reported too small).
 * Samples are signed: a task woken early has a negative latency.
 * Pure, so it is unit-tested on the host.
 */
#pragma once

#include <stdint.h>

#define HIST_BUCKETS 400

struct hist {
        int64_t lo_ns;                  /* lower edge of bucket 0 */
        uint32_t bucket_ns;
        uint64_t count;
        int64_t min_ns, max_ns;
        int64_t sum_ns;
        uint64_t below, above;          /* samples outside the buckets */
        uint32_t buckets[HIST_BUCKETS];
};

int hist_init(struct hist *h, int64_t lo_ns, uint32_t bucket_ns);
void hist_add(struct hist *h, int64_t ns);
/* Mean, rounded toward zero; 0 without samples. */
int64_t hist_mean_ns(const struct hist *h);
/*
 * The smallest bucket upper edge below which at least per_mille/1000 of the
 * samples lie (max_ns if that is smaller, or if the percentile falls above
 * the buckets).  0 without samples.
 */
int64_t hist_percentile_ns(const struct hist *h, uint32_t per_mille);
