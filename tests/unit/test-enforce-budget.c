/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The accounting behind FIFO/RR runtime enforcement (enforce-budget.h). */
#include <errno.h>

#include "enforce-budget.h"
#include "tap.h"

#define US 1000LL
#define MS 1000000LL

/* A task that runs all the time: its CPU time is the wall clock since 0. */
static void test_hog(void) {
        struct enforce_budget b;
        int64_t next;

        CHECK_EQ(enforce_budget_init(&b, 1 * MS, 5 * MS, 0, 0), 0);
        /* The first look: the budget cannot be gone before 1 ms. */
        CHECK_EQ(enforce_budget_step(&b, 0, 0, &next), ENFORCE_NONE);
        CHECK_EQ(next, 1 * MS);
        /* Looked 30 us late: throttled, the overrun is a debt. */
        CHECK_EQ(enforce_budget_step(&b, 1 * MS + 30 * US, 1 * MS + 30 * US, &next), ENFORCE_THROTTLE);
        CHECK_EQ(next, 5 * MS);
        CHECK_EQ(b.overrun_max_ns, 30 * US);
        CHECK_EQ(b.throttles, 1);
        /* Throttled, its CPU time as SCHED_OTHER does not count. */
        CHECK_EQ(enforce_budget_step(&b, 3 * MS, 1 * MS + 500 * US, &next), ENFORCE_NONE);
        CHECK_EQ(next, 5 * MS);
        /* Next period: restored with the debt taken off the budget. */
        CHECK_EQ(enforce_budget_step(&b, 5 * MS, 2 * MS, &next), ENFORCE_RESTORE);
        CHECK_EQ(b.budget_ns, 1 * MS - 30 * US);
        CHECK_EQ(next, 5 * MS + 1 * MS - 30 * US);
        CHECK_EQ(b.periods, 1);
        CHECK_EQ(enforce_budget_step(&b, 6 * MS, 3 * MS, &next), ENFORCE_THROTTLE);
}

/* A task that runs in short bursts: a few looks per period, not one per burst. */
static void test_bursts(void) {
        struct enforce_budget b;
        int64_t next, now = 0;
        uint64_t cpu = 0;
        int looks = 0;

        CHECK_EQ(enforce_budget_init(&b, 1 * MS, 10 * MS, 0, 0), 0);
        CHECK_EQ(enforce_budget_step(&b, now, cpu, &next), ENFORCE_NONE);
        /* It runs half of the time: by each look it has used half of the span. */
        while (!b.throttled && looks < 100) {
                cpu += (uint64_t)(next - now) / 2;
                now = next;
                enforce_budget_step(&b, now, cpu, &next);
                looks++;
        }
        CHECK(b.throttled);
        CHECK(looks <= 12);             /* about log2(1 ms / 20 us) + 1 */
        CHECK(b.overrun_max_ns <= ENFORCE_MIN_STEP_NS);
        CHECK(now <= 10 * MS);
}

/* A look that comes late by several periods, and a debt larger than a runtime. */
static void test_late(void) {
        struct enforce_budget b;
        int64_t next;

        CHECK_EQ(enforce_budget_init(&b, 1 * MS, 5 * MS, 0, 0), 0);
        /* Not looked at for a whole period while it ran 4 ms: 3 ms of debt,
         * more than a runtime: it sits the next period out at once. */
        CHECK_EQ(enforce_budget_step(&b, 5 * MS, 4 * MS, &next), ENFORCE_THROTTLE);
        CHECK_EQ(b.budget_ns, 1);       /* never a budget of 0: one more period pays */
        CHECK_EQ(next, 10 * MS);
        CHECK_EQ(enforce_budget_step(&b, 5 * MS + 20 * US, 4 * MS + 20 * US, &next), ENFORCE_NONE);
        /* Restored 17 periods later: periods counted, no debt for skipped ones. */
        CHECK_EQ(enforce_budget_step(&b, 90 * MS, 5 * MS, &next), ENFORCE_RESTORE);
        CHECK_EQ(b.periods, 18);
        CHECK_EQ(b.period_start_ns, 90 * MS);
        /* Running, not looked at for 3 periods, 10 ms used: 3 runtimes were
         * due, 7 ms are a debt (a late enforcer buys nothing). */
        CHECK_EQ(enforce_budget_init(&b, 1 * MS, 5 * MS, 0, 0), 0);
        CHECK_EQ(enforce_budget_step(&b, 15 * MS, 10 * MS, &next), ENFORCE_THROTTLE);
        CHECK_EQ(b.periods, 3);
        CHECK_EQ(b.budget_ns, 1);
        CHECK_EQ(b.debt_ns, 7 * MS - (1 * MS - 1));
        /* Looked at again 4 periods later: 3 whole periods out paid 3 ms,
         * the new one 1 ms - 1 more: 2 ms + 2 ns still owed, still out. */
        CHECK_EQ(enforce_budget_step(&b, 35 * MS, 10 * MS, &next), ENFORCE_NONE);
        CHECK(b.throttled);
        CHECK_EQ(b.debt_ns, 2 * MS + 2);
        /* 4 periods later: paid; restored with its runtime. */
        CHECK_EQ(enforce_budget_step(&b, 55 * MS, 10 * MS, &next), ENFORCE_RESTORE);
        CHECK_EQ(b.debt_ns, 0);
        CHECK_EQ(b.budget_ns, 1 * MS);
}

static void test_change_and_invalid(void) {
        struct enforce_budget b;
        int64_t next;

        CHECK_EQ(enforce_budget_init(&b, 0, 5 * MS, 0, 0), -EINVAL);
        CHECK_EQ(enforce_budget_init(&b, 6 * MS, 5 * MS, 0, 0), -EINVAL);
        CHECK_EQ(enforce_budget_init(&b, 1 * MS, 0, 0, 0), -EINVAL);
        CHECK_EQ(enforce_budget_init(&b, 1 * MS, 5 * MS, 0, 0), 0);
        CHECK_EQ(enforce_budget_step(&b, 1 * MS, 1 * MS, &next), ENFORCE_THROTTLE);
        /* A change keeps the throttle of the period in progress. */
        CHECK_EQ(enforce_budget_change(&b, 2 * MS, 5 * MS), 0);
        CHECK(b.throttled);
        CHECK_EQ(enforce_budget_change(&b, 6 * MS, 5 * MS), -EINVAL);
        CHECK_EQ(enforce_budget_step(&b, 5 * MS, 1 * MS, &next), ENFORCE_RESTORE);
        CHECK_EQ(b.budget_ns, 2 * MS);
}

int main(void) {
        test_hog();
        test_bursts();
        test_late();
        test_change_and_invalid();
        return test_done();
}
