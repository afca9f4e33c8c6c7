/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-bench: section 6 of the paper on the machine at hand.
 *
 *  - rtf_spec_create and rtf_spec_change latency against the number of tasks
 *    already admitted, for each plugin and number of cores given to it, each
 *    configuration in a private rtfd started for it (Figs. 3 and 5);
 *  - rtf_spec_attach against a direct sched_setscheduler/sched_setattr on the
 *    same thread;
 *  - the floor, measured in the same run: a bare AF_UNIX SOCK_SEQPACKET
 *    round trip of the same sizes between the same two CPUs;
 *  - rtfd's memory (USS, /proc/PID/smaps_rollup) idle and with 4096 specs.
 *
 * The private daemons get a cpuset root that does not exist, so that EDF on
 * a subset of the CPUs never partitions the machine (the admission math is
 * what is measured, not the cpusets).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <rtf/rtf.h>

#include "child.h"
#include "envelope.h"
#include "protocol.h"
#include "rtf-config.h"
#include "sched-attr.h"
#include "stats.h"

#define TOOL "rtf-bench"
#define MAX_LIST 16
#define USS_TASKS 4096

struct plugin_kind {
        const char *name;
        const char *range;
};

static const struct plugin_kind kinds[] = {
        { "EDF", "100-100" }, { "RM", "50-89" }, { "FP", "1-89" }, { "RR", "1-89" },
};

static struct {
        const char *plugins[4];
        int n_plugins;
        uint32_t cores[MAX_LIST];
        int n_cores;
        uint32_t tasks[MAX_LIST];
        int n_tasks;
        uint32_t samples;
        int client_cpu, daemon_cpu;
        const char *rtfd;
        const char *plugindir;
        bool json, csv;
        const char *plot;
        int32_t hint_us;
        bool spread_periods;
} arg = {
        .samples = 200,
        .hint_us = 0,
};

struct row {
        const char *plugin;
        uint32_t cores, tasks, samples;
        uint64_t create_p50, create_p99, change_p50, change_p99;
};

static struct row rows[4 * MAX_LIST * MAX_LIST];
static size_t n_rows;
static volatile sig_atomic_t interrupted;

/* ---- time and samples ---- */

static uint64_t now_ns(void) {
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t p_of(uint64_t *v, size_t n, double q) {
        qsort(v, n, sizeof(*v), u64_compare);
        return samples_percentile(v, n, q);
}

static int pin(pid_t pid, int cpu) {
        cpu_set_t set;

        if (cpu < 0)
                return 0;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        return sched_setaffinity(pid, sizeof(set), &set) < 0 ? -errno : 0;
}

/* ---- the floor: a bare round trip of rtfd's message sizes ---- */

static int measure_rtt(uint64_t *ret_p50, uint64_t *ret_p99, size_t *ret_req, size_t *ret_rep) {
        const size_t req = sizeof(struct rtf_msg_header) + sizeof(struct rtf_msg_create);
        const size_t rep = sizeof(struct rtf_msg_header) + sizeof(struct rtf_msg_reply);
        const size_t n = (size_t)arg.samples * 10;
        char buf[4096] = { 0 };
        uint64_t *v;
        int sv[2];
        pid_t pid;

        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return -errno;
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(sv[0]);
                pin(0, arg.daemon_cpu);
                while (recv(sv[1], buf, sizeof(buf), 0) > 0)
                        if (send(sv[1], buf, rep, 0) < 0)
                                break;
                _exit(0);
        }
        close(sv[1]);
        v = calloc(n, sizeof(*v));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < n + 100; i++) {
                uint64_t t0 = now_ns();

                if (send(sv[0], buf, req, 0) < 0 || recv(sv[0], buf, sizeof(buf), 0) < 0)
                        break;
                if (i >= 100)           /* warm-up */
                        v[i - 100] = now_ns() - t0;
        }
        close(sv[0]);
        waitpid(pid, NULL, 0);
        *ret_p50 = p_of(v, n, 0.5);
        *ret_p99 = samples_percentile(v, n, 0.99);
        *ret_req = req;
        *ret_rep = rep;
        free(v);
        return 0;
}

/* ---- a private rtfd ---- */

struct daemon {
        pid_t pid;
        char dir[64];
        char socket[128];
};

static int write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "we");

        if (!f)
                return -errno;
        fputs(text, f);
        if (fclose(f) != 0)
                return -errno;
        return chmod(path, 0644) < 0 ? -errno : 0;
}

