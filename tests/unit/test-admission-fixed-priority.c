/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fixed-priority admission: the U <= 1 reject, the hyperbolic bound and
 * response-time analysis, on hand-checked task sets.
 */
#include <errno.h>
#include <math.h>

#include "admission/admission.h"
#include "tap.h"

/* The core load of a set of (C, T, D) triples. */
static struct adm_fp_load load_of(const uint64_t (*set)[3], size_t n) {
        struct adm_fp_load total = { 0 }, one;

        for (size_t i = 0; i < n; i++) {
                CHECK_EQ(adm_fp_load_of(set[i][0], set[i][1], set[i][2], &one), 0);
                adm_fp_load_add(&total, &one);
        }
        return total;
}

/* Every task checked, with a budget of its own. */
static int rta(const struct adm_fp_task *set, size_t n, uint64_t max_steps, size_t *ret_failed) {
        uint64_t steps = max_steps;

        return adm_fp_rta(set, n, UINT32_MAX, &steps, ret_failed);
}

static void test_hyper_term(void) {
        unsigned bad = 0;

        CHECK_EQ(adm_hyper_term(0), 0);
        /* log2(2) = 1: a lone task with U = 1 sits exactly on the bound */
        CHECK_EQ(adm_hyper_term(ADM_UTIL_ONE), ADM_HYPER_ONE);
        CHECK(adm_hyper_term(ADM_UTIL_ONE + 1) > ADM_HYPER_ONE);
        /* an upper bound, and a tight one, over the whole range */
        for (uint64_t u = 1; u <= ADM_UTIL_ONE; u += 999983) {
                double exact = log2(1.0 + (double)u / 1e9) * (double)ADM_HYPER_ONE;
                uint64_t t = adm_hyper_term(u);

                bad += (double)t < exact - 1e-6 || (double)t > exact + 40;
        }
        CHECK_EQ(bad, 0);
        /* monotone */
        for (uint64_t u = 0; u + 7919 <= ADM_UTIL_ONE; u += 7919 * 131)
                bad += adm_hyper_term(u) > adm_hyper_term(u + 7919);
        CHECK_EQ(bad, 0);
}

static void test_quick(void) {
        /* U = 1.03 > 1: rejected without RTA */
        static const uint64_t over[][3] = { { 3, 5, 0 }, { 3, 7, 0 } };
        /* prod(1.41^2) = 1.9881 <= 2: the hyperbolic bound admits */
        static const uint64_t hyp[][3] = { { 41, 100, 0 }, { 410, 1000, 0 }, { 0, 10, 0 } };
        /* Liu-Layland edge for n = 3: 1.26^3 > 2, 1.259^3 < 2 */
        static const uint64_t ll_out[][3] = { { 260, 1000, 0 }, { 520, 2000, 0 }, { 1040, 4000, 0 } };
        static const uint64_t ll_in[][3] = { { 259, 1000, 0 }, { 518, 2000, 0 }, { 1036, 4000, 0 } };
        /* harmonic, U = 1: the bound cannot tell (1.5^2 = 2.25), RTA must */
        static const uint64_t harmonic[][3] = { { 1, 2, 0 }, { 2, 4, 0 } };
        /* a D < T voids the bound's proof */
        static const uint64_t constrained[][3] = { { 1, 10, 5 }, { 1, 10, 0 } };
        /* three tasks of exactly 1/3: rounding up would say U > 1; the lower bound does not */
        static const uint64_t thirds[][3] = { { 1, 3, 0 }, { 1, 3, 0 }, { 1, 3, 0 } };
        struct adm_fp_load l;

        l = load_of(over, ELEMS(over));
        CHECK_EQ(adm_fp_quick_test(&l, true), ADM_REJECT);
        l = load_of(hyp, ELEMS(hyp));
        CHECK_EQ(l.tasks, 2);
        CHECK_EQ(adm_fp_quick_test(&l, true), ADM_ADMIT);
        /* not in rate-monotonic order (shared priorities): undecided */
        CHECK_EQ(adm_fp_quick_test(&l, false), ADM_UNDECIDED);
        l = load_of(ll_out, ELEMS(ll_out));
        CHECK_EQ(adm_fp_quick_test(&l, true), ADM_UNDECIDED);
        l = load_of(ll_in, ELEMS(ll_in));
        CHECK_EQ(adm_fp_quick_test(&l, true), ADM_ADMIT);
        l = load_of(harmonic, ELEMS(harmonic));
        CHECK_EQ(adm_fp_quick_test(&l, true), ADM_UNDECIDED);
        l = load_of(constrained, ELEMS(constrained));
        CHECK_EQ(l.constrained, 1);
        CHECK_EQ(adm_fp_quick_test(&l, true), ADM_UNDECIDED);
        l = load_of(thirds, ELEMS(thirds));
        CHECK_EQ(l.util_ceil, 1000000002);
        CHECK_EQ(adm_fp_quick_test(&l, true), ADM_UNDECIDED);
        /* one task alone (its C <= D checked by the caller) */
        l = load_of(constrained, 1);
        CHECK_EQ(adm_fp_quick_test(&l, false), ADM_ADMIT);

        /* add then sub leaves nothing behind */
        {
                struct adm_fp_load one;

                l = load_of(ll_in, ELEMS(ll_in));
                for (size_t i = 0; i < ELEMS(ll_in); i++) {
                        CHECK_EQ(adm_fp_load_of(ll_in[i][0], ll_in[i][1], ll_in[i][2], &one), 0);
                        adm_fp_load_sub(&l, &one);
                }
                CHECK(l.util_floor == 0 && l.util_ceil == 0 && l.hyper == 0 && l.tasks == 0 &&
                      l.constrained == 0);
        }
        CHECK_EQ(adm_fp_load_of(1, 0, 0, &l), -EINVAL);
        CHECK_EQ(adm_fp_load_of(1, ADM_TIME_MAX_US + 1, 0, &l), -EINVAL);
}

