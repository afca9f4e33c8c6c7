/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-latency: how late does a periodic task admitted through rtfd wake up?
 *
 * The measuring thread asks rtfd for a reservation (FP, priority 90 by
 * default), attaches itself, and sleeps to absolute CLOCK_MONOTONIC release
 * times one period apart, as cyclictest does; the latency is the time from
 * the release to the wake-up.  With --compare cyclictest the same run
 * alternates slices of its own measurement and of cyclictest with the same
 * period, priority, CPU and latency hint, so both see the same machine.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <rtf/rtf.h>

#include "child.h"
#include "cyclictest-output.h"
#include "envelope.h"
#include "options.h"
#include "plot.h"
#include "rtf-config.h"
#include "stats.h"

#define TOOL "rtf-latency"
#define NSEC_PER_SEC 1000000000LL

struct side {
        const char *name;
        struct hist total;
        uint64_t overruns;
        uint64_t slices;
};

static struct {
        uint32_t period_us;
        uint32_t priority;
        uint32_t runtime_us;
        const char *scheduler;
        double duration_s;
        uint64_t loops;
        bool quiet;
        bool json;
        bool print_histogram;
        bool mlock;
        const char *plot;
        const char *load;
        bool compare;
        double slice_s;
        uint32_t hist_us;
        int32_t hint_us;                /* for cyclictest --latency; -1: --default-system */
} arg = {
        .period_us = 1000, .priority = 90, .scheduler = "FP", .duration_s = 10, .mlock = true,
        .slice_s = 1, .hist_us = 10000,
};

static volatile sig_atomic_t stop_requested;
static volatile bool child_interrupted;
static pid_t load_pid, cyclictest_pid;
static char workdir[64];

/* ---- load: stress-ng profiles ---- */

struct load_profile {
        const char *name;
        const char *what;
        const char *args;               /* @N = the number of online CPUs */
};

/*
 * Equivalents of the seeds' loads (001: CPU burn and I/O; 004 and Xenomai's
 * dohell: CPU, I/O, memory, network, fork).  Documented in PERFORMANCE.md.
 */
static const struct load_profile load_profiles[] = {
        { "cpu", "one CPU burner per CPU", "--cpu @N --cpu-method all" },
        { "io", "sync() and file writes", "--io 1 --hdd 1 --hdd-bytes 16M" },
        { "vm", "memory allocation and touching", "--vm 1 --vm-bytes 128M" },
        { "dohell", "CPU + I/O + memory + sockets + fork, like Xenomai's dohell",
          "--cpu @N --io 1 --hdd 1 --hdd-bytes 16M --vm 1 --vm-bytes 64M --sock 1 --fork 1" },
};

static const struct load_profile *find_profile(const char *name) {
        for (size_t i = 0; i < sizeof(load_profiles) / sizeof(load_profiles[0]); i++)
                if (strcmp(load_profiles[i].name, name) == 0)
                        return &load_profiles[i];
        return NULL;
}

static int load_start(const struct load_profile *p, double seconds) {
        char *argv[64], buf[256], ncpu[16], timeout[32];
        int n = 0;

        snprintf(ncpu, sizeof(ncpu), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
        /* A last line of defence: stress-ng stops by itself a while after we should have. */
        snprintf(timeout, sizeof(timeout), "%.0fs", seconds + 60);
        snprintf(buf, sizeof(buf), "%s", p->args);
        argv[n++] = "stress-ng";
        for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && n < 56; w = strtok_r(NULL, " ", &save))
                argv[n++] = strcmp(w, "@N") == 0 ? ncpu : w;
        argv[n++] = "--temp-path";
        argv[n++] = workdir;
        argv[n++] = "--timeout";
        argv[n++] = timeout;
        argv[n++] = "--quiet";
        argv[n] = NULL;
        load_pid = child_spawn(argv, NULL);
        if (load_pid < 0) {
                fprintf(stderr, TOOL ": cannot start stress-ng: %s\n", strerror((int)-load_pid));
                load_pid = 0;
                return -1;
        }
        return 0;
}

