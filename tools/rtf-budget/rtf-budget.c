/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-budget: section 4 of "Real-Time Linux with Budget-Based Resource
 * Reservation", rerun on this machine through the rtfd at $RTF_SOCKET.
 *
 * (a) overhead: tau1 (2 ms, 1 ms) and tau2 (5 ms, 1 ms), soft budgets (FP),
 *     CPU-bound, for --duration-ms; the cost of the enforcement per timer
 *     expiration (time in librtf's handler, the deliberate suspension and the
 *     final spin to the exact budget excluded): average and maximum (Tables
 *     2 and 3 of the paper).
 * (b) precision: tau1 (4, 1), tau2 (2, 0.5), tau3 (1, 0.25) ms CPU-bound and
 *     tau4 (20, 5) ms making system calls (file reads, pipe writes), together,
 *     for --periods periods each; per period the budget rate = CPU received /
 *     budget, and the periods more than 5 % off.  Once with hard budgets (EDF:
 *     the kernel's CBS) and once with soft budgets (FP: librtf's enforcement).
 *
 * Each task measures what it receives itself, from its own CPU clock, on the
 * period grid of its reservation: nothing is taken from the enforcement.
 *
 * --plot draws (b) like Fig. 6 of the paper with tools/plot/plot-budget.py,
 * run on the --json document by /usr/bin/python3 (python3-matplotlib).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "rtf/rtf.h"
#include "rtf-config.h"
#include "envelope.h"
#include "options.h"
#include "plot.h"
#include "sched-trace.h"
#include "util.h"

#define NS_PER_US 1000LL
#define TOLERANCE 0.05
#define TASK_STACK_SIZE (256 * 1024)

struct task_def {
        const char *name;
        uint64_t period_us;
        uint64_t budget_us;
        uint32_t priority;              /* rate-monotonic for the soft mode */
        bool syscalls;
};

/* CPU time between two looks at the task's clock that lie in different windows. */
struct span {
        int64_t from_ns, to_ns, cpu_ns;
};

struct task_run {
        const struct task_def *def;
        const char *scheduler;
        bool hard;
        unsigned periods;               /* periods to measure; 0: run for duration_ns */
        int64_t duration_ns;
        pthread_barrier_t *barrier;
        /* results */
        pid_t tid;
        int64_t origin_ns;              /* the start of its first window */
        struct span *spans;             /* the looks at its clock that straddle a boundary */
        unsigned n_spans, cap_spans;
        int error;
        char reason[256];
        double *rates;
        struct rtf_task_stats stats;
};

static const struct task_def overhead_tasks[] = {
        { "tau1", 2000, 1000, 20, false },
        { "tau2", 5000, 1000, 10, false },
};

static const struct task_def precision_tasks[] = {
        { "tau1", 4000, 1000, 20, false },
        { "tau2", 2000, 500, 30, false },
        { "tau3", 1000, 250, 40, false },
        { "tau4", 20000, 5000, 10, true },
};

#define N_PRECISION (sizeof(precision_tasks) / sizeof(precision_tasks[0]))

/* tau4's stand-in for the MPEG player: a file read and a pipe round trip. */
struct syscall_load {
        int file;
        int pipe[2];
        char buf[4096];
};

static void syscall_step(struct syscall_load *l) {
        if (pread(l->file, l->buf, sizeof(l->buf), 0) < 0 ||
            write(l->pipe[1], l->buf, 512) < 0 || read(l->pipe[0], l->buf, 512) < 0)
                l->buf[0] = 0;
}

