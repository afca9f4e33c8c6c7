/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-bench's parts and the context they share (one struct bench, passed to
 * every function that needs it: no mutable file-scope state but the signal
 * flag).  rtf-bench.c: options and main; which-rtfd.c: the private rtfds it
 * starts and the external one it is pointed at (through rtfd-info.h, its
 * one door to rtfd's listings); measure.c: the measurements; contention.c:
 * --contention, one user's flood against another user; output.c: JSON,
 * text, CSV and the plot.
 */
#pragma once

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
#include "options.h"
#include "plot.h"
#include "protocol.h"
#include "rtf-config.h"
#include "sched-attr.h"
#include "stats.h"
#include "rtfd-info.h"

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

enum mode { MODE_PRIVATE, MODE_EXTERNAL };


/* The command line, parsed once. */
struct bench_args {
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
        uint32_t deadline_percent;      /* --deadline-percent, 0 = implicit deadlines */
        uint32_t contention_conns;      /* --contention[=CONNS]; 0: not asked */
        uint32_t contention_specs;      /* --contention-specs */
        uint32_t contention_uids[2];    /* --contention-uids=A,B: the flooder, the victim */
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


#define CONTENTION_CONNS_MAX 64         /* rtfd's default max_clients_per_uid */

/* User B's connect + STATUS, in ns. */
struct contention_latency {
        uint64_t p50_ns, p99_ns, max_ns;
        uint32_t errors;                /* samples whose STATUS failed (still timed) */
};

/* One --contention mode: rtfd's per-uid share as set (0: rtfd's defaults), what B saw, what A got. */
struct contention_mode {
        const char *name;
        uint32_t busy_permille, busy_burst_ms;
        bool measured;
        struct contention_latency idle, flood;
        uint64_t flood_granted, flood_refused, flood_ns;
        uint64_t rtfd_cpu_ns;           /* rtfd's CPU time during flood_ns (0: unknown) */
};

/* What was measured, and the notes on what was not. */
struct bench_results {
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
        struct contention_mode contention[2];
        char *notes[MAX_NOTES];
        size_t n_notes;
};

struct daemon {
        pid_t pid;
        char dir[64];
        char socket[128];
};

enum op { OP_CREATE, OP_CHANGE, OP_RELEASE, OP_ATTACH, OP_DETACH };

struct buffers {
        struct rtf_spec *fill;
        uint64_t *create, *change;
};

struct sleeper {
        pthread_t thread;
        pid_t tid;
        int pipe[2];
};

struct fill_target {
        const char *plugin, *kind;
};

struct bench {
        struct bench_args arg;
        struct bench_results res;
        struct rtfd_info target;        /* the external daemon, as it answered STATUS */
        pid_t uss_pid;                  /* the process whose USS is rtfd's (0: unknown) */
        cpu_set_t echo_cpus;            /* where the floor's echo thread runs */
        /* Signals received (the handler's flag): the first stops the measurements, a second the releases. */
        volatile sig_atomic_t *interrupted;
};

/* The four shipped plugins and the priority ranges a private rtfd gives them. */
extern const struct plugin_kind bench_kinds[4];

/* which-rtfd.c: private rtfds and the external one */
void which_rtfd_stop(struct daemon *d);
int which_rtfd_start(struct bench *ctx, struct daemon *d, const char *config, const char *policy);
const struct rtfd_instance *which_rtfd_instance(struct bench *ctx, const char *name);
int which_rtfd_kind_rank(const char *kind);
pid_t which_rtfd_uss_pid(struct bench *ctx);
void which_rtfd_cpus(struct bench *ctx, long n_cpus, cpu_set_t *allowed);
void which_rtfd_default_paths(struct bench *ctx);
int which_rtfd_query(struct bench *ctx);

/* measure.c: the floor, requests, create/change series, attach, memory */
int bench_pin(pid_t pid, int cpu);
__attribute__((format(printf, 2, 3))) void bench_note(struct bench *ctx, const char *fmt, ...);
const char *bench_plural(uint32_t n);
int measure_rtt(struct bench *ctx);
bool bench_kind_is(const char *kind, const char *name);
void measure_print_stop(const struct series *se, FILE *f);
int measure_external(struct bench *ctx);
int measure_private(struct bench *ctx);
void measure_filler_params(struct bench *ctx, const char *plugin, const char *kind, uint32_t i, struct rtf_params *p);

/* contention.c: one user's flood against another user's connect + STATUS */
int measure_contention(struct bench *ctx);

/* output.c */
int output_plot(struct bench *ctx, json_object *doc);
json_object *output_json(struct bench *ctx, json_object *doc, const cpu_set_t *allowed);
void output_header(struct bench *ctx, const cpu_set_t *allowed);
void output_summary(struct bench *ctx);
void output_csv(struct bench *ctx);
void output_contention_mode_start(struct bench *ctx, const struct contention_mode *m);
void output_contention_mode(struct bench *ctx, const struct contention_mode *m);
json_object *output_contention_json(struct bench *ctx);
