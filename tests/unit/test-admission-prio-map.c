/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Priority mapping (ReTiF paper, eqs. 5 and 6) and the per-core multisets. */
#include <errno.h>

#include "admission/admission.h"
#include "tap.h"

static void check_map(const uint32_t *keys, uint32_t n, uint32_t lo, uint32_t hi, int outcome,
                      const uint32_t *want) {
        uint32_t got[ADM_PRIO_KEYS];

        CHECK_EQ(adm_prio_map_keys(keys, n, lo, hi, got), outcome);
        for (uint32_t i = 0; i < n; i++)
                CHECK_EQ(got[i], want[i]);
}

static void test_rank(void) {
        /* eq. 5: most urgent at hi, the R-1 most urgent distinct, the rest share lo */
        CHECK_EQ(adm_prio_of_rank(0, 50, 52), 52);
        CHECK_EQ(adm_prio_of_rank(1, 50, 52), 51);
        CHECK_EQ(adm_prio_of_rank(2, 50, 52), 50);
        CHECK_EQ(adm_prio_of_rank(3, 50, 52), 50);
        CHECK_EQ(adm_prio_of_rank(1000, 50, 52), 50);
        CHECK_EQ(adm_prio_of_rank(0, 7, 7), 7);
        CHECK_EQ(adm_prio_of_rank(5, 7, 7), 7);
        CHECK_EQ(adm_prio_of_rank(98, 1, 99), 1);
        CHECK(adm_prio_range_is_strict(3, 50, 52));
        CHECK(!adm_prio_range_is_strict(4, 50, 52));
}

/*
 * What RM's soundness rests on: removing a key never gives the same
 * priority to two keys that had different ones.  Exhaustive for small n, R.
 */
static void test_rank_removal_never_merges(void) {
        unsigned bad = 0;

        for (uint32_t r = 1; r <= 6; r++)
                for (uint32_t n = 1; n <= 10; n++)
                        for (uint32_t gone = 0; gone < n; gone++)
                                for (uint32_t a = 0; a < n; a++)
                                        for (uint32_t b = a + 1; b < n; b++) {
                                                uint32_t a2, b2;

                                                if (a == gone || b == gone)
                                                        continue;
                                                a2 = a - (gone < a);
                                                b2 = b - (gone < b);
                                                if (adm_prio_of_rank(a, 10, 10 + r - 1) !=
                                                    adm_prio_of_rank(b, 10, 10 + r - 1))
                                                        bad += adm_prio_of_rank(a2, 10, 10 + r - 1) ==
                                                               adm_prio_of_rank(b2, 10, 10 + r - 1);
                                        }
        CHECK_EQ(bad, 0);
}

static void test_keys(void) {
        /* everything already in range: unchanged */
        {
                const uint32_t k[] = { 10, 20, 60 };
                check_map(k, 3, 1, 99, ADM_PRIO_STRICT, k);
        }
        /* below the range: pushed up just enough, 60 keeps its value */
        {
                const uint32_t k[] = { 10, 20, 60 }, w[] = { 50, 51, 60 };
                check_map(k, 3, 50, 99, ADM_PRIO_STRICT, w);
        }
        /* a narrow range holding as many levels as keys */
        {
                const uint32_t k[] = { 10, 20, 30 }, w[] = { 50, 51, 52 };
                check_map(k, 3, 50, 52, ADM_PRIO_STRICT, w);
        }
        /* above the range */
        {
                const uint32_t k[] = { 95, 97, 99 }, w[] = { 18, 19, 20 };
                check_map(k, 3, 10, 20, ADM_PRIO_STRICT, w);
        }
        /* straddling: the in-range 15 stays */
        {
                const uint32_t k[] = { 5, 15, 30 }, w[] = { 10, 15, 20 };
                check_map(k, 3, 10, 20, ADM_PRIO_STRICT, w);
        }
        /* collisions after clamping are pushed up in order */
        {
                const uint32_t k[] = { 12, 13, 14 }, w[] = { 13, 14, 15 };
                check_map(k, 3, 13, 20, ADM_PRIO_STRICT, w);
        }
        /* more keys than levels: eq. 6 fails, the lowest share lo */
        {
                const uint32_t k[] = { 1, 2, 3, 4 }, w[] = { 50, 50, 51, 52 };
                check_map(k, 4, 50, 52, ADM_PRIO_TIES, w);
        }
        /* one level */
        {
                const uint32_t k[] = { 1, 99 }, w[] = { 7, 7 };
                check_map(k, 2, 7, 7, ADM_PRIO_TIES, w);
        }
        /* errors */
        {
                const uint32_t k[] = { 3, 2 };
                uint32_t out[2];

                CHECK_EQ(adm_prio_map_keys(k, 2, 1, 99, out), -EINVAL);
                CHECK_EQ(adm_prio_map_keys(k, 1, 0, 99, out), -EINVAL);
                CHECK_EQ(adm_prio_map_keys(k, 1, 60, 50, out), -EINVAL);
                CHECK_EQ(adm_prio_map_keys(NULL, 0, 1, 99, NULL), ADM_PRIO_STRICT);
        }
}