static void test_rta(void) {
        uint64_t r, steps;
        size_t failed = 99;

        /* (2,5), (4,7) under RM: U = 0.971 but R2 = 4 + 2 ceil(R/5) -> 8 > 7 */
        {
                const struct adm_fp_task set[] = {
                        { 2, 5, 5, 2 },
                        { 4, 7, 7, 1 },
                };
                struct adm_fp_load l;
                static const uint64_t triples[][3] = { { 2, 5, 0 }, { 4, 7, 0 } };

                l = load_of(triples, ELEMS(triples));
                CHECK_EQ(adm_fp_quick_test(&l, true), ADM_UNDECIDED);
                CHECK_EQ(rta(set, ELEMS(set), ADM_FP_RTA_DEFAULT_STEPS, &failed), ADM_REJECT);
                CHECK_EQ(failed, 1);
                steps = 100;
                CHECK_EQ(adm_fp_response_time(set, ELEMS(set), 0, &steps, &r), ADM_ADMIT);
                CHECK_EQ(r, 2);
        }
        /* harmonic U = 1, rejected by the hyperbolic bound, accepted by RTA: R = 1, 4 */
        {
                const struct adm_fp_task set[] = {
                        { 1, 2, 2, 2 },
                        { 2, 4, 4, 1 },
                };

                CHECK_EQ(rta(set, ELEMS(set), ADM_FP_RTA_DEFAULT_STEPS, NULL), ADM_ADMIT);
                steps = 100;
                CHECK_EQ(adm_fp_response_time(set, ELEMS(set), 1, &steps, &r), ADM_ADMIT);
                CHECK_EQ(r, 4);
        }
        /* textbook: (1,4), (2,6), (3,13): R = 1, 3, 10 */
        {
                const struct adm_fp_task set[] = {
                        { 3, 13, 13, 1 },
                        { 1, 4, 4, 3 },
                        { 2, 6, 6, 2 },
                };
                uint64_t want[] = { 10, 1, 3 };

                for (size_t i = 0; i < ELEMS(set); i++) {
                        steps = 1000;
                        CHECK_EQ(adm_fp_response_time(set, ELEMS(set), i, &steps, &r), ADM_ADMIT);
                        CHECK_EQ(r, want[i]);
                }
                /* the same, with a deadline just below R3 */
                const struct adm_fp_task tight[] = {
                        { 1, 4, 4, 3 },
                        { 2, 6, 6, 2 },
                        { 3, 13, 9, 1 },
                };
                CHECK_EQ(rta(tight, ELEMS(tight), 1000, &failed), ADM_REJECT);
                CHECK_EQ(failed, 2);
        }
        /* ties: (2,4) and (3,10) are fine in RM order, not when they share a priority */
        {
                struct adm_fp_task set[] = {
                        { 2, 4, 4, 5 },
                        { 3, 10, 10, 4 },
                };

                CHECK_EQ(rta(set, ELEMS(set), 1000, NULL), ADM_ADMIT);
                steps = 1000;
                CHECK_EQ(adm_fp_response_time(set, ELEMS(set), 1, &steps, &r), ADM_ADMIT);
                CHECK_EQ(r, 7);
                set[1].priority = 5;
                CHECK_EQ(rta(set, ELEMS(set), 1000, &failed), ADM_REJECT);
                CHECK_EQ(failed, 0);
        }
        /* three tasks of exactly 1/3 at one priority: R = 3 = D */
        {
                const struct adm_fp_task set[] = {
                        { 1, 3, 3, 7 },
                        { 1, 3, 3, 7 },
                        { 1, 3, 3, 7 },
                };

                CHECK_EQ(rta(set, ELEMS(set), 1000, NULL), ADM_ADMIT);
        }
        /* C > D on its own, a work limit that runs out, and bad input */
        {
                struct adm_fp_task set[] = {
                        { 1, 4, 4, 3 },
                        { 2, 6, 6, 2 },
                        { 3, 13, 13, 1 },
                };

                /* the O(n) response-time bound decides each of the three: 3 passes of 3 */
                CHECK_EQ(rta(set, ELEMS(set), 9, &failed), ADM_ADMIT);
                CHECK_EQ(rta(set, ELEMS(set), 8, &failed), ADM_GAVE_UP);
                CHECK_EQ(failed, 2);
                for (size_t i = 0; i < ELEMS(set); i++)
                        CHECK(adm_fp_response_bound_holds(set, ELEMS(set), i));
                set[0].runtime_us = 5;
                set[0].deadline_us = 4;
                steps = 10;
                CHECK_EQ(adm_fp_response_time(set, ELEMS(set), 0, &steps, &r), ADM_REJECT);
                set[0].deadline_us = 5; /* D > T */
                CHECK_EQ(rta(set, ELEMS(set), 1000, NULL), -EINVAL);
                CHECK_EQ(rta(NULL, 0, 1000, NULL), ADM_ADMIT);
                CHECK_EQ(adm_fp_response_time(set, ELEMS(set), 3, &steps, &r), -EINVAL);
        }
        /* prio_limit: only tasks at or below it are analysed; the budget is shared */
        {
                const struct adm_fp_task set[] = {
                        { 2, 4, 4, 5 },
                        { 3, 10, 10, 5 }, /* sharing 5: task 0 fails */
                        { 1, 100, 100, 1 },
                };

                steps = 1000;
                CHECK_EQ(adm_fp_rta(set, ELEMS(set), 4, &steps, &failed), ADM_ADMIT);
                CHECK_EQ(adm_fp_rta(set, ELEMS(set), 5, &steps, &failed), ADM_REJECT);
                CHECK_EQ(failed, 0);
                steps = 0;
                CHECK_EQ(adm_fp_rta(set, ELEMS(set), 1, &steps, &failed), ADM_GAVE_UP);
                CHECK_EQ(failed, 2);
                CHECK_EQ(adm_fp_rta(set, ELEMS(set), 1, NULL, &failed), -EINVAL);
        }
        /* long horizons do not overflow: huge C and T near the limit */
        {
                const struct adm_fp_task set[] = {
                        { ADM_TIME_MAX_US / 2, ADM_TIME_MAX_US, ADM_TIME_MAX_US, 2 },
                        { ADM_TIME_MAX_US / 2, ADM_TIME_MAX_US, ADM_TIME_MAX_US, 1 },
                        { 1, ADM_TIME_MAX_US, ADM_TIME_MAX_US, 1 },
                };

                CHECK_EQ(rta(set, 2, 1000, NULL), ADM_ADMIT);
                CHECK_EQ(rta(set, 3, 1000, &failed), ADM_REJECT);
        }
}

