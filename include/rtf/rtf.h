/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librtf: the client API of rtf (ReTiF paper, Tables 2 and 3, Listing 1).
 *
 * A process connects once to rtfd, declares task specifications (period,
 * runtime, desired runtime, deadline, priority, plugin), and attaches its
 * threads to the accepted ones.  All times at this API are microseconds.
 *
 * Results: RTF_OK (0) on success; the positive outcomes RTF_SCHEDULE_FAIL,
 * RTF_ACL_FAIL and RTF_CONNECTION_ERR, which a caller is expected to handle;
 * otherwise a negative errno value (see rtf_strerror()):
 *   -EINVAL   a parameter is out of range or a spec is not in the right state
 *   -ENOTCONN rtf_connect() has not been called
 *   -ESRCH    the thread to attach does not exist
 *   -EPERM    the thread to attach does not belong to the caller
 *   -EBUSY    the spec already has a thread attached
 *   -ENOENT   the daemon does not know the spec (already released)
 *   -EUSERS   a per-user limit of the daemon was hit
 *   -EPROTO   the daemon answered something this library does not understand
 *
 * The library is thread-safe: one connection per process, requests are
 * serialised on it.  It never aborts and never prints.
 *
 * Environment, read by rtf_connect() (ignored in setuid programs):
 *   RTF_SOCKET      the socket of rtfd (default RTF_DEFAULT_SOCKET)
 *   RTF_TIMEOUT_MS  how long a request waits for rtfd's reply, 1..3600000
 *                   (default 5000); past it the request fails with
 *                   RTF_CONNECTION_ERR and the connection is closed.
 * After fork() the child does not share its parent's connection: its
 * requests fail with -ENOTCONN until it calls rtf_connect() itself.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTF_PUBLIC __attribute__((visibility("default")))

/* Outcomes a caller must handle; negative values are errno codes. */
enum rtf_result {
        RTF_OK = 0,
        RTF_SCHEDULE_FAIL = 1,  /* no plugin could admit the request */
        RTF_ACL_FAIL = 2,       /* the administrator's policy refuses it */
        RTF_CONNECTION_ERR = 3, /* the daemon cannot be reached or went away */
};
typedef int rtf_result_t;
/* The paper's text spells it both ways. */
#define RTF_SCHEDULER_FAIL RTF_SCHEDULE_FAIL

#define RTF_PLUGIN_NAME_MAX 32  /* including the terminating NUL */
#define RTF_DEFAULT_SOCKET "/run/rtf/rtfd.sock"

/* Which fields of struct rtf_params were set. */
enum {
        RTF_PARAM_HAS_PERIOD = 1u << 0,
        RTF_PARAM_HAS_RUNTIME = 1u << 1,
        RTF_PARAM_HAS_DES_RUNTIME = 1u << 2,
        RTF_PARAM_HAS_DEADLINE = 1u << 3,
        RTF_PARAM_HAS_PRIORITY = 1u << 4,
        RTF_PARAM_HAS_SCHEDULER = 1u << 5,
        RTF_PARAM_IGNORE_ADMISSION = 1u << 6,
        /*
         * SCHED_DEADLINE only: have the kernel send SIGXCPU to the attached
         * thread when it overruns its runtime (SCHED_FLAG_DL_OVERRUN).  Set it
         * only in a process that handles SIGXCPU: its default action ends the
         * process.
         */
        RTF_PARAM_OVERRUN_SIGNAL = 1u << 7,
};

/*
 * The parameters of a request.  Fill it with the setters below; the fields
 * are public only so that it can live on the stack (RTF_PARAMS_INIT).
 */
struct rtf_params {
        uint32_t size;          /* sizeof(struct rtf_params), for ABI growth */
        uint32_t flags;         /* RTF_PARAM_* */
        uint64_t period_us;
        uint64_t runtime_us;
        uint64_t des_runtime_us;
        uint64_t deadline_us;
        uint32_t priority;
        uint32_t reserved0;
        char scheduler[RTF_PLUGIN_NAME_MAX];
        uint64_t reserved[4];
};