static void helpers_stop(void) {
        if (cyclictest_pid > 0)
                child_stop(cyclictest_pid, 1000);
        cyclictest_pid = 0;
        if (load_pid > 0)
                child_stop(load_pid, 2000);
        load_pid = 0;
        if (workdir[0]) {
                char path[128];

                snprintf(path, sizeof(path), "%s/cyclictest.hist", workdir);
                unlink(path);
                snprintf(path, sizeof(path), "%s/cyclictest.out", workdir);
                unlink(path);
                rmdir(workdir);         /* stress-ng's own directories are gone by now */
                workdir[0] = '\0';
        }
}

static void on_signal(int sig) {
        stop_requested = sig;
        child_interrupted = true;
}

/* ---- measurement ---- */

static int64_t ts_ns(const struct timespec *t) {
        return (int64_t)t->tv_sec * NSEC_PER_SEC + t->tv_nsec;
}

static struct timespec ns_ts(int64_t ns) {
        return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };
}

static double us(uint64_t ns) {
        return (double)ns / 1000.0;
}

static void print_header(const struct rtf_spec *s) {
        printf("# %s: periodic task through rtfd, plugin %s, priority %u, CPU %d, period %u us\n", TOOL,
               s->plugin, s->priority, s->core, arg.period_us);
        printf("# RTH|----lat min|----lat avg|----lat max|-overrun|---lat best|--lat worst\n");
}

/*
 * Measure for `ns` nanoseconds or until `loops` more samples (0: no limit),
 * printing one line per second unless quiet.
 */
static void measure(struct side *side, int64_t duration_ns, uint64_t loops) {
        const int64_t period = (int64_t)arg.period_us * 1000;
        struct hist second = HIST_NULL;
        uint64_t overruns_second = 0, n = 0;
        struct timespec t;
        int64_t next, end, second_end;

        second.n_buckets = 0;           /* only count, sum, min and max are used */
        clock_gettime(CLOCK_MONOTONIC, &t);
        next = ts_ns(&t) + period;
        end = ts_ns(&t) + duration_ns;
        second_end = ts_ns(&t) + NSEC_PER_SEC;
        while (!stop_requested && (loops == 0 || n < loops) && next <= end) {
                struct timespec target = ns_ts(next);
                int64_t now, lat;
                int r;

                r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, NULL);
                if (r == EINTR)
                        continue;
                clock_gettime(CLOCK_MONOTONIC, &t);
                now = ts_ns(&t);
                lat = now - next;
                if (lat < 0)
                        lat = 0;
                hist_add(&side->total, (uint64_t)lat);
                hist_add(&second, (uint64_t)lat);
                n++;
                next += period;
                if (now > next) {
                        /* Missed releases are skipped, as Xenomai's latency counts them. */
                        uint64_t missed = (uint64_t)((now - next) / period) + 1;

                        side->overruns += missed;
                        overruns_second += missed;
                        next += (int64_t)missed * period;
                }
                if (now >= second_end) {
                        if (!arg.quiet && !arg.json)
                                printf("RTD|%11.3f|%11.3f|%11.3f|%8" PRIu64 "|%11.3f|%11.3f\n", us(second.min_ns),
                                       us(hist_avg_ns(&second)), us(second.max_ns), overruns_second,
                                       us(side->total.min_ns), us(side->total.max_ns));
                        fflush(stdout);
                        second = HIST_NULL;
                        overruns_second = 0;
                        second_end += NSEC_PER_SEC;
                }
        }
}

/* The last few KiB of a child's output, indented, so that a failure explains itself. */
static void print_file_tail(const char *path, FILE *to) {
        char buf[4096];
        size_t n;
        FILE *f = fopen(path, "re");

        if (!f)
                return;
        if (fseek(f, 0, SEEK_END) == 0 && ftell(f) > (long)sizeof(buf) - 1)
                fseek(f, -(long)sizeof(buf) + 1, SEEK_END);
        else
                rewind(f);
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
                fprintf(to, "  %s\n", line);
}

