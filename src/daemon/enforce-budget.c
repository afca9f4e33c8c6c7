/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "enforce-budget.h"

static void start_period(struct enforce_budget *b, int64_t start_ns, uint64_t cpu_ns) {
        b->period_start_ns = start_ns;
        b->cpu_at_start_ns = cpu_ns;
        if (b->debt_ns >= b->runtime_ns) {
                /* Never a whole period without running: the debt carries on. */
                b->debt_ns -= b->runtime_ns - 1;
                b->budget_ns = 1;
        } else {
                b->budget_ns = b->runtime_ns - b->debt_ns;
                b->debt_ns = 0;
        }
}

int enforce_budget_init(struct enforce_budget *b, uint64_t runtime_ns, uint64_t period_ns, int64_t now_ns,
                        uint64_t cpu_ns) {
        if (runtime_ns == 0 || period_ns == 0 || runtime_ns > period_ns || period_ns > INT64_MAX / 4)
                return -EINVAL;
        *b = (struct enforce_budget){ .runtime_ns = runtime_ns, .period_ns = period_ns };
        start_period(b, now_ns, cpu_ns);
        return 0;
}

int enforce_budget_change(struct enforce_budget *b, uint64_t runtime_ns, uint64_t period_ns) {
        if (runtime_ns == 0 || period_ns == 0 || runtime_ns > period_ns || period_ns > INT64_MAX / 4)
                return -EINVAL;
        b->runtime_ns = runtime_ns;
        b->period_ns = period_ns;
        if (b->debt_ns > runtime_ns)
                b->debt_ns = runtime_ns;
        b->budget_ns = runtime_ns;
        return 0;
}

enum enforce_action enforce_budget_step(struct enforce_budget *b, int64_t now_ns, uint64_t cpu_ns,
                                        int64_t *ret_next_ns) {
        enum enforce_action action = ENFORCE_NONE;
        int64_t end = b->period_start_ns + (int64_t)b->period_ns;
        uint64_t used;

        if (cpu_ns < b->cpu_at_start_ns)        /* a clock that went back: start over */
                b->cpu_at_start_ns = cpu_ns;
        if (now_ns >= end) {
                /* A look may come late (a loaded machine, or an enforcer kept
                 * busy on purpose): whole periods are skipped, and what the
                 * task ran in them beyond their runtimes is a debt, or making
                 * the enforcer late would buy unbounded CPU time. */
                int64_t k = (now_ns - b->period_start_ns) / (int64_t)b->period_ns;

                if (!b->throttled) {
                        uint64_t due = b->budget_ns + (uint64_t)(k - 1) * b->runtime_ns;

                        used = cpu_ns - b->cpu_at_start_ns;
                        if (used > due)
                                b->debt_ns += used - due;
                } else {
                        /* Throttled through k - 1 whole periods: their runtimes pay. */
                        uint64_t paid = (uint64_t)(k - 1) * b->runtime_ns;

                        b->debt_ns -= paid < b->debt_ns ? paid : b->debt_ns;
                }
                start_period(b, b->period_start_ns + k * (int64_t)b->period_ns, cpu_ns);
                b->periods += (uint64_t)k;
                end = b->period_start_ns + (int64_t)b->period_ns;
                /* Still owing a whole runtime: it sits this period out too,
                 * so that its CPU time stays its runtime per period however
                 * late the looks come. */
                if (b->debt_ns >= b->runtime_ns) {
                        *ret_next_ns = end;
                        if (b->throttled)
                                return ENFORCE_NONE;
                        b->throttled = true;
                        b->throttles++;
                        return ENFORCE_THROTTLE;
                }
                if (b->throttled) {
                        b->throttled = false;
                        action = ENFORCE_RESTORE;
                }
        }
        if (b->throttled) {
                *ret_next_ns = end;
                return action;
        }
        used = cpu_ns - b->cpu_at_start_ns;
        if (used >= b->budget_ns) {
                uint64_t over = used - b->budget_ns;

                b->debt_ns += over;
                if (over > b->overrun_max_ns)
                        b->overrun_max_ns = over;
                if (over > ENFORCE_LATE_NS)
                        b->overruns_late++;
                b->throttled = true;
                b->throttles++;
                *ret_next_ns = end;
                /* Restored and exhausted in one look: it stays throttled. */
                return action == ENFORCE_RESTORE ? ENFORCE_NONE : ENFORCE_THROTTLE;
        }
        {
                uint64_t left = b->budget_ns - used;
                int64_t next = now_ns + (left < (uint64_t)ENFORCE_MIN_STEP_NS ? ENFORCE_MIN_STEP_NS : (int64_t)left);

                *ret_next_ns = next < end ? next : end;
        }
        return action;
}
