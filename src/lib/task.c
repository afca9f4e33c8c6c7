/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Periodic tasks on Linux.  The semantics (releases, overrun policies,
 * budget windows, delayed calls, statistics) are the pure state machine of
 * src/shared/task/periodic.c; this file only feeds it the clocks and carries
 * out what it answers: sleeping, and enforcing soft budgets.
 *
 * Soft budgets.  The kernel checks CPU-time timers only at its tick (4 ms on
 * the development machines), far too coarse for a 250 us budget.  So the
 * enforcement uses a CLOCK_MONOTONIC high-resolution timer, aimed at the
 * earliest moment the thread could have used its budget (now + budget left,
 * since CPU time never runs faster than wall time) minus the measured lateness
 * of its signal ("lead").  The handler runs in the task's thread, reads the
 * thread's own CPU clock (exact at any moment), re-arms if the thread was
 * preempted or blocked meanwhile, and when less than the lead is left spins on
 * that clock to the exact budget, then suspends the thread until its window
 * ends.  The handler calls only async-signal-safe functions
 * (clock_gettime, clock_nanosleep, timer_settime).
 *
 * Hard budgets: a SCHED_DEADLINE thread is enforced by the kernel's CBS; its
 * SIGXCPU (SCHED_FLAG_DL_OVERRUN) is counted by the handler installed by
 * rtf_params_count_overruns() and folded into the state machine at the next
 * rtf_task_wait_period().
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "error.h"
#include "rtf/rtf.h"
#include "struct-size.h"
#include "sched-attr.h"
#include "task.h"
#include "task/periodic.h"
#include "util.h"

#define LEAD_INITIAL_NS (100 * NSEC_PER_USEC)
#define LEAD_MIN_NS (30 * NSEC_PER_USEC)
#define LEAD_MAX_NS (2 * NSEC_PER_MSEC)
/* Below this much budget left the handler spins rather than re-arms. */
#define SPIN_SLACK_NS (5 * NSEC_PER_USEC)
/* How often a running task reports its statistics to rtfd (rtfctl tasks). */
#define REPORT_INTERVAL_NS NSEC_PER_SEC

struct task_private {
        struct periodic core;
        enum rtf_budget_mode mode;
        bool budget_from_spec;
        bool has_timer;
        timer_t timer;
        volatile sig_atomic_t enforcing;
        atomic_uint hard_pending;       /* SIGXCPU seen, not folded yet */
        /* the armed timer: its target, and the clocks when it was armed */
        int64_t armed_target_ns;
        int64_t armed_now_ns;
        uint64_t armed_cpu_ns;
        uint64_t lead_ns;
        uint64_t expirations;
        uint64_t enforcement_ns_total;
        uint64_t enforcement_ns_max;
        int64_t reported_ns;            /* last statistics report to rtfd, 0 = none yet */
};

/* initial-exec: read in signal handlers, so no lazy TLS allocation. */
static __thread struct task_private *task_current __attribute__((tls_model("initial-exec")));

int task_next_release(int64_t release_ns, uint64_t period_ns, int64_t now_ns,
                      int64_t *ret_wake_ns, uint64_t *ret_missed) {
        uint64_t late, missed, offset, room;

        if (period_ns == 0 || period_ns > (uint64_t) INT64_MAX)
                return -EINVAL;

        if (now_ns <= release_ns) {
                *ret_wake_ns = release_ns;
                *ret_missed = 0;
                return 0;
        }

        /* now > release, so the difference is in [1, 2^64 - 1]: exact in unsigned. */
        late = (uint64_t) now_ns - (uint64_t) release_ns;
        missed = late / period_ns + (late % period_ns != 0);
        if (__builtin_mul_overflow(missed, period_ns, &offset))
                return -EOVERFLOW;
        room = (uint64_t) INT64_MAX - (uint64_t) release_ns;
        if (offset > room)
                return -EOVERFLOW;

        *ret_wake_ns = (int64_t) ((uint64_t) release_ns + offset);
        *ret_missed = missed;
        return 0;
}

static int64_t monotonic_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * (int64_t) NSEC_PER_SEC + ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

static struct timespec timespec_of(int64_t ns) {
        return (struct timespec) {
                .tv_sec = (time_t) (ns / (int64_t) NSEC_PER_SEC),
                .tv_nsec = (long) (ns % (int64_t) NSEC_PER_SEC),
        };
}

