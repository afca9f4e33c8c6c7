/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How the results are printed: one JSON document (the envelope of every
 * tool), text, CSV, and the plot (plot-bench.py).
 */
#include "bench.h"

int output_plot(struct bench *ctx, json_object *doc) {
        char buf[4096];

        return plot_run(TOOL, plot_script("RTF_PLOT_SCRIPT_BENCH", "plot-bench.py", buf, sizeof(buf)), doc,
                        ctx->arg.plot);
}

static json_object *json_cpus(const cpu_set_t *set) {
        json_object *a = json_object_new_array();

        for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, set))
                        json_object_array_add(a, json_object_new_int(c));
        return a;
}

static json_object *json_daemon(struct bench *ctx, const cpu_set_t *allowed) {
        json_object *o, *instances;

        if (ctx->arg.mode == MODE_PRIVATE)
                return NULL;
        o = json_object_new_object();
        instances = json_object_new_array();
        json_object_object_add(o, "pid", ctx->target.pid > 0 ? json_object_new_int(ctx->target.pid) : NULL);
        json_object_object_add(o, "comm", ctx->target.comm[0] ? json_object_new_string(ctx->target.comm) : NULL);
        json_object_object_add(o, "uss_pid", ctx->uss_pid > 0 ? json_object_new_int(ctx->uss_pid) : NULL);
        json_object_object_add(o, "cpus_allowed", CPU_COUNT(allowed) ? json_cpus(allowed) : NULL);
        for (size_t i = 0; i < ctx->target.n_instances; i++) {
                const struct rtfd_instance *in = &ctx->target.instances[i];
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

static json_object *json_series(struct bench *ctx) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; i < ctx->res.n_series; i++) {
                const struct series *se = &ctx->res.series[i];
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

json_object *output_json(struct bench *ctx, json_object *doc, const cpu_set_t *allowed) {
        json_object *jrows = json_object_new_array(), *p = json_object_new_object(), *notes;

        for (size_t i = 0; i < ctx->res.n_rows; i++) {
                const struct row *row = &ctx->res.rows[i];
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
        json_object_object_add(p, "client_cpu", json_object_new_int(ctx->arg.client_cpu));
        json_object_object_add(p, "daemon_cpu", ctx->arg.daemon_cpu >= 0 ? json_object_new_int(ctx->arg.daemon_cpu) : NULL);
        json_object_object_add(p, "samples", json_object_new_int64(ctx->arg.samples));
        json_object_object_add(p, "spread_periods", json_object_new_boolean(ctx->arg.spread_periods));
        json_object_object_add(p, "deadline_percent",
                               json_object_new_int64(ctx->arg.deadline_percent ? ctx->arg.deadline_percent : 100));
        json_object_object_add(p, "rtfd", ctx->arg.mode == MODE_PRIVATE ? json_object_new_string(ctx->arg.rtfd) : NULL);
        json_object_object_add(p, "latency_hint_us", ctx->arg.hint_us >= 0 ? json_object_new_int(ctx->arg.hint_us) : NULL);
        json_object_object_add(p, "request_bytes", json_object_new_int64((int64_t)ctx->res.req));
        json_object_object_add(p, "reply_bytes", json_object_new_int64((int64_t)ctx->res.rep));
        json_object_object_add(doc, "parameters", p);
        json_object_object_add(doc, "mode", json_object_new_string(ctx->arg.mode == MODE_PRIVATE ? "private" : "external"));
        json_object_object_add(doc, "socket", ctx->arg.mode == MODE_EXTERNAL ? json_object_new_string(ctx->arg.socket) : NULL);
        json_object_object_add(doc, "daemon", json_daemon(ctx, allowed));
        json_object_object_add(doc, "rtt_p50_ns", json_object_new_uint64(ctx->res.rtt_p50));
        json_object_object_add(doc, "rtt_p99_ns", json_object_new_uint64(ctx->res.rtt_p99));
        json_object_object_add(doc, "rows", jrows);
        json_object_object_add(doc, "series", json_series(ctx));
        json_object_object_add(doc, "attach_plugin", ctx->res.attach ? json_object_new_string(ctx->res.attach_plugin) : NULL);
        json_object_object_add(doc, "attach_p50_ns", json_u64_or_null(ctx->res.attach, ctx->res.attach_p50));
        json_object_object_add(doc, "attach_p99_ns", json_u64_or_null(ctx->res.attach, ctx->res.attach_p99));
        json_object_object_add(doc, "syscall_p50_ns", json_u64_or_null(ctx->res.setscheduler, ctx->res.setscheduler_p50));
        json_object_object_add(doc, "sched_setattr_p50_ns", json_u64_or_null(ctx->res.setattr, ctx->res.setattr_p50));
        json_object_object_add(doc, "uss_idle_kib", json_kib_or_null(ctx->res.uss_idle, ctx->res.uss_idle_kib));
        json_object_object_add(doc, "uss_full_kib", json_kib_or_null(ctx->res.uss_full, ctx->res.uss_full_kib));
        json_object_object_add(doc, "uss_full_specs", json_object_new_int64(ctx->res.uss_full_specs));
        json_object_object_add(doc, "contention", output_contention_json(ctx));
        json_object_object_add(doc, "requests_throttled", json_object_new_uint64(ctx->res.throttled));
        notes = json_object_new_array();
        for (size_t i = 0; i < ctx->res.n_notes; i++)
                json_object_array_add(notes, json_object_new_string(ctx->res.notes[i]));
        json_object_object_add(doc, "notes", notes);
        return doc;
}

void output_header(struct bench *ctx, const cpu_set_t *allowed) {
        if (ctx->arg.mode == MODE_PRIVATE) {
                printf("# %s %s: private rtfd %s, client on CPU %d, rtfd on CPU %d, %u samples per point\n", TOOL,
                       RTF_VERSION, ctx->arg.rtfd, ctx->arg.client_cpu, ctx->arg.daemon_cpu, ctx->arg.samples);
        } else {
                printf("# %s %s: rtfd at %s, pid ", TOOL, RTF_VERSION, ctx->arg.socket);
                if (ctx->target.pid > 0)
                        printf("%d (%s)", (int)ctx->target.pid, ctx->target.comm[0] ? ctx->target.comm : "?");
                else
                        printf("unknown");
                if (CPU_COUNT(allowed))
                        printf(", allowed on %d CPU%s", CPU_COUNT(allowed), CPU_COUNT(allowed) == 1 ? "" : "s");
                printf("; client on CPU %d, ", ctx->arg.client_cpu);
                if (ctx->arg.daemon_cpu < 0)
                        printf("floor's echo on rtfd's CPUs");
                else
                        printf("floor's echo on CPU %d", ctx->arg.daemon_cpu);
                printf("; %u samples per point\n", ctx->arg.samples);
                for (size_t i = 0; i < ctx->target.n_instances; i++) {
                        const struct rtfd_instance *in = &ctx->target.instances[i];

                        printf("# instance %s (%s): %u core%s, %u task%s held, utilisation %.3f\n", in->name,
                               in->kind, in->n_cpus, bench_plural(in->n_cpus), in->tasks, bench_plural(in->tasks),
                               in->utilization);
                }
        }
        printf("# floor: AF_UNIX SOCK_SEQPACKET round trip (%zu/%zu bytes): p50 %.1f us, p99 %.1f us\n", ctx->res.req,
               ctx->res.rep, ctx->res.rtt_p50 / 1e3, ctx->res.rtt_p99 / 1e3);
        if (ctx->arg.contention_conns) {
                printf("# contention: user A (uid %u) holds %u RM specifications (D = %u%% of T, distinct periods) "
                       "and floods changes over %u connection%s; user B (uid %u) times %u connects + STATUS each, "
                       "idle and during the flood\n", (unsigned)ctx->arg.contention_uids[0], ctx->arg.contention_specs,
                       ctx->arg.deadline_percent, ctx->arg.contention_conns, bench_plural(ctx->arg.contention_conns),
                       (unsigned)ctx->arg.contention_uids[1], ctx->arg.samples);
                printf("# mode           phase  p50 (us)  p99 (us)  max (us)  p50/idle p99/idle  A's requests granted/s refused/s  rtfd CPU %%\n");
                fflush(stdout);
                return;
        }
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

void output_summary(struct bench *ctx) {
        printf("# attach (rtf_spec_attach%s%s): ", ctx->res.attach ? ", " : "", ctx->res.attach ? ctx->res.attach_plugin : "");
        print_opt_us("p50", ctx->res.attach, ctx->res.attach_p50);
        print_opt_us(", p99", ctx->res.attach, ctx->res.attach_p99);
        printf("; direct on the same thread: ");
        print_opt_us("sched_setscheduler p50", ctx->res.setscheduler, ctx->res.setscheduler_p50);
        print_opt_us(", sched_setattr p50", ctx->res.setattr, ctx->res.setattr_p50);
        printf("\n# rtfd USS: ");
        print_opt_kib("idle", ctx->res.uss_idle, ctx->res.uss_idle_kib);
        printf(", ");
        {
                char what[64];

                snprintf(what, sizeof(what), "with %" PRIu32 " specifications", ctx->res.uss_full_specs);
                print_opt_kib(what, ctx->res.uss_full, ctx->res.uss_full_kib);
        }
        printf("\n");
}

void output_csv(struct bench *ctx) {
        printf("# mode=%s socket=%s\n", ctx->arg.mode == MODE_PRIVATE ? "private" : "external",
               ctx->arg.mode == MODE_EXTERNAL ? ctx->arg.socket : "-");
        printf("# rtt_p50_ns=%" PRIu64, ctx->res.rtt_p50);
        if (ctx->res.attach)
                printf(" attach_p50_ns=%" PRIu64, ctx->res.attach_p50);
        if (ctx->res.setscheduler)
                printf(" syscall_p50_ns=%" PRIu64, ctx->res.setscheduler_p50);
        if (ctx->res.setattr)
                printf(" sched_setattr_p50_ns=%" PRIu64, ctx->res.setattr_p50);
        if (ctx->res.uss_idle)
                printf(" uss_idle_kib=%ld", ctx->res.uss_idle_kib);
        if (ctx->res.uss_full)
                printf(" uss_full_kib=%ld uss_full_specs=%" PRIu32, ctx->res.uss_full_kib, ctx->res.uss_full_specs);
        printf("\n");
        for (size_t i = 0; i < ctx->res.n_series; i++)
                if (ctx->res.series[i].stopped)
                        measure_print_stop(&ctx->res.series[i], stdout);
        for (size_t i = 0; i < ctx->res.n_notes; i++)
                printf("# note: %s\n", ctx->res.notes[i]);
        printf("plugin,cores,tasks,samples,create_p50_ns,create_p99_ns,change_p50_ns,change_p99_ns,rtt_p50_ns\n");
        for (size_t i = 0; i < ctx->res.n_rows; i++)
                printf("%s,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", ctx->res.rows[i].plugin,
                       ctx->res.rows[i].cores, ctx->res.rows[i].tasks, ctx->res.rows[i].samples, ctx->res.rows[i].create_p50,
                       ctx->res.rows[i].create_p99, ctx->res.rows[i].change_p50, ctx->res.rows[i].change_p99, ctx->res.rows[i].rtt_p50);
}

void output_contention_mode_start(struct bench *ctx, const struct contention_mode *m) {
        (void)ctx;
        if (m->busy_permille)
                printf("# %s: max_busy_permille_per_uid %u, busy_burst_ms_per_uid %u\n", m->name, m->busy_permille,
                       m->busy_burst_ms);
        else
                printf("# %s: rtfd's defaults for max_busy_permille_per_uid and busy_burst_ms_per_uid\n", m->name);
}

static double ratio(uint64_t a, uint64_t b) {
        return b ? (double)a / (double)b : 0.0;
}

static double per_sec(uint64_t n, uint64_t ns) {
        return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

void output_contention_mode(struct bench *ctx, const struct contention_mode *m) {
        (void)ctx;
        printf("%-14s %6s %9.1f %9.1f %9.1f\n", m->name, "idle", m->idle.p50_ns / 1e3, m->idle.p99_ns / 1e3,
               m->idle.max_ns / 1e3);
        printf("%-14s %6s %9.1f %9.1f %9.1f %9.2f %8.2f %12.0f %9.0f %11.0f\n", m->name, "flood",
               m->flood.p50_ns / 1e3, m->flood.p99_ns / 1e3, m->flood.max_ns / 1e3, ratio(m->flood.p50_ns, m->idle.p50_ns),
               ratio(m->flood.p99_ns, m->idle.p99_ns), per_sec(m->flood_granted, m->flood_ns),
               per_sec(m->flood_refused, m->flood_ns), 100.0 * ratio(m->rtfd_cpu_ns, m->flood_ns));
        if (m->idle.errors || m->flood.errors)
                printf("# %s: user B's STATUS failed %u times idle, %u times during the flood\n", m->name,
                       m->idle.errors, m->flood.errors);
        fflush(stdout);
}

static json_object *json_latency(const struct contention_latency *l) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "p50_ns", json_object_new_uint64(l->p50_ns));
        json_object_object_add(o, "p99_ns", json_object_new_uint64(l->p99_ns));
        json_object_object_add(o, "max_ns", json_object_new_uint64(l->max_ns));
        json_object_object_add(o, "errors", json_object_new_int64(l->errors));
        return o;
}

static json_object *json_ratio(uint64_t a, uint64_t b) {
        return b ? json_object_new_double(round(ratio(a, b) * 1000) / 1000) : NULL;
}

/* The "contention" member: null unless --contention. */
json_object *output_contention_json(struct bench *ctx) {
        json_object *o, *modes;

        if (!ctx->arg.contention_conns)
                return NULL;
        o = json_object_new_object();
        modes = json_object_new_array();
        json_object_object_add(o, "connections", json_object_new_int64(ctx->arg.contention_conns));
        json_object_object_add(o, "specs", json_object_new_int64(ctx->arg.contention_specs));
        json_object_object_add(o, "plugin", json_object_new_string("RM"));
        json_object_object_add(o, "flooder_uid", json_object_new_int64(ctx->arg.contention_uids[0]));
        json_object_object_add(o, "victim_uid", json_object_new_int64(ctx->arg.contention_uids[1]));
        json_object_object_add(o, "samples", json_object_new_int64(ctx->arg.samples));
        for (size_t i = 0; i < 2; i++) {
                const struct contention_mode *m = &ctx->res.contention[i];
                json_object *j = json_object_new_object();

                json_object_object_add(j, "mode", json_object_new_string(m->name ? m->name : "?"));
                json_object_object_add(j, "max_busy_permille_per_uid",
                                       m->busy_permille ? json_object_new_int64(m->busy_permille) : NULL);
                json_object_object_add(j, "busy_burst_ms_per_uid",
                                       m->busy_permille ? json_object_new_int64(m->busy_burst_ms) : NULL);
                json_object_object_add(j, "measured", json_object_new_boolean(m->measured));
                if (m->measured) {
                        json_object_object_add(j, "idle", json_latency(&m->idle));
                        json_object_object_add(j, "flood", json_latency(&m->flood));
                        json_object_object_add(j, "p50_ratio", json_ratio(m->flood.p50_ns, m->idle.p50_ns));
                        json_object_object_add(j, "p99_ratio", json_ratio(m->flood.p99_ns, m->idle.p99_ns));
                        json_object_object_add(j, "flood_granted", json_object_new_uint64(m->flood_granted));
                        json_object_object_add(j, "flood_refused", json_object_new_uint64(m->flood_refused));
                        json_object_object_add(j, "flood_duration_ns", json_object_new_uint64(m->flood_ns));
                        json_object_object_add(j, "rtfd_cpu_ns",
                                               m->rtfd_cpu_ns ? json_object_new_uint64(m->rtfd_cpu_ns) : NULL);
                }
                json_object_array_add(modes, j);
        }
        json_object_object_add(o, "modes", modes);
        return o;
}
