/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "enforce-budget.h"
#include "enforce.h"
#include "log.h"
#include "sched-attr.h"
#include "util.h"

/*
 * The enforcer thread's own reservation (enforce.h): 5 % of a CPU.  The
 * deadline is the period: a constrained-deadline task that wakes after its
 * deadline is throttled by the kernel until its next period (measured: one
 * look per 10 ms with 300 us / 1 ms / 10 ms), which would make the looks as
 * coarse as the period.
 */
#define ENFORCER_RUNTIME_NS 100000ULL
#define ENFORCER_DEADLINE_NS 2000000ULL
#define ENFORCER_PERIOD_NS 2000000ULL
/*
 * The enforcer's looks are bounded whatever clients ask: one task is looked
 * at as often as its budget needs (ENFORCE_MIN_STEP_NS at most), N tasks each
 * at most once per (N - 1) x this, about 20,000 looks a second in all.
 * Without it, tasks with tiny runtimes (a look every 20 us each while they
 * have budget left) kept the enforcer, whose own reservation is small, so
 * late that a spinning task went unthrottled (test_hostile.py).  A late look
 * costs precision, not the bound: what a task ran beyond its runtimes is a
 * debt (enforce-budget.c).
 */
#define ENFORCER_SPACING_NS 50000LL

struct enforced {
        uint64_t key;
        struct thread thread;           /* its own pidfd (a dup); no process pidfd */
        struct rtf_sched_setting applied;
        int clock_fd;                   /* perf task-clock of the thread */
        struct enforce_budget budget;
        int64_t next_ns;
        struct enforced *next;
};

struct enforcer {
        pthread_mutex_t lock;
        pthread_t worker;
        bool started;
        bool stop;
        int timer_fd;
        int wake_fd;
        struct enforced *tasks;
        uint32_t n_tasks;
};

static int64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int open_task_clock(pid_t tid) {
        struct perf_event_attr attr = {
                .type = PERF_TYPE_SOFTWARE,
                .size = sizeof(attr),
                .config = PERF_COUNT_SW_TASK_CLOCK,
        };
        long fd = syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);

        return fd < 0 ? -errno : (int)fd;
}

static int read_task_clock(int fd, uint64_t *ret) {
        uint64_t v;

        if (read(fd, &v, sizeof(v)) != sizeof(v))
                return -errno ?: -EIO;
        *ret = v;
        return 0;
}

static void enforced_free(struct enforced *t) {
        safe_close(t->clock_fd);
        thread_close(&t->thread);
        free(t);
}

static const struct rtf_sched_setting throttled_setting = { .policy = RTF_POLICY_OTHER, .cpu = -1 };

/* Throttle or give back; the thread's pidfd is checked around the call. */
static void act(struct enforced *t, enum enforce_action a) {
        int r;

        if (a == ENFORCE_NONE)
                return;
        r = thread_set_policy(&t->thread, a == ENFORCE_THROTTLE ? &throttled_setting : &t->applied);
        if (r < 0 && r != -ESRCH)
                log_warning_errno(r, "Failed to %s thread %d: %m", a == ENFORCE_THROTTLE ? "throttle" : "restore",
                                  (int)t->thread.tid);
}

static void look(struct enforcer *e, struct enforced *t, int64_t now) {
        int64_t spacing = e->n_tasks > 1 ? (int64_t)(e->n_tasks - 1) * ENFORCER_SPACING_NS : 0;
        uint64_t cpu = 0;

        if (read_task_clock(t->clock_fd, &cpu) < 0) {
                t->next_ns = INT64_MAX;  /* gone: the broker removes it */
                return;
        }
        act(t, enforce_budget_step(&t->budget, now, cpu, &t->next_ns));
        if (t->next_ns < now + spacing)
                t->next_ns = now + spacing;
}