static int sleep_until(int64_t wake_ns) {
        struct timespec ts = timespec_of(wake_ns);
        int r;

        /* Absolute time: restarting after a signal does not stretch the sleep. */
        do
                r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        while (r == EINTR);
        return -r;
}

static void timer_arm(struct task_private *t, int64_t target_ns, int64_t now_ns, uint64_t cpu_ns) {
        struct itimerspec its = { .it_value = timespec_of(target_ns > 0 ? target_ns : 1) };

        t->armed_target_ns = target_ns;
        t->armed_now_ns = now_ns;
        t->armed_cpu_ns = cpu_ns;
        timer_settime(t->timer, TIMER_ABSTIME, &its, NULL);
}

static void timer_disarm(struct task_private *t) {
        struct itimerspec its = { 0 };

        t->armed_target_ns = 0;
        timer_settime(t->timer, 0, &its, NULL);
}

/*
 * Learn how late the signal comes while the thread runs: the CPU time the
 * thread consumed past the moment the timer was aimed at.  Lateness while the
 * thread was preempted or blocked costs no budget and is not counted.
 */
static void lead_learn(struct task_private *t, uint64_t cpu_ns) {
        uint64_t expected, over, lead;

        if (t->armed_target_ns == 0)
                return;
        expected = t->armed_cpu_ns + (uint64_t) (t->armed_target_ns - t->armed_now_ns);
        over = cpu_ns > expected ? cpu_ns - expected : 0;
        lead = t->lead_ns - t->lead_ns / 64;    /* forget slowly */
        over += over / 4 + 5 * NSEC_PER_USEC;
        if (over > lead)
                lead = over;
        t->lead_ns = MIN(MAX(lead, LEAD_MIN_NS), LEAD_MAX_NS);
}

/*
 * Bring the budget up to date and arm the timer for its next look; suspend
 * the thread if the budget is used up.  Runs with RTF_BUDGET_SIGNAL blocked
 * (in its handler, or in rtf_task_*).  Returns the time spent on purpose
 * (suspended, or spinning to the exact budget), which is not overhead.
 */
static uint64_t budget_enforce(struct task_private *t) {
        /*
         * The lead learnt from late signals is capped at three quarters of the
         * budget: with a lead as large as the budget (a host stall can teach
         * that), every window would be spent spinning in this handler and
         * the task would never run again.
         */
        uint64_t spent = 0, lead = MIN(t->lead_ns, t->core.budget_ns / 4 * 3);

        for (;;) {
                int64_t now = monotonic_ns(), target, t0;
                uint64_t cpu = thread_cpu_ns();
                struct periodic_budget b;

                periodic_budget_check(&t->core, now, cpu, &b);
                if (b.exhausted) {
                        timer_disarm(t);
                        /*
                         * Going to sleep and waking up costs the thread CPU
                         * time (about 20 us here), charged on both sides of
                         * the boundary: count all of it in the new window, so
                         * that the CPU received from one wake-up to the next
                         * is the budget, not the budget plus that cost.
                         */
                        cpu = thread_cpu_ns();
                        t0 = monotonic_ns();
                        sleep_until(b.window_end_ns);
                        now = monotonic_ns();
                        spent += (uint64_t) (now - t0);
                        periodic_budget_resume(&t->core, now, cpu);
                        continue;
                }
                if (b.left_ns <= lead + SPIN_SLACK_NS) {
                        uint64_t until = cpu + b.left_ns;

                        t0 = now;
                        while (cpu < until && now < b.window_end_ns) {
                                cpu = thread_cpu_ns();
                                now = monotonic_ns();
                        }
                        spent += (uint64_t) (now - t0);
                        continue;
                }
                target = now + (int64_t) (b.left_ns - lead);
                if (target > b.window_end_ns)
                        target = b.window_end_ns;
                timer_arm(t, target, now, cpu);
                return spent;
        }
}

static void budget_signal_handler(int sig, siginfo_t *si, void *ucontext) {
        struct task_private *t = task_current;
        int saved_errno = errno;
        int64_t t0, t1;
        uint64_t spent, cost;

        if (!t || !t->enforcing || t->mode != RTF_BUDGET_SOFT)
                goto out;
        t0 = monotonic_ns();
        lead_learn(t, thread_cpu_ns());
        spent = budget_enforce(t);
        t1 = monotonic_ns();
        cost = (uint64_t) (t1 - t0) > spent ? (uint64_t) (t1 - t0) - spent : 0;
        t->expirations++;
        t->enforcement_ns_total += cost;
        if (cost > t->enforcement_ns_max)
                t->enforcement_ns_max = cost;
out:
        errno = saved_errno;
}

