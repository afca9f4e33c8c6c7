/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Controlled workloads for tests/integration/test_budget.py: each scenario
 * runs a periodic task through librtf (a spec admitted by the rtfd at
 * $RTF_SOCKET, FP plugin unless $BUDGET_SCHEDULER says otherwise), and prints
 * one JSON object with what happened: return values, task statistics, and the
 * invariants the test asserts.  Times are chosen so that the assertions hold
 * on a loaded machine; nothing here asserts a duration.
 *
 *   budgetclient exhaust|within|opt-out|skip|catch-up|rtai
 *   budgetclient hard|hard-unsignalled      (EDF: kernel CBS, SCHED_DEADLINE)
 */
#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtf/rtai.h"
#include "rtf/rtf.h"
#include "sched-attr.h"
#include "util.h"

#define MS 1000000LL

/* Consume `ns` of this thread's CPU time, however long that takes. */
static void spin_cpu(int64_t ns) {
        int64_t until = now_thread_cpu_ns() + ns;

        while (now_thread_cpu_ns() < until)
                ;
}

static void sleep_ns(int64_t ns) {
        struct timespec ts = { .tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static int fail(const char *what, int r) {
        printf("{\"error\": \"%s: %s (%s)\"}\n", what, rtf_strerror(r), rtf_last_reason());
        return 1;
}

/* A spec admitted by `sched` and attached to this thread: RTF_OK, or the failed call in *ret_what. */
static int spec_open_on(struct rtf_spec *s, uint64_t period_us, uint64_t runtime_us, const char *sched,
                        bool count_overruns, const char **ret_what) {
        struct rtf_params p = RTF_PARAMS_INIT;
        int r;

        *ret_what = "rtf_connect";
        r = rtf_connect();
        if (r != RTF_OK)
                return r;
        rtf_params_set_period(&p, period_us);
        if (runtime_us)
                rtf_params_set_runtime(&p, runtime_us);
        rtf_params_set_priority(&p, 10);
        rtf_params_set_scheduler(&p, sched);
        *ret_what = "rtf_params_count_overruns";
        if (count_overruns && (r = rtf_params_count_overruns(&p)) < 0)
                return r;
        *ret_what = "rtf_spec_create";
        r = rtf_spec_create(s, &p);
        if (r != RTF_OK)
                return r;
        *ret_what = "rtf_spec_attach";
        return rtf_spec_attach(s, 0);
}

static int spec_open(struct rtf_spec *s, uint64_t period_us, uint64_t runtime_us) {
        const char *sched = getenv("BUDGET_SCHEDULER"), *what;
        int r;

        r = spec_open_on(s, period_us, runtime_us, sched ? sched : "FP",
                         runtime_us && sched && strcmp(sched, "EDF") == 0, &what);
        return r != RTF_OK ? fail(what, r) : 0;
}

static void add_stats(json_object *o, const struct rtf_spec *s) {
        struct rtf_task_stats st = { .size = sizeof(st) };
        json_object *j = json_object_new_object();

        if (rtf_task_stats(s, &st) < 0) {
                json_object_object_add(o, "stats", NULL);
                json_object_put(j);
                return;
        }
        json_object_object_add(j, "budget_mode", json_object_new_int((int) st.budget_mode));
        json_object_object_add(j, "period_ns", json_object_new_int64((int64_t) st.period_ns));
        json_object_object_add(j, "budget_ns", json_object_new_int64((int64_t) st.budget_ns));
        json_object_object_add(j, "periods", json_object_new_int64((int64_t) st.periods));
        json_object_object_add(j, "overruns", json_object_new_int64((int64_t) st.overruns));
        json_object_object_add(j, "missed_releases", json_object_new_int64((int64_t) st.missed_releases));
        json_object_object_add(j, "budget_exhaustions", json_object_new_int64((int64_t) st.budget_exhaustions));
        json_object_object_add(j, "ignored_waits", json_object_new_int64((int64_t) st.ignored_waits));
        json_object_object_add(j, "delayed_pending", json_object_new_int64((int64_t) st.delayed_pending));
        json_object_object_add(j, "max_response_ns", json_object_new_int64((int64_t) st.max_response_ns));
        json_object_object_add(j, "max_job_cpu_ns", json_object_new_int64((int64_t) st.max_job_cpu_ns));
        json_object_object_add(j, "timer_expirations", json_object_new_int64((int64_t) st.timer_expirations));
        json_object_object_add(o, "stats", j);
}

static int finish(json_object *o, struct rtf_spec *s) {
        add_stats(o, s);
        rtf_spec_release(s);
        json_object_object_add(o, "task_freed", json_object_new_boolean(s->task == NULL));
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
        return 0;
}

/* A job of 1.5 W: suspended at W, finishes in the next period, whose wait is then ignored. */
static int scenario_exhaust(void) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_task_attr a = RTF_TASK_ATTR_INIT;
        json_object *o = json_object_new_object(), *rets = json_object_new_array();
        int64_t first_release, job_end, r;
        int i;

        if (spec_open(&s, 20000, 4000))
                return 1;
        if ((r = rtf_task_start_attr(&s, &a)) < 0)
                return fail("rtf_task_start_attr", (int) r);
        first_release = s.next_release_ns;
        spin_cpu(6 * MS);
        job_end = now_monotonic_ns();
        r = rtf_task_wait_period(&s);
        json_object_array_add(rets, json_object_new_int((int) r));
        json_object_object_add(o, "job_ended_after_its_period", json_object_new_boolean(job_end >= first_release));
        for (i = 0; i < 3; i++) {
                spin_cpu(1 * MS);
                json_object_array_add(rets, json_object_new_int(rtf_task_wait_period(&s)));
        }
        json_object_object_add(o, "returns", rets);
        return finish(o, &s);
}

/* Within its budget: no exhaustion, nothing ignored; and the opt-out. */
static int scenario_within(bool opt_out) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_task_attr a = RTF_TASK_ATTR_INIT;
        json_object *o = json_object_new_object(), *rets = json_object_new_array();
        int i, r;

        if (spec_open(&s, 20000, 4000))
                return 1;
        if (opt_out)
                a.flags = RTF_TASK_NO_SOFT_BUDGET;
        if ((r = rtf_task_start_attr(&s, &a)) < 0)
                return fail("rtf_task_start_attr", r);
        for (i = 0; i < 5; i++) {
                spin_cpu(opt_out ? 6 * MS : 1 * MS);
                json_object_array_add(rets, json_object_new_int(rtf_task_wait_period(&s)));
        }
        json_object_object_add(o, "returns", rets);
        return finish(o, &s);
}

