/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int hist_init(struct hist *h, uint32_t n_buckets) {
        if (n_buckets == 0 || n_buckets > HIST_MAX_BUCKETS)
                return -EINVAL;
        *h = HIST_NULL;
        h->buckets = calloc(n_buckets, sizeof(*h->buckets));
        if (!h->buckets)
                return -ENOMEM;
        h->n_buckets = n_buckets;
        return 0;
}

void hist_deinit(struct hist *h) {
        free(h->buckets);
        *h = HIST_NULL;
}

void hist_reset(struct hist *h) {
        uint64_t *b = h->buckets;
        uint32_t n = h->n_buckets;

        if (b)
                memset(b, 0, n * sizeof(*b));
        *h = HIST_NULL;
        h->buckets = b;
        h->n_buckets = n;
}

void hist_add(struct hist *h, uint64_t ns) {
        uint64_t us = ns / 1000;

        if (us < h->n_buckets)
                h->buckets[us]++;
        else
                h->overflows++;
        h->count++;
        h->sum_ns += ns;
        if (ns < h->min_ns)
                h->min_ns = ns;
        if (ns > h->max_ns)
                h->max_ns = ns;
}

void hist_add_bucket(struct hist *h, uint32_t us, uint64_t count) {
        if (us < h->n_buckets)
                h->buckets[us] += count;
        else
                h->overflows += count;
        h->count += count;
        h->sum_ns += count * ((uint64_t)us * 1000 + 500);
}

void hist_note_extremes(struct hist *h, uint64_t min_ns, uint64_t max_ns) {
        if (min_ns < h->min_ns)
                h->min_ns = min_ns;
        if (max_ns > h->max_ns)
                h->max_ns = max_ns;
}

int hist_merge(struct hist *dst, const struct hist *src) {
        if (dst->n_buckets != src->n_buckets)
                return -EINVAL;
        for (uint32_t i = 0; i < src->n_buckets; i++)
                dst->buckets[i] += src->buckets[i];
        dst->overflows += src->overflows;
        dst->count += src->count;
        dst->sum_ns += src->sum_ns;
        if (src->count)
                hist_note_extremes(dst, src->min_ns, src->max_ns);
        return 0;
}

uint64_t hist_avg_ns(const struct hist *h) {
        return h->count ? (h->sum_ns + h->count / 2) / h->count : 0;
}

uint64_t hist_percentile_ns(const struct hist *h, double q) {
        uint64_t rank, seen = 0;

        if (h->count == 0 || !(q > 0.0))
                return 0;
        if (q > 1.0)
                q = 1.0;
        rank = (uint64_t)ceil(q * (double)h->count);
        if (rank == 0)
                rank = 1;
        for (uint32_t i = 0; i < h->n_buckets; i++) {
                seen += h->buckets[i];
                if (seen >= rank)
                        return (uint64_t)i * 1000;
        }
        return h->max_ns;
}

int u64_compare(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

        return (x > y) - (x < y);
}

uint64_t samples_percentile(const uint64_t *sorted, size_t n, double q) {
        size_t rank;

        if (n == 0 || !(q > 0.0))
                return n ? sorted[0] : 0;
        if (q > 1.0)
                q = 1.0;
        rank = (size_t)ceil(q * (double)n);
        if (rank == 0)
                rank = 1;
        return sorted[rank - 1];
}
