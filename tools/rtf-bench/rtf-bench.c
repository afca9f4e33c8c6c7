/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-bench: section 6 of the paper on the machine at hand.
 *
 *  - rtf_spec_create and rtf_spec_change latency against the number of tasks
 *    already admitted, for each plugin and number of cores given to it
 *    (Figs. 3 and 5);
 *  - rtf_spec_attach against a direct sched_setscheduler/sched_setattr on the
 *    same thread;
 *  - the floor, measured in the same run: a bare AF_UNIX SOCK_SEQPACKET
 *    round trip of the same sizes between the same two CPUs;
 *  - rtfd's memory (USS, /proc/PID/smaps_rollup) idle and with the largest --tasks of specs.
 *
 * Two modes.  Private (--private; the default without --socket and
 * RTF_SOCKET): a private rtfd per configuration, with a cpuset root that
 * does not exist, so that EDF on a subset of the CPUs never partitions the
 * machine (the admission math is what is measured, not the cpusets).
 * External (--socket, or RTF_SOCKET): the rtfd serving that socket, as its
 * administrator configured it; it is asked (STATUS) which instances and
 * cores it serves, and each instance is measured as far as its limits and
 * admission let the bench go.
 *
 * A refusal of rtfd (a limit, the policy, admission) ends only the series
 * it happened in, with its reason in the output; a lost connection or a
 * signal ends the run.  Either way everything the bench created is released
 * before it exits (and rtfd would release it with the connection anyway).
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
#include "rtfd-info.h"
#include "sched-attr.h"
#include "stats.h"

#define TOOL "rtf-bench"
#define MAX_LIST 16
#define MAX_PLUGINS 64                  /* rtfd's own limit on plugin instances */
#define MAX_NOTES 32
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
/* rtfd refuses a non-root connection's requests beyond its rate with -EAGAIN. */
#define THROTTLE_WAIT_US 1000
#define THROTTLE_GIVE_UP_NS (10ull * 1000000000ull)

struct plugin_kind {
        const char *name;
        const char *range;
};

static const struct plugin_kind kinds[] = {
        { "EDF", "100-100" }, { "RM", "50-89" }, { "FP", "1-89" }, { "RR", "1-89" },
};

enum mode { MODE_PRIVATE, MODE_EXTERNAL };

static struct {
        enum mode mode;
        bool force_private;
        const char *socket_option;      /* --socket */
        const char *socket;             /* external: the socket measured */
        char *plugin_list;              /* --plugins, split in place */
        const char *plugins[MAX_PLUGINS];
        int n_plugins;
        uint32_t cores[MAX_LIST];
        int n_cores;
        uint32_t tasks[MAX_LIST];
        int n_tasks;
        uint32_t samples;
        int client_cpu, daemon_cpu;
        bool cores_given, cpus_given;
        const char *rtfd;
        const char *plugindir;
        pid_t daemon_pid;               /* --daemon-pid */
        bool json, csv;
        const char *plot;
        int32_t hint_us;
        bool spread_periods;
} arg = {
        .samples = 200,
        .hint_us = 0,
};

struct row {
        char plugin[RTF_PLUGIN_NAME_MAX];
        uint32_t cores, tasks, samples;
        uint64_t create_p50, create_p99, change_p50, change_p99;
        uint64_t rtt_p50;               /* the floor, measured just before this point */
};

/* One plugin (and, for private daemons, core count) measured over --tasks. */
struct series {
        char plugin[RTF_PLUGIN_NAME_MAX];
        char kind[RTFD_INFO_KIND_MAX];
        uint32_t cores;
        bool complete;
        bool stopped;                   /* rtfd refused a request: the reason follows */
        uint32_t stop_tasks;            /* specifications the bench held in it then */
        const char *stop_step;          /* "filling", "create", "change", "release" */
        int stop_result;
        char stop_reason[RTF_REASON_MAX];
};

static struct {
        uint64_t rtt_p50, rtt_p99;
        size_t req, rep;
        bool attach, setscheduler, setattr;
        char attach_plugin[RTF_PLUGIN_NAME_MAX];
        uint64_t attach_p50, attach_p99, setscheduler_p50, setattr_p50;
        bool uss_idle, uss_full;
        long uss_idle_kib, uss_full_kib;
        uint32_t uss_full_specs;        /* the largest --tasks: what uss_full_kib is measured with */
        uint64_t throttled;
        struct row *rows;
        size_t n_rows;
        struct series *series;
        size_t n_series;
        char *notes[MAX_NOTES];
        size_t n_notes;
} res;

/* The external daemon, as it answered STATUS, and the process whose USS is its (0: unknown). */
static struct rtfd_info target;
static pid_t uss_pid;
/* Signals received: the first stops the measurements, a second the releases. */
static volatile sig_atomic_t interrupted;

/* ---- time, samples, notes ---- */

/* The floor's echo with rtfd's affinity (daemon_cpu < 0: an external rtfd allowed on several CPUs). */
static cpu_set_t echo_cpus;

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

/* Something not measured, and why: in the text output and the JSON's "notes". */
__attribute__((format(printf, 1, 2))) static void note(const char *fmt, ...) {
        va_list ap;
        char *s = NULL;

        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        if (s && res.n_notes < MAX_NOTES)
                res.notes[res.n_notes++] = s;
        else
                free(s);
}

static const char *plural(uint32_t n) {
        return n == 1 ? "" : "s";
}

/* ---- the floor: a bare round trip of rtfd's message sizes ---- */

/* The floor: n bare round trips of rtfd's sizes to a forked echo process (after 100 of warm-up). */
static int rtt_sample(size_t n, uint64_t *ret_p50, uint64_t *ret_p99) {
        const size_t req = sizeof(struct rtf_msg_header) + sizeof(struct rtf_msg_create);
        const size_t rep = sizeof(struct rtf_msg_header) + sizeof(struct rtf_msg_reply);
        char buf[4096] = { 0 };
        uint64_t *v;
        size_t m = 0;
        int sv[2], r = 0;
        pid_t pid;

        v = calloc(n, sizeof(*v));
        if (!v)
                return -ENOMEM;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
                free(v);
                return -errno;
        }
        pid = fork();
        if (pid < 0) {
                r = -errno;
                close(sv[0]);
                close(sv[1]);
                free(v);
                return r;
        }
        if (pid == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(sv[0]);
                if (arg.daemon_cpu < 0)
                        sched_setaffinity(0, sizeof(echo_cpus), &echo_cpus);
                pin(0, arg.daemon_cpu);
                while (recv(sv[1], buf, sizeof(buf), 0) > 0)
                        if (send(sv[1], buf, rep, 0) < 0)
                                break;
                _exit(0);
        }
        close(sv[1]);
        for (size_t i = 0; i < n + 100 && !interrupted; i++) {
                uint64_t t0 = now_ns();

                if (send(sv[0], buf, req, 0) < 0 || recv(sv[0], buf, sizeof(buf), 0) < 0) {
                        r = -errno;
                        break;
                }
                if (i >= 100)           /* warm-up */
                        v[m++] = now_ns() - t0;
        }
        close(sv[0]);
        waitpid(pid, NULL, 0);
        *ret_p50 = p_of(v, m, 0.5);
        *ret_p99 = samples_percentile(v, m, 0.99);
        res.req = req;
        res.rep = rep;
        free(v);
        return r;
}

