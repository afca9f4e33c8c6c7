/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* EDF admission math (ReTiF paper, eqs. 1-4) and the GFB bound, on hand-checked sets. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "admission/admission.h"
#include "tap.h"

#define U(x) ((uint64_t)((x) * 1e9 + 0.5)) /* exact for the decimals used here */

static void test_utilisation(void) {
        /* eq. 1: rounding up is what keeps the sum conservative */
        CHECK_EQ(adm_util_up(1, 3), 333333334);
        CHECK_EQ(adm_util_down(1, 3), 333333333);
        CHECK_EQ(adm_util_up(1, 2), U(0.5));
        CHECK_EQ(adm_util_up(10, 10), ADM_UTIL_ONE);
        CHECK_EQ(adm_util_up(ADM_TIME_MAX_US, ADM_TIME_MAX_US), ADM_UTIL_ONE);
        CHECK_EQ(adm_util_up(1, ADM_TIME_MAX_US), 1);
        /* min(T, D), D = 0 meaning none */
        CHECK_EQ(adm_window(10000, 0), 10000);
        CHECK_EQ(adm_window(10000, 5000), 5000);
        CHECK_EQ(adm_window(10000, 20000), 10000);
        /* Q / min(T, D) with D < T is a density */
        CHECK_EQ(adm_util_up(1000, adm_window(10000, 5000)), U(0.2));
}

static void test_eq3_boundary(void) {
        struct adm_edf_request r = { .runtime_us = 1000, .window_us = 10000 };
        struct adm_edf_result res;
        uint64_t load = adm_util_up(3000, 10000) + adm_util_up(5000, 10000); /* eq. 2 */

        CHECK_EQ(load, U(0.8));
        /* 0.8 + 0.1 == 0.9 exactly: admitted */
        CHECK_EQ(adm_edf_test_core(load, U(0.9), &r, &res), ADM_ADMIT);
        CHECK_EQ(res.util, U(0.1));
        CHECK_EQ(res.accepted_runtime_us, 1000);
        CHECK_EQ(res.accepted_util, U(0.1));
        /* one more microsecond: refused, result still filled for the reason */
        r.runtime_us = 1001;
        CHECK_EQ(adm_edf_test_core(load, U(0.9), &r, &res), ADM_REJECT);
        CHECK_EQ(res.util, U(0.1001));
        CHECK_EQ(res.accepted_runtime_us, 1001);
        /* U_thr = 1 with a full core */
        r.runtime_us = 10000;
        CHECK_EQ(adm_edf_test_core(0, ADM_UTIL_ONE, &r, &res), ADM_ADMIT);
        CHECK_EQ(adm_edf_test_core(1, ADM_UTIL_ONE, &r, &res), ADM_REJECT);
        /* a core already over the threshold (ignore-admission tasks) */
        r.runtime_us = 1;
        CHECK_EQ(adm_edf_test_core(U(0.95), U(0.9), &r, &res), ADM_REJECT);
        CHECK_EQ(res.accepted_runtime_us, 1);
}

static void test_eq4(void) {
        struct adm_edf_request r = { .runtime_us = 1000, .des_runtime_us = 3000, .window_us = 10000 };
        struct adm_edf_result res;

        /* room (0.9 - 0.5) * 10000 = 4000 >= Qd: Qd */
        CHECK_EQ(adm_edf_accepted_runtime(U(0.5), U(0.9), &r), 3000);
        /* room 4000 < Qd = 5000: the room */
        r.des_runtime_us = 5000;
        CHECK_EQ(adm_edf_accepted_runtime(U(0.5), U(0.9), &r), 4000);
        CHECK_EQ(adm_edf_test_core(U(0.5), U(0.9), &r, &res), ADM_ADMIT);
        CHECK_EQ(res.accepted_runtime_us, 4000);
        CHECK_EQ(res.accepted_util, U(0.4));
        /* no Qd: Q */
        r.des_runtime_us = 0;
        CHECK_EQ(adm_edf_accepted_runtime(U(0.5), U(0.9), &r), 1000);
        /* Qd < Q behaves as max(Q, Qd) = Q */
        r.des_runtime_us = 10;
        CHECK_EQ(adm_edf_accepted_runtime(U(0.5), U(0.9), &r), 1000);
        /* never below Q, even with no room (the test failed then) */
        r.des_runtime_us = 5000;
        CHECK_EQ(adm_edf_accepted_runtime(U(0.85), U(0.9), &r), 1000);
        CHECK_EQ(adm_edf_accepted_runtime(U(0.95), U(0.9), &r), 1000);
        /* rounded down: room 0.4 * 3 us = 1.2 us -> 1 us */
        r = (struct adm_edf_request) { .runtime_us = 1, .des_runtime_us = 3, .window_us = 3 };
        CHECK_EQ(adm_edf_accepted_runtime(U(0.5), U(0.9), &r), 1);
        /* Qd beyond the window is cut to the window */
        r = (struct adm_edf_request) { .runtime_us = 1, .des_runtime_us = 50, .window_us = 10 };
        CHECK_EQ(adm_edf_accepted_runtime(0, ADM_UTIL_ONE, &r), 10);
}

