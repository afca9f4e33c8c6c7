/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-bare's task API: RTAI's kernel-task calls with RTAI's names and
 * semantics (as in RTAI 3.x rtai_sched.h), over a fixed-priority preemptive
 * scheduler on one CPU.  Periodic tasks and budgets follow the same rules as
 * librtf on Linux (src/shared/task/periodic.c, the same code): missed
 * releases are caught up (RTAI), a task that uses up its budget is suspended
 * until its next period and the wait_period call of that period is ignored.
 *
 * Times are counts of the CPU's time-stamp counter (calibrated at boot);
 * nano2count()/count2nano() convert.  Priorities: 0 highest, up to
 * RT_SCHED_LOWEST_PRIORITY.  Calls return 0 or a positive RTE_* outcome, or
 * a negative errno for invalid arguments.
 *
 * Unlike LXRT's rt_task_init(name, priority, stack, msg) in <rtf/rtai.h>,
 * which makes the calling Linux thread a task, this is RTAI's kernel
 * rt_task_init: the caller provides the RT_TASK, the task gets its own stack
 * and starts suspended (rt_task_resume or rt_task_make_periodic start it).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <rtf/rtai-common.h>
#include "task/periodic.h"
#include "lib/pqueue.h"
#include "arch.h"                       /* ARCH_FPU_BYTES */

#define RT_TASK_NAME_MAX 16
#define RT_TASK_STACK_MIN 1024          /* an interrupt frame and the scheduler run on it */

typedef struct rt_task_struct RT_TASK;

/* Owned by the caller, opaque: only the kernel reads or writes the fields. */
struct rt_task_struct {
        uintptr_t sp;                   /* saved frame (the architecture's entry.S) */
        uint32_t magic;
        char name[RT_TASK_NAME_MAX];
        int priority;
        uint32_t state;
        uint32_t suspend_depth;
        struct pq_node link;            /* ready queue, or the queue it waits on */
        struct pq_node timed;           /* timer queue */
        struct pq_node *wait_queue;     /* the queue link is in, when waiting */
        int64_t wake_ns;
        int wait_result;
        uint8_t *stack;                 /* lowest address */
        uint32_t stack_size;
        bool stack_owned;
        bool uses_fpu;
        bool periodic;
        uint64_t cpu_ns;                /* CPU time consumed */
        int64_t budget_deadline_ns;     /* when the running task's budget ends, INT64_MAX: none */
        uint64_t budget_overshoot_max_ns; /* CPU used past the budget when it was stopped, at most */
        struct periodic core;           /* src/shared/task/: releases, budget, statistics */
        void (*entry)(long);
        long data;
        void (*signal)(void);
        struct rt_task_struct *next_task;
        uint32_t switches_in;
        uint8_t fpu[ARCH_FPU_BYTES] __attribute__((aligned(16)));
};

int rt_task_init(RT_TASK *task, void (*rt_thread)(long), long data, int stack_size, int priority,
                 int uses_fpu, void (*signal)(void));
/* rtf extension: a name for panics and reports (RTAI registers names apart). */
int rt_task_set_name(RT_TASK *task, const char *name);
int rt_task_make_periodic(RT_TASK *task, RTIME start_time, RTIME period);
int rt_task_make_periodic_relative_ns(RT_TASK *task, RTIME start_delay, RTIME period);
/* The budget paper's call: rt_task_make_periodic() plus a CPU budget per period (counts). */
int rt_task_make_periodic_budget(RT_TASK *task, RTIME start_time, RTIME period, RTIME budget);
int rt_task_wait_period(void);
int rt_task_suspend(RT_TASK *task);
int rt_task_resume(RT_TASK *task);
int rt_task_delete(RT_TASK *task);
int rt_task_yield(void);
int rt_change_prio(RT_TASK *task, int priority);
RT_TASK *rt_whoami(void);
int rt_sleep(RTIME delay);
int rt_sleep_until(RTIME time);
RTIME rt_get_time(void);
RTIME rt_get_time_ns(void);
RTIME nano2count(RTIME nanosecs);
RTIME count2nano(RTIME counts);
/* period in counts (periodic mode); returns the tick in counts, or 0 in one-shot mode. */
RTIME start_rt_timer(int period);
void stop_rt_timer(void);
void rt_set_oneshot_mode(void);
void rt_set_periodic_mode(void);
int rt_printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* rtf extension: the periodic statistics (jobs, overruns, exhaustions, ignored waits). */
int rt_task_stats(const RT_TASK *task, struct periodic_stats *ret);
/* rtf extension: the most CPU time the task used past its budget before it was stopped, in ns. */
RTIME rt_task_budget_overshoot_ns(const RT_TASK *task);
/* rtf extension: when the running job of a periodic task was released, in ns (rt_get_time_ns()). */
RTIME rt_task_release_ns(const RT_TASK *task);
/* rtf extension: CPU time the task has consumed, in ns. */
RTIME rt_task_cpu_time_ns(const RT_TASK *task);
/* rtf extension: bytes of the task's stack ever used (its high-water mark). */
uint32_t rt_task_stack_used(const RT_TASK *task);