static void overrun_signal_handler(int sig, siginfo_t *si, void *ucontext) {
        struct task_private *t = task_current;

        /* The kernel sends it to the overrunning thread when it can. */
        if (t && t->mode == RTF_BUDGET_HARD)
                atomic_fetch_add_explicit(&t->hard_pending, 1, memory_order_relaxed);
}

static int budget_handler_result;

static void budget_handler_install(void) {
        struct sigaction sa = {
                .sa_sigaction = budget_signal_handler,
                .sa_flags = SA_SIGINFO | SA_RESTART,
        };

        /* Nested expirations wait: the handler is not reentrant. */
        sigemptyset(&sa.sa_mask);
        budget_handler_result = sigaction(RTF_BUDGET_SIGNAL, &sa, NULL) < 0 ? -errno : 0;
}

RTF_PUBLIC int rtf_params_count_overruns(struct rtf_params *p) {
        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        struct sigaction old, sa = {
                .sa_sigaction = overrun_signal_handler,
                .sa_flags = SA_SIGINFO | SA_RESTART,
        };
        int r = 0;

        if (!RTF_STRUCT_VALID(p))
                return -EINVAL;
        sigemptyset(&sa.sa_mask);
        pthread_mutex_lock(&lock);
        if (sigaction(SIGXCPU, NULL, &old) < 0)
                r = -errno;
        else if ((old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != overrun_signal_handler
                                             : old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)
                r = -EBUSY;
        else if (sigaction(SIGXCPU, &sa, NULL) < 0)
                r = -errno;
        pthread_mutex_unlock(&lock);
        if (r < 0)
                return r;
        p->flags |= RTF_PARAM_OVERRUN_SIGNAL;
        return 0;
}

static void budget_block(sigset_t *ret_old) {
        sigset_t set;

        sigemptyset(&set);
        sigaddset(&set, RTF_BUDGET_SIGNAL);
        pthread_sigmask(SIG_BLOCK, &set, ret_old);
}

static void budget_unblock(const sigset_t *old) {
        pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void hard_fold(struct task_private *t) {
        unsigned n = atomic_exchange_explicit(&t->hard_pending, 0, memory_order_relaxed);

        while (n-- > 0)
                periodic_budget_overrun(&t->core);
}

static void task_free(struct task_private *t) {
        if (!t)
                return;
        if (t->has_timer)
                timer_delete(t->timer);
        if (task_current == t)
                task_current = NULL;
        free(t);
}

static enum rtf_budget_mode budget_mode_of_thread(uint64_t budget_ns, uint32_t flags) {
        struct rtf_sched_attr attr = { .size = sizeof(attr) };

        if (budget_ns == 0)
                return RTF_BUDGET_NONE;
        if (rtf_sched_getattr(0, &attr, 0) == 0 && attr.sched_policy == SCHED_DEADLINE)
                return RTF_BUDGET_HARD;
        return flags & RTF_TASK_NO_SOFT_BUDGET ? RTF_BUDGET_NONE : RTF_BUDGET_SOFT;
}

static int timer_open(struct task_private *t) {
        static pthread_once_t once = PTHREAD_ONCE_INIT;
        struct sigevent sev = {
                .sigev_notify = SIGEV_THREAD_ID,
                .sigev_signo = RTF_BUDGET_SIGNAL,
        };

        pthread_once(&once, budget_handler_install);
        if (budget_handler_result < 0)
                return budget_handler_result;
        sev._sigev_un._tid = gettid();      /* glibc < 2.41 lacks sigev_notify_thread_id */
        if (timer_create(CLOCK_MONOTONIC, &sev, &t->timer) < 0)
                return -errno;
        t->has_timer = true;
        return 0;
}

RTF_PUBLIC int rtf_task_start_attr(struct rtf_spec *s, const struct rtf_task_attr *attr) {
        const struct rtf_task_attr defaults = RTF_TASK_ATTR_INIT;
        const struct rtf_params *p;
        struct task_private *t;
        uint64_t budget_ns = 0;
        int64_t now, first;
        sigset_t old;
        int r;

        reason_clear();
        if (!RTF_STRUCT_VALID(s)) {
                reason_set("no specification, or not one of this librtf's size (RTF_SPEC_INIT)");
                return -EINVAL;
        }
        if (!attr)
                attr = &defaults;
        if (!RTF_STRUCT_VALID(attr) || attr->overrun_policy > RTF_OVERRUN_CATCH_UP ||
            (attr->flags & ~(uint32_t) RTF_TASK_NO_SOFT_BUDGET)) {
                reason_set("struct rtf_task_attr: wrong size (RTF_TASK_ATTR_INIT), overrun policy or flags");
                return -EINVAL;
        }
        p = &s->params;
        if (!RTF_STRUCT_VALID(p) || !(p->flags & RTF_PARAM_HAS_PERIOD) || p->period_us == 0) {
                reason_set("a periodic task needs a specification created with a period");
                return -EINVAL;
        }
        /* The setters bound times to 2^32 us, but s->params and *attr are writable. */
        if (p->period_us > (uint64_t) INT64_MAX / NSEC_PER_USEC ||
            attr->budget_us > p->period_us || p->runtime_us > p->period_us) {
                reason_set("budget and runtime must be at most the period");
                return -EINVAL;
        }
        if (task_current && task_current != s->task) {
                reason_set("this thread already runs another periodic task");
                return -EBUSY;
        }

        if (attr->budget_us)
                budget_ns = attr->budget_us * NSEC_PER_USEC;
        else if (s->id != 0 && s->accepted_runtime_us && s->accepted_runtime_us <= p->period_us)
                budget_ns = s->accepted_runtime_us * NSEC_PER_USEC;
        else if (p->flags & RTF_PARAM_HAS_RUNTIME)
                budget_ns = p->runtime_us * NSEC_PER_USEC;

        rtf_task_stop(s);
        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->mode = budget_mode_of_thread(budget_ns, attr->flags);
        t->budget_from_spec = attr->budget_us == 0;
        t->lead_ns = LEAD_INITIAL_NS;
        if (t->mode == RTF_BUDGET_SOFT) {
                r = timer_open(t);
                if (r < 0) {
                        task_free(t);
                        return r;
                }
        }

        budget_block(&old);
        now = monotonic_ns();
        first = attr->first_release_ns;
        if (first == 0 && __builtin_add_overflow(now, (int64_t) (p->period_us * NSEC_PER_USEC), &first))
                r = -EOVERFLOW;
        else
                r = periodic_init(&t->core, p->period_us * NSEC_PER_USEC, budget_ns,
                                  attr->overrun_policy == RTF_OVERRUN_CATCH_UP ? PERIODIC_CATCH_UP : PERIODIC_SKIP,
                                  first, now, thread_cpu_ns());
        if (r < 0) {
                budget_unblock(&old);
                task_free(t);
                return r;
        }
        s->period_ns = t->core.period_ns;
        s->next_release_ns = t->core.next_release_ns;
        s->jobs = 0;
        s->overruns = 0;
        s->task = t;
        task_current = t;
        if (t->mode == RTF_BUDGET_SOFT) {
                t->enforcing = 1;
                budget_enforce(t);
        }
        budget_unblock(&old);
        return 0;
}

RTF_PUBLIC int rtf_task_start(struct rtf_spec *s) {
        return rtf_task_start_attr(s, NULL);
}

static void task_stats_read(const struct task_private *t, struct rtf_task_stats *st);

/*
 * Tell rtfd the task's statistics, so that `rtfctl tasks` shows them: at most
 * every REPORT_INTERVAL_NS, and a last time when the task stops.  This runs in
 * the task's real-time thread, so it only sends when the connection is free
 * at once and the socket has room: a report skipped for another thread's
 * request goes a period later, any other failure waits for the next interval.
 */
static void task_report(const struct rtf_spec *s, struct task_private *t, bool final) {
        struct rtf_task_stats st = { .size = sizeof(st) };
        struct rtf_wire_stats w;
        int64_t now;

        if (s->id == 0)
                return;         /* not (or no longer) a reservation of rtfd */
        now = monotonic_ns();
        if (!final && t->reported_ns != 0 && now - t->reported_ns < (int64_t) REPORT_INTERVAL_NS)
                return;
        task_stats_read(t, &st);
        w = (struct rtf_wire_stats) {
                .budget_mode = st.budget_mode,
                .flags = final ? RTF_STATS_FINAL : 0,
                .period_ns = st.period_ns,
                .budget_ns = st.budget_ns,
                .periods = st.periods,
                .overruns = st.overruns,
                .missed_releases = st.missed_releases,
                .budget_exhaustions = st.budget_exhaustions,
                .ignored_waits = st.ignored_waits,
                .max_response_ns = st.max_response_ns,
                .max_job_cpu_ns = st.max_job_cpu_ns,
        };
        if (client_report(s->id, &w) != -EBUSY)
                t->reported_ns = now;
}

RTF_PUBLIC int rtf_task_stop(struct rtf_spec *s) {
        struct task_private *t;
        sigset_t old;

        if (!RTF_STRUCT_VALID(s))
                return -EINVAL;
        t = s->task;
        if (!t)
                return 0;
        budget_block(&old);
        task_report(s, t, true);
        t->enforcing = 0;
        s->task = NULL;
        task_free(t);
        budget_unblock(&old);
        return 0;
}

/* rtf_spec_change() gave the task a new period: it applies from the next release. */
static int task_follow_spec(struct rtf_spec *s, struct task_private *t) {
        uint64_t budget = t->core.budget_ns;

        if (s->period_ns == t->core.period_ns)
                return 0;
        if (t->budget_from_spec && s->accepted_runtime_us)
                budget = s->accepted_runtime_us * NSEC_PER_USEC;
        return periodic_set_period(&t->core, s->period_ns, MIN(budget, s->period_ns));
}

RTF_PUBLIC int rtf_task_wait_period(struct rtf_spec *s) {
        struct task_private *t;
        struct periodic_wait w;
        sigset_t old;
        int r;

        if (!RTF_STRUCT_VALID(s) || !s->task)
                return -EINVAL;
        t = s->task;

        budget_block(&old);
        hard_fold(t);
        r = task_follow_spec(s, t);
        if (r >= 0)
                r = periodic_job_end(&t->core, monotonic_ns(), thread_cpu_ns(), &w);
        if (r < 0) {
                budget_unblock(&old);
                return r;
        }
        s->next_release_ns = t->core.next_release_ns;
        s->jobs++;
        if (w.missed > 0)
                s->overruns++;
        task_report(s, t, false);

        if (w.sleep) {
                t->enforcing = 0;
                if (t->has_timer)
                        timer_disarm(t);
                budget_unblock(&old);
                /* The sleep is a cancellation point: the state is already updated. */
                r = sleep_until(w.wake_ns);
                if (r < 0)
                        return r;
                budget_block(&old);
                periodic_job_begin(&t->core, monotonic_ns(), thread_cpu_ns());
        }
        if (t->mode == RTF_BUDGET_SOFT) {
                t->enforcing = 1;
                budget_enforce(t);
        }
        budget_unblock(&old);
        return w.missed > INT_MAX ? INT_MAX : (int) w.missed;
}

/* With RTF_BUDGET_SIGNAL blocked, so that the handler does not change them meanwhile. */
static void task_stats_read(const struct task_private *t, struct rtf_task_stats *ret) {
        struct rtf_task_stats st = { .size = sizeof(st) };

        st.budget_mode = t->mode;
        st.period_ns = t->core.period_ns;
        st.budget_ns = t->core.budget_ns;
        st.periods = t->core.stats.periods;
        st.overruns = t->core.stats.overruns;
        st.missed_releases = t->core.stats.missed;
        st.budget_exhaustions = t->core.stats.exhaustions +
                                atomic_load_explicit(&((struct task_private *) t)->hard_pending, memory_order_relaxed);
        st.ignored_waits = t->core.stats.ignored_waits;
        st.delayed_pending = t->core.delayed;
        st.delayed_dropped = t->core.stats.delayed_dropped;
        st.max_response_ns = t->core.stats.max_response_ns;
        st.max_job_cpu_ns = t->core.stats.max_job_cpu_ns;
        st.timer_expirations = t->expirations;
        st.enforcement_ns_total = t->enforcement_ns_total;
        st.enforcement_ns_max = t->enforcement_ns_max;
        st.timer_lead_ns = t->mode == RTF_BUDGET_SOFT ? t->lead_ns : 0;
        *ret = st;
}

RTF_PUBLIC int rtf_task_stats(const struct rtf_spec *s, struct rtf_task_stats *ret) {
        struct rtf_task_stats st;
        sigset_t old;

        if (!RTF_STRUCT_VALID(s) || !s->task || !ret || ret->size < sizeof(*ret))
                return -EINVAL;
        budget_block(&old);
        task_stats_read(s->task, &st);
        budget_unblock(&old);
        /* A newer caller's larger struct: what this library does not know is 0. */
        memset((char *)ret + sizeof(*ret), 0, ret->size - sizeof(*ret));
        st.size = ret->size;
        *ret = st;
        return 0;
}