static void arm(struct enforcer *e) {
        int64_t next = INT64_MAX;
        struct itimerspec its = { 0 };

        for (struct enforced *t = e->tasks; t; t = t->next)
                if (t->next_ns < next)
                        next = t->next_ns;
        if (next != INT64_MAX) {
                its.it_value.tv_sec = next / 1000000000LL;
                its.it_value.tv_nsec = next % 1000000000LL;
                if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
                        its.it_value.tv_nsec = 1;
        }
        timerfd_settime(e->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void become_real_time(void) {
        struct rtf_sched_attr dl = {
                .size = sizeof(dl), .sched_policy = SCHED_DEADLINE, .sched_flags = SCHED_FLAG_RESET_ON_FORK,
                .sched_runtime = ENFORCER_RUNTIME_NS, .sched_deadline = ENFORCER_DEADLINE_NS,
                .sched_period = ENFORCER_PERIOD_NS,
        };
        struct rtf_sched_attr fifo = {
                .size = sizeof(fifo), .sched_policy = SCHED_FIFO, .sched_flags = SCHED_FLAG_RESET_ON_FORK,
                .sched_priority = 99,
        };
        int r;

        (void)prctl(PR_SET_TIMERSLACK, 1UL);
        r = rtf_sched_setattr(0, &dl, 0);
        if (r >= 0) {
                log_info("Runtime enforcer runs SCHED_DEADLINE %llu/%llu us", ENFORCER_RUNTIME_NS / 1000,
                         ENFORCER_PERIOD_NS / 1000);
                return;
        }
        /* At FIFO 99 a task of the same priority on the same CPU delays it
         * until that task blocks: weaker, and said so. */
        if (rtf_sched_setattr(0, &fifo, 0) >= 0)
                log_warning_errno(r, "Runtime enforcer cannot run SCHED_DEADLINE (%m): SCHED_FIFO 99 instead, "
                                  "a priority-99 task on its CPU may delay it");
        else
                log_warning_errno(r, "Runtime enforcer runs SCHED_OTHER (%m): enforcement is best effort");
}

static void *worker(void *data) {
        struct enforcer *e = data;

        become_real_time();
        for (;;) {
                struct pollfd p[2] = { { .fd = e->timer_fd, .events = POLLIN }, { .fd = e->wake_fd, .events = POLLIN } };
                uint64_t buf;
                int64_t now;

                if (poll(p, 2, -1) < 0 && errno != EINTR)
                        break;
                (void)!read(e->timer_fd, &buf, sizeof(buf));
                (void)!read(e->wake_fd, &buf, sizeof(buf));
                pthread_mutex_lock(&e->lock);
                if (e->stop) {
                        pthread_mutex_unlock(&e->lock);
                        break;
                }
                now = now_ns();
                for (struct enforced *t = e->tasks; t; t = t->next)
                        if (t->next_ns <= now)
                                look(e, t, now);
                arm(e);
                pthread_mutex_unlock(&e->lock);
        }
        return NULL;
}

static int enforcer_new(struct enforcer **ret) {
        struct enforcer *e = calloc(1, sizeof(*e));
        int r;

        if (!e)
                return -ENOMEM;
        e->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        e->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (e->timer_fd < 0 || e->wake_fd < 0) {
                r = -errno;
                goto fail;
        }
        pthread_mutex_init(&e->lock, NULL);
        r = -pthread_create(&e->worker, NULL, worker, e);
        if (r < 0) {
                pthread_mutex_destroy(&e->lock);
                goto fail;
        }
        e->started = true;
        *ret = e;
        return 0;
fail:
        safe_close(e->timer_fd);
        safe_close(e->wake_fd);
        free(e);
        return r;
}

struct enforcer *enforce_free(struct enforcer *e) {
        uint64_t one = 1;

        if (!e)
                return NULL;
        pthread_mutex_lock(&e->lock);
        e->stop = true;
        pthread_mutex_unlock(&e->lock);
        (void)!write(e->wake_fd, &one, sizeof(one));
        pthread_join(e->worker, NULL);
        while (e->tasks) {
                struct enforced *t = e->tasks;

                e->tasks = t->next;
                enforced_free(t);
        }
        pthread_mutex_destroy(&e->lock);
        safe_close(e->timer_fd);
        safe_close(e->wake_fd);
        free(e);
        return NULL;
}

static struct enforced **find(struct enforcer *e, uint64_t key) {
        struct enforced **p = &e->tasks;

        while (*p && (*p)->key != key)
                p = &(*p)->next;
        return p;
}

static void wake(struct enforcer *e) {
        uint64_t one = 1;

        (void)!write(e->wake_fd, &one, sizeof(one));
}

void enforce_remove(struct enforcer *e, uint64_t key) {
        struct enforced **p, *t;

        if (!e)
                return;
        pthread_mutex_lock(&e->lock);
        p = find(e, key);
        t = *p;
        if (t) {
                *p = t->next;
                e->n_tasks--;
        }
        pthread_mutex_unlock(&e->lock);
        if (!t)
                return;
        /* The precision of the enforcement, from the counter itself (docs/BUDGETS.md). */
        log_info("Thread %d: runtime %" PRIu64 " us per %" PRIu64 " us enforced over %" PRIu64 " periods, "
                 "throttled %" PRIu64 " times, largest overrun %" PRIu64 " ns, %" PRIu64 " overruns over 100 us",
                 (int)t->thread.tid, t->budget.runtime_ns / 1000, t->budget.period_ns / 1000, t->budget.periods,
                 t->budget.throttles, t->budget.overrun_max_ns, t->budget.overruns_late);
        enforced_free(t);
}

static int enforced_new(const struct thread *src, uint64_t key, struct enforced **ret) {
        struct enforced *t = calloc(1, sizeof(*t));
        int r;

        if (!t)
                return -ENOMEM;
        t->key = key;
        t->thread = *src;
        t->thread.proc_pidfd = -1;
        t->clock_fd = -1;
        t->thread.pidfd = fcntl(src->pidfd, F_DUPFD_CLOEXEC, 3);
        if (t->thread.pidfd < 0) {
                r = -errno;
                goto fail;
        }
        t->clock_fd = open_task_clock(src->tid);
        if (t->clock_fd < 0) {
                r = t->clock_fd;
                goto fail;
        }
        /* Opened by thread id: only if it is still our thread. */
        if (!thread_alive(&t->thread)) {
                r = -ESRCH;
                goto fail;
        }
        *ret = t;
        return 0;
fail:
        enforced_free(t);
        return r;
}

/* The hard RLIMIT_RTTIME of a process from /proc (readable without
 * CAP_SYS_RESOURCE, which prlimit(2) on another user's process needs). */
static int read_rttime_hard(pid_t tgid, uint64_t *ret) {
        char path[64], buf[4096], *p;
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/limits", (int)tgid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return n < 0 ? -errno : -EIO;
        buf[n] = 0;
        p = strstr(buf, "Max realtime timeout");
        if (!p)
                return -EIO;
        p += strlen("Max realtime timeout");
        while (*p == ' ')
                p++;
        while (*p && *p != ' ')         /* the soft limit */
                p++;
        while (*p == ' ')
                p++;
        if (strncmp(p, "unlimited", 9) == 0) {
                *ret = UINT64_MAX;
                return 0;
        }
        *ret = strtoull(p, NULL, 10);
        return 0;
}

/*
 * Give the process the bound, or check that it has it: rtfd lowers the
 * limit itself where it may (CAP_SYS_RESOURCE); where it may not, the
 * process must have set it (what rtkit requires of its clients).
 */
static int limit_rttime(const struct thread *th, uint64_t rttime_us) {
        struct rlimit want = { .rlim_cur = (rlim_t)rttime_us, .rlim_max = (rlim_t)rttime_us };
        uint64_t hard;
        int r;

        /* By process id: the thread pidfd says the process is still ours
         * (a live thread keeps its process's pid). */
        if (!thread_alive(th))
                return -ESRCH;
        r = read_rttime_hard(th->tgid, &hard);
        if (r < 0)
                return r;
        if (hard <= rttime_us)
                return thread_alive(th) ? 0 : -ESRCH;
        if (prlimit(th->tgid, RLIMIT_RTTIME, &want, NULL) < 0)
                return -errno;          /* -EPERM: it must set RLIMIT_RTTIME itself */
        return thread_alive(th) ? 0 : -ESRCH;
}

int enforce_update(struct enforcer **ep, uint64_t key, const struct thread *th, const struct rtf_sched_setting *applied,
                   uint64_t runtime_ns, uint64_t period_ns, uint64_t rttime_us) {
        bool wanted = (applied->policy == RTF_POLICY_FIFO || applied->policy == RTF_POLICY_RR) && runtime_ns > 0 &&
                      period_ns > 0;
        struct enforced **p, *t, *fresh = NULL;
        uint64_t cpu = 0;
        int r = 0;

        if (!wanted) {
                enforce_remove(*ep, key);
                if (rttime_us && (applied->policy == RTF_POLICY_FIFO || applied->policy == RTF_POLICY_RR))
                        return limit_rttime(th, rttime_us);
                return 0;
        }
        if (runtime_ns > period_ns)
                return -EINVAL;
        if (!*ep) {
                r = enforcer_new(ep);
                if (r < 0)
                        return r;
        }
        /* The perf counter is opened outside the lock: it may take a while. */
        pthread_mutex_lock(&(*ep)->lock);
        t = *find(*ep, key);
        pthread_mutex_unlock(&(*ep)->lock);
        if (!t) {
                r = enforced_new(th, key, &fresh);
                if (r < 0)
                        return r;
                r = read_task_clock(fresh->clock_fd, &cpu);
                if (r >= 0)
                        r = enforce_budget_init(&fresh->budget, runtime_ns, period_ns, now_ns(), cpu);
                if (r < 0) {
                        enforced_free(fresh);
                        return r;
                }
        }

        pthread_mutex_lock(&(*ep)->lock);
        p = find(*ep, key);
        if (!*p && fresh) {
                fresh->next = (*ep)->tasks;
                (*ep)->tasks = fresh;
                (*ep)->n_tasks++;
                fresh->applied = *applied;
                fresh->next_ns = 0;     /* a first look at once */
                fresh = NULL;
        } else if (*p) {
                t = *p;
                t->applied = *applied;
                if (t->budget.runtime_ns != runtime_ns || t->budget.period_ns != period_ns)
                        r = enforce_budget_change(&t->budget, runtime_ns, period_ns);
                /* The broker has just applied its setting: a thread that used
                 * up this period's budget goes back to where it was. */
                if (r >= 0 && t->budget.throttled)
                        act(t, ENFORCE_THROTTLE);
                t->next_ns = 0;
        }
        pthread_mutex_unlock(&(*ep)->lock);
        if (fresh)
                enforced_free(fresh);
        wake(*ep);
        return r;
}

int enforce_stats(struct enforcer *e, uint64_t key, uint64_t *ret_throttles, uint64_t *ret_overrun_max_ns) {
        struct enforced *t;

        *ret_throttles = *ret_overrun_max_ns = 0;
        if (!e)
                return 0;
        pthread_mutex_lock(&e->lock);
        t = *find(e, key);
        if (t) {
                *ret_throttles = t->budget.throttles;
                *ret_overrun_max_ns = t->budget.overrun_max_ns;
        }
        pthread_mutex_unlock(&e->lock);
        return t ? 1 : 0;
}