static void daemon_stop(struct daemon *d) {
        char path[192];

        rtf_disconnect();
        if (d->pid > 0)
                child_stop(d->pid, 5000);
        d->pid = 0;
        if (!d->dir[0])
                return;
        for (const char *f = "rtfd.conf\0acl.conf\0state\0rtfd.log\0rtfd.sock\0"; *f; f += strlen(f) + 1) {
                snprintf(path, sizeof(path), "%s/%s", d->dir, f);
                unlink(path);
        }
        rmdir(d->dir);
        d->dir[0] = '\0';
}

static int daemon_start(struct daemon *d, const char *config) {
        char conf[128], acl[128], state[128], log[128], cpuset[128];
        char *argv[20];
        int n = 0, r;

        *d = (struct daemon){ 0 };
        snprintf(d->dir, sizeof(d->dir), "/tmp/rtf-bench-XXXXXX");
        if (!mkdtemp(d->dir)) {
                d->dir[0] = '\0';
                return -errno;
        }
        snprintf(conf, sizeof(conf), "%s/rtfd.conf", d->dir);
        snprintf(acl, sizeof(acl), "%s/acl.conf", d->dir);
        snprintf(state, sizeof(state), "%s/state", d->dir);
        snprintf(log, sizeof(log), "%s/rtfd.log", d->dir);
        snprintf(cpuset, sizeof(cpuset), "%s/no-cpusets", d->dir);
        snprintf(d->socket, sizeof(d->socket), "%s/rtfd.sock", d->dir);
        if ((r = write_text(conf, config)) < 0 || (r = write_text(acl, "")) < 0)
                goto fail;
        argv[n++] = (char *)arg.rtfd;
        argv[n++] = "--foreground";
        argv[n++] = "--config";
        argv[n++] = conf;
        argv[n++] = "--socket";
        argv[n++] = d->socket;
        argv[n++] = "--plugindir";
        argv[n++] = (char *)arg.plugindir;
        argv[n++] = "--acl";
        argv[n++] = acl;
        argv[n++] = "--state-file";
        argv[n++] = state;
        argv[n++] = "--cpuset-root";
        argv[n++] = cpuset;
        argv[n] = NULL;
        d->pid = child_spawn(argv, log);
        if (d->pid < 0) {
                r = d->pid;
                d->pid = 0;
                goto fail;
        }
        setenv("RTF_SOCKET", d->socket, 1);
        for (int i = 0; i < 500; i++) {
                if (waitpid(d->pid, NULL, WNOHANG) == d->pid) {
                        d->pid = 0;
                        r = -ECHILD;
                        goto fail;
                }
                if (access(d->socket, F_OK) == 0 && rtf_connect() == RTF_OK) {
                        pin(d->pid, arg.daemon_cpu);
                        return 0;
                }
                usleep(10000);
        }
        r = -ETIMEDOUT;
fail:
        fprintf(stderr, TOOL ": cannot start %s with\n%s(%s); see %s\n", arg.rtfd, config, strerror(-r), log);
        {
                /* Show rtfd's complaint before the directory goes. */
                char line[512];
                FILE *f = fopen(log, "re");

                while (f && fgets(line, sizeof(line), f))
                        fprintf(stderr, "  %s", line);
                if (f)
                        fclose(f);
        }
        daemon_stop(d);
        return r;
}

static long uss_kib(pid_t pid) {
        char path[64], line[256];
        long total = -1, v;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Private_Clean: %ld kB", &v) == 1 || sscanf(line, "Private_Dirty: %ld kB", &v) == 1 ||
                    sscanf(line, "Private_Hugetlb: %ld kB", &v) == 1)
                        total = (total < 0 ? 0 : total) + v;
        fclose(f);
        return total;
}

/* ---- requests ---- */

/*
 * A task that fills the plugin: tiny utilisation, one period (1 s), spread
 * priorities.  One period keeps RM's O(1) tests deciding; with more distinct
 * periods than RM has priorities, RM falls back to response-time analysis
 * (see PERFORMANCE.md); --spread-periods measures that.
 */
