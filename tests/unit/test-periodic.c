/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The periodic-task and budget state machine (src/shared/task/periodic.c),
 * driven with invented times: every rule of section 3.2 of the RTAI budget
 * paper and both overrun policies, exactly.
 */
#include <errno.h>
#include <stdint.h>

#include "tap.h"
#include "task/periodic.h"

/* Times in "ms" for readability; the machine does not care about units. */
#define T 10
#define W 4

static void test_invalid(void) {
        struct periodic p;

        CHECK_EQ(periodic_init(&p, 0, 0, PERIODIC_SKIP, 10, 0, 0), -EINVAL);
        CHECK_EQ(periodic_init(&p, T, T + 1, PERIODIC_SKIP, 10, 0, 0), -EINVAL);
        CHECK_EQ(periodic_init(&p, T, W, (enum periodic_policy) 7, 10, 0, 0), -EINVAL);
        CHECK_EQ(periodic_init(&p, (uint64_t) INT64_MAX + 1, 0, PERIODIC_SKIP, 10, 0, 0), -EINVAL);
        CHECK_EQ(periodic_init(&p, T, W, PERIODIC_SKIP, INT64_MIN, 0, 0), -EINVAL);
        CHECK_EQ(periodic_init(&p, T, W, PERIODIC_SKIP, T, 0, 0), 0);
        CHECK_EQ(periodic_set_period(&p, 0, 0), -EINVAL);
        CHECK_EQ(periodic_set_period(&p, T, T + 1), -EINVAL);
}

static void test_on_time(void) {
        struct periodic p;
        struct periodic_wait w;

        CHECK_EQ(periodic_init(&p, T, 0, PERIODIC_SKIP, T, 0, 0), 0);
        CHECK_EQ(periodic_job_end(&p, 3, 3, &w), 0);
        CHECK(w.sleep && !w.ignored);
        CHECK_EQ(w.wake_ns, 10);
        CHECK_EQ(w.missed, 0);
        periodic_job_begin(&p, 10, 3);
        /* A job that ends exactly at the next release has missed nothing. */
        CHECK_EQ(periodic_job_end(&p, 20, 5, &w), 0);
        CHECK(w.sleep);
        CHECK_EQ(w.wake_ns, 20);
        CHECK_EQ(w.missed, 0);
        CHECK_EQ(p.stats.periods, 2);
        CHECK_EQ(p.stats.overruns, 0);
        CHECK_EQ(p.stats.max_response_ns, 10);
        CHECK_EQ(p.stats.max_job_cpu_ns, 3);
}

/* Xenomai: the releases already past are dropped. */
static void test_skip(void) {
        struct periodic p;
        struct periodic_wait w;

        CHECK_EQ(periodic_init(&p, T, 0, PERIODIC_SKIP, T, 0, 0), 0);
        /* The first job ends at 25: releases 10 and 20 are past. */
        CHECK_EQ(periodic_job_end(&p, 25, 1, &w), 0);
        CHECK(w.sleep && !w.ignored);
        CHECK_EQ(w.missed, 2);
        CHECK_EQ(w.wake_ns, 30);
        CHECK_EQ(p.next_release_ns, 40);
        CHECK_EQ(p.stats.overruns, 1);
        CHECK_EQ(p.stats.missed, 2);
        CHECK_EQ(p.stats.max_response_ns, 25);
        periodic_job_begin(&p, 30, 1);
        CHECK_EQ(periodic_job_end(&p, 31, 2, &w), 0);
        CHECK_EQ(w.missed, 0);
        CHECK_EQ(w.wake_ns, 40);
}

/* RTAI: every missed release is run, back to back. */
static void test_catch_up(void) {
        struct periodic p;
        struct periodic_wait w;

        CHECK_EQ(periodic_init(&p, T, 0, PERIODIC_CATCH_UP, T, 0, 0), 0);
        CHECK_EQ(periodic_job_end(&p, 25, 1, &w), 0);
        CHECK(!w.sleep && !w.ignored);
        CHECK_EQ(w.missed, 2);
        CHECK_EQ(p.job_release_ns, 10);
        CHECK_EQ(p.next_release_ns, 20);
        /* The job of release 10 runs now, then the one of release 20. */
        CHECK_EQ(periodic_job_end(&p, 26, 2, &w), 0);
        CHECK(!w.sleep);
        CHECK_EQ(w.missed, 1);
        CHECK_EQ(p.job_release_ns, 20);
        CHECK_EQ(periodic_job_end(&p, 27, 3, &w), 0);
        CHECK(w.sleep);
        CHECK_EQ(w.missed, 0);
        CHECK_EQ(w.wake_ns, 30);
        CHECK_EQ(p.stats.periods, 3);
        CHECK_EQ(p.stats.overruns, 2);
        CHECK_EQ(p.stats.missed, 2);
        /* The job of release 10 ended at 26. */
        CHECK_EQ(p.stats.max_response_ns, 25);
}

/* Fig. 2 (a): a job of 1.5 W is suspended, continues in the next period, and
 * the wait_period of its period is ignored there. */