/* Brute force over small windows: eq. 4 is the largest runtime that keeps the core <= U_thr. */
static void test_eq4_exhaustive(void) {
        static const uint64_t thrs[] = { U(0.9), U(0.95), U(0.333333333), ADM_UTIL_ONE };
        unsigned bad = 0, cases = 0, admitted = 0;

        for (size_t t = 0; t < sizeof(thrs) / sizeof(thrs[0]); t++)
                for (uint64_t w = 1; w <= 40; w++)
                        for (uint64_t load = 0; load <= ADM_UTIL_ONE; load += U(0.0371))
                                for (uint64_t q = 1; q <= w; q++)
                                        for (uint64_t qd = 0; qd <= w + 1; qd += 3) {
                                                struct adm_edf_request r = { q, qd, w };
                                                struct adm_edf_result res;
                                                uint64_t want = qd > q ? qd : q, best = 0;
                                                int k = adm_edf_test_core(load, thrs[t], &r, &res);

                                                cases++;
                                                admitted += k == ADM_ADMIT;

                                                if (want > w)
                                                        want = w;
                                                for (uint64_t x = q; x <= want; x++)
                                                        if (load + adm_util_up(x, w) <= thrs[t])
                                                                best = x;
                                                if (best == 0) {
                                                        bad += k != ADM_REJECT;
                                                        bad += res.accepted_runtime_us != q;
                                                } else {
                                                        bad += k != ADM_ADMIT;
                                                        bad += res.accepted_runtime_us != best;
                                                        bad += load + res.accepted_util > thrs[t];
                                                }
                                        }
        CHECK_EQ(bad, 0);
        CHECK(cases > 100000 && admitted > cases / 4 && admitted < cases);
}

static void test_gfb(void) {
        struct adm_edf_request r = { .runtime_us = 5, .window_us = 10 };
        struct adm_edf_result res;

        /* sum(d) <= m - (m - 1) max(d) */
        CHECK(adm_gfb_holds(U(1.5), U(0.5), 2, ADM_UTIL_ONE));
        CHECK(!adm_gfb_holds(U(1.5) + 1, U(0.5), 2, ADM_UTIL_ONE));
        CHECK(adm_gfb_holds(U(1.0), U(1.0), 2, ADM_UTIL_ONE));
        CHECK(!adm_gfb_holds(U(1.01), U(1.0), 2, ADM_UTIL_ONE));
        CHECK(!adm_gfb_holds(0, 0, 0, ADM_UTIL_ONE));

        /* two tasks of 0.5 on 2 CPUs hold, a third of 0.5 exactly reaches 1.5 + 0.5 = 2 */
        CHECK_EQ(adm_edf_test_global(U(1.0), U(0.5), 2, ADM_UTIL_ONE, &r, &res), ADM_ADMIT);
        r.runtime_us = 6; /* 1.6 + 0.6 = 2.2 > 2 */
        CHECK_EQ(adm_edf_test_global(U(1.0), U(0.5), 2, ADM_UTIL_ONE, &r, &res), ADM_REJECT);
        /* Dhall: a full-density task leaves no room for anything on 2 CPUs */
        r = (struct adm_edf_request) { .runtime_us = 10, .window_us = 10 };
        CHECK_EQ(adm_edf_test_global(0, 0, 2, ADM_UTIL_ONE, &r, &res), ADM_ADMIT);
        r = (struct adm_edf_request) { .runtime_us = 1, .window_us = 100 };
        CHECK_EQ(adm_edf_test_global(U(1.0), U(1.0), 2, ADM_UTIL_ONE, &r, &res), ADM_REJECT);
        /* the CPUs counted as U_thr: 4 x 0.9 - 3 x 0.5 = 2.1 */
        r = (struct adm_edf_request) { .runtime_us = 5, .window_us = 10 };
        CHECK_EQ(adm_edf_test_global(U(1.6), U(0.5), 4, U(0.9), &r, &res), ADM_ADMIT);
        r.runtime_us = 6;
        CHECK_EQ(adm_edf_test_global(U(1.6), U(0.5), 4, U(0.9), &r, &res), ADM_REJECT);
        /* m = 1 is eq. 3 */
        r = (struct adm_edf_request) { .runtime_us = 1000, .window_us = 10000 };
        CHECK_EQ(adm_edf_test_global(U(0.8), U(0.8), 1, U(0.9), &r, &res), ADM_ADMIT);
        r.runtime_us = 1001;
        CHECK_EQ(adm_edf_test_global(U(0.8), U(0.8), 1, U(0.9), &r, &res), ADM_REJECT);

        /* accepted runtime above the current max: (2 - 0.5) / 2 = 0.75 -> 7.5 us -> 7 */
        r = (struct adm_edf_request) { .runtime_us = 1, .des_runtime_us = 10, .window_us = 10 };
        CHECK_EQ(adm_edf_test_global(U(0.5), U(0.5), 2, ADM_UTIL_ONE, &r, &res), ADM_ADMIT);
        CHECK_EQ(res.accepted_runtime_us, 7);
        CHECK(adm_gfb_holds(U(0.5) + res.accepted_util, res.accepted_util, 2, ADM_UTIL_ONE));
        /* below the current max: 2 - 0.9 - 0.9 = 0.2 -> 2 us */
        CHECK_EQ(adm_edf_test_global(U(0.9), U(0.9), 2, ADM_UTIL_ONE, &r, &res), ADM_ADMIT);
        CHECK_EQ(res.accepted_runtime_us, 2);
        CHECK(adm_gfb_holds(U(0.9) + res.accepted_util, U(0.9), 2, ADM_UTIL_ONE));
}