static void *task_main(void *arg) {
        struct task_run *run = arg;
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p = RTF_PARAMS_INIT;
        struct syscall_load load = { .file = -1, .pipe = { -1, -1 } };
        int64_t period_ns = (int64_t) run->def->period_us * NS_PER_US, origin, end;
        int64_t prev_now, prev_cpu;
        int r;

        /* Named for the sched_switch filter ("rtfb-*"). */
        snprintf(load.buf, sizeof(load.buf), "rtfb-%s", run->def->name);
        pthread_setname_np(pthread_self(), load.buf);
        run->tid = gettid();
        rtf_params_set_period(&p, run->def->period_us);
        rtf_params_set_runtime(&p, run->def->budget_us);
        rtf_params_set_priority(&p, run->def->priority);
        rtf_params_set_scheduler(&p, run->scheduler);
        if (run->hard && rtf_params_count_overruns(&p) < 0)
                snprintf(run->reason, sizeof(run->reason), "SIGXCPU is handled elsewhere: overruns not counted");
        if (run->def->syscalls) {
                load.file = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
                if (load.file < 0 || pipe2(load.pipe, O_CLOEXEC) < 0) {
                        run->error = -errno;
                        snprintf(run->reason, sizeof(run->reason), "%s: cannot open its files", run->def->name);
                        goto out;
                }
        }
        r = rtf_spec_create(&s, &p);
        if (r == RTF_OK)
                r = rtf_spec_attach(&s, 0);
        if (r != RTF_OK) {
                run->error = r;
                snprintf(run->reason, sizeof(run->reason), "%s on %s: %s (%s)", run->def->name, run->scheduler,
                         rtf_strerror(r), rtf_last_reason());
                pthread_barrier_wait(run->barrier);
                goto out;
        }
        pthread_barrier_wait(run->barrier);
        r = rtf_task_start(&s);
        if (r < 0) {
                run->error = r;
                snprintf(run->reason, sizeof(run->reason), "rtf_task_start: %s", rtf_strerror(r));
                goto out;
        }

        /* The first window opened at rtf_task_start(): it ends at the first release. */
        origin = s.next_release_ns - period_ns;
        run->origin_ns = origin;
        end = run->periods ? origin + (int64_t) run->periods * period_ns : origin + run->duration_ns;
        prev_now = now_monotonic_ns();
        prev_cpu = now_thread_cpu_ns();
        for (;;) {
                int64_t now = now_monotonic_ns(), c = now_thread_cpu_ns(), k;

                /*
                 * CPU time used since the last look belongs to the window it
                 * started in, also on the way out: a soft budget's final spin
                 * ends the last window inside that step.
                 */
                k = (prev_now - origin) / period_ns;
                if (run->rates && k >= 0 && k < (int64_t) run->periods)
                        run->rates[k] += (double) (c - prev_cpu);
                /* Kept for the kernel's record to split (split_spans()). */
                if (run->spans && k != (now - origin) / period_ns && run->n_spans < run->cap_spans)
                        run->spans[run->n_spans++] = (struct span){ prev_now, now, c - prev_cpu };
                if (now >= end)
                        break;
                prev_now = now;
                prev_cpu = c;
                if (run->def->syscalls)
                        syscall_step(&load);
        }
        run->stats.size = sizeof(run->stats);
        rtf_task_stats(&s, &run->stats);
out:
        if (s.id)
                rtf_spec_release(&s);
        if (load.file >= 0)
                close(load.file);
        if (load.pipe[0] >= 0) {
                close(load.pipe[0]);
                close(load.pipe[1]);
        }
        return NULL;
}

/*
 * With the kernel's record of when each task was on a CPU, give the CPU time
 * of an interval that straddles window boundaries to each window in
 * proportion to the time the task was on a CPU in it, instead of all to the
 * window the interval began in.  The task was running at the interval's start
 * (it looked at its clock then).
 */
