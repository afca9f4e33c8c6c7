/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EDF admission: utilisation per core (eqs. 1-4 of the ReTiF paper) and the
 * Goossens-Funk-Baruah density bound for global EDF.
 */
#include <errno.h>

#include "admission/admission.h"
#include "admission/wide.h"

uint64_t adm_util_up(uint64_t runtime_us, uint64_t window_us) {
        /* Both operands are <= ADM_TIME_MAX_US, so the product fits. */
        return (runtime_us * ADM_UTIL_ONE + window_us - 1) / window_us;
}

uint64_t adm_util_down(uint64_t runtime_us, uint64_t window_us) {
        return runtime_us * ADM_UTIL_ONE / window_us;
}

static int edf_request_check(const struct adm_edf_request *req, uint64_t util_thr) {
        if (!req || req->window_us == 0 || req->window_us > ADM_TIME_MAX_US)
                return -EINVAL;
        if (req->runtime_us == 0 || req->runtime_us > req->window_us)
                return -EINVAL;
        if (req->des_runtime_us > ADM_TIME_MAX_US)
                return -EINVAL;
        if (util_thr == 0 || util_thr > ADM_UTIL_ONE)
                return -EINVAL;
        return 0;
}

/* The largest runtime whose utilisation, rounded up, is <= room. */
static uint64_t runtime_for_room(uint64_t room, const struct adm_edf_request *req) {
        uint64_t want = req->des_runtime_us > req->runtime_us ? req->des_runtime_us : req->runtime_us;
        uint64_t fits;

        if (want > req->window_us)
                want = req->window_us;
        /*
         * floor(room * W / ONE) = q implies q * ONE / W <= room, and room is
         * an integer, so ceil(q * ONE / W) <= room too.
         */
        fits = room * req->window_us / ADM_UTIL_ONE;
        if (fits > want)
                fits = want;
        /* Below Q only when the test failed; the caller then gets Q back. */
        return fits < req->runtime_us ? req->runtime_us : fits;
}

uint64_t adm_edf_accepted_runtime(uint64_t core_util, uint64_t util_thr,
                                  const struct adm_edf_request *req) {
        if (core_util >= util_thr)
                return req->runtime_us;
        return runtime_for_room(util_thr - core_util, req);
}

int adm_edf_test_core(uint64_t core_util, uint64_t util_thr, const struct adm_edf_request *req,
                      struct adm_edf_result *ret) {
        struct adm_edf_result r = { 0 };
        int k;

        k = edf_request_check(req, util_thr);
        if (k < 0)
                return k;

        r.util = adm_util_up(req->runtime_us, req->window_us);
        if (core_util > util_thr || r.util > util_thr - core_util) {
                r.accepted_runtime_us = req->runtime_us;
                r.accepted_util = r.util;
                *ret = r;
                return ADM_REJECT;
        }
        r.accepted_runtime_us = adm_edf_accepted_runtime(core_util, util_thr, req);
        r.accepted_util = adm_util_up(r.accepted_runtime_us, req->window_us);
        *ret = r;
        return ADM_ADMIT;
}

bool adm_gfb_holds(uint64_t density_sum, uint64_t density_max, uint32_t m, uint64_t util_thr) {
        /* Densities are <= ONE and m is a CPU count: no overflow. */
        return m > 0 && density_sum + (uint64_t)(m - 1) * density_max <= (uint64_t)m * util_thr;
}

/*
 * The largest density d such that adding a task of density d keeps the GFB
 * bound, or -1 if none.  f(d) = sum + d + (m-1) max(max, d) grows with d:
 * below max it is sum + d + (m-1) max, above it sum + m d.
 */
static int64_t gfb_room(uint64_t sum, uint64_t max, uint32_t m, uint64_t util_thr) {
        uint64_t cap = (uint64_t)m * util_thr, below_max;

        if (sum + (uint64_t)(m - 1) * max > cap)
                return -1;
        below_max = cap - sum - (uint64_t)(m - 1) * max;
        if (below_max < max)
                return (int64_t)below_max;
        return (int64_t)((cap - sum) / m);
}

int adm_edf_test_global(uint64_t density_sum, uint64_t density_max, uint32_t m,
                        uint64_t util_thr, const struct adm_edf_request *req,
                        struct adm_edf_result *ret) {
        struct adm_edf_result r = { 0 };
        int64_t room;
        int k;

        k = edf_request_check(req, util_thr);
        if (k < 0)
                return k;
        if (m == 0 || density_max > ADM_UTIL_ONE)
                return -EINVAL;

        r.util = adm_util_up(req->runtime_us, req->window_us);
        room = gfb_room(density_sum, density_max, m, util_thr);
        if (room < 0 || r.util > (uint64_t)room) {
                r.accepted_runtime_us = req->runtime_us;
                r.accepted_util = r.util;
                *ret = r;
                return ADM_REJECT;
        }
        r.accepted_runtime_us = runtime_for_room((uint64_t)room, req);
        r.accepted_util = adm_util_up(r.accepted_runtime_us, req->window_us);
        *ret = r;
        return ADM_ADMIT;
}

