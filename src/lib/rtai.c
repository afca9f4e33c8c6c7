/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RTAI/LXRT task API of <rtf/rtai.h> over librtf: an RTAI task is a
 * thread with an rtf specification, run as a catch-up periodic task.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "rtf/rtai.h"
#include "util.h"

#define RTAI_PRIORITY_MAX_DEFAULT 49u   /* below the kernel's threaded interrupts (SCHED_FIFO 50) */
#define RTAI_RUNTIME_PERCENT_DEFAULT 10u

struct rt_task_struct {
        struct rtf_spec spec;
        unsigned long name;
        pid_t tid;
        int priority;                   /* RTAI's: 0 is the highest */
        uint32_t rtf_priority;          /* what rtfd is asked for */
        int policy;
        int64_t runtime_ns;             /* declared per period; -1: RTF_RTAI_RUNTIME_PERCENT of it */
        unsigned runtime_percent;
        bool start_pending;             /* periodic, not started by its own thread yet */
        bool no_budget;                 /* the runtime is declared for admission only */
        int64_t first_release_ns;
};

static __thread RT_TASK *rtai_current;

static int64_t monotonic_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * (int64_t) NSEC_PER_SEC + ts.tv_nsec;
}

/* An unsigned number in [min, max] from the environment, else `fallback`. */
static unsigned env_unsigned(const char *name, unsigned min, unsigned max, unsigned fallback) {
        const char *e = secure_getenv(name);
        unsigned long v;
        char *end;

        if (!e || !*e)
                return fallback;
        errno = 0;
        v = strtoul(e, &end, 10);
        if (errno || *end || v < min || v > max)
                return fallback;
        return (unsigned) v;
}

/* RTAI priority p (0 highest) asks for rtf priority top - p, at least 1. */
static uint32_t rtf_priority_of(int rtai_priority) {
        unsigned top = env_unsigned("RTF_RTAI_PRIORITY_MAX", 1, 99, RTAI_PRIORITY_MAX_DEFAULT);

        return rtai_priority >= (int) top ? 1 : top - (unsigned) rtai_priority;
}

RTF_PUBLIC RT_TASK *rt_task_init_schmod(unsigned long name, int priority, int stack_size,
                                        int max_msg_size, int policy, int cpus_allowed) {
        RT_TASK *t;
        int r;

        reason_clear();
        if (rtai_current) {
                reason_set("the calling thread is already an RTAI task");
                return NULL;
        }
        if (priority < 0 || (policy != SCHED_FIFO && policy != SCHED_RR)) {
                reason_set("RTAI priority must be >= 0 and the policy SCHED_FIFO or SCHED_RR");
                return NULL;
        }
        r = rtf_connect();
        if (r != RTF_OK)
                return NULL;            /* rtf_last_reason() says why */
        t = calloc(1, sizeof(*t));
        if (!t)
                return NULL;
        t->spec = (struct rtf_spec) RTF_SPEC_INIT;
        t->name = name;
        t->tid = gettid();
        t->priority = priority;
        t->rtf_priority = rtf_priority_of(priority);
        t->policy = policy;
        t->runtime_ns = -1;
        t->runtime_percent = env_unsigned("RTF_RTAI_RUNTIME_PERCENT", 0, 100, RTAI_RUNTIME_PERCENT_DEFAULT);
        rtai_current = t;
        return t;
}

RTF_PUBLIC int rt_task_set_rtf_priority(RT_TASK *t, int rtf_priority) {
        if (!t || rtf_priority < 1 || rtf_priority > 99)
                return -EINVAL;
        t->rtf_priority = (uint32_t) rtf_priority;
        return 0;
}

RTF_PUBLIC int rt_task_set_rtf_runtime(RT_TASK *t, RTIME runtime) {
        if (!t || runtime < 0)
                return -EINVAL;
        t->runtime_ns = runtime;
        return 0;
}

RTF_PUBLIC RT_TASK *rt_task_init(unsigned long name, int priority, int stack_size, int max_msg_size) {
        return rt_task_init_schmod(name, priority, stack_size, max_msg_size, SCHED_FIFO, 0);
}