static void split_spans(struct task_run *run, const struct sched_switch_event *ev, size_t n) {
        int64_t period_ns = (int64_t) run->def->period_us * NS_PER_US;

        for (unsigned i = 0; i < run->n_spans; i++) {
                const struct span *sp = &run->spans[i];
                int64_t k0 = (sp->from_ns - run->origin_ns) / period_ns, k1 = (sp->to_ns - run->origin_ns) / period_ns;
                int64_t total = sched_trace_oncpu_ns(ev, n, run->tid, sp->from_ns, sp->to_ns), before = 0;

                if (total <= 0)
                        continue;
                if (k0 >= 0 && k0 < (int64_t) run->periods)
                        run->rates[k0] -= (double) sp->cpu_ns;
                for (int64_t k = k0; k <= k1; k++) {
                        int64_t edge = k == k1 ? sp->to_ns : run->origin_ns + (k + 1) * period_ns;
                        int64_t upto = sched_trace_oncpu_ns(ev, n, run->tid, sp->from_ns, edge);

                        if (k >= 0 && k < (int64_t) run->periods)
                                run->rates[k] += (double) sp->cpu_ns * (double) (upto - before) / (double) total;
                        before = upto;
                }
        }
}

/* Run tasks together; returns 0 or the first error. */
static int run_tasks(struct task_run *runs, size_t n) {
        pthread_barrier_t barrier;
        pthread_t th[8];
        size_t i;
        int r = 0;

        pthread_attr_t attr;

        /* mlockall(MCL_FUTURE) locks each thread's stack: the default 8 MiB
         * exceeds an unprivileged user's RLIMIT_MEMLOCK. */
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, TASK_STACK_SIZE);
        pthread_barrier_init(&barrier, NULL, (unsigned) n);
        for (i = 0; i < n; i++) {
                int e;

                runs[i].barrier = &barrier;
                e = pthread_create(&th[i], &attr, task_main, &runs[i]);
                if (e != 0) {
                        fprintf(stderr, "rtf-budget: cannot start a thread: %s\n", strerror(e));
                        exit(1);
                }
        }
        pthread_attr_destroy(&attr);
        for (i = 0; i < n; i++)
                pthread_join(th[i], NULL);
        pthread_barrier_destroy(&barrier);
        for (i = 0; i < n; i++)
                if (runs[i].error && !r) {
                        fprintf(stderr, "rtf-budget: %s\n", runs[i].reason);
                        r = runs[i].error;
                }
        return r;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return (x > y) - (x < y);
}

static double quantile(const double *sorted, unsigned n, double q) {
        unsigned k = (unsigned) ceil(q * n);

        return n ? sorted[k ? k - 1 : 0] : 0;
}

static const double hist_edges[] = { 0, 0.5, 0.9, 0.95, 1.05, 1.1, 1.5, 2.0 };
#define N_EDGES (sizeof(hist_edges) / sizeof(hist_edges[0]))

/*
 * Violations in period k that an adjacent period makes good: the two together
 * received two budgets within the tolerance.  That is CPU time counted on the
 * wrong side of a window boundary (the wake-up after a suspension runs after
 * the boundary but lands, for this tool, in the window the interval started
 * in), not CPU time given or withheld.  A diagnostic; `violations` counts them.
 */
static bool compensated(const double *rates, unsigned n, unsigned k) {
        for (int d = -1; d <= 1; d += 2) {
                int64_t j = (int64_t) k + d;

                if (j >= 0 && j < (int64_t) n && fabs(rates[k] + rates[j] - 2.0) <= 2 * TOLERANCE)
                        return true;
        }
        return false;
}

