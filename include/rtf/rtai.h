/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RTAI/LXRT task API on rtf, with the budget extension of "Real-Time
 * Linux with Budget-Based Resource Reservation" (rt_task_make_periodic_budget).
 * Link with librtf (pkg-config rtf).
 *
 * Every RTAI task is a specification admitted through rtfd, so the
 * administrator's policy applies to ported code too: rt_task_make_periodic*()
 * asks rtfd for a reservation (SCHED_FIFO through the "FP" plugin, SCHED_RR
 * through "RR"; $RTF_RTAI_SCHEDULER names another plugin, "" lets rtfd
 * choose) and attaches the task's thread to it.
 *
 * As in LXRT, rt_task_init() makes the *calling thread* an RTAI task.  Times
 * are counts, and one count is one nanosecond of CLOCK_MONOTONIC
 * (nano2count() and count2nano() are the identity).  RTAI priorities run from
 * 0 (highest) up; priority p asks for rtf priority 99 - p (at least 1), which
 * the plugin maps into its range.  cpus_allowed is left to rtfd.
 *
 * rt_task_wait_period() follows RTAI: missed releases are run back to back
 * (catch-up); it returns 0 on time, RTE_TMROVRN when it returned at once
 * because the next release had already passed, RTE_OBJINV when the calling
 * thread is not a periodic RTAI task, or a negative errno.  With a budget
 * (rt_task_make_periodic_budget), a task that exhausts it is suspended until
 * its next period and the wait call of the exhausted period is ignored
 * (returns 0 at once): section 3.2 of the paper, see docs/BUDGETS.md.
 *
 * rt_task_make_periodic*() return 0, -EINVAL for bad arguments, -EBUSY when
 * no plugin admits the task, -EACCES when the policy refuses it, -ENOTCONN
 * when rtfd cannot be reached, or another negative errno.
 */
#pragma once

#include <rtf/rtai-common.h>
#include <rtf/rtf.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rt_task_struct RT_TASK;

RTF_PUBLIC RT_TASK *rt_task_init(unsigned long name, int priority, int stack_size, int max_msg_size);
/* policy: SCHED_FIFO or SCHED_RR. */
RTF_PUBLIC RT_TASK *rt_task_init_schmod(unsigned long name, int priority, int stack_size,
                                        int max_msg_size, int policy, int cpus_allowed);
/* start_time: absolute, in counts; the first release. */
RTF_PUBLIC int rt_task_make_periodic(RT_TASK *task, RTIME start_time, RTIME period);
RTF_PUBLIC int rt_task_make_periodic_relative_ns(RT_TASK *task, RTIME start_delay, RTIME period);
/* The paper's call: rt_task_make_periodic() plus an execution budget per period. */
RTF_PUBLIC int rt_task_make_periodic_budget(RT_TASK *task, RTIME start_time, RTIME period, RTIME budget);
RTF_PUBLIC int rt_task_wait_period(void);
RTF_PUBLIC int rt_task_delete(RT_TASK *task);
RTF_PUBLIC int rt_sleep(RTIME delay);
RTF_PUBLIC RTIME rt_get_time(void);
RTF_PUBLIC RTIME rt_get_time_ns(void);
RTF_PUBLIC RTIME nano2count(RTIME nanosecs);
RTF_PUBLIC RTIME count2nano(RTIME counts);
/* rtf extension: the specification behind a task (rtf_task_stats() etc.), or NULL. */
RTF_PUBLIC struct rtf_spec *rt_task_rtf_spec(RT_TASK *task);

#ifdef __cplusplus
}
#endif