static int task_start(RT_TASK *t) {
        struct rtf_task_attr attr = RTF_TASK_ATTR_INIT;
        int r;

        attr.overrun_policy = RTF_OVERRUN_CATCH_UP;
        attr.first_release_ns = t->first_release_ns;
        if (t->no_budget)
                attr.flags |= RTF_TASK_NO_SOFT_BUDGET;
        r = rtf_task_start_attr(&t->spec, &attr);
        if (r == 0)
                t->start_pending = false;
        return r;
}

/*
 * Say why rtfd refused, and what the port can change: the priority and the
 * runtime rtf derived from the RTAI call are what a policy judges.
 */
static void explain_refusal(const RT_TASK *t, const struct rtf_params *p) {
        char why[256];

        snprintf(why, sizeof(why), "%s", rtf_last_reason());
        reason_set("%s [RTAI task: asked rtf priority %u for RTAI priority %d (RTF_RTAI_PRIORITY_MAX or "
                   "rt_task_set_rtf_priority() change it), runtime %llu us per period of %llu us "
                   "(rt_task_set_rtf_runtime() or RTF_RTAI_RUNTIME_PERCENT change it)]", why,
                   p->flags & RTF_PARAM_HAS_PRIORITY ? p->priority : 0, t->priority,
                   (unsigned long long) rtf_params_get_runtime(p), (unsigned long long) rtf_params_get_period(p));
}

/* The parameters of RTAI task t: priority, scheduler and, with period_ns > 0, period and runtime. */
static int task_params(RT_TASK *t, RTIME period_ns, RTIME budget_ns, struct rtf_params *p) {
        const char *sched;
        int64_t runtime_ns = budget_ns;

        if (rtf_params_set_priority(p, t->rtf_priority) < 0)
                return -EINVAL;
        if (period_ns > 0) {
                if (rtf_params_set_period(p, (uint64_t) period_ns / NSEC_PER_USEC) < 0)
                        return -EINVAL;
                t->no_budget = budget_ns == 0;
                /* Without a budget the runtime is declared for admission (max_utilization) only. */
                if (runtime_ns == 0)
                        runtime_ns = t->runtime_ns >= 0 ? t->runtime_ns : period_ns * t->runtime_percent / 100;
                if (runtime_ns > period_ns)
                        runtime_ns = period_ns;
                if (runtime_ns > 0) {
                        if (runtime_ns < (int64_t) NSEC_PER_USEC)
                                runtime_ns = NSEC_PER_USEC;
                        if (rtf_params_set_runtime(p, (uint64_t) runtime_ns / NSEC_PER_USEC) < 0)
                                return -EINVAL;
                }
                /* A hard (EDF) reservation reports its overruns; the process may handle SIGXCPU itself. */
                if (budget_ns > 0)
                        (void) rtf_params_count_overruns(p);
        }
        sched = secure_getenv("RTF_RTAI_SCHEDULER");
        if (!sched)
                sched = t->policy == SCHED_RR ? "RR" : "FP";
        if (sched[0] && rtf_params_set_scheduler(p, sched) < 0)
                return -EINVAL;
        return 0;
}

/* Create or change t's specification and attach its thread. */
static int task_reserve(RT_TASK *t, const struct rtf_params *p) {
        int r;

        if (t->spec.id == 0) {
                r = result_to_errno(rtf_spec_create(&t->spec, p), -EACCES);
                if (r < 0) {
                        explain_refusal(t, p);
                        return r;
                }
                r = result_to_errno(rtf_spec_attach(&t->spec, t->tid), -EACCES);
                if (r < 0) {
                        char why[256];

                        snprintf(why, sizeof(why), "%s", rtf_last_reason());
                        rtf_spec_release(&t->spec);
                        reason_set("%s", why);
                        return r;
                }
                return 0;
        }
        r = result_to_errno(rtf_spec_change(&t->spec, p), -EACCES);
        if (r < 0)
                explain_refusal(t, p);
        return r;
}

RTF_PUBLIC int rt_task_make_periodic_budget(RT_TASK *t, RTIME start_time, RTIME period, RTIME budget) {
        struct rtf_params p = RTF_PARAMS_INIT;
        int r;

        reason_clear();
        if (!t || period < (RTIME) NSEC_PER_USEC || budget < 0 || budget > period || start_time < 0 ||
            (budget > 0 && budget < (RTIME) NSEC_PER_USEC)) {
                reason_set("RTAI: a period of at least 1 us, a budget of 0 or 1 us..period, a start time >= 0");
                return -EINVAL;
        }
        r = task_params(t, period, budget, &p);
        if (r < 0)
                return r;
        r = task_reserve(t, &p);
        if (r < 0)
                return r;

        t->first_release_ns = start_time > 0 ? start_time : monotonic_ns();
        t->start_pending = true;
        /* The task's own thread starts at once; another waits for the task's first wait. */
        if (gettid() == t->tid)
                return task_start(t);
        return 0;
}

