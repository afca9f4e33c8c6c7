/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The measurements: the floor (a bare round trip), create and change
 * against the tasks already admitted, attach against the direct system
 * calls, and rtfd's memory.
 */
#include "bench.h"

const struct plugin_kind bench_kinds[4] = {
        { "EDF", "100-100" }, { "RM", "50-89" }, { "FP", "1-89" }, { "RR", "1-89" },
};

static uint64_t now_ns(void) {
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t p_of(uint64_t *v, size_t n, double q) {
        qsort(v, n, sizeof(*v), u64_compare);
        return samples_percentile(v, n, q);
}

int bench_pin(pid_t pid, int cpu) {
        cpu_set_t set;

        if (cpu < 0)
                return 0;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        return sched_setaffinity(pid, sizeof(set), &set) < 0 ? -errno : 0;
}

/* Something not measured, and why: in the text output and the JSON's "notes". */
__attribute__((format(printf, 2, 3))) void bench_note(struct bench *ctx, const char *fmt, ...) {
        va_list ap;
        char *s = NULL;

        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        if (s && ctx->res.n_notes < MAX_NOTES)
                ctx->res.notes[ctx->res.n_notes++] = s;
        else
                free(s);
}

const char *bench_plural(uint32_t n) {
        return n == 1 ? "" : "s";
}

/* The floor: n bare round trips of rtfd's sizes to a forked echo process (after 100 of warm-up). */
static int rtt_sample(struct bench *ctx, size_t n, uint64_t *ret_p50, uint64_t *ret_p99) {
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
                if (ctx->arg.daemon_cpu < 0)
                        sched_setaffinity(0, sizeof(ctx->echo_cpus), &ctx->echo_cpus);
                bench_pin(0, ctx->arg.daemon_cpu);
                while (recv(sv[1], buf, sizeof(buf), 0) > 0)
                        if (send(sv[1], buf, rep, 0) < 0)
                                break;
                _exit(0);
        }
        close(sv[1]);
        for (size_t i = 0; i < n + 100 && !(*ctx->interrupted); i++) {
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
        ctx->res.req = req;
        ctx->res.rep = rep;
        free(v);
        return r;
}

int measure_rtt(struct bench *ctx) {
        return rtt_sample(ctx, (size_t)ctx->arg.samples * 10, &ctx->res.rtt_p50, &ctx->res.rtt_p99);
}

/*
 * One request, timed (the accepted attempt only).  A request that rtfd's
 * rate limit refused (-EAGAIN; root is exempt) is asked again after a pause,
 * for at most THROTTLE_GIVE_UP_NS.
 */
static int request(struct bench *ctx, enum op op, struct rtf_spec *s, const struct rtf_params *p, pid_t tid, uint64_t *ret_ns) {
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
                    (*ctx->interrupted) > (op == OP_RELEASE ? 1 : 0)) {
                        if (ret_ns)
                                *ret_ns = t;
                        return r;
                }
                ctx->res.throttled++;
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
static int release_specs(struct bench *ctx, struct rtf_spec *specs, uint32_t n) {
        bool warned = false;

        for (uint32_t i = n; i-- > 0;) {
                int r;

                if (specs[i].id == 0)
                        continue;
                if ((*ctx->interrupted) > 1)
                        return 0;
                r = request(ctx, OP_RELEASE, &specs[i], NULL, 0, NULL);
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

bool bench_kind_is(const char *kind, const char *name) {
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
void measure_filler_params(struct bench *ctx, const char *plugin, const char *kind, uint32_t i, struct rtf_params *p) {
        bool constrained = ctx->arg.deadline_percent > 0 && ctx->arg.deadline_percent < 100;
        bool budget = constrained || (!bench_kind_is(kind, "FP") && !bench_kind_is(kind, "RR"));
        bool priority = !bench_kind_is(kind, "EDF") && !bench_kind_is(kind, "RM");
        uint64_t period = 1000000 + (ctx->arg.spread_periods ? (uint64_t)i * 7 : 0);

        *p = (struct rtf_params)RTF_PARAMS_INIT;
        rtf_params_set_scheduler(p, plugin);
        rtf_params_set_period(p, period);
        /* A constrained deadline (and, for FP and RR, a runtime) makes the
         * exact tests run: RM's RTA, EDF's processor demand, the machine's RTA. */
        if (constrained)
                rtf_params_set_deadline(p, period * ctx->arg.deadline_percent / 100);
        if (budget)
                rtf_params_set_runtime(p, 10);
        if (priority)
                rtf_params_set_priority(p, 1 + i % 89);
}

/* The request that is timed; `variant` alternates two parameter sets for change. */
static void probe_params(struct bench *ctx, const char *plugin, const char *kind, int variant, struct rtf_params *p) {
        bool constrained = ctx->arg.deadline_percent > 0 && ctx->arg.deadline_percent < 100;
        bool budget = constrained || (!bench_kind_is(kind, "FP") && !bench_kind_is(kind, "RR"));
        bool priority = !bench_kind_is(kind, "EDF") && !bench_kind_is(kind, "RM");

        *p = (struct rtf_params)RTF_PARAMS_INIT;
        rtf_params_set_scheduler(p, plugin);
        rtf_params_set_period(p, 10000);
        if (constrained)
                rtf_params_set_deadline(p, 10000 * ctx->arg.deadline_percent / 100);
        if (budget)
                rtf_params_set_runtime(p, variant ? 200 : 100);
        if (priority)
                rtf_params_set_priority(p, variant ? 51 : 50);
}

static struct series *series_add(struct bench *ctx, const char *plugin, const char *kind, uint32_t cores) {
        struct series *v = realloc(ctx->res.series, (ctx->res.n_series + 1) * sizeof(*v));

        if (!v)
                return NULL;
        ctx->res.series = v;
        v = &ctx->res.series[ctx->res.n_series++];
        *v = (struct series){ .cores = cores };
        snprintf(v->plugin, sizeof(v->plugin), "%s", plugin);
        snprintf(v->kind, sizeof(v->kind), "%s", kind);
        return v;
}

static int row_add(struct bench *ctx, const struct series *se, uint32_t tasks, uint64_t *create, uint64_t *change, uint64_t rtt) {
        struct row *v = realloc(ctx->res.rows, (ctx->res.n_rows + 1) * sizeof(*v)), *row;

        if (!v)
                return -ENOMEM;
        ctx->res.rows = v;
        row = &ctx->res.rows[ctx->res.n_rows++];
        *row = (struct row){
                .cores = se->cores, .tasks = tasks, .samples = ctx->arg.samples,
                .create_p50 = p_of(create, ctx->arg.samples, 0.5),
                .create_p99 = samples_percentile(create, ctx->arg.samples, 0.99),
                .change_p50 = p_of(change, ctx->arg.samples, 0.5),
                .change_p99 = samples_percentile(change, ctx->arg.samples, 0.99),
                .rtt_p50 = rtt,
        };
        snprintf(row->plugin, sizeof(row->plugin), "%s", se->plugin);
        if (!ctx->arg.json && !ctx->arg.csv) {
                printf("%-6s %5u %6u %10.1f %10.1f %10.1f %10.1f %9.1f %6.2f %6.2f\n", row->plugin, row->cores,
                       row->tasks, row->create_p50 / 1e3, row->create_p99 / 1e3, row->change_p50 / 1e3,
                       row->change_p99 / 1e3, rtt / 1e3, rtt ? (double)row->create_p50 / (double)rtt : 0.0,
                       rtt ? (double)row->change_p50 / (double)rtt : 0.0);
                fflush(stdout);
        }
        return 0;
}

void measure_print_stop(const struct series *se, FILE *f) {
        fprintf(f, "# %s, %u core%s: stopped with %u task%s admitted (%s): %s: %s\n", se->plugin, se->cores,
                bench_plural(se->cores), se->stop_tasks, bench_plural(se->stop_tasks), se->stop_step,
                rtf_strerror(se->stop_result), se->stop_reason[0] ? se->stop_reason : "-");
}

/* rtfd said no: the series ends here (0), unless rtfd is gone or a signal came (-1). */
static int series_stop(struct bench *ctx, struct series *se, uint32_t tasks, const char *step, int r) {
        if (fatal(r))
                return fail_request(step, r);
        if ((*ctx->interrupted))
                return -1;              /* a throttled request given up for the signal */
        se->stopped = true;
        se->stop_tasks = tasks;
        se->stop_step = step;
        se->stop_result = r;
        snprintf(se->stop_reason, sizeof(se->stop_reason), "%s", rtf_last_reason());
        if (!ctx->arg.json && !ctx->arg.csv) {
                measure_print_stop(se, stdout);
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
static int run_series(struct bench *ctx, struct series *se, struct rtf_spec *fill, uint32_t *n_fill, uint64_t *create,
                      uint64_t *change) {
        struct rtf_spec probe = RTF_SPEC_INIT;
        uint64_t rtt = 0, rtt_p99;
        struct rtf_params p;
        int r = 0;

        for (int t = 0; t < ctx->arg.n_tasks && !(*ctx->interrupted); t++) {
                for (; *n_fill < ctx->arg.tasks[t] && !(*ctx->interrupted); (*n_fill)++) {
                        fill[*n_fill] = (struct rtf_spec)RTF_SPEC_INIT;
                        measure_filler_params(ctx, se->plugin, se->kind, *n_fill, &p);
                        r = request(ctx, OP_CREATE, &fill[*n_fill], &p, 0, NULL);
                        if (r != RTF_OK) {
                                r = series_stop(ctx, se, *n_fill, "filling", r);
                                goto out;
                        }
                }
                /* The floor again, right here: on a shared machine it drifts within a run. */
                if (rtt_sample(ctx, ctx->arg.samples, &rtt, &rtt_p99) < 0)
                        rtt = 0;
                for (uint32_t i = 0; i < ctx->arg.samples && !(*ctx->interrupted); i++) {
                        probe_params(ctx, se->plugin, se->kind, 0, &p);
                        r = request(ctx, OP_CREATE, &probe, &p, 0, &create[i]);
                        if (r != RTF_OK) {
                                r = series_stop(ctx, se, *n_fill, "create", r);
                                goto out;
                        }
                        if (i + 1 == ctx->arg.samples)
                                break;  /* the probe stays for change */
                        r = request(ctx, OP_RELEASE, &probe, NULL, 0, NULL);
                        if (r != RTF_OK) {
                                r = series_stop(ctx, se, *n_fill, "release", r);
                                goto out;
                        }
                }
                for (uint32_t i = 0; i < ctx->arg.samples && !(*ctx->interrupted); i++) {
                        probe_params(ctx, se->plugin, se->kind, (int)(i & 1) ^ 1, &p);
                        r = request(ctx, OP_CHANGE, &probe, &p, 0, &change[i]);
                        if (r != RTF_OK) {
                                r = series_stop(ctx, se, *n_fill, "change", r);
                                goto out;
                        }
                }
                if ((*ctx->interrupted))
                        break;
                r = request(ctx, OP_RELEASE, &probe, NULL, 0, NULL);
                if (r != RTF_OK) {
                        r = series_stop(ctx, se, *n_fill, "release", r);
                        goto out;
                }
                if (row_add(ctx, se, ctx->arg.tasks[t], create, change, rtt) < 0) {
                        r = -1;
                        goto out;
                }
        }
        r = (*ctx->interrupted) ? -1 : 0;
        se->complete = r == 0;
out:
        if (release_specs(ctx, &probe, 1) < 0)
                r = -1;
        return r;
}

static uint32_t max_tasks(struct bench *ctx) {
        return ctx->arg.tasks[ctx->arg.n_tasks - 1];      /* sorted */
}

static int buffers_init(struct bench *ctx, struct buffers *b) {
        b->fill = calloc(max_tasks(ctx) + 1, sizeof(*b->fill));
        b->create = calloc(ctx->arg.samples, sizeof(*b->create));
        b->change = calloc(ctx->arg.samples, sizeof(*b->change));
        return b->fill && b->create && b->change ? 0 : -ENOMEM;
}

static void buffers_deinit(struct buffers *b) {
        free(b->fill);
        free(b->create);
        free(b->change);
}

/* A private rtfd with `cores` cores for the plugin, measured and stopped. */
static int bench_private_config(struct bench *ctx, const struct plugin_kind *kind, uint32_t cores, struct buffers *b) {
        struct series *se = series_add(ctx, kind->name, kind->name, cores);
        uint32_t n_fill = 0, per_core = max_tasks(ctx) + 64;
        struct daemon d;
        char config[256];
        int r;

        if (!se)
                return -1;
        /* max_tasks is per core: allow every filler on one core, and all of them on one connection. */
        snprintf(config, sizeof(config), "%s %s.so %s 0-%u max_tasks=%u\nset max_specs_per_client %u\n", kind->name,
                 kind->name, kind->range, cores - 1, per_core < 1024 ? 1024 : per_core,
                 per_core < 8192 ? 8192 : per_core);
        if (which_rtfd_start(ctx, &d, config, NULL) < 0)
                return -1;
        r = run_series(ctx, se, b->fill, &n_fill, b->create, b->change);
        which_rtfd_stop(&d);                /* rtfd releases everything with the connection */
        return r;
}

/* Each instance of the external rtfd that --plugins selected, in turn. */
static int bench_external_series(struct bench *ctx, const struct rtfd_instance *const *selected, int n, struct buffers *b) {
        for (int i = 0; i < n && !(*ctx->interrupted); i++) {
                struct series *se = series_add(ctx, selected[i]->name, selected[i]->kind, selected[i]->n_cpus);
                uint32_t n_fill = 0;
                int r;

                if (!se)
                        return -1;
                r = run_series(ctx, se, b->fill, &n_fill, b->create, b->change);
                if (release_specs(ctx, b->fill, n_fill) < 0 || r < 0)
                        return -1;
        }
        return (*ctx->interrupted) ? -1 : 0;
}

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
static int measure_attach(struct bench *ctx, const char *plugin, const char *kind, pid_t tid, uint64_t *v) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p = RTF_PARAMS_INIT;
        int r;

        rtf_params_set_scheduler(&p, plugin);
        rtf_params_set_period(&p, 10000);
        if (bench_kind_is(kind, "RM"))
                rtf_params_set_runtime(&p, 100);
        else
                rtf_params_set_priority(&p, 10);
        r = request(ctx, OP_CREATE, &s, &p, 0, NULL);
        if (r != RTF_OK) {
                if (fatal(r))
                        return fail_request("rtf_spec_create", r);
                if ((*ctx->interrupted))
                        return -1;
                bench_note(ctx, "attach_p50_ns: not measured: %s refused the spec: %s: %s", plugin, rtf_strerror(r),
                     rtf_last_reason());
                return 0;
        }
        for (uint32_t i = 0; i < ctx->arg.samples && !(*ctx->interrupted); i++) {
                const char *what = "rtf_spec_attach";

                r = request(ctx, OP_ATTACH, &s, NULL, tid, &v[i]);
                if (r == RTF_OK) {
                        what = "rtf_spec_detach";
                        r = request(ctx, OP_DETACH, &s, NULL, 0, NULL);
                }
                if (r != RTF_OK) {
                        if (fatal(r)) {
                                fail_request(what, r);
                                release_specs(ctx, &s, 1);
                                return -1;
                        }
                        if ((*ctx->interrupted))
                                break;
                        bench_note(ctx, "attach_p50_ns: not measured: %s on %s: %s: %s", what, plugin, rtf_strerror(r),
                             rtf_last_reason());
                        return release_specs(ctx, &s, 1);
                }
        }
        if (release_specs(ctx, &s, 1) < 0 || (*ctx->interrupted))
                return -1;
        ctx->res.attach = true;
        snprintf(ctx->res.attach_plugin, sizeof(ctx->res.attach_plugin), "%s", plugin);
        ctx->res.attach_p50 = p_of(v, ctx->arg.samples, 0.5);
        ctx->res.attach_p99 = samples_percentile(v, ctx->arg.samples, 0.99);
        return 0;
}

/* sched_setscheduler and sched_setattr (SCHED_FIFO 10 and back) on the same thread. */
static void measure_syscalls(struct bench *ctx, pid_t tid, uint64_t *v) {
        struct sched_param fifo = { .sched_priority = 10 }, other = { 0 };
        struct rtf_sched_attr fifo_attr = { .size = sizeof(fifo_attr), .sched_policy = SCHED_FIFO,
                                            .sched_priority = 10 };
        struct rtf_sched_attr other_attr = { .size = sizeof(other_attr), .sched_policy = SCHED_OTHER };
        uint32_t i;

        for (i = 0; i < ctx->arg.samples && !(*ctx->interrupted); i++) {
                uint64_t t0 = now_ns();

                if (sched_setscheduler(tid, SCHED_FIFO, &fifo) < 0) {
                        bench_note(ctx, "syscall_p50_ns: not measured: sched_setscheduler(SCHED_FIFO): %m (needs root or "
                             "RLIMIT_RTPRIO)");
                        break;
                }
                v[i] = now_ns() - t0;
                sched_setscheduler(tid, SCHED_OTHER, &other);
        }
        if (i == ctx->arg.samples) {
                ctx->res.setscheduler = true;
                ctx->res.setscheduler_p50 = p_of(v, ctx->arg.samples, 0.5);
        }
        for (i = 0; i < ctx->arg.samples && !(*ctx->interrupted); i++) {
                uint64_t t0 = now_ns();
                int r = rtf_sched_setattr(tid, &fifo_attr, 0);

                v[i] = now_ns() - t0;
                if (r < 0) {
                        bench_note(ctx, "sched_setattr_p50_ns: not measured: sched_setattr(SCHED_FIFO): %s", strerror(-r));
                        break;
                }
                rtf_sched_setattr(tid, &other_attr, 0);
        }
        if (i == ctx->arg.samples) {
                ctx->res.setattr = true;
                ctx->res.setattr_p50 = p_of(v, ctx->arg.samples, 0.5);
        }
}

/* Attach on `plugin` (NULL: not measured) and the direct system calls, on one sleeping thread. */
static int bench_attach(struct bench *ctx, const char *plugin, const char *kind) {
        uint64_t *v = calloc(ctx->arg.samples, sizeof(*v));
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
        r = plugin ? measure_attach(ctx, plugin, kind, sl.tid, v) : 0;
        if (r == 0 && !(*ctx->interrupted))
                measure_syscalls(ctx, sl.tid, v);
        sleeper_stop(&sl);
        free(v);
        return r < 0 || (*ctx->interrupted) ? -1 : 0;
}

/*
 * USS of pid with as many specs of the bench admitted as the largest
 * --tasks: the targets in turn take as many as they will.  0, or -1 if the
 * run must end.
 */
static int measure_uss_full(struct bench *ctx, pid_t pid, const struct fill_target *t, size_t n_t) {
        const uint32_t want = ctx->res.uss_full_specs;
        struct rtf_spec *fill;
        uint32_t n = 0;
        size_t k = 0;
        int r = 0, refusal = 0;
        char reason[RTF_REASON_MAX] = "";

        if (want == 0) {
                bench_note(ctx, "uss_full_kib: not measured: --tasks asks for no specifications");
                return 0;
        }
        fill = calloc(want, sizeof(*fill));
        if (!fill)
                return -1;
        while (n < want && k < n_t && !(*ctx->interrupted)) {
                struct rtf_params p;

                fill[n] = (struct rtf_spec)RTF_SPEC_INIT;
                measure_filler_params(ctx, t[k].plugin, t[k].kind, n, &p);
                r = request(ctx, OP_CREATE, &fill[n], &p, 0, NULL);
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
        if ((*ctx->interrupted)) {
                r = -1;
        } else if (n < want) {
                bench_note(ctx, "uss_full_kib: not measured: rtfd took %u specifications, not %u (%s: %s)", n, want,
                     rtf_strerror(refusal), reason);
        } else {
                int e = proc_uss_kib(pid, &ctx->res.uss_full_kib);

                if (e < 0)
                        bench_note(ctx, "uss_full_kib: not measured: /proc/%d/smaps_rollup: %s", (int)pid, strerror(-e));
                ctx->res.uss_full = e == 0;
        }
out:
        if (release_specs(ctx, fill, n) < 0)
                r = -1;
        free(fill);
        return r;
}

static void measure_uss_idle(struct bench *ctx, pid_t pid) {
        int r = proc_uss_kib(pid, &ctx->res.uss_idle_kib);

        if (r < 0)
                bench_note(ctx, "uss_idle_kib, uss_full_kib: not measured: /proc/%d/smaps_rollup: %s%s", (int)pid, strerror(-r),
                     r == -EACCES || r == -EPERM ? " (readable as root)" : "");
        ctx->res.uss_idle = r == 0;
}

/* The private FP rtfd of attach and USS (as large as the default 4096 specs need). */
static int bench_private_attach_uss(struct bench *ctx) {
        static const struct fill_target fp = { "FP", "FP" };
        struct daemon d;
        int r;

        if (which_rtfd_start(ctx, &d, "FP FP.so 1-99 all max_tasks=8192\n", NULL) < 0)
                return -1;
        measure_uss_idle(ctx, d.pid);
        r = bench_attach(ctx, "FP", "FP");
        if (r == 0 && ctx->res.uss_idle)
                r = measure_uss_full(ctx, d.pid, &fp, 1);
        which_rtfd_stop(&d);
        return r;
}

int measure_external(struct bench *ctx) {
        const struct rtfd_instance *selected[MAX_PLUGINS];
        struct fill_target fill_order[MAX_PLUGINS];
        const struct rtfd_instance *attach = NULL;
        struct buffers b = { 0 };
        size_t n_fill_order = 0;
        int n = 0, r = -1;

        /* Before the bench holds anything, even a connection. */
        ctx->uss_pid = which_rtfd_uss_pid(ctx);
        if (ctx->uss_pid > 0)
                measure_uss_idle(ctx, ctx->uss_pid);
        for (int i = 0; i < ctx->arg.n_plugins; i++)
                selected[n++] = which_rtfd_instance(ctx, ctx->arg.plugins[i]);
        if (ctx->arg.n_plugins == 0)
                for (size_t i = 0; i < ctx->target.n_instances && n < MAX_PLUGINS; i++)
                        selected[n++] = &ctx->target.instances[i];
        for (int rank = 0; rank <= 4; rank++)
                for (size_t i = 0; i < ctx->target.n_instances && n_fill_order < MAX_PLUGINS; i++)
                        if (which_rtfd_kind_rank(ctx->target.instances[i].kind) == rank)
                                fill_order[n_fill_order++] = (struct fill_target){ ctx->target.instances[i].name,
                                                                                   ctx->target.instances[i].kind };
        for (int rank = 0; rank < 3 && !attach; rank++)
                for (size_t i = 0; i < ctx->target.n_instances && !attach; i++)
                        if (which_rtfd_kind_rank(ctx->target.instances[i].kind) == rank)
                                attach = &ctx->target.instances[i];
        setenv("RTF_SOCKET", ctx->arg.socket, 1);
        r = rtf_connect();
        if (r != RTF_OK) {
                fprintf(stderr, TOOL ": cannot connect to rtfd at %s: %s: %s\n", ctx->arg.socket, rtf_strerror(r),
                        rtf_last_reason());
                return -1;
        }
        r = -1;
        if (buffers_init(ctx, &b) < 0)
                goto out;
        if (bench_external_series(ctx, selected, n, &b) < 0)
                goto out;
        if (!attach)
                bench_note(ctx, "attach_p50_ns: not measured: rtfd serves no FP, RR or RM instance (attaching a sleeping "
                     "thread to SCHED_DEADLINE and back leaks kernel bandwidth, docs/KERNEL.md)");
        if (bench_attach(ctx, attach ? attach->name : NULL, attach ? attach->kind : NULL) < 0)
                goto out;
        if (ctx->res.uss_idle && measure_uss_full(ctx, ctx->uss_pid, fill_order, n_fill_order) < 0)
                goto out;
        r = 0;
out:
        rtf_disconnect();               /* whatever is left, rtfd releases now */
        buffers_deinit(&b);
        return r;
}

int measure_private(struct bench *ctx) {
        struct buffers b = { 0 };
        int r = -1;

        if (buffers_init(ctx, &b) < 0)
                goto out;
        for (int i = 0; i < ctx->arg.n_plugins && !(*ctx->interrupted); i++) {
                const struct plugin_kind *kind = NULL;

                for (size_t k = 0; k < 4; k++)
                        if (bench_kinds[k].name == ctx->arg.plugins[i])
                                kind = &bench_kinds[k];
                for (int c = 0; c < ctx->arg.n_cores && !(*ctx->interrupted); c++)
                        if (bench_private_config(ctx, kind, ctx->arg.cores[c], &b) < 0)
                                goto out;
        }
        if (!(*ctx->interrupted))
                r = bench_private_attach_uss(ctx);
out:
        buffers_deinit(&b);
        return r;
}