/* Random key sets: order kept (strictly when eq. 6 holds), in range, identity when possible. */
static void test_keys_random(void) {
        uint64_t seed = 42;
        unsigned bad = 0;

        for (int round = 0; round < 20000; round++) {
                uint32_t keys[ADM_PRIO_KEYS], prio[ADM_PRIO_KEYS], n = 0, lo, hi, in_range = 1;
                int r;

                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                lo = 1 + (uint32_t)(seed >> 40) % 99;
                hi = lo + (uint32_t)(seed >> 20) % (100 - lo);
                for (uint32_t k = 1; k <= ADM_PRIO_KEY_MAX; k++) {
                        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                        if ((seed >> 33) % 100 < (uint64_t)(round % 30)) {
                                keys[n++] = k;
                                in_range &= k >= lo && k <= hi;
                        }
                }
                r = adm_prio_map_keys(keys, n, lo, hi, prio);
                bad += r != (adm_prio_range_is_strict(n, lo, hi) ? ADM_PRIO_STRICT : ADM_PRIO_TIES);
                for (uint32_t i = 0; i < n; i++) {
                        bad += prio[i] < lo || prio[i] > hi;
                        if (i > 0)
                                bad += r == ADM_PRIO_STRICT ? prio[i] <= prio[i - 1] : prio[i] < prio[i - 1];
                        if (in_range)
                                bad += prio[i] != keys[i];
                }
        }
        CHECK_EQ(bad, 0);
}

static void test_prio_set(void) {
        struct adm_prio_set s = { { 0 }, 0 };
        uint32_t map[ADM_PRIO_KEYS];

        CHECK_EQ(adm_prio_set_add(&s, 10), 0);
        CHECK_EQ(adm_prio_set_add(&s, 10), 0);
        CHECK_EQ(adm_prio_set_add(&s, 20), 0);
        CHECK_EQ(s.n_distinct, 2);
        CHECK_EQ(adm_prio_set_map(&s, 1, 99, map), ADM_PRIO_STRICT);
        CHECK_EQ(map[10], 10);
        CHECK_EQ(map[20], 20);
        CHECK_EQ(map[15], 0);
        CHECK_EQ(adm_prio_set_map(&s, 40, 40, map), ADM_PRIO_TIES);
        CHECK_EQ(map[10], 40);
        CHECK_EQ(map[20], 40);
        CHECK_EQ(adm_prio_set_remove(&s, 10), 0);
        CHECK_EQ(s.n_distinct, 2);
        CHECK_EQ(adm_prio_set_remove(&s, 10), 0);
        CHECK_EQ(s.n_distinct, 1);
        CHECK_EQ(adm_prio_set_remove(&s, 10), -ENOENT);
        CHECK_EQ(adm_prio_set_add(&s, 0), -EINVAL);
        CHECK_EQ(adm_prio_set_add(&s, ADM_PRIO_KEY_MAX + 1), -EINVAL);
        CHECK_EQ(adm_prio_set_add(&s, ADM_PRIO_KEY_MAX), 0);
}

static void test_period_set(void) {
        struct adm_period_entry e[4];
        struct adm_period_set s = { e, 0, ELEMS(e) };
        struct adm_period_set none = { NULL, 0, 0 };

        CHECK_EQ(adm_period_set_add(&s, 1000), 0);
        CHECK_EQ(adm_period_set_add(&s, 500), 0);
        CHECK_EQ(adm_period_set_add(&s, 1000), 0);
        CHECK_EQ(adm_period_set_add(&s, 2000), 0);
        CHECK_EQ(s.n, 3);
        CHECK(e[0].period_us == 500 && e[1].period_us == 1000 && e[2].period_us == 2000);
        CHECK_EQ(adm_period_set_rank(&s, 100), 0);
        CHECK_EQ(adm_period_set_rank(&s, 500), 0);
        CHECK_EQ(adm_period_set_rank(&s, 1000), 1);
        CHECK_EQ(adm_period_set_rank(&s, 1500), 2);
        CHECK_EQ(adm_period_set_rank(&s, 9000), 3);
        CHECK_EQ(adm_period_set_count(&s, 1000), 2);
        CHECK_EQ(adm_period_set_count(&s, 1500), 0);
        CHECK_EQ(adm_period_set_add(&s, 3000), 0);
        CHECK_EQ(adm_period_set_add(&s, 4000), -ENOSPC);
        CHECK_EQ(adm_period_set_add(&s, 1000), 0); /* present: no room needed */
        CHECK_EQ(adm_period_set_add(&s, 0), -EINVAL);
        CHECK_EQ(adm_period_set_remove(&s, 500), 0);
        CHECK_EQ(s.n, 3);
        CHECK_EQ(adm_period_set_rank(&s, 1000), 0);
        CHECK_EQ(adm_period_set_remove(&s, 1000), 0);
        CHECK_EQ(adm_period_set_remove(&s, 1000), 0);
        CHECK_EQ(adm_period_set_count(&s, 1000), 1);
        CHECK_EQ(adm_period_set_remove(&s, 7), -ENOENT);
        CHECK_EQ(adm_period_set_add(&none, 5), -ENOSPC);
        CHECK_EQ(adm_period_set_rank(&none, 5), 0);
        CHECK_EQ(adm_period_set_remove(&none, 5), -ENOENT);
}

int main(void) {
        test_rank();
        test_rank_removal_never_merges();
        test_keys();
        test_keys_random();
        test_prio_set();
        test_period_set();
        return test_done();
}