/* A job 2.5 periods long (sleeping, no budget) under either policy. */
static int scenario_policy(enum rtf_overrun_policy policy) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_task_attr a = RTF_TASK_ATTR_INIT;
        json_object *o = json_object_new_object(), *rets = json_object_new_array();
        const int64_t T = 20 * MS;
        int64_t first_release;
        int i, r;

        if (spec_open(&s, 20000, 0))
                return 1;
        a.overrun_policy = policy;
        if ((r = rtf_task_start_attr(&s, &a)) < 0)
                return fail("rtf_task_start_attr", r);
        first_release = s.next_release_ns;
        sleep_ns(5 * T / 2);
        for (i = 0; i < 5; i++)
                json_object_array_add(rets, json_object_new_int(rtf_task_wait_period(&s)));
        json_object_object_add(o, "returns", rets);
        /* Where the timeline stands, in periods after the first release. */
        json_object_object_add(o, "grid_offset_periods",
                               json_object_new_int64((s.next_release_ns - first_release) / T));
        json_object_object_add(o, "on_grid", json_object_new_boolean((s.next_release_ns - first_release) % T == 0));
        return finish(o, &s);
}

static void *not_a_task(void *arg) {
        *(int *) arg = rt_task_wait_period();
        return NULL;
}

/* The RTAI API: return codes, and the budget semantics through it. */
static int scenario_rtai(void) {
        json_object *o = json_object_new_object(), *rets = json_object_new_array();
        struct rtf_task_stats st = { .size = sizeof(st) };
        RT_TASK *task;
        pthread_t th;
        int r, other = 0;

        json_object_object_add(o, "wait_before_init", json_object_new_int(rt_task_wait_period()));
        task = rt_task_init(nam2num("BUDGET"), 5, 0, 0);
        if (!task)
                return fail("rt_task_init", -ENOTCONN);
        json_object_object_add(o, "second_init_refused",
                               json_object_new_boolean(rt_task_init(nam2num("OTHER"), 5, 0, 0) == NULL));
        json_object_object_add(o, "wait_before_periodic", json_object_new_int(rt_task_wait_period()));
        json_object_object_add(o, "bad_period", json_object_new_int(rt_task_make_periodic(task, 0, 0)));
        /* The start well ahead: a host stall (PLATFORM.md: up to ~30 ms) before
         * the first wait must not turn it into an overrun. */
        r = rt_task_make_periodic_budget(task, rt_get_time() + nano2count(200 * MS), nano2count(20 * MS),
                                         nano2count(4 * MS));
        json_object_object_add(o, "make_periodic_budget", json_object_new_int(r));
        if (r != 0)
                return fail("rt_task_make_periodic_budget", r);
        pthread_create(&th, NULL, not_a_task, &other);
        pthread_join(th, NULL);
        json_object_object_add(o, "wait_other_thread", json_object_new_int(other));

        json_object_array_add(rets, json_object_new_int(rt_task_wait_period()));      /* to the start */
        json_object_array_add(rets, json_object_new_int(rt_task_wait_period()));      /* on time: 0 */
        rt_sleep(nano2count(50 * MS));                                                   /* 2.5 periods */
        json_object_array_add(rets, json_object_new_int(rt_task_wait_period()));      /* RTE_TMROVRN */
        for (r = 0; r < 3; r++)
                json_object_array_add(rets, json_object_new_int(rt_task_wait_period()));
        spin_cpu(6 * MS);                                                                /* 1.5 W */
        json_object_array_add(rets, json_object_new_int(rt_task_wait_period()));      /* ignored: 0 */
        json_object_array_add(rets, json_object_new_int(rt_task_wait_period()));
        json_object_object_add(o, "returns", rets);
        json_object_object_add(o, "RTE_TMROVRN", json_object_new_int(RTE_TMROVRN));
        json_object_object_add(o, "RTE_OBJINV", json_object_new_int(RTE_OBJINV));
        if (rtf_task_stats(rt_task_rtf_spec(task), &st) == 0) {
                json_object_object_add(o, "budget_exhaustions", json_object_new_int64((int64_t) st.budget_exhaustions));
                json_object_object_add(o, "ignored_waits", json_object_new_int64((int64_t) st.ignored_waits));
                json_object_object_add(o, "budget_mode", json_object_new_int((int) st.budget_mode));
        }
        json_object_object_add(o, "delete", json_object_new_int(rt_task_delete(task)));
        json_object_object_add(o, "wait_after_delete", json_object_new_int(rt_task_wait_period()));
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
        return 0;
}