static void filler_params(const char *plugin, uint32_t i, struct rtf_params *p) {
        *p = (struct rtf_params)RTF_PARAMS_INIT;
        rtf_params_set_scheduler(p, plugin);
        rtf_params_set_period(p, 1000000 + (arg.spread_periods ? (uint64_t)i * 7 : 0));
        if (strcmp(plugin, "EDF") == 0 || strcmp(plugin, "RM") == 0)
                rtf_params_set_runtime(p, 10);
        else
                rtf_params_set_priority(p, 1 + i % 89);
}

/* The request that is timed; `variant` alternates two parameter sets for change. */
static void probe_params(const char *plugin, int variant, struct rtf_params *p) {
        *p = (struct rtf_params)RTF_PARAMS_INIT;
        rtf_params_set_scheduler(p, plugin);
        rtf_params_set_period(p, 10000);
        if (strcmp(plugin, "EDF") == 0 || strcmp(plugin, "RM") == 0)
                rtf_params_set_runtime(p, variant ? 200 : 100);
        else
                rtf_params_set_priority(p, variant ? 51 : 50);
}

static int fail_request(const char *what, int r) {
        fprintf(stderr, TOOL ": %s: %s: %s\n", what, rtf_strerror(r), rtf_last_reason());
        return -1;
}

static int bench_config(const char *plugin, const char *range, uint32_t cores) {
        struct rtf_spec *fill = NULL, probe = RTF_SPEC_INIT;
        struct daemon d;
        uint64_t *create = NULL, *change = NULL;
        uint32_t admitted = 0, max_tasks = 0;
        char config[256];
        int r = -1;

        for (int i = 0; i < arg.n_tasks; i++)
                if (arg.tasks[i] > max_tasks)
                        max_tasks = arg.tasks[i];
        /* max_tasks is per core: allow every filler on one core. */
        snprintf(config, sizeof(config), "%s %s.so %s 0-%u max_tasks=%u\n", plugin, plugin, range, cores - 1,
                 max_tasks + 64 < 1024 ? 1024 : max_tasks + 64);
        if (daemon_start(&d, config) < 0)
                return -1;
        fill = calloc(max_tasks + 1, sizeof(*fill));
        create = calloc(arg.samples, sizeof(*create));
        change = calloc(arg.samples, sizeof(*change));
        if (!fill || !create || !change)
                goto out;
        for (int t = 0; t < arg.n_tasks && !interrupted; t++) {
                struct row *row = &rows[n_rows];
                struct rtf_params p;

                for (; admitted < arg.tasks[t]; admitted++) {
                        fill[admitted] = (struct rtf_spec)RTF_SPEC_INIT;
                        filler_params(plugin, admitted, &p);
                        r = rtf_spec_create(&fill[admitted], &p);
                        if (r != RTF_OK) {
                                fail_request("filling the plugin", r);
                                r = -1;
                                goto out;
                        }
                }
                for (uint32_t i = 0; i < arg.samples; i++) {
                        uint64_t t0;

                        probe = (struct rtf_spec)RTF_SPEC_INIT;
                        probe_params(plugin, 0, &p);
                        t0 = now_ns();
                        r = rtf_spec_create(&probe, &p);
                        create[i] = now_ns() - t0;
                        if (r != RTF_OK) {
                                fail_request("rtf_spec_create", r);
                                r = -1;
                                goto out;
                        }
                        if (i + 1 < arg.samples)
                                rtf_spec_release(&probe);
                }
                for (uint32_t i = 0; i < arg.samples; i++) {
                        uint64_t t0;

                        probe_params(plugin, (int)(i & 1) ^ 1, &p);
                        t0 = now_ns();
                        r = rtf_spec_change(&probe, &p);
                        change[i] = now_ns() - t0;
                        if (r != RTF_OK) {
                                fail_request("rtf_spec_change", r);
                                r = -1;
                                goto out;
                        }
                }
                rtf_spec_release(&probe);
                *row = (struct row){
                        .plugin = plugin, .cores = cores, .tasks = arg.tasks[t], .samples = arg.samples,
                        .create_p50 = p_of(create, arg.samples, 0.5),
                        .create_p99 = samples_percentile(create, arg.samples, 0.99),
                        .change_p50 = p_of(change, arg.samples, 0.5),
                        .change_p99 = samples_percentile(change, arg.samples, 0.99),
                };
                n_rows++;
                if (!arg.json && !arg.csv) {
                        printf("%-6s %5u %6u %10.1f %10.1f %10.1f %10.1f\n", plugin, cores, row->tasks,
                               row->create_p50 / 1e3, row->create_p99 / 1e3, row->change_p50 / 1e3,
                               row->change_p99 / 1e3);
                        fflush(stdout);
                }
        }
        r = 0;
out:
        daemon_stop(&d);                /* rtfd releases everything with the connection */
        free(fill);
        free(create);
        free(change);
        return r;
}

