/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pure parts of <rtf/native.h>: the periodic timeline. */
#include <errno.h>
#include <time.h>

#include "native-private.h"
#include "util.h"

int native_period_advance(int64_t release_ns, uint64_t period_ns, int64_t now_ns,
                          int64_t *ret_next_ns, uint64_t *ret_overruns) {
        uint64_t late = 0, overruns = 0, step;

        if (period_ns == 0 || period_ns > (uint64_t) INT64_MAX)
                return -EINVAL;
        if (now_ns > release_ns)
                late = (uint64_t) now_ns - (uint64_t) release_ns;
        /* Less than a period late: the release came while the job ran, not missed. */
        overruns = late / period_ns;
        if (overruns + 1 > (uint64_t) INT64_MAX / period_ns)
                return -EOVERFLOW;
        step = (overruns + 1) * period_ns;
        if (release_ns > 0 && step > (uint64_t) (INT64_MAX - release_ns))
                return -EOVERFLOW;
        *ret_next_ns = release_ns + (int64_t) step;
        *ret_overruns = overruns;
        return 0;
}

int native_period_first(RTIME idate, RTIME period, int64_t now_ns, int64_t *ret_release_ns) {
        if (period == 0 || period > (RTIME) INT64_MAX || now_ns < 0)
                return -EINVAL;
        if (idate == TM_NOW) {
                if (period > (RTIME) (INT64_MAX - now_ns))
                        return -EOVERFLOW;
                *ret_release_ns = now_ns + (int64_t) period;
                return 0;
        }
        if (idate > (RTIME) INT64_MAX)
                return -EINVAL;
        *ret_release_ns = (int64_t) idate;
        return 0;
}

int64_t native_now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * (int64_t) NSEC_PER_SEC + ts.tv_nsec;
}