static int measure_rtt(void) {
        return rtt_sample((size_t)arg.samples * 10, &res.rtt_p50, &res.rtt_p99);
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

/* ---- requests ---- */

enum op { OP_CREATE, OP_CHANGE, OP_RELEASE, OP_ATTACH, OP_DETACH };

/*
 * One request, timed (the accepted attempt only).  A request that rtfd's
 * rate limit refused (-EAGAIN; root is exempt) is asked again after a pause,
 * for at most THROTTLE_GIVE_UP_NS.
 */
static int request(enum op op, struct rtf_spec *s, const struct rtf_params *p, pid_t tid, uint64_t *ret_ns) {
        uint64_t start = now_ns();

        for (;;) {
                uint64_t t0 = now_ns(), t;
                int r = -EINVAL;

                switch (op) {
                case OP_CREATE:
                        r = rtf_spec_create(s, p);
                        break;
                case OP_CHANGE:
                        r = rtf_spec_change(s, p);
                        break;
                case OP_RELEASE:
                        r = rtf_spec_release(s);
                        break;
                case OP_ATTACH:
                        r = rtf_spec_attach(s, tid);
                        break;
                case OP_DETACH:
                        r = rtf_spec_detach(s);
                        break;
                }
                t = now_ns() - t0;
                if (r != -EAGAIN || now_ns() - start > THROTTLE_GIVE_UP_NS ||
                    interrupted > (op == OP_RELEASE ? 1 : 0)) {
                        if (ret_ns)
                                *ret_ns = t;
                        return r;
                }
                res.throttled++;
                usleep(THROTTLE_WAIT_US);
        }
}

/* What ends the run rather than a series: rtfd is gone or talks nonsense. */
static bool fatal(int r) {
        return r == RTF_CONNECTION_ERR || r == -ENOTCONN || r == -EPROTO || r == -ENOMEM;
}

static int fail_request(const char *what, int r) {
        fprintf(stderr, TOOL ": %s: %s: %s\n", what, rtf_strerror(r), rtf_last_reason());
        return -1;
}

/*
 * Hand back specs[0..n).  After a second signal the rest is left to rtfd,
 * which releases everything of a connection that closes.  -1 if rtfd is
 * gone.
 */
static int release_specs(struct rtf_spec *specs, uint32_t n) {
        bool warned = false;

        for (uint32_t i = n; i-- > 0;) {
                int r;

                if (specs[i].id == 0)
                        continue;
                if (interrupted > 1)
                        return 0;
                r = request(OP_RELEASE, &specs[i], NULL, 0, NULL);
                if (r == RTF_OK || r == -ENOENT)
                        continue;
                if (fatal(r))
                        return fail_request("rtf_spec_release", r);
                if (!warned)
                        fprintf(stderr, TOOL ": warning: rtf_spec_release: %s: %s (rtfd releases it when the bench "
                                        "disconnects)\n", rtf_strerror(r), rtf_last_reason());
                warned = true;
        }
        return 0;
}

static bool kind_is(const char *kind, const char *name) {
        return strcmp(kind, name) == 0;
}

/*
 * A task that fills the plugin: tiny utilisation (10 us every second, so
 * that thousands fit any admission test), one period (1 s), spread
 * priorities.  One period keeps RM's O(1) tests deciding; with more distinct
 * periods than RM has priorities, RM falls back to response-time analysis
 * (see PERFORMANCE.md); --spread-periods measures that.  A plugin of a kind
 * rtf-bench does not know gets every parameter.
 */
static void filler_params(const char *plugin, const char *kind, uint32_t i, struct rtf_params *p) {
        bool budget = !kind_is(kind, "FP") && !kind_is(kind, "RR");
        bool priority = !kind_is(kind, "EDF") && !kind_is(kind, "RM");

        *p = (struct rtf_params)RTF_PARAMS_INIT;
        rtf_params_set_scheduler(p, plugin);
        rtf_params_set_period(p, 1000000 + (arg.spread_periods ? (uint64_t)i * 7 : 0));
        if (budget)
                rtf_params_set_runtime(p, 10);
        if (priority)
                rtf_params_set_priority(p, 1 + i % 89);
}

/* The request that is timed; `variant` alternates two parameter sets for change. */
static void probe_params(const char *plugin, const char *kind, int variant, struct rtf_params *p) {
        bool budget = !kind_is(kind, "FP") && !kind_is(kind, "RR");
        bool priority = !kind_is(kind, "EDF") && !kind_is(kind, "RM");

        *p = (struct rtf_params)RTF_PARAMS_INIT;
        rtf_params_set_scheduler(p, plugin);
        rtf_params_set_period(p, 10000);
        if (budget)
                rtf_params_set_runtime(p, variant ? 200 : 100);
        if (priority)
                rtf_params_set_priority(p, variant ? 51 : 50);
}

/* ---- create and change against the tasks already admitted ---- */

static struct series *series_add(const char *plugin, const char *kind, uint32_t cores) {
        struct series *v = realloc(res.series, (res.n_series + 1) * sizeof(*v));

        if (!v)
                return NULL;
        res.series = v;
        v = &res.series[res.n_series++];
        *v = (struct series){ .cores = cores };
        snprintf(v->plugin, sizeof(v->plugin), "%s", plugin);
        snprintf(v->kind, sizeof(v->kind), "%s", kind);
        return v;
}

static int row_add(const struct series *se, uint32_t tasks, uint64_t *create, uint64_t *change, uint64_t rtt) {
        struct row *v = realloc(res.rows, (res.n_rows + 1) * sizeof(*v)), *row;

        if (!v)
                return -ENOMEM;
        res.rows = v;
        row = &res.rows[res.n_rows++];
        *row = (struct row){
                .cores = se->cores, .tasks = tasks, .samples = arg.samples,
                .create_p50 = p_of(create, arg.samples, 0.5),
                .create_p99 = samples_percentile(create, arg.samples, 0.99),
                .change_p50 = p_of(change, arg.samples, 0.5),
                .change_p99 = samples_percentile(change, arg.samples, 0.99),
                .rtt_p50 = rtt,
        };
        snprintf(row->plugin, sizeof(row->plugin), "%s", se->plugin);
        if (!arg.json && !arg.csv) {
                printf("%-6s %5u %6u %10.1f %10.1f %10.1f %10.1f %9.1f %6.2f %6.2f\n", row->plugin, row->cores,
                       row->tasks, row->create_p50 / 1e3, row->create_p99 / 1e3, row->change_p50 / 1e3,
                       row->change_p99 / 1e3, rtt / 1e3, rtt ? (double)row->create_p50 / (double)rtt : 0.0,
                       rtt ? (double)row->change_p50 / (double)rtt : 0.0);
                fflush(stdout);
        }
        return 0;
}

static void series_print_stop(const struct series *se, FILE *f) {
        fprintf(f, "# %s, %u core%s: stopped with %u task%s admitted (%s): %s: %s\n", se->plugin, se->cores,
                plural(se->cores), se->stop_tasks, plural(se->stop_tasks), se->stop_step,
                rtf_strerror(se->stop_result), se->stop_reason[0] ? se->stop_reason : "-");
}

/* rtfd said no: the series ends here (0), unless rtfd is gone or a signal came (-1). */
static int series_stop(struct series *se, uint32_t tasks, const char *step, int r) {
        if (fatal(r))
                return fail_request(step, r);
        if (interrupted)
                return -1;              /* a throttled request given up for the signal */
        se->stopped = true;
        se->stop_tasks = tasks;
        se->stop_step = step;
        se->stop_result = r;
        snprintf(se->stop_reason, sizeof(se->stop_reason), "%s", rtf_last_reason());
        if (!arg.json && !arg.csv) {
                series_print_stop(se, stdout);
                fflush(stdout);
        }
        return 0;
}

/*
 * Fill se's plugin up to each task count of --tasks (ascending) and time
 * create and change there.  The fillers stay in fill[0..*n_fill) for the
 * caller to release; the probe is released here.  0 when the series is
 * over (complete or stopped by rtfd), -1 when the run must end.
 */
static int run_series(struct series *se, struct rtf_spec *fill, uint32_t *n_fill, uint64_t *create,
                      uint64_t *change) {
        struct rtf_spec probe = RTF_SPEC_INIT;
        uint64_t rtt = 0, rtt_p99;
        struct rtf_params p;
        int r = 0;

        for (int t = 0; t < arg.n_tasks && !interrupted; t++) {
                for (; *n_fill < arg.tasks[t] && !interrupted; (*n_fill)++) {
                        fill[*n_fill] = (struct rtf_spec)RTF_SPEC_INIT;
                        filler_params(se->plugin, se->kind, *n_fill, &p);
                        r = request(OP_CREATE, &fill[*n_fill], &p, 0, NULL);
                        if (r != RTF_OK) {
                                r = series_stop(se, *n_fill, "filling", r);
                                goto out;
                        }
                }
                /* The floor again, right here: on a shared machine it drifts within a run. */
                if (rtt_sample(arg.samples, &rtt, &rtt_p99) < 0)
                        rtt = 0;
                for (uint32_t i = 0; i < arg.samples && !interrupted; i++) {
                        probe_params(se->plugin, se->kind, 0, &p);
                        r = request(OP_CREATE, &probe, &p, 0, &create[i]);
                        if (r != RTF_OK) {
                                r = series_stop(se, *n_fill, "create", r);
                                goto out;
                        }
                        if (i + 1 == arg.samples)
                                break;  /* the probe stays for change */
                        r = request(OP_RELEASE, &probe, NULL, 0, NULL);
                        if (r != RTF_OK) {
                                r = series_stop(se, *n_fill, "release", r);
                                goto out;
                        }
                }
                for (uint32_t i = 0; i < arg.samples && !interrupted; i++) {
                        probe_params(se->plugin, se->kind, (int)(i & 1) ^ 1, &p);
                        r = request(OP_CHANGE, &probe, &p, 0, &change[i]);
                        if (r != RTF_OK) {
                                r = series_stop(se, *n_fill, "change", r);
                                goto out;
                        }
                }
                if (interrupted)
                        break;
                r = request(OP_RELEASE, &probe, NULL, 0, NULL);
                if (r != RTF_OK) {
                        r = series_stop(se, *n_fill, "release", r);
                        goto out;
                }
                if (row_add(se, arg.tasks[t], create, change, rtt) < 0) {
                        r = -1;
                        goto out;
                }
        }
        r = interrupted ? -1 : 0;
        se->complete = r == 0;
out:
        if (release_specs(&probe, 1) < 0)
                r = -1;
        return r;
}

static uint32_t max_tasks(void) {
        return arg.tasks[arg.n_tasks - 1];      /* sorted */
}

struct buffers {
        struct rtf_spec *fill;
        uint64_t *create, *change;
};

static int buffers_init(struct buffers *b) {
        b->fill = calloc(max_tasks() + 1, sizeof(*b->fill));
        b->create = calloc(arg.samples, sizeof(*b->create));
        b->change = calloc(arg.samples, sizeof(*b->change));
        return b->fill && b->create && b->change ? 0 : -ENOMEM;
}

static void buffers_deinit(struct buffers *b) {
        free(b->fill);
        free(b->create);
        free(b->change);
}

/* A private rtfd with `cores` cores for the plugin, measured and stopped. */
static int bench_private_config(const struct plugin_kind *kind, uint32_t cores, struct buffers *b) {
        struct series *se = series_add(kind->name, kind->name, cores);
        uint32_t n_fill = 0, per_core = max_tasks() + 64;
        struct daemon d;
        char config[256];
        int r;

        if (!se)
                return -1;
        /* max_tasks is per core: allow every filler on one core, and all of them on one connection. */
        snprintf(config, sizeof(config), "%s %s.so %s 0-%u max_tasks=%u\nset max_specs_per_client %u\n", kind->name,
                 kind->name, kind->range, cores - 1, per_core < 1024 ? 1024 : per_core,
                 per_core < 8192 ? 8192 : per_core);
        if (daemon_start(&d, config) < 0)
                return -1;
        r = run_series(se, b->fill, &n_fill, b->create, b->change);
        daemon_stop(&d);                /* rtfd releases everything with the connection */
        return r;
}

/* Each instance of the external rtfd that --plugins selected, in turn. */
static int bench_external_series(const struct rtfd_instance *const *selected, int n, struct buffers *b) {
        for (int i = 0; i < n && !interrupted; i++) {
                struct series *se = series_add(selected[i]->name, selected[i]->kind, selected[i]->n_cpus);
                uint32_t n_fill = 0;
                int r;

                if (!se)
                        return -1;
                r = run_series(se, b->fill, &n_fill, b->create, b->change);
                if (release_specs(b->fill, n_fill) < 0 || r < 0)
                        return -1;
        }
        return interrupted ? -1 : 0;
}

/* ---- attach against the direct system calls ---- */

struct sleeper {
        pthread_t thread;
        pid_t tid;
        int pipe[2];
};

static void *sleeper_main(void *data) {
        struct sleeper *s = data;
        char c;

        __atomic_store_n(&s->tid, gettid(), __ATOMIC_RELEASE);
        while (read(s->pipe[0], &c, 1) < 0 && errno == EINTR)
                ;
        return NULL;
}

static int sleeper_start(struct sleeper *sl) {
        pthread_attr_t attr;
        int r;

        *sl = (struct sleeper){ .pipe = { -1, -1 } };
        if (pipe2(sl->pipe, O_CLOEXEC) < 0)
                return -errno;
        /* A small stack: under mlockall a default 8 MiB one exceeds a non-root RLIMIT_MEMLOCK. */
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        r = pthread_create(&sl->thread, &attr, sleeper_main, sl);
        pthread_attr_destroy(&attr);
        if (r != 0) {
                close(sl->pipe[0]);
                close(sl->pipe[1]);
                return -r;
        }
        while (__atomic_load_n(&sl->tid, __ATOMIC_ACQUIRE) == 0)
                usleep(100);
        usleep(1000);                   /* asleep in read() */
        return 0;
}

static void sleeper_stop(struct sleeper *sl) {
        close(sl->pipe[1]);
        pthread_join(sl->thread, NULL);
        close(sl->pipe[0]);
}

/* rtf_spec_attach and detach of a sleeping thread, on `plugin`; 0, or -1 if the run must end. */
static int measure_attach(const char *plugin, const char *kind, pid_t tid, uint64_t *v) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p = RTF_PARAMS_INIT;
        int r;

        rtf_params_set_scheduler(&p, plugin);
        rtf_params_set_period(&p, 10000);
        if (kind_is(kind, "RM"))
                rtf_params_set_runtime(&p, 100);
        else
                rtf_params_set_priority(&p, 10);
        r = request(OP_CREATE, &s, &p, 0, NULL);
        if (r != RTF_OK) {
                if (fatal(r))
                        return fail_request("rtf_spec_create", r);
                if (interrupted)
                        return -1;
                note("attach_p50_ns: not measured: %s refused the spec: %s: %s", plugin, rtf_strerror(r),
                     rtf_last_reason());
                return 0;
        }
        for (uint32_t i = 0; i < arg.samples && !interrupted; i++) {
                const char *what = "rtf_spec_attach";

                r = request(OP_ATTACH, &s, NULL, tid, &v[i]);
                if (r == RTF_OK) {
                        what = "rtf_spec_detach";
                        r = request(OP_DETACH, &s, NULL, 0, NULL);
                }
                if (r != RTF_OK) {
                        if (fatal(r)) {
                                fail_request(what, r);
                                release_specs(&s, 1);
                                return -1;
                        }
                        if (interrupted)
                                break;
                        note("attach_p50_ns: not measured: %s on %s: %s: %s", what, plugin, rtf_strerror(r),
                             rtf_last_reason());
                        return release_specs(&s, 1);
                }
        }
        if (release_specs(&s, 1) < 0 || interrupted)
                return -1;
        res.attach = true;
        snprintf(res.attach_plugin, sizeof(res.attach_plugin), "%s", plugin);
        res.attach_p50 = p_of(v, arg.samples, 0.5);
        res.attach_p99 = samples_percentile(v, arg.samples, 0.99);
        return 0;
}

