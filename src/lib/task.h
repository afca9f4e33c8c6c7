/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

/*
 * The timeline of a periodic task, as a pure function so that it can be
 * tested at its boundaries.  `release_ns` is the next release the task waits
 * for, `now_ns` the time the current job ended (both CLOCK_MONOTONIC).
 *
 * Skip policy: a release that is already in the past when the job ends is
 * missed, the task sleeps until the first release at or after now.  A
 * release exactly at now is not missed.  So:
 *   now <= release                         -> missed 0, wake at release
 *   release + (k-1)T < now <= release + kT -> missed k, wake at release + kT
 *
 * Returns 0 and writes *ret_wake_ns and *ret_missed; -EINVAL if period_ns is
 * 0 or above INT64_MAX; -EOVERFLOW if the wake-up time is beyond INT64_MAX.
 */
int task_next_release(int64_t release_ns, uint64_t period_ns, int64_t now_ns,
                      int64_t *ret_wake_ns, uint64_t *ret_missed);