/*
 * Whenever the hyperbolic bound admits, RTA agrees (random RM sets with D = T,
 * equal periods sharing a priority as SCHED_FIFO would run them); U > 1 never passes.
 */
static void test_hyperbolic_implies_rta(void) {
        static const uint64_t few[] = { 10, 20, 25, 40, 50, 100 };
        uint64_t seed = 12345;
        unsigned admitted = 0, bad = 0;

        for (int round = 0; round < 20000; round++) {
                struct adm_fp_task set[6];
                struct adm_fp_load l = { 0 }, one;
                size_t n = 2 + (size_t)(round % 5);

                for (size_t i = 0; i < n; i++) {
                        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                        /* every other round from a few periods, so that equal periods share a priority */
                        if (round % 2)
                                set[i].period_us = few[(seed >> 33) % ELEMS(few)];
                        else
                                set[i].period_us = 10 + (seed >> 33) % 990;
                        set[i].runtime_us = 1 + (seed >> 13) % (set[i].period_us / n + 1);
                        if (set[i].runtime_us > set[i].period_us)
                                set[i].runtime_us = set[i].period_us;
                        set[i].deadline_us = set[i].period_us;
                        (void)adm_fp_load_of(set[i].runtime_us, set[i].period_us, 0, &one);
                        adm_fp_load_add(&l, &one);
                }
                /* rate-monotonic priorities, equal periods sharing one */
                for (size_t i = 0; i < n; i++) {
                        set[i].priority = 1;
                        for (size_t j = 0; j < n; j++)
                                set[i].priority += set[j].period_us > set[i].period_us;
                }
                if (adm_fp_quick_test(&l, true) == ADM_ADMIT) {
                        admitted++;
                        bad += rta(set, n, ADM_FP_RTA_DEFAULT_STEPS, NULL) != ADM_ADMIT;
                }
                if (l.util_floor > ADM_UTIL_ONE)
                        bad += rta(set, n, ADM_FP_RTA_DEFAULT_STEPS, NULL) == ADM_ADMIT;
        }
        CHECK_EQ(bad, 0);
        CHECK(admitted > 1000);
}