/* Brute force: the global accepted runtime is the largest that keeps the bound. */
static void test_gfb_exhaustive(void) {
        unsigned bad = 0, cases = 0, admitted = 0;

        for (uint32_t m = 1; m <= 4; m++)
                for (uint64_t max = 0; max <= ADM_UTIL_ONE; max += U(0.125))
                        for (uint64_t sum = max; sum <= m * ADM_UTIL_ONE; sum += U(0.1875))
                                for (uint64_t w = 1; w <= 16; w++)
                                        for (uint64_t q = 1; q <= w; q++) {
                                                struct adm_edf_request r = { q, w, w };
                                                struct adm_edf_result res;
                                                uint64_t best = 0;
                                                int k = adm_edf_test_global(sum, max, m, U(0.95), &r, &res);

                                                cases++;
                                                admitted += k == ADM_ADMIT;

                                                for (uint64_t x = q; x <= w; x++) {
                                                        uint64_t d = adm_util_up(x, w);

                                                        if (adm_gfb_holds(sum + d, d > max ? d : max, m, U(0.95)))
                                                                best = x;
                                                }
                                                if (best == 0)
                                                        bad += k != ADM_REJECT;
                                                else
                                                        bad += k != ADM_ADMIT || res.accepted_runtime_us != best;
                                        }
        CHECK_EQ(bad, 0);
        CHECK(cases > 50000 && admitted > cases / 10 && admitted < cases);
}

static void test_invalid(void) {
        struct adm_edf_request r = { .runtime_us = 1, .window_us = 0 };
        struct adm_edf_result res;

        CHECK_EQ(adm_edf_test_core(0, U(0.9), &r, &res), -EINVAL);
        r.window_us = 10;
        CHECK_EQ(adm_edf_test_core(0, 0, &r, &res), -EINVAL);
        CHECK_EQ(adm_edf_test_core(0, ADM_UTIL_ONE + 1, &r, &res), -EINVAL);
        r.runtime_us = 11;
        CHECK_EQ(adm_edf_test_core(0, U(0.9), &r, &res), -EINVAL);
        r.runtime_us = 0;
        CHECK_EQ(adm_edf_test_core(0, U(0.9), &r, &res), -EINVAL);
        r = (struct adm_edf_request) { .runtime_us = 1, .window_us = ADM_TIME_MAX_US + 1 };
        CHECK_EQ(adm_edf_test_core(0, U(0.9), &r, &res), -EINVAL);
        r.window_us = 10;
        CHECK_EQ(adm_edf_test_global(0, 0, 0, U(0.9), &r, &res), -EINVAL);
}

