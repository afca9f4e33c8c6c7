/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Periodic tasks: rtf_task_start() opens the first period, every call of
 * rtf_task_wait_period() ends a job and sleeps until the next release on an
 * absolute CLOCK_MONOTONIC timeline, so that sleeping never accumulates drift.
 * The arithmetic is task_next_release(); this file only adds the clock.
 *
 * Counters in the spec: `jobs` counts ended jobs, `overruns` the jobs that
 * ended after their next release had passed; rtf_task_wait_period() returns
 * how many releases such a job made the task skip.
 */
#include <errno.h>
#include <limits.h>
#include <time.h>

#include "rtf/rtf.h"
#include "task.h"
#include "util.h"

int task_next_release(int64_t release_ns, uint64_t period_ns, int64_t now_ns,
                      int64_t *ret_wake_ns, uint64_t *ret_missed) {
        uint64_t late, missed, offset, room;

        if (period_ns == 0 || period_ns > (uint64_t) INT64_MAX)
                return -EINVAL;

        if (now_ns <= release_ns) {
                *ret_wake_ns = release_ns;
                *ret_missed = 0;
                return 0;
        }

        /* now > release, so the difference is in [1, 2^64 - 1]: exact in unsigned. */
        late = (uint64_t) now_ns - (uint64_t) release_ns;
        missed = late / period_ns + (late % period_ns != 0);
        if (__builtin_mul_overflow(missed, period_ns, &offset))
                return -EOVERFLOW;
        room = (uint64_t) INT64_MAX - (uint64_t) release_ns;
        if (offset > room)
                return -EOVERFLOW;

        *ret_wake_ns = (int64_t) ((uint64_t) release_ns + offset);
        *ret_missed = missed;
        return 0;
}

static int64_t monotonic_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * (int64_t) NSEC_PER_SEC + ts.tv_nsec;
}

static int sleep_until(int64_t wake_ns) {
        struct timespec ts = {
                .tv_sec = (time_t) (wake_ns / (int64_t) NSEC_PER_SEC),
                .tv_nsec = (long) (wake_ns % (int64_t) NSEC_PER_SEC),
        };
        int r;

        /* Absolute time: restarting after a signal does not stretch the sleep. */
        do
                r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        while (r == EINTR);
        return -r;
}

RTF_PUBLIC int rtf_task_start(struct rtf_spec *s) {
        const struct rtf_params *p;
        int64_t now;

        if (!s || s->size != sizeof(*s))
                return -EINVAL;
        p = &s->params;
        if (p->size != sizeof(*p) || !(p->flags & RTF_PARAM_HAS_PERIOD) || p->period_us == 0)
                return -EINVAL;
        /* The setters bound periods to 2^32 us, but s->params is writable. */
        if (p->period_us > (uint64_t) INT64_MAX / NSEC_PER_USEC)
                return -EINVAL;

        now = monotonic_ns();
        s->period_ns = p->period_us * NSEC_PER_USEC;
        if (__builtin_add_overflow(now, (int64_t) s->period_ns, &s->next_release_ns))
                return -EOVERFLOW;
        s->jobs = 0;
        s->overruns = 0;
        return 0;
}

RTF_PUBLIC int rtf_task_wait_period(struct rtf_spec *s) {
        int64_t wake, next;
        uint64_t missed;
        int r;

        if (!s || s->size != sizeof(*s) || s->period_ns == 0)
                return -EINVAL;

        r = task_next_release(s->next_release_ns, s->period_ns, monotonic_ns(), &wake, &missed);
        if (r < 0)
                return r;
        if (__builtin_add_overflow(wake, (int64_t) s->period_ns, &next))
                return -EOVERFLOW;

        /* Update before sleeping: the sleep is a cancellation point. */
        s->next_release_ns = next;
        s->jobs++;
        if (missed > 0)
                s->overruns++;

        r = sleep_until(wake);
        if (r < 0)
                return r;
        return missed > INT_MAX ? INT_MAX : (int) missed;
}
