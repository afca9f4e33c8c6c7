/* SPDX-License-Identifier: MIT */
/*
 * Listing 1 of the ReTiF paper, verbatim, as a program: task_body() is the
 * listing, the rest supplies what it leaves to the reader (the T_* constants
 * and the three computation functions) and reports what happened.
 *
 *   listing1 [JOBS]        run JOBS periods (default 50) of 10 ms
 *
 * Exit status 0 if rtfd admitted the task, attached it, and it ran all jobs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* SCHED_BATCH, SCHED_RESET_ON_FORK */
#endif
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rtf/rtf.h>

/* Task parameters, in microseconds */
#define T_PERIOD 10000
#define T_RUNTIME 1000
#define T_DES_RUNTIME 2000
#define T_DEADLINE 10000

#define MANDATORY_US 200        /* CPU time of the mandatory part of a job */
#define OPTIONAL_US 300         /* and of the optional part */

static unsigned jobs_wanted = 50;

/* What the task saw, from inside. */
static struct {
        unsigned jobs;                  /* mandatory computations run */
        unsigned optional;              /* optional computations run */
        int64_t last_start_ns;          /* of the previous job */
        int64_t gap_min_ns, gap_max_ns; /* between the starts of two jobs */
        int policy;                     /* sched_getscheduler() in the first job */
        int cpu;
} seen = { .gap_min_ns = INT64_MAX, .policy = -1, .cpu = -1 };

/* What the listing's calls returned (it checks only some of them). */
static struct {
        const char *step;               /* the first call that failed, or NULL */
        int result;
        char reason[256];               /* rtf_last_reason() right after it */
        int missed;                     /* releases skipped, summed over all jobs */
        struct rtf_spec spec;           /* the spec just before its release */
        bool released;
} outcome;