#define RTF_PARAMS_INIT { .size = sizeof(struct rtf_params) }
#define RTF_PARAM_INIT RTF_PARAMS_INIT

/* A task specification: a reservation held by rtfd on behalf of this process. */
struct rtf_spec {
        uint32_t size;                  /* sizeof(struct rtf_spec) */
        uint32_t state;                 /* library-private */
        uint64_t id;                    /* the daemon's reservation id, 0 = none */
        uint64_t accepted_runtime_us;
        uint32_t priority;              /* kernel priority granted (FIFO/RR) */
        int32_t core;                   /* CPU the task runs on, -1 = any */
        pid_t tid;                      /* attached thread, 0 = none */
        uint32_t reserved0;
        char plugin[RTF_PLUGIN_NAME_MAX]; /* plugin that admitted it */
        struct rtf_params params;       /* the parameters accepted */
        /* periodic-task state (rtf_task_start / rtf_task_wait_period) */
        uint64_t period_ns;
        int64_t next_release_ns;        /* CLOCK_MONOTONIC */
        uint64_t jobs;
        uint64_t overruns;
        void *task;                     /* library-private, for later growth */
        uint64_t reserved[6];
};

#define RTF_SPEC_INIT { .size = sizeof(struct rtf_spec), .core = -1 }

/* Connection (Table 2). The socket is $RTF_SOCKET, else RTF_DEFAULT_SOCKET. */
RTF_PUBLIC rtf_result_t rtf_connect(void);
RTF_PUBLIC rtf_result_t rtf_disconnect(void);

/*
 * Parameters (Table 3).  Setters return 0 or -EINVAL.  Times must be in
 * [1, 2^32) us (2^32 us is about 71 minutes); priorities in 1..99; a
 * scheduler name has 1..31 characters, NULL or "" clears it.  Getters return
 * 0 (NULL for the scheduler) for a parameter that was not set.
 * rtf_spec_create() and rtf_spec_change() also refuse (-EINVAL) what no
 * plugin could grant: a runtime above the period or the deadline, a desired
 * runtime above the period.  Every setter and spec call clears
 * rtf_last_reason() and, on a local -EINVAL/-EBUSY, sets it to why ("runtime
 * must be at most the period").
 *
 * Every struct here with a `size` member may grow: a caller built against
 * a newer header may pass a larger struct (accepted when the members this
 * library does not know are all zero), an older one a smaller struct (its
 * missing members count as 0).  Never set `size` to anything but sizeof.
 */
RTF_PUBLIC int rtf_params_init(struct rtf_params *p);
RTF_PUBLIC int rtf_params_set_period(struct rtf_params *p, uint64_t us);
RTF_PUBLIC int rtf_params_set_runtime(struct rtf_params *p, uint64_t us);
RTF_PUBLIC int rtf_params_set_des_runtime(struct rtf_params *p, uint64_t us);
RTF_PUBLIC int rtf_params_set_deadline(struct rtf_params *p, uint64_t us);
RTF_PUBLIC int rtf_params_set_priority(struct rtf_params *p, uint32_t priority);
RTF_PUBLIC int rtf_params_set_scheduler(struct rtf_params *p, const char *plugin);
RTF_PUBLIC int rtf_params_ignore_admission(struct rtf_params *p, bool ignore);
RTF_PUBLIC uint64_t rtf_params_get_period(const struct rtf_params *p);
RTF_PUBLIC uint64_t rtf_params_get_runtime(const struct rtf_params *p);
RTF_PUBLIC uint64_t rtf_params_get_des_runtime(const struct rtf_params *p);
RTF_PUBLIC uint64_t rtf_params_get_deadline(const struct rtf_params *p);
RTF_PUBLIC uint32_t rtf_params_get_priority(const struct rtf_params *p);
RTF_PUBLIC const char *rtf_params_get_scheduler(const struct rtf_params *p);

