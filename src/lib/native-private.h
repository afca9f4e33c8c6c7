/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

#include "rtf/native.h"

#define NATIVE_TASK_MAGIC 0x6e74736bu   /* "ntsk" */
#define NATIVE_ALARM_MAGIC 0x6e616c6du  /* "nalm" */
#define NATIVE_PIPE_MAGIC 0x6e706970u   /* "npip" */
#define NATIVE_DELETED_MAGIC 0x64656164u /* "dead": deleted, -EIDRM */

/*
 * Xenomai 2's periodic timeline (xnpod_wait_thread_period), pure.  The task
 * waits for `release_ns`; `now_ns` is the time after the wait (or at the
 * call, if the release had already passed).  A release that has come is
 * consumed; each further whole period already past is an overrun, skipped.
 * Writes the next release to wait for and the overruns; returns 0, or
 * -EINVAL (period 0) / -EOVERFLOW.
 */
int native_period_advance(int64_t release_ns, uint64_t period_ns, int64_t now_ns,
                          int64_t *ret_next_ns, uint64_t *ret_overruns);

/* The first release of rt_task_set_periodic(): TM_NOW means now + period. */
int native_period_first(RTIME idate, RTIME period, int64_t now_ns, int64_t *ret_release_ns);

/* CLOCK_MONOTONIC in ns. */
int64_t native_now_ns(void);

/* The calling thread's task, or NULL. */
struct rtf_native_task *native_task_current(void);
int native_task_priority(const struct rtf_native_task *t);
