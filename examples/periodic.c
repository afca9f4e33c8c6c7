/* SPDX-License-Identifier: MIT */
/*
 * A periodic thread with librtf: the main thread asks rtfd for a reservation,
 * a worker thread attaches itself to it (rtf_spec_attach(&s, 0)) and runs its
 * jobs on the absolute timeline of rtf_task_wait_period().
 *
 *   periodic --period 5000 --runtime 500 --plugin EDF --jobs 200
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* SCHED_RESET_ON_FORK */
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rtf/rtf.h>

struct options {
        uint64_t period_us;
        uint64_t runtime_us;
        const char *plugin;
        uint32_t priority;              /* 0: let the plugin choose */
        unsigned long jobs;
};

struct worker {
        struct rtf_spec *spec;
        unsigned long jobs;
        uint64_t work_us;               /* CPU time burnt per job */
        int result;                     /* of the first call that failed, or 0 */
        const char *step;
        char reason[256];
        pid_t tid;
        int policy, cpu;
        unsigned long missed;           /* releases skipped */
};

static void usage(FILE *f, const char *argv0) {
        fprintf(f,
                "usage: %s [OPTIONS]\n"
                "Run a periodic thread under a reservation of rtfd.\n"
                "\n"
                "  -p, --period=US       period in microseconds (default 10000)\n"
                "  -r, --runtime=US      runtime per period in microseconds (default 1000)\n"
                "  -P, --plugin=NAME     ask this scheduling plugin only (default: any)\n"
                "  -q, --priority=1..99  fixed priority (default: the plugin chooses)\n"
                "  -n, --jobs=N          number of periods to run (default 100)\n"
                "  -h, --help            show this text\n"
                "\n"
                "The socket of rtfd is $RTF_SOCKET, else " RTF_DEFAULT_SOCKET ".\n",
                argv0);
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
        unsigned long long v;
        char *end;

        if (!s || !*s || *s == '-')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || *end || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_options(int argc, char **argv, struct options *o) {
        static const struct option longopts[] = {
                { "period",   required_argument, NULL, 'p' },
                { "runtime",  required_argument, NULL, 'r' },
                { "plugin",   required_argument, NULL, 'P' },
                { "priority", required_argument, NULL, 'q' },
                { "jobs",     required_argument, NULL, 'n' },
                { "help",     no_argument,       NULL, 'h' },
                { NULL, 0, NULL, 0 }
        };
        uint64_t v;
        int c;

        while ((c = getopt_long(argc, argv, "p:r:P:q:n:h", longopts, NULL)) != -1) {
                switch (c) {
                case 'p':
                case 'r':
                        if (parse_u64(optarg, 1, UINT32_MAX, &v) < 0) {
                                fprintf(stderr, "%s: --%s wants microseconds in 1..%" PRIu32 ", not '%s'\n",
                                        argv[0], c == 'p' ? "period" : "runtime", UINT32_MAX, optarg);
                                return -EINVAL;
                        }
                        if (c == 'p')
                                o->period_us = v;
                        else
                                o->runtime_us = v;
                        break;
                case 'P':
                        o->plugin = optarg;
                        break;
                case 'q':
                        if (parse_u64(optarg, 1, 99, &v) < 0) {
                                fprintf(stderr, "%s: --priority wants 1..99, not '%s'\n", argv[0], optarg);
                                return -EINVAL;
                        }
                        o->priority = (uint32_t) v;
                        break;
                case 'n':
                        if (parse_u64(optarg, 1, 100000000, &v) < 0) {
                                fprintf(stderr, "%s: --jobs wants 1..100000000, not '%s'\n", argv[0], optarg);
                                return -EINVAL;
                        }
                        o->jobs = (unsigned long) v;
                        break;
                case 'h':
                        usage(stdout, argv[0]);
                        return 1;
                default:
                        usage(stderr, argv[0]);
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
                return -EINVAL;
        }
        if (o->runtime_us > o->period_us) {
                fprintf(stderr, "%s: the runtime (%" PRIu64 " us) exceeds the period (%" PRIu64 " us)\n",
                        argv[0], o->runtime_us, o->period_us);
                return -EINVAL;
        }
        return 0;
}

static int64_t thread_cpu_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void worker_fail(struct worker *w, const char *step, int r) {
        w->step = step;
        w->result = r;
        snprintf(w->reason, sizeof(w->reason), "%s", rtf_last_reason());
}

static void *worker_main(void *arg) {
        struct worker *w = arg;
        int r;

        w->tid = gettid();
        r = rtf_spec_attach(w->spec, 0);
        if (r != RTF_OK) {
                worker_fail(w, "rtf_spec_attach", r);
                return NULL;
        }
        w->policy = sched_getscheduler(0);
        w->cpu = sched_getcpu();

        r = rtf_task_start(w->spec);
        if (r < 0) {
                worker_fail(w, "rtf_task_start", r);
                goto detach;
        }
        for (unsigned long j = 0; j < w->jobs; j++) {
                int64_t end = thread_cpu_ns() + (int64_t) w->work_us * 1000;

                while (thread_cpu_ns() < end)
                        ;
                r = rtf_task_wait_period(w->spec);
                if (r < 0) {
                        worker_fail(w, "rtf_task_wait_period", r);
                        break;
                }
                w->missed += (unsigned long) r;
        }

detach:
        r = rtf_spec_detach(w->spec);
        if (r != RTF_OK && !w->step)
                worker_fail(w, "rtf_spec_detach", r);
        return NULL;
}

static const char *policy_name(int policy) {
        /* rtfd sets reset-on-fork, which sched_getscheduler() reports as a flag */
        switch (policy & ~SCHED_RESET_ON_FORK) {
        case SCHED_OTHER:
                return "SCHED_OTHER (not real-time)";
        case SCHED_FIFO:
                return "SCHED_FIFO";
        case SCHED_RR:
                return "SCHED_RR";
        case 6:         /* SCHED_DEADLINE, which glibc's <sched.h> may lack */
                return "SCHED_DEADLINE";
        }
        return "unknown";
}

static int report_failure(const char *step, int r, const char *reason) {
        printf("%s: %s", step, rtf_strerror(r));
        if (reason && reason[0])
                printf(" (%s)", reason);
        printf("\n");
        return 1;
}

int main(int argc, char **argv) {
        struct options o = { .period_us = 10000, .runtime_us = 1000, .jobs = 100 };
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p;
        struct worker w = { .spec = &s, .policy = -1, .cpu = -1 };
        pthread_t thread;
        bool done;
        int r;

        r = parse_options(argc, argv, &o);
        if (r != 0)
                return r > 0 ? 0 : 2;

        r = rtf_connect();
        if (r != RTF_OK)
                return report_failure("rtf_connect", r, rtf_last_reason());

        rtf_params_init(&p);
        if (rtf_params_set_period(&p, o.period_us) < 0 ||
            rtf_params_set_runtime(&p, o.runtime_us) < 0 ||
            rtf_params_set_deadline(&p, o.period_us) < 0 ||
            (o.priority && rtf_params_set_priority(&p, o.priority) < 0) ||
            rtf_params_set_scheduler(&p, o.plugin) < 0) {
                fprintf(stderr, "%s: invalid parameters (a plugin name has at most %d characters)\n",
                        argv[0], RTF_PLUGIN_NAME_MAX - 1);
                return 2;
        }

        printf("asking:   period %" PRIu64 " us, runtime %" PRIu64 " us, plugin %s",
               rtf_params_get_period(&p), rtf_params_get_runtime(&p),
               rtf_params_get_scheduler(&p) ? rtf_params_get_scheduler(&p) : "any");
        if (rtf_params_get_priority(&p))
                printf(", priority %" PRIu32, rtf_params_get_priority(&p));
        printf("\n");

        r = rtf_spec_create(&s, &p);
        if (r != RTF_OK)
                return report_failure("rtf_spec_create", r, rtf_last_reason());

        printf("granted:  plugin %s, accepted runtime %" PRId64 " us", s.plugin,
               rtf_spec_get_accepted_runtime(&s));
        if (s.priority)
                printf(", priority %" PRIu32, s.priority);
        if (s.core >= 0)
                printf(", core %d\n", (int) s.core);
        else
                printf(", any core\n");

        /* Burn half of the runtime the plugin granted, so that jobs fit. */
        w.jobs = o.jobs;
        w.work_us = (uint64_t) rtf_spec_get_accepted_runtime(&s) / 2;
        r = pthread_create(&thread, NULL, worker_main, &w);
        if (r != 0) {
                (void) rtf_spec_release(&s);
                return report_failure("pthread_create", -r, NULL);
        }
        pthread_join(thread, NULL);

        if (w.policy >= 0)
                printf("thread:   tid %d ran under %s on CPU %d\n", (int) w.tid, policy_name(w.policy), w.cpu);
        printf("ran:      %" PRIu64 " jobs of %lu, %" PRIu64 " overruns, %lu releases skipped\n",
               s.jobs, w.jobs, s.overruns, w.missed);
        done = s.jobs == w.jobs;

        /* Releasing resets the spec, counters included. */
        r = rtf_spec_release(&s);
        if (w.step)
                return report_failure(w.step, w.result, w.reason);
        if (r != RTF_OK)
                return report_failure("rtf_spec_release", r, rtf_last_reason());
        return done ? 0 : 1;
}
