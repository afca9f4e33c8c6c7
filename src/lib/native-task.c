/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tasks of <rtf/native.h>: a thread per task, created and admitted by
 * rt_task_create() and held at a gate until rt_task_start().  The periodic
 * timeline is native_period_advance() (native-period.c).
 *
 * Lifetime: a task object has two references, its descriptor's and its
 * thread's.  A task that ends drops the thread's; rt_task_delete() or
 * rt_task_join() on the descriptor drops the other, so a descriptor stays
 * valid (and says -EIDRM-free "ended") until the program lets go of it.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "native-private.h"
#include "util.h"

#define DEFAULT_STACK (256 * 1024)
#define KNOWN_MODES (T_FPU | T_WARMUP | T_JOINABLE | T_CPUMASK)

enum task_state { TASK_CREATED, TASK_STARTED, TASK_EXITED };

struct rtf_native_task {
        RT_TASK self;                   /* what rt_task_self() returns */
        struct rtf_spec spec;
        bool has_spec;
        bool has_thread;                /* false for a shadow */
        pthread_t thread;
        pid_t tid;
        int prio;
        int mode;
        char name[32];
        void (*entry)(void *cookie);
        void *cookie;
        atomic_int refs;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        /* under lock */
        enum task_state state;
        bool abandon;                   /* deleted before it started */
        bool joining;
        bool detached;
        uint64_t pending_period_ns;
        int64_t pending_release_ns;
        /* the task's own copy of the timeline; gen says when it is stale */
        atomic_uint gen;
        unsigned seen_gen;
        uint64_t period_ns;
        int64_t release_ns;
};

static __thread struct rtf_native_task *native_current;

struct rtf_native_task *native_task_current(void) {
        return native_current;
}

int native_task_priority(const struct rtf_native_task *t) {
        return t ? t->prio : 0;
}

static void task_unref(struct rtf_native_task *t) {
        if (atomic_fetch_sub(&t->refs, 1) != 1)
                return;
        pthread_mutex_destroy(&t->lock);
        pthread_cond_destroy(&t->cond);
        free(t);
}

static struct rtf_native_task *task_new(const char *name, int prio, int mode) {
        struct rtf_native_task *t = calloc(1, sizeof(*t));

        if (!t)
                return NULL;
        t->spec = (struct rtf_spec) RTF_SPEC_INIT;
        t->prio = prio;
        t->mode = mode;
        if (name)
                snprintf(t->name, sizeof(t->name), "%s", name);
        atomic_init(&t->refs, 2);
        atomic_init(&t->gen, 0);
        pthread_mutex_init(&t->lock, NULL);
        pthread_cond_init(&t->cond, NULL);
        t->self = (RT_TASK) { .magic = NATIVE_TASK_MAGIC, .handle = t };
        return t;
}

/* Requests to rtfd must not be cancelled halfway: librtf's connection would stay locked. */
static int cancel_off(void) {
        int old = PTHREAD_CANCEL_DISABLE;

        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
        return old;
}

static void cancel_restore(int old) {
        pthread_setcancelstate(old, NULL);
}

static int task_params(const struct rtf_native_task *t, uint64_t period_ns, struct rtf_params *ret) {
        struct rtf_params p = RTF_PARAMS_INIT;
        const char *sched = secure_getenv("RTF_NATIVE_SCHEDULER");

        if (!sched)
                sched = "FP";
        if (rtf_params_set_priority(&p, (uint32_t) t->prio) < 0)
                return -EINVAL;
        if (sched[0] && rtf_params_set_scheduler(&p, sched) < 0)
                return -EINVAL;
        if (period_ns > 0 && rtf_params_set_period(&p, MAX(period_ns / NSEC_PER_USEC, 1)) < 0)
                return -EINVAL;
        *ret = p;
        return 0;
}

static int task_admit(struct rtf_native_task *t) {
        struct rtf_params p;
        int old, r;

        if (t->prio == 0)
                return 0;
        r = task_params(t, 0, &p);
        if (r < 0)
                return r;
        old = cancel_off();
        r = result_to_errno(rtf_connect(), -EPERM);
        if (r == 0)
                r = result_to_errno(rtf_spec_create(&t->spec, &p), -EPERM);
        if (r == 0) {
                r = result_to_errno(rtf_spec_attach(&t->spec, t->tid), -EPERM);
                if (r < 0)
                        rtf_spec_release(&t->spec);
        }
        cancel_restore(old);
        if (r == 0)
                t->has_spec = true;
        return r;
}

/* The end of a task's thread, whichever way it ends (return, delete, cancel). */
static void task_finish(void *arg) {
        struct rtf_native_task *t = arg;

        cancel_off();
        if (t->has_spec) {
                rtf_spec_release(&t->spec);
                t->has_spec = false;
        }
        pthread_mutex_lock(&t->lock);
        t->state = TASK_EXITED;
        if (!t->joining && !(t->mode & T_JOINABLE)) {
                pthread_detach(pthread_self());
                t->detached = true;
        }
        pthread_cond_broadcast(&t->cond);
        pthread_mutex_unlock(&t->lock);
        native_current = NULL;
        task_unref(t);
}

