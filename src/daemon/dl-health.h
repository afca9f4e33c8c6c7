/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Recognising a SCHED_DEADLINE thread that the kernel left throttled for
 * good (PLATFORM.md: negative runtime, a deadline far ahead, never
 * replenished).  A throttled thread legitimately shows a future deadline,
 * even many periods ahead after an overrun at a 4 ms tick; what sets the
 * broken state apart is that nothing moves: two samples a watchdog interval
 * apart show the same non-positive runtime and the same deadline, still far
 * in the future.  Pure functions, unit-tested.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dl_sample {
        int64_t runtime_ns;             /* dl.runtime from /proc/<tid>/sched */
        int64_t deadline_ns;            /* dl.deadline, on the scheduler clock */
        int64_t now_ns;                 /* CLOCK_MONOTONIC when sampled */
};

#define DL_STUCK_SLACK_NS (1000000000LL) /* beyond twice (period + deadline) */

bool dl_state_is_stuck(const struct dl_sample *prev, const struct dl_sample *cur,
                       uint64_t period_ns, uint64_t rel_deadline_ns);

/* dl.runtime and dl.deadline from the text of /proc/<tid>/sched;
 * -ENODATA when the thread is not SCHED_DEADLINE. */
int sched_text_parse_dl(const char *text, size_t len, int64_t *ret_runtime_ns,
                        int64_t *ret_deadline_ns);