/* sched_setscheduler and sched_setattr (SCHED_FIFO 10 and back) on the same thread. */
static void measure_syscalls(pid_t tid, uint64_t *v) {
        struct sched_param fifo = { .sched_priority = 10 }, other = { 0 };
        struct rtf_sched_attr fifo_attr = { .size = sizeof(fifo_attr), .sched_policy = SCHED_FIFO,
                                            .sched_priority = 10 };
        struct rtf_sched_attr other_attr = { .size = sizeof(other_attr), .sched_policy = SCHED_OTHER };
        uint32_t i;

        for (i = 0; i < arg.samples && !interrupted; i++) {
                uint64_t t0 = now_ns();

                if (sched_setscheduler(tid, SCHED_FIFO, &fifo) < 0) {
                        note("syscall_p50_ns: not measured: sched_setscheduler(SCHED_FIFO): %m (needs root or "
                             "RLIMIT_RTPRIO)");
                        break;
                }
                v[i] = now_ns() - t0;
                sched_setscheduler(tid, SCHED_OTHER, &other);
        }
        if (i == arg.samples) {
                res.setscheduler = true;
                res.setscheduler_p50 = p_of(v, arg.samples, 0.5);
        }
        for (i = 0; i < arg.samples && !interrupted; i++) {
                uint64_t t0 = now_ns();
                int r = rtf_sched_setattr(tid, &fifo_attr, 0);

                v[i] = now_ns() - t0;
                if (r < 0) {
                        note("sched_setattr_p50_ns: not measured: sched_setattr(SCHED_FIFO): %s", strerror(-r));
                        break;
                }
                rtf_sched_setattr(tid, &other_attr, 0);
        }
        if (i == arg.samples) {
                res.setattr = true;
                res.setattr_p50 = p_of(v, arg.samples, 0.5);
        }
}