/* One cyclictest slice with our period, priority, CPU and hint, merged into `side`. */
static int cyclictest_slice(struct side *side, const struct rtf_spec *s, double seconds) {
        char p[16], i[16], a[16], d[32], h[32], histfile[128], out[128], lat[32];
        char *argv[24];
        struct cyclictest_summary sum;
        int n = 0, status, r;
        char *text = NULL;
        size_t len = 0;
        FILE *f;

        snprintf(p, sizeof(p), "-p%u", s->priority ? s->priority : arg.priority);
        snprintf(i, sizeof(i), "-i%u", arg.period_us);
        snprintf(d, sizeof(d), "-D%ld", (long)(seconds < 1 ? 1 : seconds + 0.5));
        snprintf(h, sizeof(h), "-h%u", arg.hist_us);
        snprintf(histfile, sizeof(histfile), "--histfile=%s/cyclictest.hist", workdir);
        snprintf(out, sizeof(out), "%s/cyclictest.out", workdir);
        argv[n++] = "cyclictest";
        argv[n++] = "-m";
        argv[n++] = "-q";
        argv[n++] = "-t1";
        argv[n++] = p;
        argv[n++] = i;
        argv[n++] = d;
        argv[n++] = h;
        argv[n++] = histfile;
        if (s->core >= 0) {
                snprintf(a, sizeof(a), "-a%d", s->core);
                argv[n++] = a;
        }
        if (arg.hint_us >= 0) {
                snprintf(lat, sizeof(lat), "--latency=%d", (int)arg.hint_us);
                argv[n++] = lat;
        } else {
                argv[n++] = "--default-system";
        }
        argv[n] = NULL;

        cyclictest_pid = child_spawn(argv, out);
        if (cyclictest_pid < 0) {
                fprintf(stderr, TOOL ": cannot start cyclictest: %s\n", strerror((int)-cyclictest_pid));
                cyclictest_pid = 0;
                return -1;
        }
        status = child_wait(cyclictest_pid, -1, &child_interrupted);
        if (status == -EINTR) {
                child_stop(cyclictest_pid, 1000);
                cyclictest_pid = 0;
                return 0;
        }
        cyclictest_pid = 0;
        if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                /* Its output now: the file goes with the temporary directory. */
                if (status >= 0 && WIFEXITED(status))
                        fprintf(stderr, TOOL ": cyclictest failed (exit status %d):\n", WEXITSTATUS(status));
                else if (status >= 0 && WIFSIGNALED(status))
                        fprintf(stderr, TOOL ": cyclictest failed (killed by signal %d):\n", WTERMSIG(status));
                else
                        fprintf(stderr, TOOL ": cyclictest failed: %s\n", strerror(-status));
                print_file_tail(out, stderr);
                return -1;
        }
        f = fopen(histfile + strlen("--histfile="), "re");
        if (!f) {
                fprintf(stderr, TOOL ": cyclictest wrote no histogram: %m\n");
                return -1;
        }
        {
                char buf[4096];
                size_t got;
                FILE *m = open_memstream(&text, &len);

                while (m && (got = fread(buf, 1, sizeof(buf), f)) > 0)
                        fwrite(buf, 1, got, m);
                if (m)
                        fclose(m);
        }
        fclose(f);
        r = text ? cyclictest_parse(text, len, &side->total, &sum) : -ENOMEM;
        free(text);
        if (r < 0) {
                fprintf(stderr, TOOL ": cannot read cyclictest's histogram\n");
                return -1;
        }
        side->slices++;
        if (!arg.quiet && !arg.json)
                printf("CTD|%11.3f|%11.3f|%11.3f|%8s| %" PRIu64 " samples in this slice\n", (double)sum.min_us,
                       (double)sum.avg_us, (double)sum.max_us, "-", sum.total);
        return 0;
}

/* ---- output ---- */

static json_object *side_json(const struct side *s) {
        json_object *o = json_object_new_object(), *h = json_object_new_array();
        const struct hist *t = &s->total;

        json_object_object_add(o, "samples", json_object_new_uint64(t->count));
        json_object_object_add(o, "min_ns", json_object_new_uint64(t->count ? t->min_ns : 0));
        json_object_object_add(o, "avg_ns", json_object_new_uint64(hist_avg_ns(t)));
        json_object_object_add(o, "p50_ns", json_object_new_uint64(hist_percentile_ns(t, 0.50)));
        json_object_object_add(o, "p99_ns", json_object_new_uint64(hist_percentile_ns(t, 0.99)));
        json_object_object_add(o, "p999_ns", json_object_new_uint64(hist_percentile_ns(t, 0.999)));
        json_object_object_add(o, "max_ns", json_object_new_uint64(t->max_ns));
        json_object_object_add(o, "overruns", json_object_new_uint64(s->overruns));
        json_object_object_add(o, "histogram_overflows", json_object_new_uint64(t->overflows));
        json_object_object_add(o, "histogram_bucket_ns", json_object_new_int(1000));
        for (uint32_t i = 0; i < t->n_buckets; i++) {
                json_object *b;

                if (!t->buckets[i])
                        continue;
                b = json_object_new_array();
                json_object_array_add(b, json_object_new_int64(i));
                json_object_array_add(b, json_object_new_uint64(t->buckets[i]));
                json_object_array_add(h, b);
        }
        json_object_object_add(o, "histogram_us", h);
        return o;
}