static void test_budget_exhausted(void) {
        struct periodic p;
        struct periodic_budget b;
        struct periodic_wait w;

        CHECK_EQ(periodic_init(&p, T, W, PERIODIC_SKIP, T, 0, 0), 0);
        periodic_budget_check(&p, 2, 2, &b);
        CHECK(!b.exhausted);
        CHECK_EQ(b.left_ns, 2);
        CHECK_EQ(b.window_end_ns, 10);
        periodic_budget_check(&p, 4, 4, &b);
        CHECK(b.exhausted);
        CHECK_EQ(b.window_end_ns, 10);
        CHECK_EQ(p.stats.exhaustions, 1);
        CHECK_EQ(p.delayed, 1);
        /* A second look before the window ends changes nothing. */
        periodic_budget_check(&p, 6, 4, &b);
        CHECK(b.exhausted);
        CHECK_EQ(p.stats.exhaustions, 1);
        /* Replenished at 10: the job goes on where it stopped. */
        periodic_budget_resume(&p, 10, 4);
        periodic_budget_check(&p, 10, 4, &b);
        CHECK(!b.exhausted);
        CHECK_EQ(b.left_ns, W);
        CHECK_EQ(b.window_end_ns, 20);
        /* It ends at 12 after 6 = 1.5 W: that call belonged to period 0 and is ignored. */
        CHECK_EQ(periodic_job_end(&p, 12, 6, &w), 0);
        CHECK(!w.sleep && w.ignored);
        CHECK_EQ(w.missed, 0);
        CHECK_EQ(p.delayed, 0);
        CHECK_EQ(p.stats.ignored_waits, 1);
        CHECK_EQ(p.stats.overruns, 0);
        CHECK_EQ(p.stats.max_job_cpu_ns, 6);
        CHECK_EQ(p.stats.max_response_ns, 12);
        /* The job of release 10 runs at once, on the budget left in this window. */
        CHECK_EQ(p.job_release_ns, 10);
        periodic_budget_check(&p, 13, 7, &b);
        CHECK_EQ(b.left_ns, 1);
        CHECK_EQ(periodic_job_end(&p, 13, 7, &w), 0);
        CHECK(w.sleep && !w.ignored);
        CHECK_EQ(w.wake_ns, 20);
        CHECK_EQ(w.missed, 0);
        periodic_job_begin(&p, 20, 7);
        periodic_budget_check(&p, 20, 7, &b);
        CHECK_EQ(b.left_ns, W);
}

/* Under skip, a delayed call is still not a skip: the task catches up. */
static void test_budget_twice(void) {
        struct periodic p;
        struct periodic_budget b;
        struct periodic_wait w;

        CHECK_EQ(periodic_init(&p, T, W, PERIODIC_SKIP, T, 0, 0), 0);
        periodic_budget_check(&p, 4, 4, &b);
        periodic_budget_resume(&p, 10, 4);
        periodic_budget_check(&p, 14, 8, &b);
        CHECK(b.exhausted);
        periodic_budget_resume(&p, 20, 8);
        CHECK_EQ(p.delayed, 2);
        CHECK_EQ(periodic_job_end(&p, 21, 9, &w), 0);
        CHECK(w.ignored);
        CHECK_EQ(p.job_release_ns, 10);
        CHECK_EQ(periodic_job_end(&p, 22, 10, &w), 0);
        CHECK(w.ignored);
        CHECK_EQ(p.job_release_ns, 20);
        CHECK_EQ(periodic_job_end(&p, 23, 11, &w), 0);
        CHECK(w.sleep);
        CHECK_EQ(w.wake_ns, 30);
        CHECK_EQ(p.stats.missed, 0);
        CHECK_EQ(p.stats.ignored_waits, 2);
}

/* Within its budget a task behaves exactly as without one. */
static void test_within_budget(void) {
        struct periodic a, n;
        struct periodic_budget b;
        struct periodic_wait wa, wn;
        int64_t t;

        CHECK_EQ(periodic_init(&a, T, W, PERIODIC_SKIP, T, 0, 0), 0);
        CHECK_EQ(periodic_init(&n, T, 0, PERIODIC_SKIP, T, 0, 0), 0);
        for (t = 0; t < 100; t += T) {
                uint64_t cpu = (uint64_t) t / T * 3;

                periodic_budget_check(&a, t + 3, cpu + 3, &b);
                CHECK(!b.exhausted);
                CHECK_EQ(periodic_job_end(&a, t + 3, cpu + 3, &wa), 0);
                CHECK_EQ(periodic_job_end(&n, t + 3, cpu + 3, &wn), 0);
                CHECK(wa.sleep == wn.sleep && wa.ignored == wn.ignored);
                CHECK_EQ(wa.wake_ns, wn.wake_ns);
                CHECK_EQ(wa.missed, wn.missed);
                periodic_job_begin(&a, wa.wake_ns, cpu + 3);
                periodic_job_begin(&n, wn.wake_ns, cpu + 3);
        }
        CHECK_EQ(a.stats.exhaustions, 0);
        CHECK_EQ(a.stats.ignored_waits, 0);
        CHECK_EQ(a.stats.periods, n.stats.periods);
        /* No budget at all: never exhausted. */
        periodic_budget_check(&n, 105, 1000, &b);
        CHECK(!b.exhausted);
        CHECK(b.left_ns == UINT64_MAX);
}