/* Attach on `plugin` (NULL: not measured) and the direct system calls, on one sleeping thread. */
static int bench_attach(const char *plugin, const char *kind) {
        uint64_t *v = calloc(arg.samples, sizeof(*v));
        struct sleeper sl;
        int r;

        if (!v)
                return -1;
        r = sleeper_start(&sl);
        if (r < 0) {
                fprintf(stderr, TOOL ": cannot start a thread to attach: %s\n", strerror(-r));
                free(v);
                return -1;
        }
        r = plugin ? measure_attach(plugin, kind, sl.tid, v) : 0;
        if (r == 0 && !interrupted)
                measure_syscalls(sl.tid, v);
        sleeper_stop(&sl);
        free(v);
        return r < 0 || interrupted ? -1 : 0;
}

/* ---- rtfd's memory ---- */

struct fill_target {
        const char *plugin, *kind;
};

/*
 * USS of pid with as many specs of the bench admitted as the largest
 * --tasks: the targets in turn take as many as they will.  0, or -1 if the
 * run must end.
 */
static int measure_uss_full(pid_t pid, const struct fill_target *t, size_t n_t) {
        const uint32_t want = res.uss_full_specs;
        struct rtf_spec *fill;
        uint32_t n = 0;
        size_t k = 0;
        int r = 0, refusal = 0;
        char reason[RTF_REASON_MAX] = "";

        if (want == 0) {
                note("uss_full_kib: not measured: --tasks asks for no specifications");
                return 0;
        }
        fill = calloc(want, sizeof(*fill));
        if (!fill)
                return -1;
        while (n < want && k < n_t && !interrupted) {
                struct rtf_params p;

                fill[n] = (struct rtf_spec)RTF_SPEC_INIT;
                filler_params(t[k].plugin, t[k].kind, n, &p);
                r = request(OP_CREATE, &fill[n], &p, 0, NULL);
                if (r == RTF_OK) {
                        n++;
                        continue;
                }
                if (fatal(r)) {
                        fail_request("filling rtfd for its USS", r);
                        goto out;
                }
                refusal = r;
                snprintf(reason, sizeof(reason), "%s", rtf_last_reason());
                k++;                    /* this one is full: the next */
        }
        r = 0;
        if (interrupted) {
                r = -1;
        } else if (n < want) {
                note("uss_full_kib: not measured: rtfd took %u specifications, not %u (%s: %s)", n, want,
                     rtf_strerror(refusal), reason);
        } else {
                int e = proc_uss_kib(pid, &res.uss_full_kib);

                if (e < 0)
                        note("uss_full_kib: not measured: /proc/%d/smaps_rollup: %s", (int)pid, strerror(-e));
                res.uss_full = e == 0;
        }
out:
        if (release_specs(fill, n) < 0)
                r = -1;
        free(fill);
        return r;
}

static void measure_uss_idle(pid_t pid) {
        int r = proc_uss_kib(pid, &res.uss_idle_kib);

        if (r < 0)
                note("uss_idle_kib, uss_full_kib: not measured: /proc/%d/smaps_rollup: %s%s", (int)pid, strerror(-r),
                     r == -EACCES || r == -EPERM ? " (readable as root)" : "");
        res.uss_idle = r == 0;
}

/* The private FP rtfd of attach and USS (as large as the default 4096 specs need). */
static int bench_private_attach_uss(void) {
        static const struct fill_target fp = { "FP", "FP" };
        struct daemon d;
        int r;

        if (daemon_start(&d, "FP FP.so 1-99 all max_tasks=8192\n") < 0)
                return -1;
        measure_uss_idle(d.pid);
        r = bench_attach("FP", "FP");
        if (r == 0 && res.uss_idle)
                r = measure_uss_full(d.pid, &fp, 1);
        daemon_stop(&d);
        return r;
}

/* ---- the external rtfd ---- */

static const struct rtfd_instance *instance_named(const char *name) {
        for (size_t i = 0; i < target.n_instances; i++)
                if (strcasecmp(target.instances[i].name, name) == 0)
                        return &target.instances[i];
        return NULL;
}