/* Listing 1 of the paper spells the setters and getters in the singular. */
#define rtf_param_init rtf_params_init
#define rtf_param_set_period rtf_params_set_period
#define rtf_param_set_runtime rtf_params_set_runtime
#define rtf_param_set_des_runtime rtf_params_set_des_runtime
#define rtf_param_set_deadline rtf_params_set_deadline
#define rtf_param_set_priority rtf_params_set_priority
#define rtf_param_set_scheduler rtf_params_set_scheduler
#define rtf_param_ignore_admission rtf_params_ignore_admission
#define rtf_param_get_period rtf_params_get_period
#define rtf_param_get_runtime rtf_params_get_runtime
#define rtf_param_get_des_runtime rtf_params_get_des_runtime
#define rtf_param_get_deadline rtf_params_get_deadline
#define rtf_param_get_priority rtf_params_get_priority
#define rtf_param_get_scheduler rtf_params_get_scheduler

/* Specifications (Table 2). */
RTF_PUBLIC rtf_result_t rtf_spec_create(struct rtf_spec *s, const struct rtf_params *p);
/* Atomic: on any failure the spec keeps its old parameters and plugin. */
RTF_PUBLIC rtf_result_t rtf_spec_change(struct rtf_spec *s, const struct rtf_params *p);
RTF_PUBLIC rtf_result_t rtf_spec_release(struct rtf_spec *s);
/* tid: a thread id (or a pid, meaning its main thread); 0 = the calling thread. */
RTF_PUBLIC rtf_result_t rtf_spec_attach(struct rtf_spec *s, pid_t tid);
RTF_PUBLIC rtf_result_t rtf_spec_detach(struct rtf_spec *s);
/* The runtime the plugin granted in [runtime, des_runtime], or a negative errno. */
RTF_PUBLIC int64_t rtf_spec_get_accepted_runtime(const struct rtf_spec *s);

/* Periodic tasks on an absolute CLOCK_MONOTONIC timeline. */
RTF_PUBLIC int rtf_task_start(struct rtf_spec *s);
/*
 * Sleeps until the next release; returns the releases missed (>= 0) or -errno.
 * A release already past when the job ends is skipped (missed); s->jobs
 * counts ended jobs, s->overruns those that ended after their next release.
 */
RTF_PUBLIC int rtf_task_wait_period(struct rtf_spec *s);

/*
 * Periodic tasks with a budget (LIBRTF_1.1): the semantics of the RTAI budget
 * paper (section 3.2), see docs/BUDGETS.md.
 *
 * Overrun policy: what rtf_task_wait_period() does when a job ends after the
 * next release.  SKIP (Xenomai, the default): the releases already past are
 * dropped and the task sleeps until the next one.  CATCH_UP (RTAI): it
 * returns at once and the missed releases are run back to back.  Either way
 * it returns the number of releases already past.
 *
 * Budget W (per period): a task that uses W of CPU inside a period is
 * suspended until the next release and continues there; the wait_period call
 * of the exhausted period is then ignored (returns 0 at once), so the task
 * catches up.  At most 30,000 such calls are remembered.
 *   HARD  the thread runs on SCHED_DEADLINE: the kernel's CBS enforces the
 *         runtime; overruns are counted when the request asked for them with
 *         rtf_params_count_overruns().
 *   SOFT  any other policy (FP, RR, RM plugins) with a declared runtime:
 *         librtf enforces W in the task's own thread with a CLOCK_MONOTONIC
 *         timer that sends RTF_BUDGET_SIGNAL to it (the thread must not
 *         block that signal).  On by default; RTF_TASK_NO_SOFT_BUDGET opts out.
 *
 * The task is the thread that calls rtf_task_start(); rtf_task_wait_period()
 * and rtf_task_stop() belong to that thread (rtf_spec_release() stops the
 * task too: call it from that thread, or after the thread has finished).
 */