static void *task_main(void *arg) {
        struct rtf_native_task *t = arg;
        bool run;

        cancel_off();
        native_current = t;
        pthread_mutex_lock(&t->lock);
        t->tid = gettid();
        pthread_cond_broadcast(&t->cond);
        while (t->state == TASK_CREATED && !t->abandon)
                pthread_cond_wait(&t->cond, &t->lock);
        run = !t->abandon;
        pthread_mutex_unlock(&t->lock);

        pthread_cleanup_push(task_finish, t);
        if (run) {
                cancel_restore(PTHREAD_CANCEL_ENABLE);
                t->entry(t->cookie);
        }
        pthread_cleanup_pop(1);
        return NULL;
}

static struct rtf_native_task *task_from(RT_TASK *task, int *ret_err) {
        if (!task) {
                if (!native_current)
                        *ret_err = -EPERM;
                return native_current;
        }
        if (task->magic == NATIVE_DELETED_MAGIC) {
                *ret_err = -EIDRM;
                return NULL;
        }
        if (task->magic != NATIVE_TASK_MAGIC || !task->handle) {
                *ret_err = -EINVAL;
                return NULL;
        }
        return task->handle;
}

/* Ends thread `t` (not the caller) and waits for it. */
static void task_end_other(struct rtf_native_task *t) {
        bool join, cancel;

        pthread_mutex_lock(&t->lock);
        join = !t->detached;
        cancel = t->state == TASK_STARTED;
        t->joining = true;
        t->abandon = true;
        pthread_cond_broadcast(&t->cond);
        pthread_mutex_unlock(&t->lock);
        if (cancel)
                pthread_cancel(t->thread);
        if (join)
                pthread_join(t->thread, NULL);
}

RTF_PUBLIC int rtf_native_task_create(RT_TASK *task, const char *name, int stksize, int prio, int mode) {
        struct rtf_native_task *t;
        pthread_attr_t attr;
        size_t stack;
        int r;

        if (!task || prio < T_LOPRIO || prio > T_HIPRIO || stksize < 0 || (mode & ~KNOWN_MODES))
                return -EINVAL;
        t = task_new(name, prio, mode);
        if (!t)
                return -ENOMEM;
        stack = stksize > 0 ? MAX((size_t) stksize, (size_t) PTHREAD_STACK_MIN) : DEFAULT_STACK;
        r = -pthread_attr_init(&attr);
        if (r == 0)
                r = -pthread_attr_setstacksize(&attr, stack);
        if (r == 0)
                r = -pthread_create(&t->thread, &attr, task_main, t);
        pthread_attr_destroy(&attr);
        if (r < 0) {
                free(t);
                return r;
        }
        t->has_thread = true;
        pthread_mutex_lock(&t->lock);
        while (t->tid == 0)
                pthread_cond_wait(&t->cond, &t->lock);
        pthread_mutex_unlock(&t->lock);

        r = task_admit(t);
        if (r < 0) {
                task_end_other(t);
                task_unref(t);
                return r;
        }
        *task = (RT_TASK) { .magic = NATIVE_TASK_MAGIC, .handle = t };
        return 0;
}

RTF_PUBLIC int rtf_native_task_start(RT_TASK *task, void (*entry)(void *cookie), void *cookie) {
        struct rtf_native_task *t;
        int r = 0;

        if (!task || !entry)
                return -EINVAL;
        t = task_from(task, &r);
        if (!t)
                return r;
        if (!t->has_thread)
                return -EBUSY;
        pthread_mutex_lock(&t->lock);
        if (t->state != TASK_CREATED || t->abandon) {
                r = -EBUSY;
        } else {
                t->entry = entry;
                t->cookie = cookie;
                t->state = TASK_STARTED;
                pthread_cond_broadcast(&t->cond);
        }
        pthread_mutex_unlock(&t->lock);
        return r;
}

RTF_PUBLIC int rtf_native_task_shadow(RT_TASK *task, const char *name, int prio, int mode) {
        struct rtf_native_task *t;
        int r;

        if (prio < T_LOPRIO || prio > T_HIPRIO || (mode & ~KNOWN_MODES))
                return -EINVAL;
        if (native_current)
                return -EBUSY;
        t = task_new(name, prio, mode);
        if (!t)
                return -ENOMEM;
        t->tid = gettid();
        t->state = TASK_STARTED;
        r = task_admit(t);
        if (r < 0) {
                free(t);
                return r;
        }
        native_current = t;
        if (task)
                *task = (RT_TASK) { .magic = NATIVE_TASK_MAGIC, .handle = t };
        return 0;
}

