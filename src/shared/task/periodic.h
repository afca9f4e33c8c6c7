/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The semantics of a periodic task with an execution budget, as a pure state
 * machine: no system call, no allocation, no clock.  The caller feeds it the
 * time ("now", CLOCK_MONOTONIC on Linux) and the CPU time the task's thread
 * has consumed ("cpu") at each event, and does what it answers (sleep until a
 * time, arm a timer).  src/lib/task.c drives it with POSIX timers and
 * signals; a bare-machine port drives it from its own timer interrupt.
 *
 * Timeline.  Releases lie on a grid r_k = origin + k*T.  A job ends with
 * periodic_job_end() (rtf_task_wait_period); the next job belongs to the next
 * release.  When a job ends after that release (an overrun):
 *   skip      (Xenomai) the releases already past are dropped, the task
 *             sleeps until the first release at or after now;
 *   catch-up  (RTAI)    the next job starts at once; every missed release is
 *             run, back to back, until the task is on time again.
 * Either way the call reports k, the number of releases already past.
 *
 * Budget (section 3.2 of the RTAI budget paper).  Every period window
 * [r_k, r_k+1) grants W of CPU time.  A task that has used W inside a window
 * is suspended until the window ends, gets W again and continues where it
 * stopped; the wait_period call that belonged to the exhausted period is then
 * late, and is ignored (it returns at once and the next job starts), so the
 * task gradually catches up.  Such delayed calls are counted, at most
 * PERIODIC_DELAYED_MAX (the paper's 30,000).  A task that stays within W
 * behaves exactly as without a budget.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define PERIODIC_DELAYED_MAX 30000u

enum periodic_policy {
        PERIODIC_SKIP = 0,
        PERIODIC_CATCH_UP = 1,
};

struct periodic_stats {
        uint64_t periods;               /* jobs ended */
        uint64_t overruns;              /* jobs that ended after the next release */
        uint64_t missed;                /* skip: releases dropped; catch-up: jobs started late */
        uint64_t exhaustions;           /* budget used up inside a window */
        uint64_t ignored_waits;         /* wait_period calls ignored (delayed calls) */
        uint64_t delayed_dropped;       /* exhaustions beyond PERIODIC_DELAYED_MAX */
        uint64_t max_response_ns;       /* job end - job release */
        uint64_t max_job_cpu_ns;        /* CPU time of one job */
};

struct periodic {
        uint64_t period_ns;
        uint64_t budget_ns;             /* 0: no budget */
        enum periodic_policy policy;
        uint32_t delayed;               /* wait_period calls to ignore */
        int64_t origin_ns;              /* a release on the grid of the windows */
        int64_t job_release_ns;         /* release of the running job */
        uint64_t job_cpu_ns;            /* cpu when the running job started */
        int64_t next_release_ns;        /* release of the next job */
        int64_t window_start_ns;
        int64_t window_end_ns;
        uint64_t window_cpu_ns;         /* cpu at the start of the window */
        bool exhausted;                 /* suspended until window_end_ns */
        struct periodic_stats stats;
};

/*
 * Start a task at `now` with the thread's CPU time `cpu`.  The code that runs
 * until the first periodic_job_end() is the job released at
 * first_release_ns - period; pass first_release_ns = now + period for a first
 * job released now.  Returns 0, or -EINVAL (period 0 or above INT64_MAX, an
 * unknown policy, a budget above the period, first release not after now - T).
 */
int periodic_init(struct periodic *p, uint64_t period_ns, uint64_t budget_ns,
                  enum periodic_policy policy, int64_t first_release_ns,
                  int64_t now_ns, uint64_t cpu_ns);

/* A new period from the next release on (the budget may change too). */
int periodic_set_period(struct periodic *p, uint64_t period_ns, uint64_t budget_ns);

struct periodic_wait {
        bool sleep;                     /* sleep until wake_ns, then periodic_job_begin() */
        bool ignored;                   /* a delayed call: ignored, next job starts now */
        int64_t wake_ns;
        uint64_t missed;                /* releases already past when the job ended */
};

/*
 * The running job ends (wait_period).  Writes what to do into *ret: sleep
 * until ret->wake_ns and call periodic_job_begin(), or (!ret->sleep) go on
 * with the next job at once.  Returns 0, or -EOVERFLOW past INT64_MAX.
 */
int periodic_job_end(struct periodic *p, int64_t now_ns, uint64_t cpu_ns, struct periodic_wait *ret);

/* The task woke up for the release it slept for. */
void periodic_job_begin(struct periodic *p, int64_t now_ns, uint64_t cpu_ns);

struct periodic_budget {
        bool exhausted;                 /* suspend until window_end_ns, then periodic_budget_resume() */
        uint64_t left_ns;               /* CPU left in this window (UINT64_MAX: no budget) */
        int64_t window_end_ns;          /* when the budget is replenished next */
};

/*
 * Where the budget stands at `now` with CPU time `cpu`: replenishes it if a
 * window ended, and records an exhaustion (and a delayed call) when the task
 * has used its budget.  Called by the enforcement mechanism; never sleeps.
 */
void periodic_budget_check(struct periodic *p, int64_t now_ns, uint64_t cpu_ns, struct periodic_budget *ret);

/* The suspended task woke up at the end of its window: budget replenished. */
void periodic_budget_resume(struct periodic *p, int64_t now_ns, uint64_t cpu_ns);

/*
 * An exhaustion reported by someone else (the kernel's CBS through SIGXCPU):
 * the thread was throttled until its next period, so its pending
 * wait_period call is delayed, as with a soft budget.
 */
void periodic_budget_overrun(struct periodic *p);