/* Rank for attach and the USS fill: fixed priorities first (no bandwidth), DEADLINE never for attach. */
static int kind_rank(const char *kind) {
        static const char *const order[] = { "FP", "RR", "RM" };

        for (int i = 0; i < 3; i++)
                if (kind_is(kind, order[i]))
                        return i;
        return kind_is(kind, "EDF") ? 4 : 3;
}

/* The process whose USS is rtfd's: SO_PEERCRED's, unless --daemon-pid or it is not rtfd. */
static pid_t external_pid(void) {
        if (arg.daemon_pid > 0)
                return arg.daemon_pid;
        if (target.pid <= 0) {
                note("uss_idle_kib, uss_full_kib: not measured: the kernel did not tell the pid of the socket's "
                     "listener (another pid namespace?); --daemon-pid PID names it");
                return 0;
        }
        if (strcmp(target.comm, "rtfd") != 0) {
                note("uss_idle_kib, uss_full_kib: not measured: the socket's listener is pid %d \"%s\", not rtfd "
                     "(socket activation?); --daemon-pid PID names rtfd", (int)target.pid, target.comm);
                return 0;
        }
        return target.pid;
}

static int bench_external(void) {
        const struct rtfd_instance *selected[MAX_PLUGINS];
        struct fill_target fill_order[MAX_PLUGINS];
        const struct rtfd_instance *attach = NULL;
        struct buffers b = { 0 };
        size_t n_fill_order = 0;
        int n = 0, r = -1;

        /* Before the bench holds anything, even a connection. */
        uss_pid = external_pid();
        if (uss_pid > 0)
                measure_uss_idle(uss_pid);
        for (int i = 0; i < arg.n_plugins; i++)
                selected[n++] = instance_named(arg.plugins[i]);
        if (arg.n_plugins == 0)
                for (size_t i = 0; i < target.n_instances && n < MAX_PLUGINS; i++)
                        selected[n++] = &target.instances[i];
        for (int rank = 0; rank <= 4; rank++)
                for (size_t i = 0; i < target.n_instances && n_fill_order < MAX_PLUGINS; i++)
                        if (kind_rank(target.instances[i].kind) == rank)
                                fill_order[n_fill_order++] = (struct fill_target){ target.instances[i].name,
                                                                                   target.instances[i].kind };
        for (int rank = 0; rank < 3 && !attach; rank++)
                for (size_t i = 0; i < target.n_instances && !attach; i++)
                        if (kind_rank(target.instances[i].kind) == rank)
                                attach = &target.instances[i];
        setenv("RTF_SOCKET", arg.socket, 1);
        r = rtf_connect();
        if (r != RTF_OK) {
                fprintf(stderr, TOOL ": cannot connect to rtfd at %s: %s: %s\n", arg.socket, rtf_strerror(r),
                        rtf_last_reason());
                return -1;
        }
        r = -1;
        if (buffers_init(&b) < 0)
                goto out;
        if (bench_external_series(selected, n, &b) < 0)
                goto out;
        if (!attach)
                note("attach_p50_ns: not measured: rtfd serves no FP, RR or RM instance (attaching a sleeping "
                     "thread to SCHED_DEADLINE and back leaks kernel bandwidth, docs/KERNEL.md)");
        if (bench_attach(attach ? attach->name : NULL, attach ? attach->kind : NULL) < 0)
                goto out;
        if (res.uss_idle && measure_uss_full(uss_pid, fill_order, n_fill_order) < 0)
                goto out;
        r = 0;
out:
        rtf_disconnect();               /* whatever is left, rtfd releases now */
        buffers_deinit(&b);
        return r;
}

/*
 * The floor's CPUs, when --cpus did not say: the echo gets rtfd's affinity
 * (one CPU if rtfd is pinned, and then the client another), so that it is
 * placed as rtfd is.
 */
static void external_cpus(long n_cpus, cpu_set_t *allowed) {
        pid_t pid = arg.daemon_pid > 0 ? arg.daemon_pid : target.pid;

        CPU_ZERO(allowed);
        if (pid <= 0 || sched_getaffinity(pid, sizeof(*allowed), allowed) < 0) {
                CPU_ZERO(allowed);
                return;
        }
        if (arg.cpus_given)
                return;
        if (CPU_COUNT(allowed) > 1) {
                echo_cpus = *allowed;
                arg.daemon_cpu = -1;
                return;
        }
        for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, allowed))
                        arg.daemon_cpu = c;
        arg.client_cpu = arg.daemon_cpu == 0 && n_cpus > 1 ? 1 : 0;
}

/* ---- options ---- */

static void help(void) {
        printf("Usage: " TOOL " [OPTIONS]\n"
               "Measure what rtfd costs (section 6 of the ReTiF paper).\n\n"
               "Which rtfd:\n"
               "      --private            start a private rtfd per configuration (needs root); the default\n"
               "                           when neither --socket nor RTF_SOCKET is given\n"
               "      --socket=PATH        measure the rtfd serving PATH, as it is configured (default: the\n"
               "                           socket in RTF_SOCKET if set); --private wins over RTF_SOCKET\n"
               "      --daemon-pid=PID     that rtfd's pid, for its USS, when the socket's listener is not\n"
               "                           rtfd (socket activation)\n\n"
               "What to measure:\n"
               "      --plugins=LIST       plugins to measure (private: of EDF,RM,FP,RR, the default;\n"
               "                           --socket: instance names, default every instance rtfd serves)\n"
               "      --cores=LIST         private: numbers of cores given to the plugin (default 1 and all)\n"
               "      --tasks=LIST         tasks already admitted (default 0,16,64,256,1024,4096); a series\n"
               "                           ends where rtfd refuses (a limit, its policy, admission)\n"
               "      --samples=N          requests timed per point (default 200)\n"
               "      --spread-periods     give the admitted tasks distinct periods (default: all 1 s)\n"
               "      --cpus=CLIENT,DAEMON the CPUs of the client and of rtfd and the floor's echo (default 0,1;\n"
               "                           --socket: rtfd is not moved, the echo gets rtfd's affinity)\n"
               "      --rtfd=PATH          private: the rtfd to start (default: the build tree's, else the\n"
               "                           installed one)\n"
               "      --plugindir=DIR      private: its plugins\n"
               "      --latency-hint=US    hold /dev/cpu_dma_latency at US during the run (default 0; \"off\")\n\n"
               "Output:\n"
               "      --json               one JSON document\n"
               "      --csv                the rows as CSV (scalars, stops and notes as # comment lines)\n"
               "      --plot=PREFIX        PREFIX-create.png and PREFIX-change.png (needs python3-matplotlib)\n"
               "  -h, --help               this text\n"
               "      --version            the version\n\n"
               "Everything the bench creates is released before it exits, also on SIGINT and SIGTERM (a\n"
               "second signal leaves the releases to rtfd, which makes them when the connection closes).\n");
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

static int u32_compare(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

        return x < y ? -1 : x > y;
}

/* Ascending, without duplicates: each series fills up from the previous point. */
static void sort_unique(uint32_t *v, int *n) {
        int k = 0;

        qsort(v, (size_t)*n, sizeof(*v), u32_compare);
        for (int i = 0; i < *n; i++)
                if (k == 0 || v[i] != v[k - 1])
                        v[k++] = v[i];
        *n = k;
}

static int split_plugins(char *list) {
        char *save = NULL;

        arg.n_plugins = 0;
        for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                bool dup = false;

                for (int j = 0; j < arg.n_plugins; j++)
                        dup |= strcasecmp(arg.plugins[j], w) == 0;
                if (dup)
                        continue;
                if (arg.n_plugins >= MAX_PLUGINS) {
                        fprintf(stderr, TOOL ": --plugins: at most %d plugins\n", MAX_PLUGINS);
                        return -1;
                }
                arg.plugins[arg.n_plugins++] = w;
        }
        if (arg.n_plugins == 0) {
                fprintf(stderr, TOOL ": --plugins is empty\n");
                return -1;
        }
        return 0;
}