/* h(t): the demand of jobs with release and deadline in [0, t]. */
static uint64_t demand(const struct adm_edf_task *set, size_t n, uint64_t t) {
        uint64_t h = 0;

        for (size_t i = 0; i < n; i++)
                if (t >= set[i].deadline_us)
                        h += ((t - set[i].deadline_us) / set[i].period_us + 1) * set[i].runtime_us;
        return h;
}

/* The largest absolute deadline strictly below t, 0 if none. */
static uint64_t deadline_below(const struct adm_edf_task *set, size_t n, uint64_t t) {
        uint64_t best = 0;

        for (size_t i = 0; i < n; i++)
                if (t > set[i].deadline_us) {
                        uint64_t d = (t - 1 - set[i].deadline_us) / set[i].period_us * set[i].period_us +
                                     set[i].deadline_us;

                        if (d > best)
                                best = d;
                }
        return best;
}

/* h(t) > util_thr t, exactly */
static bool over(uint64_t h, uint64_t t, uint64_t util_thr) {
        return adm_w_gt(adm_w_mul(h, ADM_UTIL_ONE), adm_w_mul(t, util_thr));
}

int adm_edf_qpa(const struct adm_edf_task *set, size_t n, uint64_t util_thr, uint64_t *steps) {
        adm_u128 slack_work = adm_w(0);
        uint64_t u = 0, d_min = UINT64_MAX, t, h, limit, need;

        if ((n > 0 && !set) || !steps || util_thr == 0 || util_thr > ADM_UTIL_ONE)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                const struct adm_edf_task *k = &set[i];

                if (k->period_us == 0 || k->period_us > ADM_TIME_MAX_US || k->deadline_us == 0 ||
                    k->deadline_us > k->period_us || k->runtime_us > k->deadline_us)
                        return -EINVAL;
                u += adm_util_up(k->runtime_us, k->period_us);
                if (k->deadline_us < d_min)
                        d_min = k->deadline_us;
                slack_work = adm_w_add(slack_work,
                                       adm_w_add(adm_w_div64(adm_w_mul64(adm_w_mul(k->period_us - k->deadline_us,
                                                                                    k->runtime_us),
                                                                           ADM_UTIL_ONE),
                                                             k->period_us),
                                                 adm_w(1)));
        }
        if (n == 0)
                return ADM_ADMIT;
        if (u > util_thr)
                return ADM_REJECT;
        /*
         * Only deadlines below L matter: the synchronous busy period at
         * capacity util_thr (no demand is pending after it), and, when
         * U < util_thr, sum (T - D) U_i / (util_thr - U) (beyond it h(t) <=
         * U t + sum (T - D) U_i <= util_thr t), whichever is smaller.
         */
        limit = ADM_TIME_MAX_US;
        if (u < util_thr) {
                uint64_t l = adm_w_u64(adm_w_add(adm_w_div64(slack_work, util_thr - u), adm_w(1)));

                if (l < limit)
                        limit = l;
        }
        t = 0;
        for (size_t i = 0; i < n; i++)
                t += set[i].runtime_us;
        for (;;) {
                adm_u128 w = adm_w(0);
                uint64_t next;

                if (*steps < n)
                        return ADM_GAVE_UP;
                *steps -= n;
                for (size_t i = 0; i < n && adm_w_le(w, adm_w(ADM_TIME_MAX_US)); i++)
                        w = adm_w_add(w, adm_w_mul((t + set[i].period_us - 1) / set[i].period_us,
                                                   set[i].runtime_us));
                next = adm_w_u64(adm_w_div64(adm_w_add(adm_w_mul64(w, ADM_UTIL_ONE), adm_w(util_thr - 1)), util_thr));
                if (next > ADM_TIME_MAX_US)
                        break;
                if (next == t) {
                        if (t + 1 < limit)
                                limit = t + 1;
                        break;
                }
                t = next;
        }
        if (limit == ADM_TIME_MAX_US && u == util_thr)
                /* neither bound: too long to look at */
                return ADM_GAVE_UP;

        t = deadline_below(set, n, limit);
        for (;;) {
                if (*steps < 2 * n)
                        return ADM_GAVE_UP;
                *steps -= 2 * n;
                if (t < d_min)
                        return ADM_ADMIT;
                h = demand(set, n, t);
                if (over(h, t, util_thr))
                        return ADM_REJECT;
                /*
                 * A violation below t needs h(t') > util_thr t' with h(t') <=
                 * h(t): so t' < need, the time h(t) takes at util_thr.
                 */
                need = adm_w_u64(adm_w_div64(adm_w_add(adm_w_mul(h, ADM_UTIL_ONE), adm_w(util_thr - 1)), util_thr));
                if (need <= d_min)
                        return ADM_ADMIT;
                t = need < t ? need : deadline_below(set, n, t);
        }
}