#define RTF_BUDGET_SIGNAL (SIGRTMAX - 1)

enum rtf_overrun_policy {
        RTF_OVERRUN_SKIP = 0,
        RTF_OVERRUN_CATCH_UP = 1,
};

enum rtf_budget_mode {
        RTF_BUDGET_NONE = 0,
        RTF_BUDGET_SOFT = 1,
        RTF_BUDGET_HARD = 2,
};

enum {
        RTF_TASK_NO_SOFT_BUDGET = 1u << 0,      /* do not enforce the runtime in librtf */
};

struct rtf_task_attr {
        uint32_t size;                  /* sizeof(struct rtf_task_attr) */
        uint32_t overrun_policy;        /* enum rtf_overrun_policy */
        uint32_t flags;                 /* RTF_TASK_* */
        uint32_t reserved0;
        uint64_t budget_us;             /* 0: the accepted runtime, else the declared one */
        int64_t first_release_ns;       /* CLOCK_MONOTONIC; 0: one period from now */
        uint64_t reserved[4];
};

#define RTF_TASK_ATTR_INIT { .size = sizeof(struct rtf_task_attr) }

struct rtf_task_stats {
        uint32_t size;                  /* sizeof(struct rtf_task_stats), set by the caller */
        uint32_t budget_mode;           /* enum rtf_budget_mode */
        uint64_t period_ns;
        uint64_t budget_ns;             /* 0: none */
        uint64_t periods;               /* jobs ended */
        uint64_t overruns;              /* jobs that ended after the next release */
        uint64_t missed_releases;       /* skip: releases dropped; catch-up: jobs started late */
        uint64_t budget_exhaustions;    /* soft: suspensions; hard: overruns the kernel reported */
        uint64_t ignored_waits;         /* wait_period calls ignored after an exhaustion */
        uint64_t delayed_pending;       /* such calls still to come */
        uint64_t delayed_dropped;       /* exhaustions beyond the cap of 30,000 */
        uint64_t max_response_ns;       /* longest job: end - release */
        uint64_t max_job_cpu_ns;        /* longest job: CPU time */
        uint64_t timer_expirations;     /* soft: enforcement signals handled */
        uint64_t enforcement_ns_total;  /* soft: time in the handler, sleep and final spin excluded */
        uint64_t enforcement_ns_max;
        uint64_t timer_lead_ns;         /* soft: how early the timer is armed now */
        uint64_t reserved[7];
};

/* rtf_task_start() with defaults: skip policy, budget from the spec. */
RTF_PUBLIC int rtf_task_start_attr(struct rtf_spec *s, const struct rtf_task_attr *attr);
/* Stop the periodic task and free its state (rtf_spec_release() does it too). */
RTF_PUBLIC int rtf_task_stop(struct rtf_spec *s);
/* ret->size at least this library's sizeof(*ret) (members it does not know
 * are zeroed).  -EINVAL if the task was not started. */
RTF_PUBLIC int rtf_task_stats(const struct rtf_spec *s, struct rtf_task_stats *ret);
/*
 * Ask rtfd for SCHED_FLAG_DL_OVERRUN (RTF_PARAM_OVERRUN_SIGNAL) and install
 * librtf's SIGXCPU handler first, which counts the overruns as budget
 * exhaustions of the thread's periodic task.  -EBUSY (flag not set) if the
 * process already handles SIGXCPU itself.
 */
RTF_PUBLIC int rtf_params_count_overruns(struct rtf_params *p);

/* Text for any result of this API (RTF_* or negative errno). */
RTF_PUBLIC const char *rtf_strerror(int result);
/*
 * The explanation of this thread's last request: the daemon's reason for a
 * refusal, or why rtfd could not be reached; "" if there is none.
 */
RTF_PUBLIC const char *rtf_last_reason(void);

#ifdef __cplusplus
}
#endif
