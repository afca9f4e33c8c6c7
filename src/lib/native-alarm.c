/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Alarms of <rtf/native.h>: a CLOCK_MONOTONIC timerfd each, plus an eventfd
 * that wakes waiters when the alarm is deleted.  A shot that came before
 * rt_alarm_wait() is not lost: the wait returns at once (Xenomai 2 would
 * wait for the next shot, which a task late by one edge never gets).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "native-private.h"
#include "util.h"

struct rtf_native_alarm {
        int tfd;
        int efd;
        atomic_bool deleted;
        atomic_int users;               /* callers inside wait/start/stop */
        atomic_llong expiries;
        char name[32];
        void (*handler)(void *arg);
        void *arg;
        RT_TASK server;                 /* the handler's task (Xenomai 3 form) */
};

static struct rtf_native_alarm *alarm_enter(RT_ALARM *alarm, int *ret_err) {
        struct rtf_native_alarm *a;

        if (!alarm || (alarm->magic != NATIVE_ALARM_MAGIC && alarm->magic != NATIVE_DELETED_MAGIC)) {
                *ret_err = -EINVAL;
                return NULL;
        }
        a = alarm->handle;
        if (alarm->magic == NATIVE_DELETED_MAGIC || !a) {
                *ret_err = -EIDRM;
                return NULL;
        }
        atomic_fetch_add(&a->users, 1);
        if (atomic_load(&a->deleted)) {
                atomic_fetch_sub(&a->users, 1);
                *ret_err = -EIDRM;
                return NULL;
        }
        return a;
}

static void alarm_leave(struct rtf_native_alarm *a) {
        atomic_fetch_sub(&a->users, 1);
}

/* A task cancelled (rt_task_delete()) while it waits must still leave. */
static void alarm_leave_cb(void *a) {
        alarm_leave(a);
}

static int alarm_wait(struct rtf_native_alarm *a) {
        for (;;) {
                struct pollfd fds[2] = {
                        { .fd = a->tfd, .events = POLLIN },
                        { .fd = a->efd, .events = POLLIN },
                };
                uint64_t n;

                if (poll(fds, 2, -1) < 0)
                        return -errno;
                if (atomic_load(&a->deleted) || fds[1].revents)
                        return -EIDRM;
                if (read(a->tfd, &n, sizeof(n)) == (ssize_t) sizeof(n)) {
                        atomic_fetch_add(&a->expiries, (long long) n);
                        return 0;
                }
                if (errno != EAGAIN && errno != EINTR)
                        return -errno;
                /* another waiter took the shot, or a restart cleared it */
        }
}

static int alarm_new(RT_ALARM *alarm, const char *name, struct rtf_native_alarm **ret) {
        struct rtf_native_alarm *a;

        if (!alarm)
                return -EINVAL;
        a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        a->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (a->tfd < 0 || a->efd < 0) {
                int r = -errno;

                safe_close(a->tfd);
                safe_close(a->efd);
                free(a);
                return r;
        }
        if (name)
                snprintf(a->name, sizeof(a->name), "%s", name);
        *ret = a;
        return 0;
}

static void alarm_free(struct rtf_native_alarm *a) {
        safe_close(a->tfd);
        safe_close(a->efd);
        free(a);
}

RTF_PUBLIC int rtf_native_alarm_create(RT_ALARM *alarm, const char *name) {
        struct rtf_native_alarm *a;
        int r = alarm_new(alarm, name, &a);

        if (r < 0)
                return r;
        *alarm = (RT_ALARM) { .magic = NATIVE_ALARM_MAGIC, .handle = a };
        return 0;
}

static void alarm_server(void *arg) {
        struct rtf_native_alarm *a = arg;

        while (alarm_wait(a) == 0)
                a->handler(a->arg);
}

RTF_PUBLIC int rtf_native_alarm_create_handler(RT_ALARM *alarm, const char *name,
                                               void (*handler)(void *arg), void *arg) {
        struct rtf_native_alarm *a;
        int r;

        if (!handler)
                return -EINVAL;
        r = alarm_new(alarm, name, &a);
        if (r < 0)
                return r;
        a->handler = handler;
        a->arg = arg;
        /* The handler runs at the creating task's priority, admitted like any task. */
        r = rtf_native_task_create(&a->server, name, 0, native_task_priority(native_task_current()),
                                   T_JOINABLE);
        if (r == 0) {
                r = rtf_native_task_start(&a->server, alarm_server, a);
                if (r < 0)
                        rtf_native_task_delete(&a->server);
        }
        if (r < 0) {
                alarm_free(a);
                return r;
        }
        *alarm = (RT_ALARM) { .magic = NATIVE_ALARM_MAGIC, .handle = a };
        return 0;
}

static struct timespec ts_of(RTIME ns) {
        return (struct timespec) {
                .tv_sec = (time_t) (ns / NSEC_PER_SEC),
                .tv_nsec = (long) (ns % NSEC_PER_SEC),
        };
}

RTF_PUBLIC int rtf_native_alarm_start(RT_ALARM *alarm, RTIME value, RTIME interval) {
        struct rtf_native_alarm *a;
        struct itimerspec its;
        int r = 0;

        if (value > (RTIME) INT64_MAX || interval > (RTIME) INT64_MAX)
                return -EINVAL;
        a = alarm_enter(alarm, &r);
        if (!a)
                return r;
        /* A zero it_value would disarm the timerfd: "at once" is 1 ns. */
        its.it_value = ts_of(value > 0 ? value : 1);
        its.it_interval = ts_of(interval);
        if (timerfd_settime(a->tfd, 0, &its, NULL) < 0)
                r = -errno;
        alarm_leave(a);
        return r;
}

RTF_PUBLIC int rtf_native_alarm_wait(RT_ALARM *alarm) {
        struct rtf_native_alarm *a;
        int r = 0;

        a = alarm_enter(alarm, &r);
        if (!a)
                return r;
        pthread_cleanup_push(alarm_leave_cb, a);
        if (a->handler)
                r = -EINVAL;            /* its shots belong to the handler */
        else
                r = alarm_wait(a);
        pthread_cleanup_pop(1);
        return r;
}

RTF_PUBLIC int rtf_native_alarm_stop(RT_ALARM *alarm) {
        struct rtf_native_alarm *a;
        struct itimerspec its = { 0 };
        int r = 0;

        a = alarm_enter(alarm, &r);
        if (!a)
                return r;
        if (timerfd_settime(a->tfd, 0, &its, NULL) < 0)
                r = -errno;
        alarm_leave(a);
        return r;
}

RTF_PUBLIC int64_t rtf_native_alarm_expiries(RT_ALARM *alarm) {
        struct rtf_native_alarm *a;
        int64_t n;
        int r = 0;

        a = alarm_enter(alarm, &r);
        if (!a)
                return r;
        n = atomic_load(&a->expiries);
        alarm_leave(a);
        return n;
}

RTF_PUBLIC int rtf_native_alarm_delete(RT_ALARM *alarm) {
        struct rtf_native_alarm *a;
        uint64_t one = 1;
        int r = 0;

        a = alarm_enter(alarm, &r);
        if (!a)
                return r;
        alarm->magic = NATIVE_DELETED_MAGIC;
        atomic_store(&a->deleted, true);
        alarm_leave(a);
        (void) !write(a->efd, &one, sizeof(one));
        if (a->handler)
                rtf_native_task_join(&a->server);
        /* Waiters see `deleted` and leave; none can enter any more. */
        while (atomic_load(&a->users) > 0)
                sched_yield();
        alarm_free(a);
        return 0;
}