/* Brute force: h(t) <= thr t at every absolute deadline up to the hyperperiod + max D. */
static bool demand_brute(const struct adm_edf_task *set, size_t n, uint64_t thr) {
        uint64_t hyper = 1, dmax = 0;

        for (size_t i = 0; i < n; i++) {
                uint64_t a = hyper, b = set[i].period_us;

                while (b) {
                        uint64_t t = a % b;

                        a = b;
                        b = t;
                }
                hyper = hyper / a * set[i].period_us;
                if (set[i].deadline_us > dmax)
                        dmax = set[i].deadline_us;
        }
        for (uint64_t t = 1; t <= hyper + dmax; t++) {
                uint64_t h = 0;

                for (size_t i = 0; i < n; i++)
                        if (t >= set[i].deadline_us)
                                h += ((t - set[i].deadline_us) / set[i].period_us + 1) * set[i].runtime_us;
                if (h * ADM_UTIL_ONE > t * thr) /* small numbers here: no overflow */
                        return false;
        }
        return true;
}

/* QPA agrees with the brute-force demand test on random sets, at U_thr 1 and 0.9. */
static void test_qpa(void) {
        static const uint64_t periods[] = { 4, 5, 6, 8, 10, 12, 15, 20, 24, 30 };
        const struct adm_edf_task ok[] = { { 400, 500, 1000 }, { 300, 1000, 1000 } };
        const struct adm_edf_task bad[] = { { 400, 500, 1000 }, { 300, 600, 1000 } };
        uint64_t seed = 99, steps;
        unsigned admitted = 0, wrong = 0, dense = 0;

        /* density 1.1 refuses what processor demand admits */
        steps = 1000;
        CHECK_EQ(adm_edf_qpa(ok, 2, ADM_UTIL_ONE, &steps), ADM_ADMIT);
        steps = 1000;
        CHECK_EQ(adm_edf_qpa(bad, 2, ADM_UTIL_ONE, &steps), ADM_REJECT);
        steps = 1;
        CHECK_EQ(adm_edf_qpa(ok, 2, ADM_UTIL_ONE, &steps), ADM_GAVE_UP);
        steps = 1000;
        CHECK_EQ(adm_edf_qpa(ok, 2, 0, &steps), -EINVAL);

        for (int round = 0; round < 4000; round++) {
                struct adm_edf_task set[5];
                size_t n = 2 + (size_t)(round % 4);
                uint64_t thr = round % 2 ? ADM_UTIL_ONE : U(0.9), density = 0;
                bool brute;
                int q;

                for (size_t i = 0; i < n; i++) {
                        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                        set[i].period_us = periods[(seed >> 33) % ELEMS(periods)];
                        set[i].deadline_us = 1 + (seed >> 40) % set[i].period_us;
                        set[i].runtime_us = 1 + (seed >> 50) % set[i].deadline_us;
                        if (set[i].runtime_us > 2 + set[i].period_us / n)
                                set[i].runtime_us = 1 + set[i].period_us / n;
                        if (set[i].runtime_us > set[i].deadline_us)
                                set[i].runtime_us = set[i].deadline_us;
                        density += adm_util_up(set[i].runtime_us, set[i].deadline_us);
                }
                steps = 10000000;
                q = adm_edf_qpa(set, n, thr, &steps);
                brute = demand_brute(set, n, thr);
                CHECK(q == ADM_ADMIT || q == ADM_REJECT);
                if ((q == ADM_ADMIT) != brute) {
                        wrong++;
                        fprintf(stderr, "# qpa %d brute %d thr %llu:", q, brute, (unsigned long long)thr);
                        for (size_t i = 0; i < n; i++)
                                fprintf(stderr, " (%llu,%llu,%llu)", (unsigned long long)set[i].runtime_us,
                                        (unsigned long long)set[i].deadline_us,
                                        (unsigned long long)set[i].period_us);
                        fprintf(stderr, "\n");
                }
                admitted += q == ADM_ADMIT;
                dense += q == ADM_ADMIT && density > thr;
        }
        CHECK_EQ(wrong, 0);
        fprintf(stderr, "# QPA admitted %u of 4000 sets, %u of them beyond the density test\n",
                admitted, dense);
        CHECK(dense > 100);
}

int main(void) {
        test_qpa();
        test_utilisation();
        test_eq3_boundary();
        test_eq4();
        test_eq4_exhaustive();
        test_gfb();
        test_gfb_exhaustive();
        test_invalid();
        return test_done();
}