RTF_PUBLIC int rtf_native_task_set_periodic(RT_TASK *task, RTIME idate, RTIME period) {
        struct rtf_native_task *t;
        int64_t release = 0;
        int r = 0;

        t = task_from(task, &r);
        if (!t)
                return r;
        if (period != TM_INFINITE) {
                struct rtf_params p;
                int old;

                if (period < NSEC_PER_USEC)
                        return -EINVAL;
                r = native_period_first(idate, period, native_now_ns(), &release);
                if (r < 0)
                        return r;
                if (t->has_spec) {
                        r = task_params(t, period, &p);
                        if (r < 0)
                                return r;
                        old = cancel_off();
                        r = result_to_errno(rtf_spec_change(&t->spec, &p), -EPERM);
                        cancel_restore(old);
                        if (r < 0)
                                return r;
                }
        }
        pthread_mutex_lock(&t->lock);
        t->pending_period_ns = period;
        t->pending_release_ns = release;
        atomic_fetch_add(&t->gen, 1);
        pthread_mutex_unlock(&t->lock);
        return 0;
}

static int sleep_until_ns(int64_t until) {
        struct timespec ts = {
                .tv_sec = (time_t) (until / (int64_t) NSEC_PER_SEC),
                .tv_nsec = (long) (until % (int64_t) NSEC_PER_SEC),
        };
        int r;

        while ((r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
                ;
        return -r;
}

RTF_PUBLIC int rtf_native_task_wait_period(unsigned long *overruns_r) {
        struct rtf_native_task *t = native_current;
        uint64_t overruns = 0;
        int64_t now, next;
        unsigned gen;
        int r;

        if (!t)
                return -EPERM;
        gen = atomic_load(&t->gen);
        if (gen != t->seen_gen) {
                pthread_mutex_lock(&t->lock);
                t->period_ns = t->pending_period_ns;
                t->release_ns = t->pending_release_ns;
                t->seen_gen = atomic_load(&t->gen);
                pthread_mutex_unlock(&t->lock);
        }
        if (t->period_ns == 0)
                return -EWOULDBLOCK;
        now = native_now_ns();
        if (now < t->release_ns) {
                r = sleep_until_ns(t->release_ns);
                if (r < 0)
                        return r;
                now = native_now_ns();
        }
        r = native_period_advance(t->release_ns, t->period_ns, now, &next, &overruns);
        if (r < 0)
                return r;
        t->release_ns = next;
        if (overruns_r)
                *overruns_r = (unsigned long) overruns;
        return overruns > 0 ? -ETIMEDOUT : 0;
}

RTF_PUBLIC int rtf_native_task_sleep(RTIME delay) {
        if (!native_current)
                return -EPERM;
        if (delay == 0)
                return 0;
        if (delay > (RTIME) (INT64_MAX - native_now_ns()))
                return -EINVAL;
        return sleep_until_ns(native_now_ns() + (int64_t) delay);
}

RTF_PUBLIC int rtf_native_task_sleep_until(RTIME date) {
        if (!native_current)
                return -EPERM;
        if (date > (RTIME) INT64_MAX)
                return -EINVAL;
        if ((int64_t) date <= native_now_ns())
                return -ETIMEDOUT;
        return sleep_until_ns((int64_t) date);
}

RTF_PUBLIC int rtf_native_task_delete(RT_TASK *task) {
        struct rtf_native_task *t;
        int r = 0;

        t = task_from(task, &r);
        if (!t)
                return r;
        if (t == native_current) {
                if (!t->has_thread) {
                        /* A shadow: the thread stays, as a plain thread. */
                        if (t->has_spec)
                                rtf_spec_release(&t->spec);
                        native_current = NULL;
                        t->self.magic = NATIVE_DELETED_MAGIC;
                        if (task)
                                task->magic = NATIVE_DELETED_MAGIC;
                        task_unref(t);
                        task_unref(t);
                        return 0;
                }
                /* The descriptor's reference stays until someone deletes or joins it. */
                pthread_exit(NULL);
        }
        if (t->has_thread)
                task_end_other(t);
        else if (t->has_spec)
                rtf_spec_release(&t->spec);
        if (task)
                task->magic = NATIVE_DELETED_MAGIC;
        if (!t->has_thread)
                task_unref(t);          /* a shadow's thread never drops its own */
        task_unref(t);
        return 0;
}

RTF_PUBLIC int rtf_native_task_join(RT_TASK *task) {
        struct rtf_native_task *t;
        int r = 0;

        t = task_from(task, &r);
        if (!t)
                return r;
        if (!task || t == native_current || !t->has_thread || !(t->mode & T_JOINABLE))
                return -EINVAL;
        pthread_mutex_lock(&t->lock);
        if (t->joining)
                r = -EBUSY;
        t->joining = true;
        pthread_mutex_unlock(&t->lock);
        if (r < 0)
                return r;
        pthread_join(t->thread, NULL);
        task->magic = NATIVE_DELETED_MAGIC;
        task_unref(t);
        return 0;
}

RTF_PUBLIC RT_TASK *rtf_native_task_self(void) {
        return native_current ? &native_current->self : NULL;
}

RTF_PUBLIC struct rtf_spec *rtf_native_task_spec(RT_TASK *task) {
        struct rtf_native_task *t;
        int r = 0;

        t = task_from(task, &r);
        return t && t->has_spec ? &t->spec : NULL;
}

RTF_PUBLIC RTIME rtf_native_timer_read(void) {
        return (RTIME) native_now_ns();
}