static json_object *ratio(uint64_t a, uint64_t b) {
        return b ? json_object_new_double((double)a / (double)b) : NULL;
}

static void print_summary(const struct side *s) {
        const struct hist *t = &s->total;

        printf("# %s: %" PRIu64 " samples, %" PRIu64 " overruns, %" PRIu64 " beyond the histogram (%u us)\n",
               s->name, t->count, s->overruns, t->overflows, arg.hist_us);
        printf("RTS|%-10s|min %9.3f|avg %9.3f|p50 %9.3f|p99 %9.3f|p99.9 %9.3f|max %9.3f| us\n", s->name,
               us(t->count ? t->min_ns : 0), us(hist_avg_ns(t)), us(hist_percentile_ns(t, 0.5)),
               us(hist_percentile_ns(t, 0.99)), us(hist_percentile_ns(t, 0.999)), us(t->max_ns));
        if (arg.print_histogram)
                for (uint32_t i = 0; i < t->n_buckets; i++)
                        if (t->buckets[i])
                                printf("HSD|%s|%6u|%10" PRIu64 "\n", s->name, i, t->buckets[i]);
}

/* ---- options ---- */

static void help(void) {
        printf("Usage: " TOOL " [OPTIONS]\n"
               "Measure the wake-up latency of a periodic task admitted through rtfd ($RTF_SOCKET).\n\n"
               "  -p, --period=US          period in us (default 1000, at least 100)\n"
               "  -P, --priority=N         requested priority 1..99 (default 90)\n"
               "  -s, --scheduler=NAME     plugin instance to ask (default FP); \"\" = any\n"
               "  -r, --runtime=US         runtime to request (EDF, RM; default: none)\n"
               "  -d, --duration=SECONDS   how long to measure (default 10; both sides together with --compare)\n"
               "  -l, --loops=N            stop after N samples (per side)\n"
               "  -q, --quiet              print only the summary\n"
               "  -H, --histogram-us=US    histogram range in 1 us buckets (default 10000); more is overflow\n"
               "      --print-histogram    print the histogram's buckets in the text output\n"
               "      --no-mlock           do not mlockall()\n"
               "      --load[=PROFILE]     run stress-ng meanwhile: cpu, io, vm or dohell (default dohell)\n"
               "      --compare=cyclictest alternate slices of cyclictest with the same period, priority,\n"
               "                           CPU and latency hint in the same run; report both and the ratios\n"
               "      --slice=SECONDS      length of one slice with --compare (default 1)\n"
               "      --latency-hint=US    the /dev/cpu_dma_latency value rtfd holds, given to cyclictest\n"
               "                           (default 0; \"off\" runs cyclictest with --default-system)\n"
               "      --json               print one JSON document (cyclictest's envelope) instead of text\n"
               "      --plot=FILE.png      draw the histogram(s), both axes log scale (needs python3-matplotlib)\n"
               "  -h, --help               this text\n"
               "      --version            the version\n");
}

static int parse_seconds(const char *s, const char *what, double *ret) {
        char *end;
        double v;

        errno = 0;
        v = strtod(s, &end);
        if (errno || end == s || *end || !(v > 0) || v > 86400.0 * 365) {
                fprintf(stderr, TOOL ": %s must be a positive number of seconds, not \"%s\"\n", what, s);
                return -1;
        }
        *ret = v;
        return 0;
}