static json_object *task_json(const struct task_run *run, unsigned *ret_violations) {
        json_object *t = json_object_new_object(), *d = json_object_new_object(), *h = json_object_new_array(),
                    *rates = json_object_new_array();
        unsigned n = run->periods, violations = 0, paired = 0, counts[N_EDGES] = { 0 }, i, j;
        double *sorted = calloc(n ? n : 1, sizeof(double)), sum = 0;

        if (!sorted)
                exit(1);
        for (i = 0; i < n; i++) {
                double r = run->rates[i];

                sorted[i] = r;
                sum += r;
                if (fabs(r - 1.0) > TOLERANCE) {
                        violations++;
                        paired += compensated(run->rates, n, i);
                }
                for (j = N_EDGES; j-- > 0;)
                        if (r >= hist_edges[j]) {
                                counts[j]++;
                                break;
                        }
                json_object_array_add(rates, json_object_new_double(round(r * 10000) / 10000));
        }
        qsort(sorted, n, sizeof(double), cmp_double);
        json_object_object_add(t, "name", json_object_new_string(run->def->name));
        json_object_object_add(t, "period_us", json_object_new_int64((int64_t) run->def->period_us));
        json_object_object_add(t, "budget_us", json_object_new_int64((int64_t) run->def->budget_us));
        json_object_object_add(t, "workload", json_object_new_string(run->def->syscalls ? "syscalls" : "cpu"));
        json_object_object_add(t, "periods", json_object_new_int((int) n));
        json_object_object_add(t, "violations", json_object_new_int((int) violations));
        json_object_object_add(t, "violations_compensated", json_object_new_int((int) paired));
        json_object_object_add(d, "min", json_object_new_double(n ? sorted[0] : 0));
        json_object_object_add(d, "p1", json_object_new_double(quantile(sorted, n, 0.01)));
        json_object_object_add(d, "p50", json_object_new_double(quantile(sorted, n, 0.5)));
        json_object_object_add(d, "p99", json_object_new_double(quantile(sorted, n, 0.99)));
        json_object_object_add(d, "max", json_object_new_double(n ? sorted[n - 1] : 0));
        json_object_object_add(d, "mean", json_object_new_double(n ? sum / n : 0));
        for (j = 0; j < N_EDGES; j++) {
                json_object *b = json_object_new_object();

                json_object_object_add(b, "from", json_object_new_double(hist_edges[j]));
                json_object_object_add(b, "to", j + 1 < N_EDGES ? json_object_new_double(hist_edges[j + 1]) : NULL);
                json_object_object_add(b, "count", json_object_new_int((int) counts[j]));
                json_object_array_add(h, b);
        }
        json_object_object_add(d, "histogram", h);
        json_object_object_add(t, "budget_rate", d);
        json_object_object_add(t, "budget_exhaustions", json_object_new_int64((int64_t) run->stats.budget_exhaustions));
        json_object_object_add(t, "timer_expirations", json_object_new_int64((int64_t) run->stats.timer_expirations));
        json_object_object_add(t, "rates", rates);
        free(sorted);
        *ret_violations = violations;
        return t;
}

/*
 * Fail before the measurement, not after it, if FILE cannot be written: open
 * it as the plot will, without truncating what is there, and remove it again
 * if it did not exist.
 */
static int plot_check_output(const char *path) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);

        if (fd >= 0) {
                close(fd);
                unlink(path);
                return 0;
        }
        if (errno == EEXIST)
                fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        close(fd);
        return 0;
}

static void usage(FILE *f) {
        fprintf(f,
                "Usage: rtf-budget [OPTIONS]\n"
                "Rerun the budget experiments of the RTAI budget paper (section 4) through rtfd.\n\n"
                "  -j, --json              JSON on stdout\n"
                "  -c, --csv               one line per task and period on stdout\n"
                "  -p, --periods N         periods per task in the precision run (default 500)\n"
                "  -d, --duration-ms MS    length of the overhead run (default 500)\n"
                "  -m, --mode MODE         hard, soft or both (default both)\n"
                "      --hard-scheduler P  plugin for hard budgets (default EDF)\n"
                "      --soft-scheduler P  plugin for soft budgets (default FP)\n"
                "      --plot FILE.png     also draw the precision run like Fig. 6 of the paper: budget\n"
                "                          rate per period, one panel per task and mode, +-5 %% band\n"
                "                          (python3-matplotlib; the format follows the extension)\n"
                "      --no-trace          split window boundaries by each task's own clock only, even\n"
                "                          when the kernel's sched_switch record is available (root:\n"
                "                          tracefs, mounted at /sys/kernel/tracing for the run if needed)\n"
                "  -h, --help              this text\n"
                "      --version           the version\n\n"
                "rtfd is reached at $RTF_SOCKET (default " RTF_DEFAULT_SOCKET ").\n"
                "--plot runs plot-budget.py with /usr/bin/python3 ($RTF_PYTHON overrides).\n");
}