RTF_PUBLIC int rt_task_make_periodic(RT_TASK *t, RTIME start_time, RTIME period) {
        return rt_task_make_periodic_budget(t, start_time, period, 0);
}

RTF_PUBLIC int rt_task_make_periodic_relative_ns(RT_TASK *t, RTIME start_delay, RTIME period) {
        if (start_delay < 0)
                return -EINVAL;
        return rt_task_make_periodic_budget(t, monotonic_ns() + start_delay, period, 0);
}

RTF_PUBLIC int rt_task_wait_period(void) {
        RT_TASK *t = rtai_current;
        int r;

        if (!t || (!t->start_pending && !t->spec.task))
                return RTE_OBJINV;
        if (t->start_pending) {
                r = task_start(t);
                if (r < 0)
                        return r;
        }
        r = rtf_task_wait_period(&t->spec);
        if (r < 0)
                return r;
        return r > 0 ? RTE_TMROVRN : 0;
}

RTF_PUBLIC int rt_task_delete(RT_TASK *t) {
        if (!t)
                return -EINVAL;
        if (t->spec.id != 0)
                rtf_spec_release(&t->spec);     /* stops the periodic task too */
        else
                rtf_task_stop(&t->spec);
        if (rtai_current == t)
                rtai_current = NULL;
        free(t);
        return 0;
}

RTF_PUBLIC int rt_sleep(RTIME delay) {
        struct timespec ts;
        int64_t until;

        if (delay <= 0)
                return 0;
        until = monotonic_ns() + delay;
        ts = (struct timespec) {
                .tv_sec = (time_t) (until / (int64_t) NSEC_PER_SEC),
                .tv_nsec = (long) (until % (int64_t) NSEC_PER_SEC),
        };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
        return 0;
}

RTF_PUBLIC RTIME rt_get_time_ns(void) {
        return monotonic_ns();
}

RTF_PUBLIC RTIME rt_get_time(void) {
        return monotonic_ns();
}

RTF_PUBLIC RTIME nano2count(RTIME nanosecs) {
        return nanosecs;
}

RTF_PUBLIC RTIME count2nano(RTIME counts) {
        return counts;
}

/*
 * The LXRT boilerplate.  rtf has no RTAI domain and no tick: a task is real
 * time as soon as rtfd admitted it, its timers are CLOCK_MONOTONIC (one-shot
 * in both modes, one count = 1 ns), and non-root tasks are what the policy
 * allows.  So these only keep ported code running, except
 * rt_make_hard_real_time(), which gets the task its reservation now.
 */
RTF_PUBLIC void rt_allow_nonroot_hrt(void) {
}

RTF_PUBLIC void rt_set_oneshot_mode(void) {
}

RTF_PUBLIC void rt_set_periodic_mode(void) {
}

RTF_PUBLIC RTIME start_rt_timer(int period) {
        return period;
}

RTF_PUBLIC void stop_rt_timer(void) {
}

RTF_PUBLIC void rt_make_hard_real_time(void) {
        RT_TASK *t = rtai_current;
        struct rtf_params p = RTF_PARAMS_INIT;

        reason_clear();
        if (!t) {
                reason_set("rt_make_hard_real_time: the calling thread is not an RTAI task (rt_task_init)");
                return;
        }
        /* A periodic task already has its reservation; otherwise ask for the priority alone. */
        if (t->spec.id == 0 && task_params(t, 0, 0, &p) == 0)
                (void) task_reserve(t, &p);
}

RTF_PUBLIC void rt_make_soft_real_time(void) {
        /* LXRT's soft real time is Linux's SCHED_FIFO/RR: what the reservation gives already. */
}

RTF_PUBLIC int rt_is_hard_real_time(RT_TASK *t) {
        if (!t)
                t = rtai_current;
        return t && t->spec.id != 0 && t->spec.tid != 0;
}

RTF_PUBLIC struct rtf_spec *rt_task_rtf_spec(RT_TASK *t) {
        return t ? &t->spec : NULL;
}