static int parse_args(int argc, char *argv[]) {
        enum { OPT_VERSION = 0x100, OPT_JSON, OPT_PLOT, OPT_LOAD, OPT_COMPARE, OPT_SLICE, OPT_HINT, OPT_NO_MLOCK,
               OPT_PRINT_HIST };
        static const struct option options[] = {
                { "period", required_argument, NULL, 'p' },
                { "priority", required_argument, NULL, 'P' },
                { "scheduler", required_argument, NULL, 's' },
                { "runtime", required_argument, NULL, 'r' },
                { "duration", required_argument, NULL, 'd' },
                { "loops", required_argument, NULL, 'l' },
                { "quiet", no_argument, NULL, 'q' },
                { "histogram-us", required_argument, NULL, 'H' },
                { "print-histogram", no_argument, NULL, OPT_PRINT_HIST },
                { "no-mlock", no_argument, NULL, OPT_NO_MLOCK },
                { "load", optional_argument, NULL, OPT_LOAD },
                { "compare", required_argument, NULL, OPT_COMPARE },
                { "slice", required_argument, NULL, OPT_SLICE },
                { "latency-hint", required_argument, NULL, OPT_HINT },
                { "json", no_argument, NULL, OPT_JSON },
                { "plot", required_argument, NULL, OPT_PLOT },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                { 0 }
        };
        int c;

        while ((c = getopt_long(argc, argv, "p:P:s:r:d:l:qH:h", options, NULL)) >= 0) {
                uint32_t v;

                switch (c) {
                case 'p':
                        if (options_u32(TOOL, "--period", optarg, 100, 10000000, &arg.period_us) < 0)
                                return -1;
                        break;
                case 'P':
                        if (options_u32(TOOL, "--priority", optarg, 1, 99, &arg.priority) < 0)
                                return -1;
                        break;
                case 's':
                        arg.scheduler = optarg;
                        break;
                case 'r':
                        if (options_u32(TOOL, "--runtime", optarg, 1, 10000000, &arg.runtime_us) < 0)
                                return -1;
                        break;
                case 'd':
                        if (parse_seconds(optarg, "--duration", &arg.duration_s) < 0)
                                return -1;
                        break;
                case 'l':
                        if (options_u32(TOOL, "--loops", optarg, 1, UINT32_MAX, &v) < 0)
                                return -1;
                        arg.loops = v;
                        break;
                case 'q':
                        arg.quiet = true;
                        break;
                case 'H':
                        if (options_u32(TOOL, "--histogram-us", optarg, 1, HIST_MAX_BUCKETS, &arg.hist_us) < 0)
                                return -1;
                        break;
                case OPT_PRINT_HIST:
                        arg.print_histogram = true;
                        break;
                case OPT_NO_MLOCK:
                        arg.mlock = false;
                        break;
                case OPT_LOAD:
                        arg.load = optarg ? optarg : "dohell";
                        if (!find_profile(arg.load)) {
                                fprintf(stderr, TOOL ": unknown --load profile \"%s\" (cpu, io, vm, dohell)\n",
                                        arg.load);
                                return -1;
                        }
                        break;
                case OPT_COMPARE:
                        if (strcmp(optarg, "cyclictest") != 0) {
                                fprintf(stderr, TOOL ": --compare knows only cyclictest\n");
                                return -1;
                        }
                        arg.compare = true;
                        break;
                case OPT_SLICE:
                        if (parse_seconds(optarg, "--slice", &arg.slice_s) < 0)
                                return -1;
                        break;
                case OPT_HINT:
                        if (strcmp(optarg, "off") == 0)
                                arg.hint_us = -1;
                        else if (options_u32(TOOL, "--latency-hint", optarg, 0, INT32_MAX, &v) < 0)
                                return -1;
                        else
                                arg.hint_us = (int32_t)v;
                        break;
                case OPT_JSON:
                        arg.json = true;
                        break;
                case OPT_PLOT:
                        arg.plot = optarg;
                        break;
                case 'h':
                        help();
                        exit(EXIT_SUCCESS);
                case OPT_VERSION:
                        options_print_version(TOOL);
                        exit(EXIT_SUCCESS);
                default:
                        return -1;
                }
        }
        return options_no_operands(TOOL, argc, argv, optind) < 0 ? -1 : 0;
}

