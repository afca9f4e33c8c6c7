/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RTAI/LXRT task API of <rtf/rtai.h> over librtf: an RTAI task is a
 * thread with an rtf specification, run as a catch-up periodic task.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtf/rtai.h"
#include "util.h"

struct rt_task_struct {
        struct rtf_spec spec;
        unsigned long name;
        pid_t tid;
        int priority;
        int policy;
        bool start_pending;             /* periodic, not started by its own thread yet */
        int64_t first_release_ns;
};

static __thread RT_TASK *rtai_current;

static int64_t monotonic_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * (int64_t) NSEC_PER_SEC + ts.tv_nsec;
}

RTF_PUBLIC RT_TASK *rt_task_init_schmod(unsigned long name, int priority, int stack_size,
                                        int max_msg_size, int policy, int cpus_allowed) {
        RT_TASK *t;

        if (rtai_current || priority < 0 || (policy != SCHED_FIFO && policy != SCHED_RR))
                return NULL;
        if (rtf_connect() != RTF_OK)
                return NULL;
        t = calloc(1, sizeof(*t));
        if (!t)
                return NULL;
        t->spec = (struct rtf_spec) RTF_SPEC_INIT;
        t->name = name;
        t->tid = gettid();
        t->priority = priority;
        t->policy = policy;
        rtai_current = t;
        return t;
}

RTF_PUBLIC RT_TASK *rt_task_init(unsigned long name, int priority, int stack_size, int max_msg_size) {
        return rt_task_init_schmod(name, priority, stack_size, max_msg_size, SCHED_FIFO, 0);
}

static int result_to_errno(int r) {
        switch (r) {
        case RTF_OK:
                return 0;
        case RTF_SCHEDULE_FAIL:
                return -EBUSY;
        case RTF_ACL_FAIL:
                return -EACCES;
        case RTF_CONNECTION_ERR:
                return -ENOTCONN;
        }
        return r < 0 ? r : -EPROTO;
}

static int task_start(RT_TASK *t) {
        struct rtf_task_attr attr = RTF_TASK_ATTR_INIT;
        int r;

        attr.overrun_policy = RTF_OVERRUN_CATCH_UP;
        attr.first_release_ns = t->first_release_ns;
        r = rtf_task_start_attr(&t->spec, &attr);
        if (r == 0)
                t->start_pending = false;
        return r;
}

RTF_PUBLIC int rt_task_make_periodic_budget(RT_TASK *t, RTIME start_time, RTIME period, RTIME budget) {
        struct rtf_params p = RTF_PARAMS_INIT;
        const char *sched;
        int r;

        if (!t || period < (RTIME) NSEC_PER_USEC || budget < 0 || budget > period || start_time < 0)
                return -EINVAL;
        if (rtf_params_set_period(&p, (uint64_t) period / NSEC_PER_USEC) < 0 ||
            rtf_params_set_priority(&p, (uint32_t) (t->priority >= 98 ? 1 : 99 - t->priority)) < 0)
                return -EINVAL;
        if (budget > 0) {
                if (budget < (RTIME) NSEC_PER_USEC ||
                    rtf_params_set_runtime(&p, (uint64_t) budget / NSEC_PER_USEC) < 0)
                        return -EINVAL;
                /* A hard (EDF) reservation reports its overruns; the process may handle SIGXCPU itself. */
                (void) rtf_params_count_overruns(&p);
        }
        sched = secure_getenv("RTF_RTAI_SCHEDULER");
        if (!sched)
                sched = t->policy == SCHED_RR ? "RR" : "FP";
        if (sched[0] && rtf_params_set_scheduler(&p, sched) < 0)
                return -EINVAL;

        if (t->spec.id == 0) {
                r = result_to_errno(rtf_spec_create(&t->spec, &p));
                if (r < 0)
                        return r;
                r = result_to_errno(rtf_spec_attach(&t->spec, t->tid));
                if (r < 0) {
                        rtf_spec_release(&t->spec);
                        return r;
                }
        } else {
                r = result_to_errno(rtf_spec_change(&t->spec, &p));
                if (r < 0)
                        return r;
        }

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

RTF_PUBLIC struct rtf_spec *rt_task_rtf_spec(RT_TASK *t) {
        return t ? &t->spec : NULL;
}