/* The count of delayed calls is capped at 30,000. */
static void test_delayed_cap(void) {
        struct periodic p;
        struct periodic_budget b;
        struct periodic_wait w;
        uint64_t k, n = PERIODIC_DELAYED_MAX + 5;

        CHECK_EQ(periodic_init(&p, T, 1, PERIODIC_SKIP, T, 0, 0), 0);
        for (k = 0; k < n; k++) {
                periodic_budget_check(&p, (int64_t) (k * T + 1), k + 1, &b);
                CHECK(b.exhausted);
                periodic_budget_resume(&p, (int64_t) ((k + 1) * T), k + 1);
        }
        CHECK_EQ(p.stats.exhaustions, n);
        CHECK_EQ(p.delayed, PERIODIC_DELAYED_MAX);
        CHECK_EQ(p.stats.delayed_dropped, 5);
        CHECK_EQ(periodic_job_end(&p, (int64_t) (n * T), n, &w), 0);
        CHECK(w.ignored);
        CHECK_EQ(p.delayed, PERIODIC_DELAYED_MAX - 1);
}

/* Hard budgets: the kernel reports the exhaustion (SIGXCPU). */
static void test_hard_overrun(void) {
        struct periodic p;
        struct periodic_wait w;

        CHECK_EQ(periodic_init(&p, T, W, PERIODIC_SKIP, T, 0, 0), 0);
        periodic_budget_overrun(&p);
        CHECK_EQ(p.stats.exhaustions, 1);
        CHECK_EQ(periodic_job_end(&p, 12, 6, &w), 0);
        CHECK(w.ignored);
        /* A report for a job that had already ended finds the task ahead: not ignored. */
        periodic_budget_overrun(&p);
        CHECK_EQ(periodic_job_end(&p, 13, 7, &w), 0);
        CHECK(w.sleep && !w.ignored);
        CHECK_EQ(w.wake_ns, 20);
        CHECK_EQ(p.delayed, 0);
        periodic_job_begin(&p, 20, 7);
        CHECK_EQ(periodic_job_end(&p, 21, 8, &w), 0);
        CHECK(w.sleep && !w.ignored);
        CHECK_EQ(w.wake_ns, 30);
}

/* RTAI's start time in the future: the budget window runs up to it. */
static void test_future_start(void) {
        struct periodic p;
        struct periodic_budget b;
        struct periodic_wait w;

        CHECK_EQ(periodic_init(&p, T, W, PERIODIC_CATCH_UP, 100, 0, 0), 0);
        periodic_budget_check(&p, 5, 5, &b);
        CHECK(b.exhausted);
        CHECK_EQ(b.window_end_ns, 100);
        periodic_budget_resume(&p, 100, 5);
        periodic_budget_check(&p, 100, 5, &b);
        CHECK_EQ(b.window_end_ns, 110);
        CHECK_EQ(b.left_ns, W);
        CHECK_EQ(periodic_job_end(&p, 101, 6, &w), 0);
        CHECK(w.ignored);
        CHECK_EQ(periodic_job_end(&p, 102, 7, &w), 0);
        CHECK(w.sleep);
        CHECK_EQ(w.wake_ns, 110);
}

static void test_set_period(void) {
        struct periodic p;
        struct periodic_budget b;
        struct periodic_wait w;

        CHECK_EQ(periodic_init(&p, T, W, PERIODIC_SKIP, T, 0, 0), 0);
        CHECK_EQ(periodic_set_period(&p, 2 * T, 2 * W), 0);
        CHECK_EQ(periodic_job_end(&p, 5, 1, &w), 0);
        CHECK_EQ(w.wake_ns, 10);
        periodic_job_begin(&p, 10, 1);
        periodic_budget_check(&p, 10, 1, &b);
        CHECK_EQ(b.window_end_ns, 30);
        CHECK_EQ(b.left_ns, 2 * W);
        CHECK_EQ(periodic_job_end(&p, 11, 2, &w), 0);
        CHECK_EQ(w.wake_ns, 30);
}

static void test_overflow(void) {
        struct periodic p;
        struct periodic_wait w = { .wake_ns = -7 };

        CHECK_EQ(periodic_init(&p, INT64_MAX / 2, 0, PERIODIC_SKIP, INT64_MAX - 10, INT64_MAX - 20, 0), 0);
        CHECK_EQ(periodic_job_end(&p, INT64_MAX - 15, 0, &w), -EOVERFLOW);
        CHECK_EQ(w.wake_ns, -7);
        CHECK_EQ(p.stats.periods, 0);
}

int main(void) {
        test_invalid();
        test_on_time();
        test_skip();
        test_catch_up();
        test_budget_exhausted();
        test_budget_twice();
        test_within_budget();
        test_delayed_cap();
        test_hard_overrun();
        test_future_start();
        test_set_period();
        test_overflow();
        return test_done();
}