/* On failure `why` says why, for the text and the JSON output alike. */
static int reserve(struct rtf_spec *s, char *why, size_t why_size) {
        struct rtf_params p = RTF_PARAMS_INIT;
        int r;

        r = rtf_connect();
        if (r != RTF_OK) {
                snprintf(why, why_size, "cannot connect to rtfd (%s): %s",
                         getenv("RTF_SOCKET") ? getenv("RTF_SOCKET") : "the default socket", rtf_strerror(r));
                return -1;
        }
        rtf_params_set_period(&p, arg.period_us);
        rtf_params_set_priority(&p, arg.priority);
        if (arg.runtime_us)
                rtf_params_set_runtime(&p, arg.runtime_us);
        if (arg.scheduler && arg.scheduler[0])
                rtf_params_set_scheduler(&p, arg.scheduler);
        r = rtf_spec_create(s, &p);
        if (r != RTF_OK) {
                snprintf(why, why_size, "rtfd refused the reservation: %s: %s", rtf_strerror(r), rtf_last_reason());
                return -1;
        }
        r = rtf_spec_attach(s, 0);
        if (r != RTF_OK) {
                snprintf(why, why_size, "rtfd could not attach the measuring thread: %s: %s", rtf_strerror(r),
                         rtf_last_reason());
                return -1;
        }
        return 0;
}