/*
 * The response-time upper bound never admits a task the exact iteration
 * refuses (random sets with constrained deadlines), and decides most.
 */
static void test_response_bound_is_sound(void) {
        uint64_t seed = 777;
        unsigned bound = 0, exact = 0, bad = 0;

        for (int round = 0; round < 20000; round++) {
                struct adm_fp_task set[6];
                size_t n = 2 + (size_t)(round % 5);

                for (size_t i = 0; i < n; i++) {
                        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                        set[i].period_us = 10 + (seed >> 33) % 990;
                        set[i].runtime_us = 1 + (seed >> 13) % (set[i].period_us / n + 1);
                        set[i].deadline_us = set[i].period_us - (seed >> 45) % (set[i].period_us / 2);
                        if (set[i].runtime_us > set[i].deadline_us)
                                set[i].runtime_us = set[i].deadline_us;
                        set[i].priority = (uint32_t)(1 + (seed >> 53) % 4);
                }
                for (size_t i = 0; i < n; i++) {
                        uint64_t steps = ADM_FP_RTA_DEFAULT_STEPS, r;
                        bool holds = adm_fp_response_bound_holds(set, n, i);
                        int k = adm_fp_response_time(set, n, i, &steps, &r);

                        bound += holds;
                        exact += k == ADM_ADMIT;
                        bad += holds && k != ADM_ADMIT;
                }
        }
        CHECK_EQ(bad, 0);
        fprintf(stderr, "# response bound decided %u of %u schedulable tasks\n", bound, exact);
        CHECK(bound > exact / 2);
}

/* Issue 11 point 5: interference of U = 1 is seen at once, not after 2^31 iterations. */
static void test_full_interference_rejects_at_once(void) {
        const struct adm_fp_task set[] = {
                { 1, 1, 1, 2 },
                { 1, 1ULL << 31, 1ULL << 31, 1 },
        };
        uint64_t steps = 10, r;
        size_t failed = 9;

        CHECK_EQ(adm_fp_response_time(set, ELEMS(set), 1, &steps, &r), ADM_REJECT);
        steps = 10;
        CHECK_EQ(adm_fp_rta(set, ELEMS(set), UINT32_MAX, &steps, &failed), ADM_REJECT);
        CHECK_EQ(failed, 1);
}

int main(void) {
        test_hyper_term();
        test_quick();
        test_rta();
        test_hyperbolic_implies_rta();
        test_response_bound_is_sound();
        test_full_interference_rejects_at_once();
        return test_done();
}
