/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fixed-priority admission on one core: an O(1) necessary test (U <= 1), an
 * O(1) sufficient test (the hyperbolic bound) and, only when those two
 * cannot decide, exact response-time analysis (Joseph and Pandya 1986;
 * Audsley et al. 1993), which costs O(n^2 * iterations).
 */
#include <errno.h>

#include "admission/admission.h"
#include "admission/wide.h"

#define HYPER_SHIFT 30

/*
 * log2(x) for x = 1 + u by repeated squaring: square y, and each time it
 * reaches 2 emit a 1 bit and halve it.  Every rounding is upward, so
 * bits + 2^-k log2(y_k) never drops below the exact log2(x); with
 * y_k < 2 at the end, one more unit bounds the remainder from above.
 */
uint64_t adm_hyper_term(uint64_t util) {
        uint64_t y, bits = 0;

        if (util == 0)
                return 0;
        if (util > ADM_UTIL_ONE)
                /* log2(1 + U) > 1: a single such task already breaks the bound. */
                return ADM_HYPER_ONE + 1;

        /* (ONE + util) << 30 <= 2^61: fits. */
        y = (((ADM_UTIL_ONE + util) << HYPER_SHIFT) + ADM_UTIL_ONE - 1) / ADM_UTIL_ONE;
        for (unsigned k = 1; k <= HYPER_SHIFT; k++) {
                /* y <= 2^31 here, so y * y <= 2^62. */
                y = (y * y + (1ULL << HYPER_SHIFT) - 1) >> HYPER_SHIFT;
                if (y >= 2ULL << HYPER_SHIFT) {
                        bits |= 1ULL << (HYPER_SHIFT - k);
                        y = (y + 1) / 2;
                }
        }
        return bits + 1;
}

int adm_fp_load_of(uint64_t runtime_us, uint64_t period_us, uint64_t deadline_us,
                   struct adm_fp_load *ret) {
        uint64_t d;

        if (period_us == 0 || period_us > ADM_TIME_MAX_US || runtime_us > ADM_TIME_MAX_US ||
            deadline_us > ADM_TIME_MAX_US)
                return -EINVAL;

        if (runtime_us == 0) {
                *ret = (struct adm_fp_load) { 0 };
                return 0;
        }
        d = adm_window(period_us, deadline_us);
        *ret = (struct adm_fp_load) {
                .util_floor = adm_util_down(runtime_us, period_us),
                .util_ceil = adm_util_up(runtime_us, period_us),
                .tasks = 1,
                .constrained = d < period_us,
        };
        ret->hyper = adm_hyper_term(ret->util_ceil);
        return 0;
}

void adm_fp_load_add(struct adm_fp_load *core, const struct adm_fp_load *task) {
        core->util_floor += task->util_floor;
        core->util_ceil += task->util_ceil;
        core->hyper += task->hyper;
        core->tasks += task->tasks;
        core->constrained += task->constrained;
}

void adm_fp_load_sub(struct adm_fp_load *core, const struct adm_fp_load *task) {
        core->util_floor -= task->util_floor;
        core->util_ceil -= task->util_ceil;
        core->hyper -= task->hyper;
        core->tasks -= task->tasks;
        core->constrained -= task->constrained;
}

int adm_fp_quick_test(const struct adm_fp_load *core, bool rm_order) {
        /* A lower bound above 1 proves overload whatever the priorities. */
        if (core->util_floor > ADM_UTIL_ONE)
                return ADM_REJECT;
        if (core->tasks <= 1)
                /* Alone: R = C <= D was checked when the task was described. */
                return ADM_ADMIT;
        /*
         * The hyperbolic bound is proved for priorities ordered by period and
         * D = T.  Shared priorities between different periods, or a D < T,
         * void the proof, not the task set: let RTA decide.
         */
        if (rm_order && core->constrained == 0 && core->hyper <= ADM_HYPER_ONE)
                return ADM_ADMIT;
        return ADM_UNDECIDED;
}

uint64_t adm_window_work(uint64_t runtime_us, uint64_t period_us, uint64_t deadline_us,
                         uint64_t jitter_us, uint64_t window_us) {
        uint64_t d = adm_window(period_us, deadline_us);

        if (period_us == 0 || runtime_us == 0)
                return 0;
        if (runtime_us > d)
                runtime_us = d;
        return (window_us + d - runtime_us + jitter_us + period_us - 1) / period_us * runtime_us;
}

uint64_t adm_reserved_hole(uint64_t work_us, uint64_t window_us, uint64_t reserve_us) {
        uint64_t room = window_us > reserve_us ? window_us - reserve_us : 0;

        if (work_us <= room)
                return 0;
        return work_us - room < reserve_us ? work_us - room : reserve_us;
}

/* Charge one pass over the set to the budget; false when it is spent. */
static bool steps_take(uint64_t *steps, size_t n) {
        if (*steps < n)
                return false;
        *steps -= n;
        return true;
}