/* ---- attach against the direct system calls; USS ---- */

struct sleeper {
        pthread_t thread;
        pid_t tid;
        int pipe[2];
};

static void *sleeper_main(void *data) {
        struct sleeper *s = data;
        char c;

        s->tid = gettid();
        while (read(s->pipe[0], &c, 1) < 0 && errno == EINTR)
                ;
        return NULL;
}

struct attach_result {
        uint64_t attach_p50, attach_p99, setscheduler_p50, setattr_p50;
        long uss_idle, uss_full;
};

static int bench_attach(struct attach_result *ret) {
        struct sleeper sl = { 0 };
        struct rtf_spec s = RTF_SPEC_INIT, *fill = NULL;
        struct rtf_params p = RTF_PARAMS_INIT;
        uint64_t *v = calloc(arg.samples, sizeof(*v));
        struct daemon d;
        int r = -1;

        if (!v)
                return -1;
        if (daemon_start(&d, "FP FP.so 1-99 all max_tasks=8192\n") < 0) {
                free(v);
                return -1;
        }
        ret->uss_idle = uss_kib(d.pid);
        if (pipe2(sl.pipe, O_CLOEXEC) < 0 || pthread_create(&sl.thread, NULL, sleeper_main, &sl) != 0)
                goto out;
        while (__atomic_load_n(&sl.tid, __ATOMIC_ACQUIRE) == 0)
                usleep(100);
        usleep(1000);                   /* asleep in read() */
        rtf_params_set_scheduler(&p, "FP");
        rtf_params_set_priority(&p, 10);
        rtf_params_set_period(&p, 10000);
        r = rtf_spec_create(&s, &p);
        if (r != RTF_OK) {
                r = fail_request("rtf_spec_create", r);
                goto out;
        }
        for (uint32_t i = 0; i < arg.samples; i++) {
                uint64_t t0 = now_ns();

                r = rtf_spec_attach(&s, sl.tid);
                v[i] = now_ns() - t0;
                if (r != RTF_OK) {
                        r = fail_request("rtf_spec_attach", r);
                        goto out;
                }
                rtf_spec_detach(&s);
        }
        ret->attach_p50 = p_of(v, arg.samples, 0.5);
        ret->attach_p99 = samples_percentile(v, arg.samples, 0.99);
        for (uint32_t i = 0; i < arg.samples; i++) {
                struct sched_param fifo = { .sched_priority = 10 }, other = { 0 };
                uint64_t t0 = now_ns();

                if (sched_setscheduler(sl.tid, SCHED_FIFO, &fifo) < 0) {
                        fprintf(stderr, TOOL ": sched_setscheduler: %m\n");
                        goto out;
                }
                v[i] = now_ns() - t0;
                sched_setscheduler(sl.tid, SCHED_OTHER, &other);
        }
        ret->setscheduler_p50 = p_of(v, arg.samples, 0.5);
        for (uint32_t i = 0; i < arg.samples; i++) {
                struct rtf_sched_attr fifo = { .size = sizeof(fifo), .sched_policy = SCHED_FIFO, .sched_priority = 10 };
                struct rtf_sched_attr other = { .size = sizeof(other), .sched_policy = SCHED_OTHER };
                uint64_t t0 = now_ns();

                r = rtf_sched_setattr(sl.tid, &fifo, 0);
                v[i] = now_ns() - t0;
                if (r < 0) {
                        fprintf(stderr, TOOL ": sched_setattr: %s\n", strerror(-r));
                        goto out;
                }
                rtf_sched_setattr(sl.tid, &other, 0);
        }
        ret->setattr_p50 = p_of(v, arg.samples, 0.5);
        rtf_spec_release(&s);

        fill = calloc(USS_TASKS, sizeof(*fill));
        if (!fill)
                goto out;
        for (uint32_t i = 0; i < USS_TASKS; i++) {
                fill[i] = (struct rtf_spec)RTF_SPEC_INIT;
                filler_params("FP", i, &p);
                r = rtf_spec_create(&fill[i], &p);
                if (r != RTF_OK) {
                        r = fail_request("filling rtfd for its USS", r);
                        goto out;
                }
        }
        ret->uss_full = uss_kib(d.pid);
        r = 0;
out:
        if (sl.tid) {
                close(sl.pipe[1]);
                pthread_join(sl.thread, NULL);
                close(sl.pipe[0]);
        }
        daemon_stop(&d);
        free(fill);
        free(v);
        return r;
}