static int64_t clock_ns(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void spin_cpu_us(int64_t us) {
        int64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + us * 1000;

        while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
                ;
}

static bool computation_ended(void) {
        int64_t now = clock_ns(CLOCK_MONOTONIC);

        if (seen.jobs > 0) {
                int64_t gap = now - seen.last_start_ns;
                if (gap < seen.gap_min_ns)
                        seen.gap_min_ns = gap;
                if (gap > seen.gap_max_ns)
                        seen.gap_max_ns = gap;
        }
        seen.last_start_ns = now;
        return seen.jobs >= jobs_wanted;
}

static void mandatory_computation(void) {
        if (seen.jobs == 0) {
                seen.policy = sched_getscheduler(0);
                seen.cpu = sched_getcpu();
        }
        seen.jobs++;
        spin_cpu_us(MANDATORY_US);
}

static void optional_computation(void) {
        seen.optional++;
        spin_cpu_us(OPTIONAL_US);
}

static int note(const char *step, int result) {
        if (result != RTF_OK && !outcome.step) {
                outcome.step = step;
                outcome.result = result;
                snprintf(outcome.reason, sizeof(outcome.reason), "%s", rtf_last_reason());
        }
        return result;
}

static int waited(int missed) {
        if (missed < 0)
                return note("rtf_task_wait_period", missed);
        outcome.missed += missed;
        return missed;
}

static void keep(const struct rtf_spec *s) {
        outcome.spec = *s;
        outcome.released = true;
}

/*
 * Watch the listing's calls so that main() can say what happened.  Each
 * macro calls the real function exactly once: a macro is not expanded again
 * inside its own expansion.
 */
#define rtf_connect() note("rtf_connect", rtf_connect())
#define rtf_spec_create(s, p) note("rtf_spec_create", rtf_spec_create(s, p))
#define rtf_spec_attach(s, tid) note("rtf_spec_attach", rtf_spec_attach(s, tid))
#define rtf_task_start(s) note("rtf_task_start", rtf_task_start(s))
#define rtf_task_wait_period(s) waited(rtf_task_wait_period(s))
#define rtf_spec_release(s) (keep(s), note("rtf_spec_release", rtf_spec_release(s)))

static void task_body(void) {
        /* Task representation */
        struct rtf_spec s = RTF_SPEC_INIT;

        /* Task parameters */
        struct rtf_params p = RTF_PARAM_INIT;

        /* Connect to the daemon via a UNIX socket */
        if (rtf_connect() == RTF_CONNECTION_ERR)
                return; /* Unable to connect to the daemon. */

        /* Set task parameters */
        rtf_param_set_period(&p, T_PERIOD);
        rtf_param_set_runtime(&p, T_RUNTIME);
        rtf_param_set_des_runtime(&p, T_DES_RUNTIME);
        rtf_param_set_deadline(&p, T_DEADLINE);

        /* Test for admission */
        int res = rtf_spec_create(&s, &p);

        if (res == RTF_SCHEDULE_FAIL)
                return; /* Admission failed, we can retry with different parameters */
        else if (res == RTF_ACL_FAIL)
                return; /* ACL check failed, not authorized */
        else if (res == RTF_CONNECTION_ERR)
                return; /* Communication failed */

        /* res = RTF_OK */

        /* On success we attach an execution flow to the task specification */
        rtf_spec_attach(&s, getpid());

        /* Signals that a task begins its execution */
        rtf_task_start(&s);

        while(!computation_ended()) {
                /* Task runs mandatory actions */
                mandatory_computation();

                /* Enabling optional computation depending on the accepted runtime */
                if (rtf_spec_get_accepted_runtime(&s) > T_RUNTIME)
                        optional_computation();

                /* Suspend execution waiting for the next period */
                rtf_task_wait_period(&s);
        }

        /* Cleanup */
        rtf_spec_release(&s);
}

#undef rtf_connect
#undef rtf_spec_create
#undef rtf_spec_attach
#undef rtf_task_start
#undef rtf_task_wait_period
#undef rtf_spec_release

static const char *policy_name(int policy) {
        /* rtfd sets reset-on-fork, which sched_getscheduler() reports as a flag */
        switch (policy & ~SCHED_RESET_ON_FORK) {
        case SCHED_OTHER:
                return "SCHED_OTHER (not real-time)";
        case SCHED_BATCH:
                return "SCHED_BATCH (not real-time)";
        case SCHED_FIFO:
                return "SCHED_FIFO";
        case SCHED_RR:
                return "SCHED_RR";
        case 6:         /* SCHED_DEADLINE, which glibc's <sched.h> may lack */
                return "SCHED_DEADLINE";
        }
        return "unknown";
}

int main(int argc, char **argv) {
        const struct rtf_spec *s = &outcome.spec;

        if (argc > 2 || (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
                printf("usage: %s [JOBS]\n"
                       "Run Listing 1 of the ReTiF paper: a task of period %d us, runtime %d us,\n"
                       "desired runtime %d us and deadline %d us, for JOBS periods (default %u).\n"
                       "The socket of rtfd is $RTF_SOCKET, else %s.\n",
                       argv[0], T_PERIOD, T_RUNTIME, T_DES_RUNTIME, T_DEADLINE, jobs_wanted,
                       RTF_DEFAULT_SOCKET);
                return argc > 2;
        }
        if (argc == 2) {
                char *end;
                unsigned long n;

                errno = 0;
                n = strtoul(argv[1], &end, 10);
                if (errno || *end || n == 0 || n > 1000000) {
                        fprintf(stderr, "%s: JOBS must be a number in 1..1000000, not '%s'\n", argv[0], argv[1]);
                        return 1;
                }
                jobs_wanted = (unsigned) n;
        }

        printf("Listing 1: period %d us, runtime %d us, desired runtime %d us, deadline %d us, %u jobs\n",
               T_PERIOD, T_RUNTIME, T_DES_RUNTIME, T_DEADLINE, jobs_wanted);

        task_body();

        if (outcome.released) {
                printf("granted:   plugin %s, accepted runtime %llu us (asked %d..%d)",
                       s->plugin[0] ? s->plugin : "?", (unsigned long long) s->accepted_runtime_us,
                       T_RUNTIME, T_DES_RUNTIME);
                if (s->priority > 0)
                        printf(", priority %u", s->priority);
                if (s->core >= 0)
                        printf(", core %d\n", s->core);
                else
                        printf(", any core\n");
                printf("attached:  pid %d, which ran under %s on CPU %d\n",
                       (int) s->tid, policy_name(seen.policy), seen.cpu);
                printf("ran:       %llu jobs, %llu overruns, %d releases skipped, optional part in %u jobs\n",
                       (unsigned long long) s->jobs, (unsigned long long) s->overruns,
                       outcome.missed, seen.optional);
                if (seen.jobs > 1)
                        printf("job starts: every %.3f to %.3f ms (period %.3f ms)\n",
                               seen.gap_min_ns / 1e6, seen.gap_max_ns / 1e6, T_PERIOD / 1e3);
        }

        if (outcome.step) {
                printf("failed:    %s: %s", outcome.step, rtf_strerror(outcome.result));
                if (outcome.reason[0])
                        printf(" (%s)", outcome.reason);
                printf("\n");
                return 1;
        }
        if (!outcome.released || outcome.spec.jobs != jobs_wanted || seen.jobs != jobs_wanted) {
                printf("failed:    the task did not run all %u jobs\n", jobs_wanted);
                return 1;
        }
        return 0;
}