int adm_fp_response_time(const struct adm_fp_task *set, size_t n, size_t i, uint64_t *steps,
                         uint64_t *ret_response_us) {
        const struct adm_fp_task *t;
        uint64_t r, next, d, hp_floor;

        if (!set || i >= n || !steps)
                return -EINVAL;
        t = &set[i];
        d = t->deadline_us;
        if (t->runtime_us > d)
                return ADM_REJECT;

        /*
         * Start from C_i plus one job of every interfering task: a lower
         * bound of R that saves the first iterations.  If the interfering
         * tasks alone load the CPU fully (their utilisations rounded down
         * already reach 1), W(t) > t for every t: no fixed point, whatever
         * the number of iterations it would take to see it.
         */
        if (!steps_take(steps, n))
                return ADM_GAVE_UP;
        r = t->runtime_us;
        hp_floor = 0;
        for (size_t j = 0; j < n; j++) {
                if (j == i || set[j].priority < t->priority)
                        continue;
                if (set[j].runtime_us > d - r)
                        return ADM_REJECT;
                r += set[j].runtime_us;
                hp_floor += adm_util_down(set[j].runtime_us, set[j].period_us);
        }
        if (hp_floor >= ADM_UTIL_ONE)
                return ADM_REJECT;

        for (;;) {
                if (!steps_take(steps, n))
                        return ADM_GAVE_UP;
                next = t->runtime_us;
                for (size_t j = 0; j < n; j++) {
                        uint64_t jobs;

                        if (j == i || set[j].priority < t->priority)
                                continue;
                        /* r <= d <= ADM_TIME_MAX_US: no overflow. */
                        jobs = (r + set[j].period_us - 1) / set[j].period_us;
                        /* next + jobs * C_j > d, without overflowing */
                        if (set[j].runtime_us != 0 && jobs > (d - next) / set[j].runtime_us)
                                return ADM_REJECT;
                        next += jobs * set[j].runtime_us;
                }
                /* The workload function is monotone: next >= r, and equal at the fixed point. */
                if (next == r) {
                        *ret_response_us = r;
                        return ADM_ADMIT;
                }
                r = next;
        }
}

/*
 * The response-time upper bound of Bini and Baruah (2007):
 *   R_i <= (C_i + sum_j C_j (1 - U_j)) / (1 - sum_j U_j)
 * over the tasks j at or above task i.  Checked in exact integers scaled by
 * ADM_UTIL_ONE, every rounding against the task: if it holds, R_i <= D_i
 * without iterating.  O(n).
 */
bool adm_fp_response_bound_holds(const struct adm_fp_task *set, size_t n, size_t i) {
        const struct adm_fp_task *t = &set[i];
        adm_u128 num = adm_w_mul(t->runtime_us, ADM_UTIL_ONE);
        uint64_t u_hp = 0;

        for (size_t j = 0; j < n; j++) {
                const struct adm_fp_task *o = &set[j];

                if (j == i || o->priority < t->priority)
                        continue;
                u_hp += adm_util_up(o->runtime_us, o->period_us);
                if (u_hp >= ADM_UTIL_ONE)
                        return false;
                /* C_j (1 - U_j) scaled, rounded up: C_j ONE - floor(C_j^2 ONE / T_j) */
                num = adm_w_add(num, adm_w_sub(adm_w_mul(o->runtime_us, ADM_UTIL_ONE),
                                               adm_w_div64(adm_w_mul64(adm_w_mul(o->runtime_us, o->runtime_us),
                                                                       ADM_UTIL_ONE),
                                                           o->period_us)));
        }
        return adm_w_le(num, adm_w_mul(t->deadline_us, ADM_UTIL_ONE - u_hp));
}

int adm_fp_rta(const struct adm_fp_task *set, size_t n, uint32_t prio_limit, uint64_t *steps,
               size_t *ret_failed) {
        if ((n > 0 && !set) || !steps)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                const struct adm_fp_task *t = &set[i];

                if (t->runtime_us == 0 || t->period_us == 0 || t->period_us > ADM_TIME_MAX_US ||
                    t->deadline_us == 0 || t->deadline_us > t->period_us)
                        return -EINVAL;
        }
        for (size_t i = 0; i < n; i++) {
                uint64_t response;
                int r;

                if (set[i].priority > prio_limit)
                        continue;
                /* The O(n) bound decides most tasks; iterate only for the others. */
                if (!steps_take(steps, n))
                        r = ADM_GAVE_UP;
                else if (adm_fp_response_bound_holds(set, n, i))
                        continue;
                else
                        r = adm_fp_response_time(set, n, i, steps, &response);
                if (r < 0)
                        return r;
                if (r != ADM_ADMIT) {
                        if (ret_failed)
                                *ret_failed = i;
                        return r;
                }
        }
        return ADM_ADMIT;
}
