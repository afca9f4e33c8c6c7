/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The periodic-task and budget state machine of periodic.h.  Pure: every
 * input is an argument, so the same rules run on Linux (src/lib/task.c), in
 * the unit tests, and on a bare machine.
 */
#include <errno.h>

#include "periodic.h"

static bool add_ns(int64_t a, uint64_t b, int64_t *ret) {
        if (b > (uint64_t) INT64_MAX)
                return false;
        return !__builtin_add_overflow(a, (int64_t) b, ret);
}

/* The window is replenished when `now` has left it; windows follow the grid of origin. */
static void window_roll(struct periodic *p, int64_t now, uint64_t cpu) {
        if (now < p->window_end_ns)
                return;
        if (now < p->origin_ns) {
                /* Before the first release of the grid (task start, period change). */
                p->window_start_ns = p->window_end_ns;
                p->window_end_ns = p->origin_ns;
        } else {
                uint64_t k = ((uint64_t) now - (uint64_t) p->origin_ns) / p->period_ns;

                p->window_start_ns = (int64_t) ((uint64_t) p->origin_ns + k * p->period_ns);
                if (!add_ns(p->window_start_ns, p->period_ns, &p->window_end_ns))
                        p->window_end_ns = INT64_MAX;
        }
        p->window_cpu_ns = cpu;
        p->exhausted = false;
}

static void delayed_note(struct periodic *p) {
        if (p->delayed < PERIODIC_DELAYED_MAX)
                p->delayed++;
        else
                p->stats.delayed_dropped++;
}

static bool params_valid(uint64_t period_ns, uint64_t budget_ns) {
        return period_ns > 0 && period_ns <= (uint64_t) INT64_MAX && budget_ns <= period_ns;
}

int periodic_init(struct periodic *p, uint64_t period_ns, uint64_t budget_ns,
                  enum periodic_policy policy, int64_t first_release_ns,
                  int64_t now_ns, uint64_t cpu_ns) {
        int64_t job_release;

        if (!params_valid(period_ns, budget_ns))
                return -EINVAL;
        if (policy != PERIODIC_SKIP && policy != PERIODIC_CATCH_UP)
                return -EINVAL;
        if (__builtin_sub_overflow(first_release_ns, (int64_t) period_ns, &job_release))
                return -EINVAL;

        *p = (struct periodic) {
                .period_ns = period_ns,
                .budget_ns = budget_ns,
                .policy = policy,
                .origin_ns = first_release_ns,
                .job_release_ns = job_release,
                .job_cpu_ns = cpu_ns,
                .next_release_ns = first_release_ns,
                .window_start_ns = now_ns,
                .window_end_ns = INT64_MIN,
        };
        window_roll(p, now_ns, cpu_ns);
        if (now_ns < first_release_ns)
                p->window_start_ns = now_ns;
        return 0;
}

int periodic_set_period(struct periodic *p, uint64_t period_ns, uint64_t budget_ns) {
        if (!params_valid(period_ns, budget_ns))
                return -EINVAL;
        p->period_ns = period_ns;
        p->budget_ns = budget_ns;
        p->origin_ns = p->next_release_ns;
        /* The current window ends at the latest where the new grid starts. */
        if (p->window_start_ns < p->origin_ns && p->window_end_ns > p->origin_ns)
                p->window_end_ns = p->origin_ns;
        return 0;
}

int periodic_job_end(struct periodic *p, int64_t now, uint64_t cpu, struct periodic_wait *ret) {
        struct periodic_wait w = { .sleep = true };
        int64_t job_release, next_release;
        uint64_t response, job_cpu;
        bool late_start = false;

        if (p->delayed > 0 && now >= p->next_release_ns) {
                /* The call of a period the budget pushed into this one. */
                if (!add_ns(p->next_release_ns, p->period_ns, &next_release))
                        return -EOVERFLOW;
                job_release = p->next_release_ns;
                w = (struct periodic_wait) { .ignored = true, .wake_ns = now };
        } else if (now <= p->next_release_ns) {
                if (!add_ns(p->next_release_ns, p->period_ns, &next_release))
                        return -EOVERFLOW;
                job_release = p->next_release_ns;
                w.wake_ns = job_release;
        } else {
                /* now > next release: the difference is in [1, 2^64 - 1], exact in unsigned. */
                uint64_t late = (uint64_t) now - (uint64_t) p->next_release_ns, offset;

                w.missed = late / p->period_ns + (late % p->period_ns != 0);
                if (p->policy == PERIODIC_CATCH_UP) {
                        if (!add_ns(p->next_release_ns, p->period_ns, &next_release))
                                return -EOVERFLOW;
                        job_release = p->next_release_ns;
                        w.sleep = false;
                        w.wake_ns = now;
                        late_start = true;
                } else {
                        if (__builtin_mul_overflow(w.missed, p->period_ns, &offset) ||
                            !add_ns(p->next_release_ns, offset, &job_release) ||
                            !add_ns(job_release, p->period_ns, &next_release))
                                return -EOVERFLOW;
                        w.wake_ns = job_release;
                }
        }

        /* Everything computed: now the state changes. */
        response = now > p->job_release_ns ? (uint64_t) now - (uint64_t) p->job_release_ns : 0;
        job_cpu = cpu > p->job_cpu_ns ? cpu - p->job_cpu_ns : 0;
        p->stats.periods++;
        if (response > p->stats.max_response_ns)
                p->stats.max_response_ns = response;
        if (job_cpu > p->stats.max_job_cpu_ns)
                p->stats.max_job_cpu_ns = job_cpu;
        if (w.ignored) {
                p->delayed--;
                p->stats.ignored_waits++;
        } else {
                /* A delayed call that finds the task ahead of time has nothing left to ignore. */
                p->delayed = 0;
                if (w.missed > 0) {
                        p->stats.overruns++;
                        p->stats.missed += late_start ? 1 : w.missed;
                }
        }
        p->job_release_ns = job_release;
        p->next_release_ns = next_release;
        if (!w.sleep)
                p->job_cpu_ns = cpu;
        *ret = w;
        return 0;
}

void periodic_job_begin(struct periodic *p, int64_t now, uint64_t cpu) {
        p->job_cpu_ns = cpu;
        window_roll(p, now, cpu);
}

void periodic_budget_check(struct periodic *p, int64_t now, uint64_t cpu, struct periodic_budget *ret) {
        uint64_t used;

        window_roll(p, now, cpu);
        *ret = (struct periodic_budget) { .left_ns = UINT64_MAX, .window_end_ns = p->window_end_ns };
        if (p->budget_ns == 0)
                return;
        if (p->exhausted) {
                ret->exhausted = true;
                ret->left_ns = 0;
                return;
        }
        used = cpu > p->window_cpu_ns ? cpu - p->window_cpu_ns : 0;
        if (used < p->budget_ns) {
                ret->left_ns = p->budget_ns - used;
                return;
        }
        p->exhausted = true;
        p->stats.exhaustions++;
        delayed_note(p);
        ret->exhausted = true;
        ret->left_ns = 0;
}

void periodic_budget_resume(struct periodic *p, int64_t now, uint64_t cpu) {
        window_roll(p, now, cpu);
}

void periodic_budget_overrun(struct periodic *p) {
        p->stats.exhaustions++;
        delayed_note(p);
}
