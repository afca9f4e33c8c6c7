/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The periodic-task timeline of src/lib/task.c: the pure arithmetic at its
 * boundaries and extremes, then a short real run of rtf_task_start() and
 * rtf_task_wait_period() with margins wide enough for a loaded machine.
 */
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "rtf/rtf.h"
#include "tap.h"
#include "task.h"

#define MS 1000000LL

static void check_next(int64_t release, uint64_t period, int64_t now,
                       int expect_r, int64_t expect_wake, uint64_t expect_missed, int line) {
        int64_t wake = -7;
        uint64_t missed = 7;
        int r;

        r = task_next_release(release, period, now, &wake, &missed);
        if (r != expect_r)
                fprintf(stderr, "line %d: r = %d\n", line, r);
        CHECK_EQ(r, expect_r);
        if (expect_r == 0) {
                CHECK_EQ(wake, expect_wake);
                CHECK(missed == expect_missed);
        } else {
                /* outputs are written only on success */
                CHECK_EQ(wake, -7);
                CHECK_EQ(missed, 7);
        }
}

#define NEXT(release, period, now, r, wake, missed) \
        check_next(release, period, now, r, wake, missed, __LINE__)

static void test_boundaries(void) {
        const int64_t R = 1000 * MS;
        const uint64_t T = 10 * MS;

        /* on time */
        NEXT(R, T, 0, 0, R, 0);
        NEXT(R, T, R - 1, 0, R, 0);
        NEXT(R, T, R, 0, R, 0);                 /* exactly at the release: not missed */

        /* one release missed: (R, R + T] */
        NEXT(R, T, R + 1, 0, R + (int64_t) T, 1);
        NEXT(R, T, R + (int64_t) T / 2, 0, R + (int64_t) T, 1);
        NEXT(R, T, R + (int64_t) T - 1, 0, R + (int64_t) T, 1);
        NEXT(R, T, R + (int64_t) T, 0, R + (int64_t) T, 1);

        /* two: (R + T, R + 2T] */
        NEXT(R, T, R + (int64_t) T + 1, 0, R + 2 * (int64_t) T, 2);
        NEXT(R, T, R + 2 * (int64_t) T, 0, R + 2 * (int64_t) T, 2);

        /* many */
        NEXT(R, T, R + 1000 * (int64_t) T, 0, R + 1000 * (int64_t) T, 1000);
        NEXT(R, T, R + 1000 * (int64_t) T + 1, 0, R + 1001 * (int64_t) T, 1001);

        /* a period of 1 ns: every ns is a release */
        NEXT(R, 1, R + 5, 0, R + 5, 5);
}

static void test_extremes(void) {
        /* the largest distances still fit */
        NEXT(0, 1, INT64_MAX, 0, INT64_MAX, (uint64_t) INT64_MAX);
        NEXT(INT64_MIN, 1, INT64_MAX, 0, INT64_MAX, UINT64_MAX);
        NEXT(INT64_MAX - 10, 10, INT64_MAX - 5, 0, INT64_MAX, 1);
        NEXT(INT64_MAX, 1, INT64_MAX, 0, INT64_MAX, 0);

        /* the wake-up time would be beyond INT64_MAX */
        NEXT(INT64_MAX - 5, 10, INT64_MAX, -EOVERFLOW, 0, 0);
        NEXT(0, (uint64_t) 1 << 62, INT64_MAX, -EOVERFLOW, 0, 0);
        NEXT(INT64_MIN, (uint64_t) INT64_MAX, INT64_MAX, -EOVERFLOW, 0, 0);
        NEXT(INT64_MIN, (uint64_t) INT64_MAX, INT64_MAX - 1, 0, INT64_MAX - 1, 2);

        /* invalid periods */
        NEXT(0, 0, 1, -EINVAL, 0, 0);
        NEXT(0, (uint64_t) INT64_MAX + 1, 1, -EINVAL, 0, 0);
        NEXT(0, UINT64_MAX, 1, -EINVAL, 0, 0);
}

static int64_t monotonic_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns) {
        struct timespec ts = { .tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static void test_wait_period(void) {
        struct rtf_spec s = RTF_SPEC_INIT;
        const int64_t T = 100 * MS;
        int64_t t0, t;

        /* no parameters, or no period: nothing to wait for */
        CHECK_EQ(rtf_task_start(&s), -EINVAL);
        CHECK_EQ(rtf_task_wait_period(&s), -EINVAL);
        CHECK_EQ(rtf_task_start(NULL), -EINVAL);
        CHECK_EQ(rtf_task_wait_period(NULL), -EINVAL);
        s.params = (struct rtf_params) RTF_PARAMS_INIT;
        CHECK_EQ(rtf_task_start(&s), -EINVAL);
        s.size = 0;
        CHECK_EQ(rtf_task_start(&s), -EINVAL);
        s.size = sizeof(s);

        s.params.flags = RTF_PARAM_HAS_PERIOD;
        s.params.period_us = (uint64_t) (T / 1000);
        s.jobs = s.overruns = 99;

        t0 = monotonic_ns();
        CHECK_EQ(rtf_task_start(&s), 0);
        CHECK_EQ(s.period_ns, T);
        CHECK(s.next_release_ns >= t0 + T);
        CHECK_EQ(s.jobs, 0);
        CHECK_EQ(s.overruns, 0);

        /* an on-time job: sleeps until the first release */
        CHECK_EQ(rtf_task_wait_period(&s), 0);
        t = monotonic_ns();
        CHECK(t >= t0 + T);
        CHECK_EQ(s.jobs, 1);
        CHECK_EQ(s.overruns, 0);

        /* a job 2.5 periods long: the releases at +1T and +2T are skipped */
        sleep_ns(5 * T / 2);
        CHECK_EQ(rtf_task_wait_period(&s), 2);
        CHECK(monotonic_ns() >= t0 + 4 * T);
        CHECK_EQ(s.jobs, 2);
        CHECK_EQ(s.overruns, 1);
        CHECK_EQ(s.next_release_ns - (t0 + 5 * T) < 50 * MS, 1);

        /* back on time */
        CHECK_EQ(rtf_task_wait_period(&s), 0);
        CHECK_EQ(s.jobs, 3);
        CHECK_EQ(s.overruns, 1);

        CHECK_EQ(rtf_task_stop(&s), 0);
        CHECK(s.task == NULL);
        CHECK_EQ(rtf_task_wait_period(&s), -EINVAL);
        CHECK_EQ(rtf_task_stop(&s), 0);
}

int main(void) {
        test_boundaries();
        test_extremes();
        test_wait_period();
        return test_done();
}