/* Private daemons know the four shipped plugins only; map the names to their kinds. */
static int check_private_plugins(void) {
        if (arg.n_plugins == 0) {
                for (size_t i = 0; i < 4; i++)
                        arg.plugins[i] = kinds[i].name;
                arg.n_plugins = 4;
                return 0;
        }
        for (int j = 0; j < arg.n_plugins; j++) {
                bool known = false;

                for (size_t i = 0; i < 4 && !known; i++)
                        if (strcasecmp(arg.plugins[j], kinds[i].name) == 0) {
                                arg.plugins[j] = kinds[i].name;
                                known = true;
                        }
                if (!known) {
                        fprintf(stderr, TOOL ": unknown plugin \"%s\" (EDF, RM, FP, RR)\n", arg.plugins[j]);
                        return -1;
                }
        }
        return 0;
}

/* --private > --socket > RTF_SOCKET > private; options of the other mode are errors. */
static int choose_mode(bool rtfd_given, bool plugindir_given) {
        const char *env = getenv("RTF_SOCKET");

        if (arg.force_private && arg.socket_option) {
                fprintf(stderr, TOOL ": --private and --socket exclude each other\n");
                return -1;
        }
        if (arg.force_private || (!arg.socket_option && !(env && *env))) {
                arg.mode = MODE_PRIVATE;
                if (arg.daemon_pid) {
                        fprintf(stderr, TOOL ": --daemon-pid applies to an external rtfd only (--socket)\n");
                        return -1;
                }
                return check_private_plugins();
        }
        arg.mode = MODE_EXTERNAL;
        arg.socket = arg.socket_option ? arg.socket_option : env;
        if (arg.cores_given || rtfd_given || plugindir_given) {
                fprintf(stderr, TOOL ": --%s applies to private daemons only: the rtfd at %s (%s) serves the cores "
                                "its configuration gives it; add --private to start private daemons\n",
                        arg.cores_given ? "cores" : rtfd_given ? "rtfd" : "plugindir", arg.socket,
                        arg.socket_option ? "--socket" : "RTF_SOCKET");
                return -1;
        }
        return 0;
}

static int parse_args(int argc, char *argv[]) {
        enum { OPT_VERSION = 0x100, OPT_PLUGINS, OPT_CORES, OPT_TASKS, OPT_SAMPLES, OPT_CPUS, OPT_RTFD,
               OPT_PLUGINDIR, OPT_HINT, OPT_JSON, OPT_CSV, OPT_PLOT, OPT_SPREAD, OPT_SOCKET, OPT_PRIVATE,
               OPT_DAEMON_PID };
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
                { "socket", required_argument, NULL, OPT_SOCKET },
                { "private", no_argument, NULL, OPT_PRIVATE },
                { "daemon-pid", required_argument, NULL, OPT_DAEMON_PID },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                { 0 }
        };
        static const uint32_t default_tasks[] = { 0, 16, 64, 256, 1024, 4096 };
        long n_cpus = sysconf(_SC_NPROCESSORS_ONLN);
        bool rtfd_given = false, plugindir_given = false;
        uint32_t v[MAX_LIST];
        int c, n;

        arg.n_tasks = 6;
        memcpy(arg.tasks, default_tasks, sizeof(default_tasks));
        arg.cores[arg.n_cores++] = 1;
        if (n_cpus > 1)
                arg.cores[arg.n_cores++] = (uint32_t)n_cpus;
        arg.client_cpu = 0;
        arg.daemon_cpu = n_cpus > 1 ? 1 : 0;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case OPT_PLUGINS:
                        free(arg.plugin_list);
                        arg.plugin_list = strdup(optarg);
                        if (!arg.plugin_list || split_plugins(arg.plugin_list) < 0)
                                return -1;
                        break;
                case OPT_CORES:
                        if (parse_list(optarg, "--cores", 1, (uint32_t)n_cpus, arg.cores, &arg.n_cores) < 0)
                                return -1;
                        arg.cores_given = true;
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
                        arg.cpus_given = true;
                        break;
                case OPT_RTFD:
                        arg.rtfd = optarg;
                        rtfd_given = true;
                        break;
                case OPT_PLUGINDIR:
                        arg.plugindir = optarg;
                        plugindir_given = true;
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
                case OPT_SOCKET:
                        if (!*optarg) {
                                fprintf(stderr, TOOL ": --socket is empty\n");
                                return -1;
                        }
                        arg.socket_option = optarg;
                        break;
                case OPT_PRIVATE:
                        arg.force_private = true;
                        break;
                case OPT_DAEMON_PID:
                        if (parse_list(optarg, "--daemon-pid", 1, INT32_MAX, v, &n) < 0 || n != 1)
                                return -1;
                        arg.daemon_pid = (pid_t)v[0];
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
        sort_unique(arg.tasks, &arg.n_tasks);
        res.uss_full_specs = arg.tasks[arg.n_tasks - 1];
        return choose_mode(rtfd_given, plugindir_given);
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

/* The external rtfd's STATUS, and --plugins checked against its instances. */
static int query_target(void) {
        int r = rtfd_info_query(arg.socket, &target);

        if (r < 0) {
                fprintf(stderr, TOOL ": cannot ask rtfd at %s (%s) for its status: %s\n", arg.socket,
                        arg.socket_option ? "--socket" : "RTF_SOCKET", strerror(-r));
                return -1;
        }
        if (target.n_instances == 0) {
                fprintf(stderr, TOOL ": rtfd at %s serves no plugin instance\n", arg.socket);
                return -1;
        }
        for (int i = 0; i < arg.n_plugins; i++) {
                const struct rtfd_instance *in = instance_named(arg.plugins[i]);

                if (!in) {
                        fprintf(stderr, TOOL ": rtfd at %s serves no instance \"%s\"; it serves", arg.socket,
                                arg.plugins[i]);
                        for (size_t k = 0; k < target.n_instances; k++)
                                fprintf(stderr, "%s %s", k ? "," : "", target.instances[k].name);
                        fprintf(stderr, "\n");
                        return -1;
                }
        }
        return 0;
}

static void on_signal(int sig) {
        (void)sig;
        if (interrupted < 2)
                interrupted++;
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

/* ---- output ---- */

static json_object *json_cpus(const cpu_set_t *set) {
        json_object *a = json_object_new_array();

        for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, set))
                        json_object_array_add(a, json_object_new_int(c));
        return a;
}