/* What the kernel applied to this thread: SCHED_DEADLINE, and whether it sends SIGXCPU on overruns. */
static void add_kernel_state(json_object *o) {
        struct rtf_sched_attr a = { .size = sizeof(a) };
        bool ok = rtf_sched_getattr(0, &a, 0) == 0;

        json_object_object_add(o, "sched_deadline", json_object_new_boolean(ok && a.sched_policy == SCHED_DEADLINE));
        json_object_object_add(o, "dl_overrun_flag",
                               json_object_new_boolean(ok && (a.sched_flags & SCHED_FLAG_DL_OVERRUN)));
}

struct hard_job {
        const char *name;
        uint64_t period_us, runtime_us;
        int64_t spin_ns;        /* CPU per job */
        int jobs;
        bool count_overruns;
        json_object *out;       /* result */
};

/*
 * A job of 8 runtimes.  The kernel reports an overrun (SIGXCPU) only from a
 * tick that finds the thread running (posix-cpu-timers): with a runtime
 * shorter than the 4 ms tick the thread can run between ticks in every period
 * and never be told (a 1 ms runtime in a 10 ms period was, in about one run in
 * three).  A runtime longer than the tick puts a tick in every period it runs.
 */
#define OVERRUN_JOB(count) { .name = "overrun", .period_us = 20000, .runtime_us = 5000, .spin_ns = 40 * MS, \
                             .jobs = 3, .count_overruns = (count) }

