/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "hist.h"

int hist_init(struct hist *h, int64_t lo_ns, uint32_t bucket_ns) {
        if (bucket_ns == 0)
                return -EINVAL;
        *h = (struct hist) { .lo_ns = lo_ns, .bucket_ns = bucket_ns, .min_ns = INT64_MAX, .max_ns = INT64_MIN };
        return 0;
}

void hist_add(struct hist *h, int64_t ns) {
        h->count++;
        h->sum_ns += ns;
        if (ns < h->min_ns)
                h->min_ns = ns;
        if (ns > h->max_ns)
                h->max_ns = ns;
        if (ns < h->lo_ns) {
                h->below++;
                return;
        }
        /* Subtracting is exact; dividing by a 32-bit width only when the offset is small. */
        uint64_t off = (uint64_t) ns - (uint64_t) h->lo_ns;
        if (off >= (uint64_t) h->bucket_ns * HIST_BUCKETS) {
                h->above++;
                return;
        }
        h->buckets[(uint32_t) off / h->bucket_ns]++;
}

int64_t hist_mean_ns(const struct hist *h) {
        uint64_t mag;
        int neg;

        if (h->count == 0)
                return 0;
        neg = h->sum_ns < 0;
        mag = neg ? -(uint64_t) h->sum_ns : (uint64_t) h->sum_ns;
        mag /= h->count;
        return neg ? -(int64_t) mag : (int64_t) mag;
}

int64_t hist_percentile_ns(const struct hist *h, uint32_t per_mille) {
        uint64_t need, seen;

        if (h->count == 0)
                return 0;
        if (per_mille > 1000)
                per_mille = 1000;
        /* ceil(count * p / 1000) samples, at least one */
        need = (h->count * per_mille + 999) / 1000;
        if (need == 0)
                need = 1;
        seen = h->below;
        if (seen >= need)
                return h->lo_ns < h->max_ns ? h->lo_ns : h->max_ns;
        for (uint32_t i = 0; i < HIST_BUCKETS; i++) {
                seen += h->buckets[i];
                if (seen >= need) {
                        int64_t edge = h->lo_ns + (int64_t) (i + 1) * h->bucket_ns;

                        return edge < h->max_ns ? edge : h->max_ns;
                }
        }
        return h->max_ns;
}