static json_object *json_daemon(const cpu_set_t *allowed) {
        json_object *o, *instances;

        if (arg.mode == MODE_PRIVATE)
                return NULL;
        o = json_object_new_object();
        instances = json_object_new_array();
        json_object_object_add(o, "pid", target.pid > 0 ? json_object_new_int(target.pid) : NULL);
        json_object_object_add(o, "comm", target.comm[0] ? json_object_new_string(target.comm) : NULL);
        json_object_object_add(o, "uss_pid", uss_pid > 0 ? json_object_new_int(uss_pid) : NULL);
        json_object_object_add(o, "cpus_allowed", CPU_COUNT(allowed) ? json_cpus(allowed) : NULL);
        for (size_t i = 0; i < target.n_instances; i++) {
                const struct rtfd_instance *in = &target.instances[i];
                json_object *j = json_object_new_object(), *cpus = json_object_new_array();

                for (uint32_t k = 0; k < in->n_cpus; k++)
                        json_object_array_add(cpus, json_object_new_int(in->cpus[k]));
                json_object_object_add(j, "plugin", json_object_new_string(in->name));
                json_object_object_add(j, "kind", json_object_new_string(in->kind));
                json_object_object_add(j, "cpus", cpus);
                json_object_object_add(j, "partitioned", json_object_new_boolean(in->partitioned));
                json_object_object_add(j, "tasks_before", json_object_new_int64(in->tasks));
                json_object_object_add(j, "utilization_before", json_object_new_double(in->utilization));
                json_object_array_add(instances, j);
        }
        json_object_object_add(o, "instances", instances);
        return o;
}