/* ---- options ---- */

static void help(void) {
        printf("Usage: " TOOL " [OPTIONS]\n"
               "Measure what rtfd costs (section 6 of the ReTiF paper).  Needs root: it starts a private\n"
               "rtfd per configuration.\n\n"
               "      --plugins=LIST       plugins to measure (default EDF,RM,FP,RR)\n"
               "      --cores=LIST         numbers of cores given to the plugin (default 1 and all)\n"
               "      --tasks=LIST         tasks already admitted (default 0,16,64,256,1024,4096)\n"
               "      --samples=N          requests timed per point (default 200)\n"
               "      --cpus=CLIENT,DAEMON the CPUs of the client and of rtfd (default 0,1)\n"
               "      --rtfd=PATH          the rtfd to start (default: the build tree's, else the installed)\n"
               "      --plugindir=DIR      its plugins\n"
               "      --latency-hint=US    hold /dev/cpu_dma_latency at US during the run (default 0; \"off\")\n"
               "      --spread-periods     give the admitted tasks distinct periods (default: all 1 s)\n"
               "      --json               one JSON document\n"
               "      --csv                the rows as CSV (scalars as # comment lines)\n"
               "      --plot=PREFIX        PREFIX-create.png and PREFIX-change.png (needs python3-matplotlib)\n"
               "  -h, --help               this text\n"
               "      --version            the version\n");
}

static int parse_list(const char *s, const char *what, uint32_t min, uint32_t max, uint32_t *v, int *n) {
        char buf[256], *save = NULL;

        snprintf(buf, sizeof(buf), "%s", s);
        *n = 0;
        for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                char *end;
                unsigned long x;

                errno = 0;
                x = strtoul(w, &end, 10);
                if (errno || end == w || *end || w[0] == '-' || x < min || x > max || *n >= MAX_LIST) {
                        fprintf(stderr, TOOL ": %s: \"%s\" is not a number in %u..%u (at most %d of them)\n", what, w,
                                min, max, MAX_LIST);
                        return -1;
                }
                v[(*n)++] = (uint32_t)x;
        }
        if (*n == 0) {
                fprintf(stderr, TOOL ": %s is empty\n", what);
                return -1;
        }
        return 0;
}

