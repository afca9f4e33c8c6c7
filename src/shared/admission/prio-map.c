/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mapping of RM periods (eq. 5) and FP/RR requested priorities (eq. 6) onto
 * a plugin's priority range, and the per-core multisets they are kept in.
 */
#include <errno.h>
#include <string.h>

#include "admission/admission.h"

uint32_t adm_prio_of_rank(uint32_t rank, uint32_t lo, uint32_t hi) {
        return rank < hi - lo ? hi - rank : lo;
}

int adm_prio_map_keys(const uint32_t *keys, uint32_t n, uint32_t lo, uint32_t hi,
                      uint32_t *ret_prio) {
        if (lo == 0 || lo > hi || (n > 0 && (!keys || !ret_prio)))
                return -EINVAL;
        for (uint32_t i = 1; i < n; i++)
                if (keys[i - 1] >= keys[i])
                        return -EINVAL;

        if (!adm_prio_range_is_strict(n, lo, hi)) {
                for (uint32_t i = 0; i < n; i++)
                        ret_prio[i] = adm_prio_of_rank(n - 1 - i, lo, hi);
                return ADM_PRIO_TIES;
        }

        /*
         * Key i needs i values below it and n-1-i above it inside the range.
         * Within those bounds stay at the requested value, then push up
         * whatever collides with its predecessor; the bounds guarantee the
         * push never leaves the range.  When every key is in range this is
         * the identity.
         */
        for (uint32_t i = 0; i < n; i++) {
                uint32_t min = lo + i, max = hi - (n - 1 - i), p = keys[i];

                if (p < min)
                        p = min;
                if (p > max)
                        p = max;
                if (i > 0 && p <= ret_prio[i - 1])
                        p = ret_prio[i - 1] + 1;
                ret_prio[i] = p;
        }
        return ADM_PRIO_STRICT;
}

int adm_prio_set_add(struct adm_prio_set *s, uint32_t key) {
        if (key == 0 || key > ADM_PRIO_KEY_MAX)
                return -EINVAL;
        if (s->count[key]++ == 0)
                s->n_distinct++;
        return 0;
}

int adm_prio_set_remove(struct adm_prio_set *s, uint32_t key) {
        if (key == 0 || key > ADM_PRIO_KEY_MAX)
                return -EINVAL;
        if (s->count[key] == 0)
                return -ENOENT;
        if (--s->count[key] == 0)
                s->n_distinct--;
        return 0;
}

int adm_prio_set_map(const struct adm_prio_set *s, uint32_t lo, uint32_t hi,
                     uint32_t ret_map[ADM_PRIO_KEYS]) {
        uint32_t keys[ADM_PRIO_KEYS], prio[ADM_PRIO_KEYS], n = 0;
        int r;

        for (uint32_t k = 1; k <= ADM_PRIO_KEY_MAX; k++)
                if (s->count[k] > 0)
                        keys[n++] = k;
        r = adm_prio_map_keys(keys, n, lo, hi, prio);
        if (r < 0)
                return r;
        memset(ret_map, 0, sizeof(uint32_t) * ADM_PRIO_KEYS);
        for (uint32_t i = 0; i < n; i++)
                ret_map[keys[i]] = prio[i];
        return r;
}

/* Index of the first entry with a period >= period_us. */
static uint32_t period_lower_bound(const struct adm_period_set *s, uint64_t period_us) {
        uint32_t a = 0, b = s->n;

        while (a < b) {
                uint32_t mid = a + (b - a) / 2;

                if (s->entries[mid].period_us < period_us)
                        a = mid + 1;
                else
                        b = mid;
        }
        return a;
}

int adm_period_set_add(struct adm_period_set *s, uint64_t period_us) {
        uint32_t i;

        if (period_us == 0)
                return -EINVAL;
        i = period_lower_bound(s, period_us);
        if (i < s->n && s->entries[i].period_us == period_us) {
                s->entries[i].count++;
                return 0;
        }
        if (s->n >= s->capacity)
                return -ENOSPC;
        memmove(&s->entries[i + 1], &s->entries[i], sizeof(s->entries[0]) * (s->n - i));
        s->entries[i] = (struct adm_period_entry) { .period_us = period_us, .count = 1 };
        s->n++;
        return 0;
}

int adm_period_set_remove(struct adm_period_set *s, uint64_t period_us) {
        uint32_t i = period_lower_bound(s, period_us);

        if (i >= s->n || s->entries[i].period_us != period_us)
                return -ENOENT;
        if (--s->entries[i].count > 0)
                return 0;
        memmove(&s->entries[i], &s->entries[i + 1], sizeof(s->entries[0]) * (s->n - i - 1));
        s->n--;
        return 0;
}

uint32_t adm_period_set_rank(const struct adm_period_set *s, uint64_t period_us) {
        return period_lower_bound(s, period_us);
}

uint32_t adm_period_set_count(const struct adm_period_set *s, uint64_t period_us) {
        uint32_t i = period_lower_bound(s, period_us);

        return i < s->n && s->entries[i].period_us == period_us ? s->entries[i].count : 0;
}
