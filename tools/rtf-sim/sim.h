/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-sim's schedule simulator: what the kernel does with the threads rtfd
 * promotes, job by job, in integer microseconds.  Pure (no OS calls).
 *
 *   - SCHED_DEADLINE: EDF; a task pinned to a partitioned CPU runs there,
 *     every other one runs anywhere in the shared root domain (all CPUs
 *     without a partition) under global EDF: the m earliest deadlines run.
 *     Each job runs its whole budget Q (the most its CBS allows), so its
 *     interference on others is the worst a CBS permits.
 *   - SCHED_FIFO / SCHED_RR below every DEADLINE job, pinned: the highest
 *     priority runs; ties in FIFO order (a preempted job stays at the head
 *     of its priority); RR rotates after rr_slice_us.
 *   - A task without a runtime is a hog: always ready, never done.
 *   - The kernel's reserved share: in every window of reserve_period_us
 *     each CPU leaves reserve_us to non-real-time work.  Idle time counts;
 *     when the rest of the window only just holds what is still owed, the
 *     CPU runs no FIFO/RR thread until the window ends (RT throttling, the
 *     fair server at zero laxity).  DEADLINE threads go on: the fair
 *     server's bandwidth is inside the kernel's DEADLINE admission, which
 *     EDF's U_thr leaves free.
 *   - Global DEADLINE jobs are placed adversarially by default: on CPUs
 *     where FIFO/RR work is ready first (the kernel may do so; a sound
 *     admission must survive it).
 *
 * Release: synchronous at 0, then strictly periodic, the worst case for
 * fixed priorities and EDF on one CPU with D <= T.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sim_policy {
        SIM_FIFO = 1,
        SIM_RR = 2,
        SIM_DEADLINE = 6,
};

struct sim_task {
        uint32_t policy;                /* enum sim_policy */
        int32_t cpu;                    /* FIFO/RR: its CPU; DEADLINE: its partition or -1 */
        uint32_t priority;              /* FIFO/RR */
        uint64_t exec_us;               /* per job; 0 = no runtime: a hog */
        uint64_t period_us;
        uint64_t deadline_us;           /* relative, <= period */
        uint32_t label;                 /* the caller's id, for reports */
        /* state, set by sim_run() */
        uint64_t next_release, abs_deadline, remaining, stamp, slice_left, release;
        int32_t on_cpu, last_cpu;
        bool active;
};

/* A piece of schedule, for Gantt charts: cpu ran task (-1 idle, -2 reserved) in [start, end). */
typedef void (*sim_trace_fn)(void *data, uint32_t cpu, int32_t task, uint64_t start, uint64_t end);

#define SIM_MAX_CPUS 64

struct sim_config {
        uint32_t n_cpus;
        bool partitioned[SIM_MAX_CPUS];
        uint64_t reserve_us;            /* 0: no reserved share */
        uint64_t reserve_period_us;
        uint64_t rr_slice_us;
        uint64_t horizon_us;
        bool friendly_placement;        /* global DEADLINE jobs stay where they were, lowest CPU first */
        sim_trace_fn trace;
        void *trace_data;
};

struct sim_result {
        bool missed;
        uint32_t task;                  /* index of the task that missed */
        uint64_t release_us, deadline_us, left_us;
        uint64_t end_us;                /* where the simulation stopped */
        uint64_t events;
};

/* The hyperperiod of the tasks' periods, or 0 beyond limit_us. */
uint64_t sim_hyperperiod(const struct sim_task *tasks, size_t n, uint64_t limit_us);

/* Run the schedule up to horizon_us or the first miss.  0 or -EINVAL. */
int sim_run(const struct sim_config *cfg, struct sim_task *tasks, size_t n, struct sim_result *ret);