/* One EDF task: SCHED_DEADLINE, the kernel's CBS enforces the runtime. */
static void *hard_task(void *arg) {
        struct hard_job *h = arg;
        struct rtf_spec s = RTF_SPEC_INIT;
        json_object *o = json_object_new_object();
        const char *what = "rtf_task_start";
        char error[512];
        int i, r;

        h->out = o;
        json_object_object_add(o, "name", json_object_new_string(h->name));
        r = spec_open_on(&s, h->period_us, h->runtime_us, "EDF", h->count_overruns, &what);
        if (r == RTF_OK) {
                add_kernel_state(o);
                r = rtf_task_start(&s);
        }
        if (r != RTF_OK) {
                snprintf(error, sizeof(error), "%s: %s (%s)", what, rtf_strerror(r), rtf_last_reason());
                json_object_object_add(o, "error", json_object_new_string(error));
                if (s.id)
                        rtf_spec_release(&s);
                return NULL;
        }
        for (i = 0; i < h->jobs; i++) {
                spin_cpu(h->spin_ns);
                rtf_task_wait_period(&s);
        }
        add_stats(o, &s);
        rtf_spec_release(&s);
        return NULL;
}

static bool sigxcpu_is_default(void) {
        struct sigaction sa;

        return sigaction(SIGXCPU, NULL, &sa) == 0 && !(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL;
}

/*
 * Hard budgets with overruns counted (rtf_params_count_overruns): a task
 * whose jobs run 8 times its runtime, next to one that stays far within its
 * budget, in the same process (SIGXCPU is sent to the process; librtf must
 * count it for the thread that overran).
 */
static int scenario_hard(void) {
        struct hard_job jobs[] = {
                OVERRUN_JOB(true),
                /* Half a millisecond of a 20 ms budget: a host stall would have to be longer than that. */
                { .name = "within", .period_us = 100000, .runtime_us = 20000, .spin_ns = MS / 2, .jobs = 5,
                  .count_overruns = true },
        };
        json_object *o = json_object_new_object(), *tasks = json_object_new_array();
        pthread_t th[2];
        int i;

        for (i = 0; i < 2; i++)
                if (pthread_create(&th[i], NULL, hard_task, &jobs[i]) != 0)
                        return fail("pthread_create", -EAGAIN);
        for (i = 0; i < 2; i++) {
                pthread_join(th[i], NULL);
                json_object_array_add(tasks, jobs[i].out);
        }
        json_object_object_add(o, "tasks", tasks);
        json_object_object_add(o, "sigxcpu_handled_by_librtf", json_object_new_boolean(!sigxcpu_is_default()));
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
        return 0;
}

/*
 * The same overrun without the opt-in: SIGXCPU keeps its default action (end
 * the process), so the kernel must not send it: the process lives to print.
 */
static int scenario_hard_unsignalled(void) {
        struct hard_job job = OVERRUN_JOB(false);
        json_object *o = json_object_new_object(), *tasks = json_object_new_array();

        json_object_object_add(o, "sigxcpu_default_before", json_object_new_boolean(sigxcpu_is_default()));
        hard_task(&job);
        json_object_array_add(tasks, job.out);
        json_object_object_add(o, "tasks", tasks);
        json_object_object_add(o, "sigxcpu_default_after", json_object_new_boolean(sigxcpu_is_default()));
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
        return 0;
}

int main(int argc, char **argv) {
        const char *what = argc > 1 ? argv[1] : "";

        if (strcmp(what, "exhaust") == 0)
                return scenario_exhaust();
        if (strcmp(what, "within") == 0)
                return scenario_within(false);
        if (strcmp(what, "opt-out") == 0)
                return scenario_within(true);
        if (strcmp(what, "skip") == 0)
                return scenario_policy(RTF_OVERRUN_SKIP);
        if (strcmp(what, "catch-up") == 0)
                return scenario_policy(RTF_OVERRUN_CATCH_UP);
        if (strcmp(what, "rtai") == 0)
                return scenario_rtai();
        if (strcmp(what, "hard") == 0)
                return scenario_hard();
        if (strcmp(what, "hard-unsignalled") == 0)
                return scenario_hard_unsignalled();
        fprintf(stderr, "usage: budgetclient exhaust|within|opt-out|skip|catch-up|rtai|hard|hard-unsignalled\n");
        return 2;
}