static json_object *json_series(void) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; i < res.n_series; i++) {
                const struct series *se = &res.series[i];
                json_object *o = json_object_new_object(), *stop = NULL;

                json_object_object_add(o, "plugin", json_object_new_string(se->plugin));
                json_object_object_add(o, "kind", json_object_new_string(se->kind));
                json_object_object_add(o, "cores", json_object_new_int64(se->cores));
                json_object_object_add(o, "complete", json_object_new_boolean(se->complete));
                if (se->stopped) {
                        stop = json_object_new_object();
                        json_object_object_add(stop, "tasks", json_object_new_int64(se->stop_tasks));
                        json_object_object_add(stop, "step", json_object_new_string(se->stop_step));
                        json_object_object_add(stop, "result", json_object_new_int(se->stop_result));
                        json_object_object_add(stop, "error", json_object_new_string(rtf_strerror(se->stop_result)));
                        json_object_object_add(stop, "reason", json_object_new_string(se->stop_reason));
                }
                json_object_object_add(o, "stopped", stop);
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *json_u64_or_null(bool known, uint64_t v) {
        return known ? json_object_new_uint64(v) : NULL;
}

static json_object *json_kib_or_null(bool known, long v) {
        return known ? json_object_new_int64(v) : NULL;
}

static json_object *build_json(json_object *doc, const cpu_set_t *allowed) {
        json_object *jrows = json_object_new_array(), *p = json_object_new_object(), *notes;

        for (size_t i = 0; i < res.n_rows; i++) {
                const struct row *row = &res.rows[i];
                json_object *o = json_object_new_object();

                json_object_object_add(o, "plugin", json_object_new_string(row->plugin));
                json_object_object_add(o, "cores", json_object_new_int64(row->cores));
                json_object_object_add(o, "tasks", json_object_new_int64(row->tasks));
                json_object_object_add(o, "samples", json_object_new_int64(row->samples));
                json_object_object_add(o, "create_p50_ns", json_object_new_uint64(row->create_p50));
                json_object_object_add(o, "create_p99_ns", json_object_new_uint64(row->create_p99));
                json_object_object_add(o, "change_p50_ns", json_object_new_uint64(row->change_p50));
                json_object_object_add(o, "change_p99_ns", json_object_new_uint64(row->change_p99));
                json_object_object_add(o, "rtt_p50_ns", json_object_new_uint64(row->rtt_p50));
                json_object_object_add(o, "create_ratio",
                                       row->rtt_p50 ? json_object_new_double(round((double)row->create_p50 /
                                                                                   (double)row->rtt_p50 * 1000) / 1000)
                                                    : NULL);
                json_object_object_add(o, "change_ratio",
                                       row->rtt_p50 ? json_object_new_double(round((double)row->change_p50 /
                                                                                   (double)row->rtt_p50 * 1000) / 1000)
                                                    : NULL);
                json_object_array_add(jrows, o);
        }
        json_object_object_add(p, "client_cpu", json_object_new_int(arg.client_cpu));
        json_object_object_add(p, "daemon_cpu", arg.daemon_cpu >= 0 ? json_object_new_int(arg.daemon_cpu) : NULL);
        json_object_object_add(p, "samples", json_object_new_int64(arg.samples));
        json_object_object_add(p, "spread_periods", json_object_new_boolean(arg.spread_periods));
        json_object_object_add(p, "rtfd", arg.mode == MODE_PRIVATE ? json_object_new_string(arg.rtfd) : NULL);
        json_object_object_add(p, "latency_hint_us", arg.hint_us >= 0 ? json_object_new_int(arg.hint_us) : NULL);
        json_object_object_add(p, "request_bytes", json_object_new_int64((int64_t)res.req));
        json_object_object_add(p, "reply_bytes", json_object_new_int64((int64_t)res.rep));
        json_object_object_add(doc, "parameters", p);
        json_object_object_add(doc, "mode", json_object_new_string(arg.mode == MODE_PRIVATE ? "private" : "external"));
        json_object_object_add(doc, "socket", arg.mode == MODE_EXTERNAL ? json_object_new_string(arg.socket) : NULL);
        json_object_object_add(doc, "daemon", json_daemon(allowed));
        json_object_object_add(doc, "rtt_p50_ns", json_object_new_uint64(res.rtt_p50));
        json_object_object_add(doc, "rtt_p99_ns", json_object_new_uint64(res.rtt_p99));
        json_object_object_add(doc, "rows", jrows);
        json_object_object_add(doc, "series", json_series());
        json_object_object_add(doc, "attach_plugin", res.attach ? json_object_new_string(res.attach_plugin) : NULL);
        json_object_object_add(doc, "attach_p50_ns", json_u64_or_null(res.attach, res.attach_p50));
        json_object_object_add(doc, "attach_p99_ns", json_u64_or_null(res.attach, res.attach_p99));
        json_object_object_add(doc, "syscall_p50_ns", json_u64_or_null(res.setscheduler, res.setscheduler_p50));
        json_object_object_add(doc, "sched_setattr_p50_ns", json_u64_or_null(res.setattr, res.setattr_p50));
        json_object_object_add(doc, "uss_idle_kib", json_kib_or_null(res.uss_idle, res.uss_idle_kib));
        json_object_object_add(doc, "uss_full_kib", json_kib_or_null(res.uss_full, res.uss_full_kib));
        json_object_object_add(doc, "uss_full_specs", json_object_new_int64(res.uss_full_specs));
        json_object_object_add(doc, "requests_throttled", json_object_new_uint64(res.throttled));
        notes = json_object_new_array();
        for (size_t i = 0; i < res.n_notes; i++)
                json_object_array_add(notes, json_object_new_string(res.notes[i]));
        json_object_object_add(doc, "notes", notes);
        return doc;
}

static void print_header(const cpu_set_t *allowed) {
        if (arg.mode == MODE_PRIVATE) {
                printf("# %s %s: private rtfd %s, client on CPU %d, rtfd on CPU %d, %u samples per point\n", TOOL,
                       RTF_VERSION, arg.rtfd, arg.client_cpu, arg.daemon_cpu, arg.samples);
        } else {
                printf("# %s %s: rtfd at %s, pid ", TOOL, RTF_VERSION, arg.socket);
                if (target.pid > 0)
                        printf("%d (%s)", (int)target.pid, target.comm[0] ? target.comm : "?");
                else
                        printf("unknown");
                if (CPU_COUNT(allowed))
                        printf(", allowed on %d CPU%s", CPU_COUNT(allowed), CPU_COUNT(allowed) == 1 ? "" : "s");
                printf("; client on CPU %d, ", arg.client_cpu);
                if (arg.daemon_cpu < 0)
                        printf("floor's echo on rtfd's CPUs");
                else
                        printf("floor's echo on CPU %d", arg.daemon_cpu);
                printf("; %u samples per point\n", arg.samples);
                for (size_t i = 0; i < target.n_instances; i++) {
                        const struct rtfd_instance *in = &target.instances[i];

                        printf("# instance %s (%s): %u core%s, %u task%s held, utilisation %.3f\n", in->name,
                               in->kind, in->n_cpus, plural(in->n_cpus), in->tasks, plural(in->tasks),
                               in->utilization);
                }
        }
        printf("# floor: AF_UNIX SOCK_SEQPACKET round trip (%zu/%zu bytes): p50 %.1f us, p99 %.1f us\n", res.req,
               res.rep, res.rtt_p50 / 1e3, res.rtt_p99 / 1e3);
        printf("# plugin cores  tasks create_p50 create_p99 change_p50 change_p99  rtt_p50 (us)  create/rtt change/rtt\n");
        fflush(stdout);
}

static void print_opt_us(const char *what, bool known, uint64_t ns) {
        if (known)
                printf("%s %.1f us", what, ns / 1e3);
        else
                printf("%s -", what);
}

static void print_opt_kib(const char *what, bool known, long kib) {
        if (known)
                printf("%ld KiB %s", kib, what);
        else
                printf("- %s", what);
}

static void print_summary(void) {
        printf("# attach (rtf_spec_attach%s%s): ", res.attach ? ", " : "", res.attach ? res.attach_plugin : "");
        print_opt_us("p50", res.attach, res.attach_p50);
        print_opt_us(", p99", res.attach, res.attach_p99);
        printf("; direct on the same thread: ");
        print_opt_us("sched_setscheduler p50", res.setscheduler, res.setscheduler_p50);
        print_opt_us(", sched_setattr p50", res.setattr, res.setattr_p50);
        printf("\n# rtfd USS: ");
        print_opt_kib("idle", res.uss_idle, res.uss_idle_kib);
        printf(", ");
        {
                char what[64];

                snprintf(what, sizeof(what), "with %" PRIu32 " specifications", res.uss_full_specs);
                print_opt_kib(what, res.uss_full, res.uss_full_kib);
        }
        printf("\n");
}

static void print_csv(void) {
        printf("# mode=%s socket=%s\n", arg.mode == MODE_PRIVATE ? "private" : "external",
               arg.mode == MODE_EXTERNAL ? arg.socket : "-");
        printf("# rtt_p50_ns=%" PRIu64, res.rtt_p50);
        if (res.attach)
                printf(" attach_p50_ns=%" PRIu64, res.attach_p50);
        if (res.setscheduler)
                printf(" syscall_p50_ns=%" PRIu64, res.setscheduler_p50);
        if (res.setattr)
                printf(" sched_setattr_p50_ns=%" PRIu64, res.setattr_p50);
        if (res.uss_idle)
                printf(" uss_idle_kib=%ld", res.uss_idle_kib);
        if (res.uss_full)
                printf(" uss_full_kib=%ld uss_full_specs=%" PRIu32, res.uss_full_kib, res.uss_full_specs);
        printf("\n");
        for (size_t i = 0; i < res.n_series; i++)
                if (res.series[i].stopped)
                        series_print_stop(&res.series[i], stdout);
        for (size_t i = 0; i < res.n_notes; i++)
                printf("# note: %s\n", res.notes[i]);
        printf("plugin,cores,tasks,samples,create_p50_ns,create_p99_ns,change_p50_ns,change_p99_ns,rtt_p50_ns\n");
        for (size_t i = 0; i < res.n_rows; i++)
                printf("%s,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", res.rows[i].plugin,
                       res.rows[i].cores, res.rows[i].tasks, res.rows[i].samples, res.rows[i].create_p50,
                       res.rows[i].create_p99, res.rows[i].change_p50, res.rows[i].change_p99, res.rows[i].rtt_p50);
}

/* ---- main ---- */

static int run_private(void) {
        struct buffers b = { 0 };
        int r = -1;

        if (buffers_init(&b) < 0)
                goto out;
        for (int i = 0; i < arg.n_plugins && !interrupted; i++) {
                const struct plugin_kind *kind = NULL;

                for (size_t k = 0; k < 4; k++)
                        if (kinds[k].name == arg.plugins[i])
                                kind = &kinds[k];
                for (int c = 0; c < arg.n_cores && !interrupted; c++)
                        if (bench_private_config(kind, arg.cores[c], &b) < 0)
                                goto out;
        }
        if (!interrupted)
                r = bench_private_attach_uss();
out:
        buffers_deinit(&b);
        return r;
}

int main(int argc, char *argv[]) {
        struct sigaction sa = { .sa_handler = on_signal };
        long n_cpus = sysconf(_SC_NPROCESSORS_ONLN);
        cpu_set_t allowed;
        json_object *doc;
        int hint_fd = -1, rc = EXIT_FAILURE, r;

        if (parse_args(argc, argv) < 0) {
                fprintf(stderr, "Try '" TOOL " --help'.\n");
                return EXIT_FAILURE;
        }
        CPU_ZERO(&allowed);
        if (arg.mode == MODE_PRIVATE) {
                if (geteuid() != 0) {
                        fprintf(stderr, TOOL ": needs root to start a private rtfd for every configuration "
                                        "(or measure a running rtfd: --socket PATH)\n");
                        return EXIT_FAILURE;
                }
                default_paths();
        } else {
                if (query_target() < 0)
                        return EXIT_FAILURE;
                external_cpus(n_cpus, &allowed);
        }
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

        r = measure_rtt();
        if (r < 0) {
                fprintf(stderr, TOOL ": cannot measure the round trip: %s\n", strerror(-r));
                goto out;
        }
        if (interrupted)
                goto out;
        if (!arg.json && !arg.csv)
                print_header(&allowed);
        r = arg.mode == MODE_PRIVATE ? run_private() : bench_external();
        if (res.throttled)
                note("rtfd's rate limit for non-root connections (max_requests_per_sec) refused %" PRIu64
                     " requests; each was asked again %d ms later, and only accepted attempts are timed",
                     res.throttled, THROTTLE_WAIT_US / 1000);
        rc = r == 0 && !interrupted ? EXIT_SUCCESS : EXIT_FAILURE;
out:
        if (hint_fd >= 0)
                close(hint_fd);
        build_json(doc, &allowed);
        if (arg.plot && rc == EXIT_SUCCESS && plot(doc) < 0)
                rc = EXIT_FAILURE;
        envelope_finish(doc, rc);
        if (arg.json) {
                printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
                                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
        } else if (arg.csv) {
                print_csv();
        } else {
                if (rc == EXIT_SUCCESS)
                        print_summary();
                for (size_t i = 0; i < res.n_notes; i++)
                        printf("# note: %s\n", res.notes[i]);
                if (interrupted)
                        printf("# interrupted\n");
        }
        json_object_put(doc);
        rtfd_info_deinit(&target);
        for (size_t i = 0; i < res.n_notes; i++)
                free(res.notes[i]);
        free(res.rows);
        free(res.series);
        free(arg.plugin_list);
        return rc;
}