enum { OPT_VERSION = 256, OPT_HARD, OPT_SOFT, OPT_PLOT, OPT_NO_TRACE };

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "json", no_argument, NULL, 'j' },
                { "csv", no_argument, NULL, 'c' },
                { "periods", required_argument, NULL, 'p' },
                { "duration-ms", required_argument, NULL, 'd' },
                { "mode", required_argument, NULL, 'm' },
                { "hard-scheduler", required_argument, NULL, OPT_HARD },
                { "soft-scheduler", required_argument, NULL, OPT_SOFT },
                { "plot", required_argument, NULL, OPT_PLOT },
                { "no-trace", no_argument, NULL, OPT_NO_TRACE },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                { NULL, 0, NULL, 0 }
        };
        const char *hard_sched = "EDF", *soft_sched = "FP", *modes[2] = { "hard", "soft" }, *plot = NULL;
        bool json = false, csv = false, do_mode[2] = { true, true }, use_trace = true;
        const char *measurement[2] = { "self", "self" };
        uint64_t trace_events[2] = { 0 }, trace_lost[2] = { 0 };
        unsigned trace_warned = 0;
        unsigned periods = 500, duration_ms = 500, m, i;
        struct task_run ov[2] = { 0 }, pr[2][N_PRECISION];
        uint64_t expirations = 0, total = 0, max = 0;
        json_object *doc, *prec, *ovj, *arr;
        struct utsname un;
        struct timespec started;
        int c, r;

        clock_gettime(CLOCK_REALTIME, &started);

        while ((c = getopt_long(argc, argv, "jcp:d:m:h", options, NULL)) >= 0) {
                switch (c) {
                case 'j':
                        json = true;
                        break;
                case 'c':
                        csv = true;
                        break;
                case 'p':
                case 'd':
                        if (options_u32("rtf-budget", c == 'p' ? "--periods" : "--duration-ms", optarg, 1, 100000,
                                        c == 'p' ? &periods : &duration_ms) < 0)
                                return 2;
                        break;
                case 'm':
                        do_mode[0] = strcmp(optarg, "hard") == 0 || strcmp(optarg, "both") == 0;
                        do_mode[1] = strcmp(optarg, "soft") == 0 || strcmp(optarg, "both") == 0;
                        if (!do_mode[0] && !do_mode[1]) {
                                fprintf(stderr, "rtf-budget: --mode is hard, soft or both\n");
                                return 2;
                        }
                        break;
                case OPT_HARD:
                        hard_sched = optarg;
                        break;
                case OPT_SOFT:
                        soft_sched = optarg;
                        break;
                case OPT_PLOT:
                        plot = optarg;
                        break;
                case OPT_NO_TRACE:
                        use_trace = false;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                case OPT_VERSION:
                        options_print_version("rtf-budget");
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        }
        if (json && csv) {
                fprintf(stderr, "rtf-budget: --json and --csv exclude each other\n");
                return 2;
        }
        if (plot) {
                r = *plot ? plot_check_output(plot) : -ENOENT;
                if (r < 0) {
                        fprintf(stderr, "rtf-budget: --plot: cannot write '%s': %s\n", plot, strerror(-r));
                        return 2;
                }
        }
        r = rtf_connect();
        if (r != RTF_OK) {
                fprintf(stderr, "rtf-budget: cannot reach rtfd: %s (%s)\n", rtf_strerror(r), rtf_last_reason());
                return 1;
        }
        if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0 && !json && !csv)
                printf("# mlockall failed: %s\n", strerror(errno));

        /* (a) overhead of the soft enforcement */
        for (i = 0; i < 2; i++)
                ov[i] = (struct task_run) { .def = &overhead_tasks[i], .scheduler = soft_sched,
                                            .duration_ns = (int64_t) duration_ms * 1000000 };
        r = run_tasks(ov, 2);
        if (r != 0)
                return 1;
        for (i = 0; i < 2; i++) {
                expirations += ov[i].stats.timer_expirations;
                total += ov[i].stats.enforcement_ns_total;
                if (ov[i].stats.enforcement_ns_max > max)
                        max = ov[i].stats.enforcement_ns_max;
        }

        /* (b) precision, hard then soft */
        for (m = 0; m < 2; m++) {
                if (!do_mode[m])
                        continue;
                for (i = 0; i < N_PRECISION; i++) {
                        pr[m][i] = (struct task_run) { .def = &precision_tasks[i], .hard = m == 0,
                                                       .scheduler = m == 0 ? hard_sched : soft_sched,
                                                       .periods = periods };
                        pr[m][i].rates = calloc(periods, sizeof(double));
                        pr[m][i].cap_spans = 2 * periods + 16;
                        pr[m][i].spans = calloc(pr[m][i].cap_spans, sizeof(struct span));
                        if (!pr[m][i].rates || !pr[m][i].spans)
                                return 1;
                }
                if (use_trace) {
                        struct sched_trace *t = NULL;
                        struct sched_switch_event *ev = NULL;
                        size_t n_ev = 0;
                        int q = sched_trace_start("rtfb-*", &t);

                        if (q < 0 && !trace_warned++)
                                fprintf(stderr, "rtf-budget: no sched_switch record: %s%s: window boundaries "
                                                "are split by each task's own clock\n",
                                        sched_trace_strerror(q) ? sched_trace_strerror(q) : "cannot trace: ",
                                        sched_trace_strerror(q) ? "" : strerror(-q));
                        r = run_tasks(pr[m], N_PRECISION);
                        if (q >= 0) {
                                q = sched_trace_finish(t, &ev, &n_ev, &trace_lost[m]);
                                if (q < 0)
                                        fprintf(stderr, "rtf-budget: cannot read the sched_switch record: %s\n",
                                                strerror(-q));
                                else if (trace_lost[m])
                                        fprintf(stderr, "rtf-budget: the sched_switch record lost %llu events: "
                                                        "window boundaries are split by each task's own clock\n",
                                                (unsigned long long) trace_lost[m]);
                                if (q >= 0 && !trace_lost[m]) {
                                        for (i = 0; i < N_PRECISION; i++)
                                                split_spans(&pr[m][i], ev, n_ev);
                                        measurement[m] = "sched_switch";
                                        trace_events[m] = n_ev;
                                }
                                free(ev);
                        }
                } else {
                        r = run_tasks(pr[m], N_PRECISION);
                }
                if (r != 0)
                        return 1;
                for (i = 0; i < N_PRECISION; i++)
                        for (unsigned k = 0; k < periods; k++)
                                pr[m][i].rates[k] /= (double) precision_tasks[i].budget_us * NS_PER_US;
        }

        /* The envelope every tool writes (tools/common/envelope.h), built now, dated from the start. */
        doc = envelope_new("rtf-budget", argc, argv);
        envelope_set_start_time(doc, &started);
        uname(&un);
        ovj = json_object_new_object();
        json_object_object_add(ovj, "scheduler", json_object_new_string(soft_sched));
        json_object_object_add(ovj, "duration_ms", json_object_new_int((int) duration_ms));
        json_object_object_add(ovj, "expirations", json_object_new_int64((int64_t) expirations));
        json_object_object_add(ovj, "average_ns", json_object_new_int64(expirations ? (int64_t) (total / expirations) : 0));
        json_object_object_add(ovj, "max_ns", json_object_new_int64((int64_t) max));
        json_object_object_add(doc, "overhead", ovj);
        prec = json_object_new_object();
        for (m = 0; m < 2; m++) {
                json_object *mj;

                if (!do_mode[m])
                        continue;
                mj = json_object_new_object();
                arr = json_object_new_array();
                json_object_object_add(mj, "scheduler", json_object_new_string(m == 0 ? hard_sched : soft_sched));
                /* How CPU time is given to the windows on both sides of a boundary (BUDGETS.md). */
                json_object_object_add(mj, "measurement", json_object_new_string(measurement[m]));
                json_object_object_add(mj, "trace_events", json_object_new_int64((int64_t) trace_events[m]));
                for (i = 0; i < N_PRECISION; i++) {
                        unsigned v;

                        json_object_array_add(arr, task_json(&pr[m][i], &v));
                }
                json_object_object_add(mj, "tasks", arr);
                json_object_object_add(prec, modes[m], mj);
        }
        json_object_object_add(doc, "precision", prec);
        /* The measurement's return code: --plot comes after it (and its path was checked first). */
        envelope_finish(doc, 0);

        if (json) {
                printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
        } else if (csv) {
                printf("mode,task,period_us,budget_us,period,budget_rate\n");
                for (m = 0; m < 2; m++)
                        for (i = 0; do_mode[m] && i < N_PRECISION; i++)
                                for (unsigned k = 0; k < periods; k++)
                                        printf("%s,%s,%llu,%llu,%u,%.4f\n", modes[m], pr[m][i].def->name,
                                               (unsigned long long) pr[m][i].def->period_us,
                                               (unsigned long long) pr[m][i].def->budget_us, k, pr[m][i].rates[k]);
        } else {
                printf("# rtf-budget %s, kernel %s\n", RTF_VERSION, un.release);
                printf("# (a) overhead of soft-budget enforcement, tau1 (2 ms, 1 ms) + tau2 (5 ms, 1 ms) on %s, %u ms\n",
                       soft_sched, duration_ms);
                printf("expirations %llu  average %.2f us  max %.2f us\n", (unsigned long long) expirations,
                       expirations ? (double) total / (double) expirations / 1000.0 : 0.0, (double) max / 1000.0);
                printf("# (b) budget precision: periods more than 5 %% off, of %u\n", periods);
                for (m = 0; m < 2; m++)
                        if (do_mode[m])
                                printf("# %s: window boundaries split by %s\n", modes[m],
                                       strcmp(measurement[m], "sched_switch") == 0
                                               ? "the kernel's sched_switch record"
                                               : "each task's own clock (the interval goes to the window it began in)");
                printf("# mode task  period_us budget_us violations (compensated) rate_min rate_p50 rate_max\n");
                for (m = 0; m < 2; m++) {
                        json_object *mj, *tasks;

                        if (!json_object_object_get_ex(prec, modes[m], &mj) ||
                            !json_object_object_get_ex(mj, "tasks", &tasks))
                                continue;
                        for (i = 0; i < N_PRECISION; i++) {
                                json_object *t = json_object_array_get_idx(tasks, i), *d, *x;

                                json_object_object_get_ex(t, "budget_rate", &d);
                                printf("%-4s %-5s %9llu %9llu %10d", modes[m], pr[m][i].def->name,
                                       (unsigned long long) pr[m][i].def->period_us,
                                       (unsigned long long) pr[m][i].def->budget_us,
                                       json_object_get_int(json_object_object_get_ex(t, "violations", &x) ? x : NULL));
                                printf(" %13d", json_object_get_int(json_object_object_get_ex(t, "violations_compensated",
                                                                                             &x) ? x : NULL));
                                json_object_object_get_ex(d, "min", &x);
                                printf(" %8.3f", json_object_get_double(x));
                                json_object_object_get_ex(d, "p50", &x);
                                printf(" %8.3f", json_object_get_double(x));
                                json_object_object_get_ex(d, "max", &x);
                                printf(" %8.3f\n", json_object_get_double(x));
                        }
                }
        }
        /* The measurement is out first: a plot that fails loses nothing but itself. */
        if (plot) {
                char buf[4096];

                r = plot_run("rtf-budget", plot_script("RTF_PLOT_SCRIPT_BUDGET", "plot-budget.py", buf, sizeof(buf)),
                             doc, plot) < 0 ? 1 : 0;
        } else {
                r = 0;
        }
        json_object_put(doc);
        for (m = 0; m < 2; m++)
                for (i = 0; do_mode[m] && i < N_PRECISION; i++) {
                        free(pr[m][i].rates);
                        free(pr[m][i].spans);
                }
        return r;
}