static int parse_args(int argc, char *argv[]) {
        enum { OPT_VERSION = 0x100, OPT_PLUGINS, OPT_CORES, OPT_TASKS, OPT_SAMPLES, OPT_CPUS, OPT_RTFD,
               OPT_PLUGINDIR, OPT_HINT, OPT_JSON, OPT_CSV, OPT_PLOT, OPT_SPREAD };
        static const struct option options[] = {
                { "plugins", required_argument, NULL, OPT_PLUGINS },
                { "cores", required_argument, NULL, OPT_CORES },
                { "tasks", required_argument, NULL, OPT_TASKS },
                { "samples", required_argument, NULL, OPT_SAMPLES },
                { "cpus", required_argument, NULL, OPT_CPUS },
                { "rtfd", required_argument, NULL, OPT_RTFD },
                { "plugindir", required_argument, NULL, OPT_PLUGINDIR },
                { "latency-hint", required_argument, NULL, OPT_HINT },
                { "json", no_argument, NULL, OPT_JSON },
                { "spread-periods", no_argument, NULL, OPT_SPREAD },
                { "csv", no_argument, NULL, OPT_CSV },
                { "plot", required_argument, NULL, OPT_PLOT },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                { 0 }
        };
        long n_cpus = sysconf(_SC_NPROCESSORS_ONLN);
        uint32_t v[MAX_LIST];
        int c, n;

        static const uint32_t default_tasks[] = { 0, 16, 64, 256, 1024, 4096 };
        for (size_t i = 0; i < 4; i++)
                arg.plugins[i] = kinds[i].name;
        arg.n_plugins = 4;
        arg.n_tasks = 6;
        memcpy(arg.tasks, default_tasks, sizeof(default_tasks));
        arg.cores[arg.n_cores++] = 1;
        if (n_cpus > 1)
                arg.cores[arg.n_cores++] = (uint32_t)n_cpus;
        arg.client_cpu = 0;
        arg.daemon_cpu = n_cpus > 1 ? 1 : 0;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case OPT_PLUGINS: {
                        char *save = NULL, *buf = strdup(optarg);

                        arg.n_plugins = 0;
                        for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                                bool known = false;

                                for (size_t i = 0; i < 4; i++)
                                        if (strcasecmp(w, kinds[i].name) == 0) {
                                                bool dup = false;

                                                for (int j = 0; j < arg.n_plugins; j++)
                                                        dup |= arg.plugins[j] == kinds[i].name;
                                                if (!dup)
                                                        arg.plugins[arg.n_plugins++] = kinds[i].name;
                                                known = true;
                                        }
                                if (!known) {
                                        fprintf(stderr, TOOL ": unknown plugin \"%s\" (EDF, RM, FP, RR)\n", w);
                                        free(buf);
                                        return -1;
                                }
                        }
                        free(buf);
                        if (arg.n_plugins == 0) {
                                fprintf(stderr, TOOL ": --plugins is empty\n");
                                return -1;
                        }
                        break;
                }
                case OPT_CORES:
                        if (parse_list(optarg, "--cores", 1, (uint32_t)n_cpus, arg.cores, &arg.n_cores) < 0)
                                return -1;
                        break;
                case OPT_TASKS:
                        if (parse_list(optarg, "--tasks", 0, 60000, arg.tasks, &arg.n_tasks) < 0)
                                return -1;
                        break;
                case OPT_SAMPLES:
                        if (parse_list(optarg, "--samples", 1, 1000000, v, &n) < 0 || n != 1)
                                return -1;
                        arg.samples = v[0];
                        break;
                case OPT_CPUS:
                        if (parse_list(optarg, "--cpus", 0, (uint32_t)n_cpus - 1, v, &n) < 0 || n != 2) {
                                fprintf(stderr, TOOL ": --cpus takes CLIENT,DAEMON\n");
                                return -1;
                        }
                        arg.client_cpu = (int)v[0];
                        arg.daemon_cpu = (int)v[1];
                        break;
                case OPT_RTFD:
                        arg.rtfd = optarg;
                        break;
                case OPT_PLUGINDIR:
                        arg.plugindir = optarg;
                        break;
                case OPT_HINT:
                        if (strcmp(optarg, "off") == 0) {
                                arg.hint_us = -1;
                        } else if (parse_list(optarg, "--latency-hint", 0, INT32_MAX, v, &n) < 0 || n != 1) {
                                return -1;
                        } else {
                                arg.hint_us = (int32_t)v[0];
                        }
                        break;
                case OPT_JSON:
                        arg.json = true;
                        break;
                case OPT_CSV:
                        arg.csv = true;
                        break;
                case OPT_SPREAD:
                        arg.spread_periods = true;
                        break;
                case OPT_PLOT:
                        arg.plot = optarg;
                        break;
                case 'h':
                        help();
                        exit(EXIT_SUCCESS);
                case OPT_VERSION:
                        printf(TOOL " " RTF_VERSION "\n");
                        exit(EXIT_SUCCESS);
                default:
                        return -1;
                }
        }
        if (optind < argc) {
                fprintf(stderr, TOOL ": unexpected argument \"%s\"\n", argv[optind]);
                return -1;
        }
        if (arg.json && arg.csv) {
                fprintf(stderr, TOOL ": --json and --csv exclude each other\n");
                return -1;
        }
        return 0;
}

/* The build tree's rtfd and plugins when this binary runs from the build tree. */
static void default_paths(void) {
        static char rtfd[PATH_MAX + 32];
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

        if (!arg.rtfd && n > 0) {
                char *slash;

                self[n] = '\0';
                slash = strrchr(self, '/');
                if (slash) {
                        *slash = '\0';
                        snprintf(rtfd, sizeof(rtfd), "%s/../../src/daemon/rtfd", self);
                        if (access(rtfd, X_OK) == 0) {
                                arg.rtfd = rtfd;
                                if (!arg.plugindir)
                                        arg.plugindir = RTF_BUILD_PLUGINDIR;
                        }
                }
        }
        if (!arg.rtfd)
                arg.rtfd = RTF_SBINDIR "/rtfd";
        if (!arg.plugindir)
                arg.plugindir = RTF_PLUGINDIR;
}

