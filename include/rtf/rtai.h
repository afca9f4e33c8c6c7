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
 * Porting: replace #include <rtai_lxrt.h> (and <rtai_sem.h> etc. for the
 * calls below) by #include <rtf/rtai.h> and link with librtf.
 *
 * As in LXRT, rt_task_init() makes the *calling thread* an RTAI task.  Times
 * are counts, and one count is one nanosecond of CLOCK_MONOTONIC
 * (nano2count() and count2nano() are the identity, in oneshot and periodic
 * mode alike).  cpus_allowed is left to rtfd.
 *
 * Priorities: RTAI priorities run from 0 (highest) up; RTAI priority p asks
 * for rtf priority MAX - p (at least 1), MAX being $RTF_RTAI_PRIORITY_MAX
 * (1..99, default 49: below the kernel's interrupt threads at SCHED_FIFO 50,
 * and within what a policy for ordinary users typically grants).  The plugin
 * maps it into its range.  rt_task_set_rtf_priority() asks for one rtf
 * priority instead.
 *
 * Runtime: rt_task_make_periodic() declares a runtime per period so that a
 * policy's max_utilization rule can judge the task: the one given with
 * rt_task_set_rtf_runtime() before it, else $RTF_RTAI_RUNTIME_PERCENT of the
 * period (0..100, default 10; 0 declares none).  It is declared for admission
 * only and not enforced; rt_task_make_periodic_budget() declares its budget,
 * which is enforced.
 *
 * Boilerplate: rt_allow_nonroot_hrt(), rt_set_oneshot_mode(),
 * rt_set_periodic_mode(), start_rt_timer() (returns its argument),
 * stop_rt_timer() and rt_make_soft_real_time() do nothing: rtf has no RTAI
 * domain or timer tick, a task is real time once rtfd admitted it, and what a
 * non-root user may do is the policy's.  rt_make_hard_real_time() gets the
 * calling task its reservation (priority only) if it has none yet.
 *
 * Every failure leaves its explanation in rtf_last_reason(): rtfd's reason
 * for a refusal, followed by the priority and runtime rtf asked for and how
 * to change them.
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
#include <sched.h>      /* SCHED_FIFO, SCHED_RR for rt_task_init_schmod(), as <rtai_lxrt.h> gives them */

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

/* LXRT boilerplate (LIBRTF_1.2), see above. */
RTF_PUBLIC void rt_allow_nonroot_hrt(void);
RTF_PUBLIC void rt_set_oneshot_mode(void);
RTF_PUBLIC void rt_set_periodic_mode(void);
RTF_PUBLIC RTIME start_rt_timer(int period);
RTF_PUBLIC void stop_rt_timer(void);
RTF_PUBLIC void rt_make_hard_real_time(void);
RTF_PUBLIC void rt_make_soft_real_time(void);
/* 1 if the task (NULL: the calling thread's) holds a reservation with its thread attached. */
RTF_PUBLIC int rt_is_hard_real_time(RT_TASK *task);
/* rtf extensions (LIBRTF_1.2): call before rt_task_make_periodic*(); 0 or -EINVAL. */
RTF_PUBLIC int rt_task_set_rtf_priority(RT_TASK *task, int rtf_priority);     /* 1..99 */
RTF_PUBLIC int rt_task_set_rtf_runtime(RT_TASK *task, RTIME runtime);         /* counts; 0: none */

#ifdef __cplusplus
}
#endif
