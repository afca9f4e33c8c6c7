/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * When was a thread on a CPU?  The kernel's sched_switch tracepoint, recorded
 * in a private tracefs instance on the CLOCK_MONOTONIC clock ("mono"), tells
 * rtf-budget on which side of a window boundary a task's CPU time was spent,
 * which the task's own clock cannot tell for the one interval that contains
 * its suspension.  Needs root (tracefs, which it mounts at /sys/kernel/tracing
 * for the run when it is not mounted); the parser is pure.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sched_switch_event {
        int64_t ts_ns;                  /* CLOCK_MONOTONIC, to the microsecond */
        pid_t prev_pid;                 /* leaves the CPU */
        pid_t next_pid;                 /* takes it */
};

struct sched_trace;

/*
 * Start recording the switches of threads whose name matches `comm_glob`.
 * Returns 0, or a negative errno (-ENOENT: tracefs is not mounted and we are
 * not root, -EACCES: tracefs is mounted but we are not root; as root,
 * whatever mounting it failed with).
 */
int sched_trace_start(const char *comm_glob, struct sched_trace **ret);
/* Why sched_trace_start() returned r, in words, for the cases above; else NULL. */
const char *sched_trace_strerror(int r);
/* Stop, read and parse what was recorded, remove the instance; frees t. */
int sched_trace_finish(struct sched_trace *t, struct sched_switch_event **ret_events, size_t *ret_n,
                       uint64_t *ret_lost);

/*
 * The sched_switch lines of a tracefs `trace` file (other lines are
 * skipped).  Returns the number of events, or -EINVAL for a sched_switch line
 * that cannot be read, -ENOMEM.
 */
int sched_trace_parse(const char *text, size_t len, struct sched_switch_event **ret_events, size_t *ret_n);

/*
 * Time `tid` spent on a CPU within [from, to), given that it was on one at
 * `from` (it was running then), from the events (in time order).
 */
int64_t sched_trace_oncpu_ns(const struct sched_switch_event *ev, size_t n, pid_t tid, int64_t from, int64_t to);
