/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runtime enforcement for fixed-priority tasks (issue 10, point 2): RM, and
 * FP/RR tasks that declare a runtime, get that runtime per period and no
 * more; a task that uses it up runs SCHED_OTHER (its original setting) for
 * the rest of its period and gets its policy back at the next one.  The
 * accounting is enforce-budget.h; this is the mechanism.
 *
 * Mechanism: each enforced thread's CPU time is read from a perf task-clock
 * counter opened on it (exact to the nanosecond at the moment of the read;
 * /proc's schedstat is only updated at scheduler ticks, 4 ms here), by one
 * thread of rtfd that sleeps on a timerfd until the next look any task
 * needs.  That thread runs SCHED_DEADLINE (100 us every 2 ms), so that no
 * SCHED_FIFO task, even at priority 99 on rtfd's own CPU, can keep it from
 * running; it is started at the first enforced task.
 * What it costs and how precise it is: docs/BUDGETS.md.
 *
 * The broker calls enforce_update() whenever it applied a setting to an
 * attached thread and enforce_remove() before it lets one go; the enforcer
 * never touches a thread after enforce_remove() returned.
 */
#pragma once

#include <stdint.h>

#include "rtf/rtf-plugin.h"
#include "thread.h"

struct enforcer;

/*
 * Thread `t` (attached to specification `key`) now runs `applied`: enforce
 * `runtime_ns` per `period_ns` if it is FIFO/RR and both are non-zero, else
 * stop enforcing it.  Creates *e at the first use.  A thread throttled in
 * its current period is throttled again at once (a change does not give a
 * fresh budget).  Returns 0 or a negative errno (the runtime could not be
 * enforced: the caller must not leave the setting in force).
 *
 * A FIFO/RR task without a runtime has no utilisation to enforce: if the
 * administrator set `rttime_us` (rtfd --rttime-us), its process must have a
 * hard RLIMIT_RTTIME of at most that (a thread that runs real-time that long
 * without blocking gets SIGKILL from the kernel): rtfd sets it where it may
 * (CAP_SYS_RESOURCE), else the process must have set it itself, as rtkit
 * requires of its clients; otherwise -EPERM.  The limit stays with the
 * process (it only bounds real-time threads).
 */
int enforce_update(struct enforcer **e, uint64_t key, const struct thread *t, const struct rtf_sched_setting *applied,
                   uint64_t runtime_ns, uint64_t period_ns, uint64_t rttime_us);
void enforce_remove(struct enforcer *e, uint64_t key);
struct enforcer *enforce_free(struct enforcer *e);

/* How often a thread was throttled, and its largest overrun (0 if not enforced). */
int enforce_stats(struct enforcer *e, uint64_t key, uint64_t *ret_throttles, uint64_t *ret_overrun_max_ns);
