/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runtime a fixed-priority task declared, as a bound it cannot exceed
 * for long (issue 10, point 2): the pure accounting of one task's CPU time
 * per period, apart from the mechanism (enforce.c) that reads the clock and
 * changes the policy.  EDF needs none of this: the kernel's CBS enforces a
 * SCHED_DEADLINE runtime.
 *
 * Periods start at the time the task was added and follow each other
 * without gaps.  When the CPU time used in a period reaches the budget, the
 * task is throttled (SCHED_OTHER) for the rest of the period; what it ran
 * beyond the budget before that was noticed is a debt, taken from the next
 * period's budget, so that over any two periods it gets no more than twice
 * its runtime.  The next look is at the earliest time the budget can be
 * exhausted (the CPU time cannot grow faster than the wall clock), but no
 * sooner than ENFORCE_MIN_STEP_NS: a task that runs in short bursts costs
 * about log2(runtime / step) looks per period, not one per burst.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define ENFORCE_MIN_STEP_NS 20000LL     /* 20 us */
#define ENFORCE_LATE_NS 100000ULL       /* statistics: an overrun beyond 100 us */

struct enforce_budget {
        uint64_t runtime_ns;
        uint64_t period_ns;
        int64_t period_start_ns;        /* CLOCK_MONOTONIC */
        uint64_t cpu_at_start_ns;       /* the task's CPU time then */
        uint64_t debt_ns;               /* ran beyond its budget, taken from the next period */
        uint64_t budget_ns;             /* this period's: runtime_ns - debt */
        bool throttled;
        uint64_t periods;               /* statistics: periods begun since init */
        uint64_t throttles;
        uint64_t overrun_max_ns;
        uint64_t overruns_late;         /* throttles more than ENFORCE_LATE_NS late */
};

enum enforce_action {
        ENFORCE_NONE,
        ENFORCE_THROTTLE,               /* give the task SCHED_OTHER until the period ends */
        ENFORCE_RESTORE,                /* a new period: give back its policy */
};

/* Start accounting at `now_ns` with the task's CPU time `cpu_ns`; -EINVAL
 * for a zero runtime or period, or a runtime longer than the period. */
int enforce_budget_init(struct enforce_budget *b, uint64_t runtime_ns, uint64_t period_ns, int64_t now_ns,
                        uint64_t cpu_ns);

/* New parameters (a change): the period in progress keeps what it used,
 * its budget becomes the new runtime's. */
int enforce_budget_change(struct enforce_budget *b, uint64_t runtime_ns, uint64_t period_ns);

/*
 * One look at `now_ns` with the task's CPU time `cpu_ns`: returns what to do
 * and writes when to look next (absolute, CLOCK_MONOTONIC) to *ret_next_ns.
 */
enum enforce_action enforce_budget_step(struct enforce_budget *b, int64_t now_ns, uint64_t cpu_ns,
                                        int64_t *ret_next_ns);