static void on_signal(int sig) {
        interrupted = sig;
}

/* Debian's python3-matplotlib lives with /usr/bin/python3, whatever python3 is first in PATH. */
static const char *plot_python(void) {
        const char *p = getenv("RTF_PYTHON");

        if (p && *p)
                return p;
        return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

static int plot(json_object *doc) {
        char dir[] = "/tmp/rtf-bench-plot-XXXXXX", data[64], cmd[1024];
        const char *script = getenv("RTF_PLOT_SCRIPT_BENCH");
        int r;

        if (!script)
                script = RTF_PLOT_DIR "/plot-bench.py";
        if (access(script, R_OK) != 0)
                script = RTF_SOURCE_PLOT_DIR "/plot-bench.py";
        if (!mkdtemp(dir))
                return -1;
        snprintf(data, sizeof(data), "%s/bench.json", dir);
        r = json_object_to_file_ext(data, doc, JSON_C_TO_STRING_PLAIN);
        if (r >= 0) {
                snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' '%s'", plot_python(), script, data, arg.plot);
                r = system(cmd);
        }
        unlink(data);
        rmdir(dir);
        if (r != 0) {
                fprintf(stderr, TOOL ": --plot failed (python3-matplotlib is needed: apt-get install "
                                "python3-matplotlib)\n");
                return -1;
        }
        return 0;
}

int main(int argc, char *argv[]) {
        struct attach_result at = { .uss_idle = -1, .uss_full = -1 };
        struct sigaction sa = { .sa_handler = on_signal };
        uint64_t rtt_p50 = 0, rtt_p99 = 0;
        size_t req = 0, rep = 0;
        json_object *doc, *jrows;
        int hint_fd = -1, rc = EXIT_FAILURE;

        if (parse_args(argc, argv) < 0) {
                fprintf(stderr, "Try '" TOOL " --help'.\n");
                return EXIT_FAILURE;
        }
        if (geteuid() != 0) {
                fprintf(stderr, TOOL ": needs root: it starts a private rtfd for every configuration\n");
                return EXIT_FAILURE;
        }
        default_paths();
        doc = envelope_new(TOOL, argc, argv);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
        if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
                fprintf(stderr, TOOL ": warning: mlockall: %m\n");
        if (arg.hint_us >= 0) {
                /* What cyclictest does and rtfd does while threads are attached: the same machine state. */
                hint_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
                if (hint_fd < 0 || write(hint_fd, &arg.hint_us, sizeof(arg.hint_us)) != sizeof(arg.hint_us))
                        fprintf(stderr, TOOL ": warning: cannot hold /dev/cpu_dma_latency: %m\n");
        }
        pin(0, arg.client_cpu);

        if (measure_rtt(&rtt_p50, &rtt_p99, &req, &rep) < 0) {
                fprintf(stderr, TOOL ": cannot measure the round trip: %m\n");
                goto out;
        }
        if (!arg.json && !arg.csv) {
                printf("# %s %s: rtfd %s, client on CPU %d, rtfd on CPU %d, %u samples per point\n", TOOL,
                       RTF_VERSION, arg.rtfd, arg.client_cpu, arg.daemon_cpu, arg.samples);
                printf("# floor: AF_UNIX SOCK_SEQPACKET round trip (%zu/%zu bytes): p50 %.1f us, p99 %.1f us\n", req,
                       rep, rtt_p50 / 1e3, rtt_p99 / 1e3);
                printf("# plugin cores  tasks create_p50 create_p99 change_p50 change_p99 (us)\n");
                fflush(stdout);
        }
        for (int i = 0; i < arg.n_plugins && !interrupted; i++) {
                const char *range = NULL;

                for (size_t k = 0; k < 4; k++)
                        if (kinds[k].name == arg.plugins[i])
                                range = kinds[k].range;
                for (int c = 0; c < arg.n_cores && !interrupted; c++)
                        if (bench_config(arg.plugins[i], range, arg.cores[c]) < 0)
                                goto out;
        }
        if (!interrupted && bench_attach(&at) < 0)
                goto out;
        rc = interrupted ? EXIT_FAILURE : EXIT_SUCCESS;
out:
        if (hint_fd >= 0)
                close(hint_fd);
        jrows = json_object_new_array();
        for (size_t i = 0; i < n_rows; i++) {
                json_object *o = json_object_new_object();

                json_object_object_add(o, "plugin", json_object_new_string(rows[i].plugin));
                json_object_object_add(o, "cores", json_object_new_int64(rows[i].cores));
                json_object_object_add(o, "tasks", json_object_new_int64(rows[i].tasks));
                json_object_object_add(o, "samples", json_object_new_int64(rows[i].samples));
                json_object_object_add(o, "create_p50_ns", json_object_new_uint64(rows[i].create_p50));
                json_object_object_add(o, "create_p99_ns", json_object_new_uint64(rows[i].create_p99));
                json_object_object_add(o, "change_p50_ns", json_object_new_uint64(rows[i].change_p50));
                json_object_object_add(o, "change_p99_ns", json_object_new_uint64(rows[i].change_p99));
                json_object_array_add(jrows, o);
        }
        {
                json_object *p = json_object_new_object();

                json_object_object_add(p, "client_cpu", json_object_new_int(arg.client_cpu));
                json_object_object_add(p, "daemon_cpu", json_object_new_int(arg.daemon_cpu));
                json_object_object_add(p, "samples", json_object_new_int64(arg.samples));
                json_object_object_add(p, "spread_periods", json_object_new_boolean(arg.spread_periods));
                json_object_object_add(p, "rtfd", json_object_new_string(arg.rtfd));
                json_object_object_add(p, "latency_hint_us",
                                       arg.hint_us >= 0 ? json_object_new_int(arg.hint_us) : NULL);
                json_object_object_add(p, "request_bytes", json_object_new_int64((int64_t)req));
                json_object_object_add(p, "reply_bytes", json_object_new_int64((int64_t)rep));
                json_object_object_add(doc, "parameters", p);
        }
        json_object_object_add(doc, "rtt_p50_ns", json_object_new_uint64(rtt_p50));
        json_object_object_add(doc, "rtt_p99_ns", json_object_new_uint64(rtt_p99));
        json_object_object_add(doc, "rows", jrows);
        json_object_object_add(doc, "attach_p50_ns", json_object_new_uint64(at.attach_p50));
        json_object_object_add(doc, "attach_p99_ns", json_object_new_uint64(at.attach_p99));
        json_object_object_add(doc, "syscall_p50_ns", json_object_new_uint64(at.setscheduler_p50));
        json_object_object_add(doc, "sched_setattr_p50_ns", json_object_new_uint64(at.setattr_p50));
        json_object_object_add(doc, "uss_idle_kib", at.uss_idle >= 0 ? json_object_new_int64(at.uss_idle) : NULL);
        json_object_object_add(doc, "uss_4096_kib", at.uss_full >= 0 ? json_object_new_int64(at.uss_full) : NULL);
        if (arg.plot && rc == EXIT_SUCCESS && plot(doc) < 0)
                rc = EXIT_FAILURE;
        envelope_finish(doc, rc);
        if (arg.json) {
                printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY));
        } else if (arg.csv) {
                printf("# rtt_p50_ns=%" PRIu64 " attach_p50_ns=%" PRIu64 " syscall_p50_ns=%" PRIu64
                       " sched_setattr_p50_ns=%" PRIu64 " uss_idle_kib=%ld uss_4096_kib=%ld\n",
                       rtt_p50, at.attach_p50, at.setscheduler_p50, at.setattr_p50, at.uss_idle, at.uss_full);
                printf("plugin,cores,tasks,samples,create_p50_ns,create_p99_ns,change_p50_ns,change_p99_ns\n");
                for (size_t i = 0; i < n_rows; i++)
                        printf("%s,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", rows[i].plugin,
                               rows[i].cores, rows[i].tasks, rows[i].samples, rows[i].create_p50, rows[i].create_p99,
                               rows[i].change_p50, rows[i].change_p99);
        } else if (rc == EXIT_SUCCESS) {
                printf("# attach (rtf_spec_attach, FP): p50 %.1f us, p99 %.1f us; direct on the same thread: "
                       "sched_setscheduler p50 %.1f us, sched_setattr p50 %.1f us\n",
                       at.attach_p50 / 1e3, at.attach_p99 / 1e3, at.setscheduler_p50 / 1e3, at.setattr_p50 / 1e3);
                printf("# rtfd USS: %ld KiB idle, %ld KiB with %d specifications\n", at.uss_idle, at.uss_full,
                       USS_TASKS);
        }
        json_object_put(doc);
        return rc;
}