int main(int argc, char *argv[]) {
        struct side sides[2] = { { .name = "rtf" }, { .name = "cyclictest" } };
        struct rtf_spec spec = RTF_SPEC_INIT, granted = RTF_SPEC_INIT;
        struct sigaction sa = { .sa_handler = on_signal };
        json_object *doc, *params;
        int rc = EXIT_FAILURE, n_sides;
        char failure[512] = "";         /* why nothing was measured */

        if (parse_args(argc, argv) < 0) {
                fprintf(stderr, "Try '" TOOL " --help'.\n");
                return EXIT_FAILURE;
        }
        if (arg.compare && geteuid() != 0) {
                /* Said before anything runs, not after a first slice of ours. */
                fprintf(stderr, TOOL ": --compare cyclictest needs root: cyclictest sets its own real-time "
                                "priority and locks its memory itself, outside rtfd; run " TOOL " as root, or "
                                "without --compare\n");
                return EXIT_FAILURE;
        }
        n_sides = arg.compare ? 2 : 1;
        doc = envelope_new(TOOL, argc, argv);
        for (int i = 0; i < 2; i++)
                if (hist_init(&sides[i].total, arg.hist_us) < 0) {
                        fprintf(stderr, TOOL ": out of memory\n");
                        return EXIT_FAILURE;
                }
        /* No SA_RESTART: a signal must interrupt the sleep and the wait for cyclictest. */
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
        snprintf(workdir, sizeof(workdir), "/tmp/rtf-latency-XXXXXX");
        if (!mkdtemp(workdir)) {
                fprintf(stderr, TOOL ": cannot make a temporary directory: %m\n");
                workdir[0] = '\0';
                goto out;
        }
        if (arg.mlock && mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
                fprintf(stderr, TOOL ": warning: mlockall: %m\n");
        if (arg.load) {
                if (load_start(find_profile(arg.load), arg.duration_s) < 0)
                        goto out;
                usleep(500000);         /* let the load ramp up */
        }
        if (reserve(&spec, failure, sizeof(failure)) < 0) {
                fprintf(stderr, TOOL ": %s\n", failure);
                goto out;
        }
        granted = spec;                 /* rtf_spec_release() clears spec */
        if (spec.priority && spec.priority != arg.priority)
                /* FP and RR map a request into their configured range (eq. 6 of the ReTiF paper). */
                fprintf(stderr, TOOL ": note: plugin %s granted priority %u where %u was asked: it maps "
                                "priorities into its configured range (rtfctl status shows it)\n",
                        spec.plugin, spec.priority, arg.priority);
        if (!arg.json && !arg.quiet)
                print_header(&spec);

        if (!arg.compare) {
                measure(&sides[0], (int64_t)(arg.duration_s * NSEC_PER_SEC), arg.loops);
        } else {
                /* Equal shares: a slice of ours, a slice of cyclictest's, until both had their half. */
                int64_t slice_ns = (int64_t)(arg.slice_s * NSEC_PER_SEC);
                int64_t half_ns = (int64_t)(arg.duration_s * NSEC_PER_SEC / 2);
                int64_t done_ns = 0;

                if (half_ns < slice_ns)
                        slice_ns = half_ns;
                while (!stop_requested && done_ns < half_ns &&
                       (arg.loops == 0 || sides[0].total.count < arg.loops)) {
                        uint64_t left = arg.loops ? arg.loops - sides[0].total.count : 0;

                        measure(&sides[0], slice_ns, left);
                        if (stop_requested)
                                break;
                        if (cyclictest_slice(&sides[1], &spec, (double)slice_ns / NSEC_PER_SEC) < 0)
                                goto out;
                        done_ns += slice_ns;
                }
        }
        rc = stop_requested && sides[0].total.count == 0 ? EXIT_FAILURE : EXIT_SUCCESS;

out:
        /* Demote ourselves before the reports; rtfd would on exit anyway. */
        if (spec.id)
                rtf_spec_release(&spec);
        helpers_stop();

        params = json_object_new_object();
        json_object_object_add(params, "period_us", json_object_new_int64(arg.period_us));
        json_object_object_add(params, "priority_requested", json_object_new_int64(arg.priority));
        json_object_object_add(params, "priority", json_object_new_int64(granted.priority));
        json_object_object_add(params, "plugin", json_object_new_string(granted.plugin));
        json_object_object_add(params, "cpu", json_object_new_int(granted.core));
        json_object_object_add(params, "duration_s", json_object_new_double(arg.duration_s));
        json_object_object_add(params, "loops", json_object_new_uint64(arg.loops));
        json_object_object_add(params, "mlockall", json_object_new_boolean(arg.mlock));
        json_object_object_add(params, "load", arg.load ? json_object_new_string(arg.load) : NULL);
        json_object_object_add(params, "load_command",
                               arg.load ? json_object_new_string(find_profile(arg.load)->args) : NULL);
        json_object_object_add(params, "compare", arg.compare ? json_object_new_string("cyclictest") : NULL);
        json_object_object_add(params, "slice_s", json_object_new_double(arg.slice_s));
        json_object_object_add(params, "latency_hint_us", arg.hint_us >= 0 ? json_object_new_int(arg.hint_us) : NULL);
        json_object_object_add(params, "histogram_us", json_object_new_int64(arg.hist_us));
        json_object_object_add(doc, "parameters", params);
        json_object_object_add(doc, "stopped_by_signal", json_object_new_int(stop_requested));
        json_object_object_add(doc, "error", failure[0] ? json_object_new_string(failure) : NULL);
        json_object_object_add(doc, "rtf", side_json(&sides[0]));
        if (arg.compare) {
                const struct hist *a = &sides[0].total, *b = &sides[1].total;

                json_object_object_add(doc, "cyclictest", side_json(&sides[1]));
                json_object_object_add(doc, "ratio_avg", ratio(hist_avg_ns(a), hist_avg_ns(b)));
                json_object_object_add(doc, "ratio_p99",
                                       ratio(hist_percentile_ns(a, 0.99), hist_percentile_ns(b, 0.99)));
                json_object_object_add(doc, "ratio_max", ratio(a->max_ns, b->max_ns));
        }
        if (arg.plot && rc == EXIT_SUCCESS) {
                char buf[4096];

                if (plot_run(TOOL, plot_script("RTF_PLOT_SCRIPT", "plot-latency.py", buf, sizeof(buf)), doc,
                             arg.plot) < 0)
                        rc = EXIT_FAILURE;
        }
        if (workdir[0]) {
                rmdir(workdir);
                workdir[0] = '\0';
        }
        envelope_finish(doc, rc);
        if (arg.json) {
                printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY));
        } else if (!failure[0]) {
                /* Without a reservation nothing was measured: no summary of zeros. */
                for (int i = 0; i < n_sides; i++)
                        print_summary(&sides[i]);
                if (arg.compare) {
                        json_object *v;

                        printf("# ratios rtf/cyclictest:");
                        if (json_object_object_get_ex(doc, "ratio_avg", &v) && v)
                                printf(" avg %.3f", json_object_get_double(v));
                        if (json_object_object_get_ex(doc, "ratio_p99", &v) && v)
                                printf(" p99 %.3f", json_object_get_double(v));
                        if (json_object_object_get_ex(doc, "ratio_max", &v) && v)
                                printf(" max %.3f", json_object_get_double(v));
                        printf("\n");
                }
        }
        json_object_put(doc);
        for (int i = 0; i < 2; i++)
                hist_deinit(&sides[i].total);
        return rc;
}
