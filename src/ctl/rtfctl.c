/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfctl: views of rtfd for any user, and a launcher.
 *   rtfctl status   plugins, their cores, utilisation and priorities in use
 *   rtfctl tasks    every specification: owner, plugin, parameters, thread, and
 *                   the periodic-task statistics its client reported
 *   rtfctl run / attach   a reservation for a program that does not use librtf
 *                   (launch.c)
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fetch.h"
#include "hint.h"
#include "launch.h"
#include "names.h"
#include "reload.h"
#include "top.h"
#include "protocol.h"
#include "rtf-config.h"

static const char *policy_of(const char *p) {
        return p[0] ? p : "-";
}

static const char *budget_mode_name(uint32_t mode) {
        switch (mode) {
        case RTF_BUDGET_SOFT:
                return "soft";
        case RTF_BUDGET_HARD:
                return "hard";
        default:
                return "none";
        }
}

static json_object *core_json(const struct rtf_wire_core *c, bool global) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "plugin", json_object_new_string(c->plugin));
        json_object_object_add(o, "policy", json_object_new_string(c->policy));
        json_object_object_add(o, "cpu", json_object_new_int(c->cpu));
        json_object_object_add(o, "partitioned", json_object_new_boolean(c->partitioned));
        /* The plugin's tasks run on any of its CPUs: its per-CPU figures are the pool's, split. */
        json_object_object_add(o, "global", json_object_new_boolean(global));
        json_object_object_add(o, "tasks", json_object_new_int64(c->tasks));
        json_object_object_add(o, "prio_min", json_object_new_int64(c->prio_min));
        json_object_object_add(o, "prio_max", json_object_new_int64(c->prio_max));
        json_object_object_add(o, "prio_lowest_in_use", json_object_new_int64(c->prio_lowest));
        json_object_object_add(o, "prio_highest_in_use", json_object_new_int64(c->prio_highest));
        json_object_object_add(o, "utilization", json_object_new_double((double)c->utilization_ppm / 1e6));
        return o;
}

/* What the task's client said about it (REPORT), or null: its claim, not rtfd's measurement. */
static json_object *stats_json(const struct rtf_wire_task_stats *ts) {
        const struct rtf_wire_stats *st;
        json_object *o;

        if (!ts)
                return NULL;
        st = &ts->stats;
        o = json_object_new_object();
        json_object_object_add(o, "age_ms", json_object_new_uint64(ts->age_ms));
        json_object_object_add(o, "final", json_object_new_boolean(!!(st->flags & RTF_STATS_FINAL)));
        json_object_object_add(o, "budget_mode", json_object_new_string(budget_mode_name(st->budget_mode)));
        json_object_object_add(o, "period_ns", json_object_new_uint64(st->period_ns));
        json_object_object_add(o, "budget_ns", json_object_new_uint64(st->budget_ns));
        json_object_object_add(o, "periods", json_object_new_uint64(st->periods));
        json_object_object_add(o, "overruns", json_object_new_uint64(st->overruns));
        json_object_object_add(o, "missed_releases", json_object_new_uint64(st->missed_releases));
        json_object_object_add(o, "budget_exhaustions", json_object_new_uint64(st->budget_exhaustions));
        json_object_object_add(o, "ignored_waits", json_object_new_uint64(st->ignored_waits));
        json_object_object_add(o, "max_response_ns", json_object_new_uint64(st->max_response_ns));
        json_object_object_add(o, "max_job_cpu_ns", json_object_new_uint64(st->max_job_cpu_ns));
        return o;
}

/* The name of the task's thread, or of its owner process while no thread is attached. */
static const char *command_of(const struct rtf_wire_task *t, char *buf, size_t size) {
        return ctl_thread_comm(t->tid ? t->tid : t->pid, buf, size);
}

static json_object *task_json(const struct rtf_wire_task *t, const struct rtf_wire_task_stats *ts) {
        json_object *o = json_object_new_object();
        const struct rtf_wire_params *p = &t->params;
        char user[64], comm[64];

        json_object_object_add(o, "id", json_object_new_uint64(t->id));
        json_object_object_add(o, "uid", json_object_new_int64(t->uid));
        json_object_object_add(o, "user", json_object_new_string(ctl_user_name(t->uid, user, sizeof(user))));
        json_object_object_add(o, "pid", json_object_new_int(t->pid));
        json_object_object_add(o, "command", json_object_new_string(command_of(t, comm, sizeof(comm))));
        json_object_object_add(o, "plugin", json_object_new_string(p->plugin));
        json_object_object_add(o, "period_us", json_object_new_uint64(p->period_us));
        json_object_object_add(o, "runtime_us", json_object_new_uint64(p->runtime_us));
        json_object_object_add(o, "des_runtime_us", json_object_new_uint64(p->des_runtime_us));
        json_object_object_add(o, "deadline_us", json_object_new_uint64(p->deadline_us));
        json_object_object_add(o, "requested_priority", json_object_new_int64(p->priority));
        json_object_object_add(o, "ignore_admission",
                               json_object_new_boolean(!!(p->flags & RTF_PARAM_IGNORE_ADMISSION)));
        json_object_object_add(o, "accepted_runtime_us", json_object_new_uint64(t->accepted_runtime_us));
        json_object_object_add(o, "priority", json_object_new_int64(t->priority));
        json_object_object_add(o, "cpu", json_object_new_int(t->cpu));
        json_object_object_add(o, "tid", json_object_new_int(t->tid));
        json_object_object_add(o, "reported_by_client", stats_json(ts));
        return o;
}

/*
 * One row of `rtfctl status`: a CPU of a plugin, or all the CPUs of a plugin
 * that schedules globally (cpus = "0,1", part = "global").
 */
struct status_row {
        const char *plugin, *policy;
        char cpus[64];
        const char *part;
        uint32_t tasks, prio_min, prio_max, prio_lowest, prio_highest;
        uint64_t utilization_ppm;
};

#define STATUS_LEGEND \
        "# part    yes: the CPU is a partition of its own for this plugin (a cpuset that is a root\n" \
        "#         domain: SCHED_DEADLINE admission and migration stay in it); no: the CPU is shared\n" \
        "#         with the rest of the system (tasks are pinned to it by affinity); global: the\n" \
        "#         plugin has no partitions and its tasks run on any of its CPUs (global EDF), so\n" \
        "#         its CPUs are one row\n" \
        "# range   the priorities the plugin may give; in-use: the lowest-highest its tasks hold now\n" \
        "# utilisation  sum of runtime/period of the tasks admitted there, in CPUs\n"

static void print_core(const struct status_row *c, bool header) {
        char range[24], used[24];

        if (header)
                printf(STATUS_LEGEND "# %-10s %-8s %-7s %6s %6s %-9s %-9s %s\n", "plugin", "type", "cpu", "part",
                       "tasks", "range", "in-use", "utilisation");
        snprintf(range, sizeof(range), "%" PRIu32 "-%" PRIu32, c->prio_min, c->prio_max);
        if (c->prio_highest)
                snprintf(used, sizeof(used), "%" PRIu32 "-%" PRIu32, c->prio_lowest, c->prio_highest);
        else
                snprintf(used, sizeof(used), "-");
        printf("  %-10s %-8s %-7s %6s %6" PRIu32 " %-9s %-9s %.3f\n", c->plugin, policy_of(c->policy), c->cpus,
               c->part, c->tasks, range, used, (double)c->utilization_ppm / 1e6);
}

static void print_task(const struct rtf_wire_task *t, bool header) {
        const struct rtf_wire_params *p = &t->params;
        char cpu[16], tid[16], user[64], comm[64], user_word[4 * 64], comm_word[4 * 64];

        if (header)
                printf("# %-6s %-10s %7s %-10s %10s %10s %10s %10s %4s %10s %4s %7s %s\n", "id", "user", "pid",
                       "plugin", "period", "runtime", "deadline", "accepted", "prio", "des.rt", "cpu", "thread",
                       "command");
        snprintf(cpu, sizeof(cpu), t->cpu < 0 ? "any" : "%d", t->cpu);
        snprintf(tid, sizeof(tid), t->tid ? "%d" : "-", t->tid);
        ctl_user_name(t->uid, user, sizeof(user));
        command_of(t, comm, sizeof(comm));
        printf("  %-6" PRIu64 " %-10s %7d %-10s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
               " %4" PRIu32 " %10" PRIu64 " %4s %7s %s\n",
               t->id, ctl_one_word(user, user_word, sizeof(user_word)), t->pid, p->plugin, p->period_us, p->runtime_us, p->deadline_us,
               t->accepted_runtime_us, t->priority, p->des_runtime_us, cpu, tid,
               ctl_one_word(comm, comm_word, sizeof(comm_word)));
}

static void print_stats(const struct rtf_wire_task_stats *ts, bool header) {
        const struct rtf_wire_stats *st = &ts->stats;

        if (header)
                printf("#\n# periodic-task statistics reported by each task's client (its claim, not measured "
                       "by rtfd)\n# %-6s %-6s %10s %9s %9s %9s %9s %12s %12s %8s %s\n", "id", "budget", "periods",
                       "overruns", "missed", "exhausted", "ignored", "max.resp.us", "max.cpu.us", "age.s", "task");
        printf("  %-6" PRIu64 " %-6s %10" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64
               " %12.1f %12.1f %8.1f %s\n",
               ts->id, budget_mode_name(st->budget_mode), st->periods, st->overruns, st->missed_releases,
               st->budget_exhaustions, st->ignored_waits, (double)st->max_response_ns / 1e3,
               (double)st->max_job_cpu_ns / 1e3, (double)ts->age_ms / 1e3,
               st->flags & RTF_STATS_FINAL ? "stopped" : "running");
}

static void print_json(const char *key, json_object *array) {
        json_object *root = json_object_new_object();

        json_object_object_add(root, key, array);
        printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(root);
}

/*
 * A plugin schedules globally when none of its CPUs is a partition and one of
 * its tasks is placed on no CPU (cpu -1 in the task listing).  Its per-CPU
 * rows then split the pool's figures over the CPUs (a task counted on CPU 0,
 * its utilisation on every CPU); one row for the pool says what is true.
 */
static bool plugin_global(const struct rtf_wire_core *cores, uint32_t first, uint32_t end,
                          const struct rtf_wire_task *tasks, uint32_t n_tasks) {
        for (uint32_t i = first; i < end; i++)
                if (cores[i].partitioned)
                        return false;
        for (uint32_t i = 0; i < n_tasks; i++)
                if (tasks[i].cpu < 0 && strcmp(tasks[i].params.plugin, cores[first].plugin) == 0)
                        return true;
        return false;
}

static void print_status(const struct rtf_wire_core *cores, uint32_t n, const struct rtf_wire_task *tasks,
                         uint32_t n_tasks) {
        bool header = true;

        for (uint32_t first = 0, end; first < n; first = end) {
                bool global;

                for (end = first + 1; end < n && strcmp(cores[end].plugin, cores[first].plugin) == 0; end++)
                        ;
                global = plugin_global(cores, first, end, tasks, n_tasks);
                for (uint32_t i = first; i < end; i++) {
                        const struct rtf_wire_core *c = &cores[i];
                        struct status_row row = {
                                .plugin = c->plugin, .policy = c->policy,
                                .part = c->partitioned ? "yes" : "no",
                                .tasks = c->tasks, .prio_min = c->prio_min, .prio_max = c->prio_max,
                                .prio_lowest = c->prio_lowest, .prio_highest = c->prio_highest,
                                .utilization_ppm = c->utilization_ppm,
                        };

                        snprintf(row.cpus, sizeof(row.cpus), "%d", c->cpu);
                        if (global) {
                                size_t len = 0;

                                row.part = "global";
                                for (uint32_t k = first + 1; k < end; k++) {
                                        const struct rtf_wire_core *o = &cores[k];

                                        row.tasks += o->tasks;
                                        row.utilization_ppm += o->utilization_ppm;
                                        if (o->prio_highest && (!row.prio_highest || o->prio_lowest < row.prio_lowest))
                                                row.prio_lowest = o->prio_lowest;
                                        if (o->prio_highest > row.prio_highest)
                                                row.prio_highest = o->prio_highest;
                                }
                                for (uint32_t k = first; k < end && len < sizeof(row.cpus); k++)
                                        len += (size_t)snprintf(row.cpus + len, sizeof(row.cpus) - len, "%s%d",
                                                                k > first ? "," : "", cores[k].cpu);
                                i = end - 1;
                        }
                        print_core(&row, header);
                        header = false;
                }
        }
}

static int list_status(const char *socket_path, bool json) {
        struct rtf_wire_core *cores = NULL;
        struct rtf_wire_task *tasks = NULL;
        uint32_t n = 0, n_tasks = 0;
        struct ctl_conn conn;
        void *rows = NULL, *task_rows = NULL;
        int r;

        r = ctl_conn_open(&conn, socket_path);
        if (r < 0)
                return r;
        r = ctl_fetch_all(&conn, RTF_MSG_STATUS, sizeof(*cores), &rows, &n);
        if (r >= 0)
                r = ctl_fetch_all(&conn, RTF_MSG_TASKS, sizeof(*tasks), &task_rows, &n_tasks);
        cores = rows;
        tasks = task_rows;
        ctl_conn_close(&conn);
        if (r < 0) {
                fprintf(stderr, "rtfctl: request failed: %s\n", strerror(-r));
                free(cores);
                return r;
        }
        if (json) {
                json_object *array = json_object_new_array();

                for (uint32_t first = 0, end; first < n; first = end) {
                        bool global;

                        for (end = first + 1; end < n && strcmp(cores[end].plugin, cores[first].plugin) == 0; end++)
                                ;
                        global = plugin_global(cores, first, end, tasks, n_tasks);
                        for (uint32_t i = first; i < end; i++)
                                json_object_array_add(array, core_json(&cores[i], global));
                }
                print_json("cores", array);
        } else if (n == 0) {
                printf("# no plugins\n");
        } else {
                print_status(cores, n, tasks, n_tasks);
        }
        free(tasks);
        free(cores);
        return 0;
}

/* Both listings are in id order. */
static const struct rtf_wire_task_stats *stats_of(const struct rtf_wire_task_stats *stats, uint32_t n, uint64_t id) {
        uint32_t lo = 0, hi = n;

        while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;

                if (stats[mid].id == id)
                        return &stats[mid];
                if (stats[mid].id < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

static int list_tasks(const char *socket_path, bool json) {
        struct rtf_wire_task_stats *stats;
        struct rtf_wire_task *tasks;
        uint32_t n = 0, n_stats = 0;
        void *task_rows = NULL, *stats_rows = NULL;
        struct ctl_conn conn;
        bool old_rtfd = false;
        int r;

        r = ctl_conn_open(&conn, socket_path);
        if (r < 0)
                return r;
        r = ctl_fetch_all(&conn, RTF_MSG_TASKS, sizeof(*tasks), &task_rows, &n);
        if (r >= 0) {
                r = ctl_fetch_all(&conn, RTF_MSG_TASK_STATS, sizeof(*stats), &stats_rows, &n_stats);
                /* An rtfd of protocol version 1 closes on a question it does not know. */
                if (r == -ECONNRESET) {
                        old_rtfd = true;
                        r = 0;
                }
        }
        ctl_conn_close(&conn);
        tasks = task_rows;
        stats = stats_rows;
        if (r < 0) {
                fprintf(stderr, "rtfctl: request failed: %s\n", strerror(-r));
                free(tasks);
                return r;
        }
        if (old_rtfd)
                fprintf(stderr, "rtfctl: this rtfd does not keep the statistics its clients report (protocol "
                        "version 1)\n");
        if (json) {
                json_object *array = json_object_new_array();

                for (uint32_t i = 0; i < n; i++)
                        json_object_array_add(array, task_json(&tasks[i], stats_of(stats, n_stats, tasks[i].id)));
                print_json("tasks", array);
        } else if (n == 0) {
                printf("# no tasks\n");
        } else {
                bool header = true;

                for (uint32_t i = 0; i < n; i++)
                        print_task(&tasks[i], i == 0);
                for (uint32_t i = 0; i < n; i++) {
                        const struct rtf_wire_task_stats *ts = stats_of(stats, n_stats, tasks[i].id);

                        if (ts) {
                                print_stats(ts, header);
                                header = false;
                        }
                }
        }
        free(stats);
        free(tasks);
        return 0;
}

static void help(void) {
        printf("Usage: rtfctl [OPTION...] COMMAND\n"
               "Show what rtfd manages; run programs under its reservations.\n\n"
               "Commands:\n"
               "  status        plugins and their CPUs: tasks, priorities, utilisation.  Columns:\n"
               "                part: yes = the CPU is a partition of its own for the plugin (a\n"
               "                cpuset that is a root domain), no = shared with the rest of the\n"
               "                system (tasks pinned by affinity), global = a plugin without\n"
               "                partitions whose tasks run on any of its CPUs (one row for all);\n"
               "                range: the priorities the plugin may give; in-use: the lowest and\n"
               "                highest its tasks hold now; utilisation: sum of runtime/period, in CPUs\n"
               "  tasks         all task specifications: owner (user, process), plugin, parameters,\n"
               "                granted priority and CPU, thread and its command name (the owner\n"
               "                process's while no thread is attached); for periodic tasks also\n"
               "                the statistics their client reported (periods, overruns, budget\n"
               "                exhaustions, longest response and CPU time): the client's claim,\n"
               "                not measured by rtfd\n"
               "  top [-i MS] [-n N] [--plain]\n"
               "                live view of the tasks: command, CPU used, periods and overruns\n"
               "                (rtfctl top --help)\n"
               "  reload        have rtfd read its configuration and policy again (root only;\n"
               "                sends SIGHUP to the process that owns the socket, if it is rtfd)\n"
               "  run [OPTION...] -- COMMAND [ARG...]\n"
               "                run COMMAND under a reservation asked as the calling user; given\n"
               "                back when COMMAND ends (rtfctl run --help)\n"
               "  attach --pid PID | --tid TID [OPTION...]\n"
               "                a reservation for a running process or thread of the calling user,\n"
               "                held until it ends or rtfctl is stopped (rtfctl attach --help)\n\n"
               "Options (before the command):\n"
               "  -s, --socket PATH  rtfd's socket (default $RTF_SOCKET or %s)\n"
               "  -j, --json         JSON output\n"
               "  -h, --help         show this help\n"
               "      --version      show the version\n",
               RTF_DEFAULT_SOCKET);
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "socket", required_argument, NULL, 's' },
                { "json", no_argument, NULL, 'j' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                { NULL, 0, NULL, 0 }
        };
        const char *socket_path = getenv("RTF_SOCKET") ? getenv("RTF_SOCKET") : RTF_DEFAULT_SOCKET;
        bool json = false;
        int c, r;

        /* '+': the options after a subcommand are the subcommand's. */
        while ((c = getopt_long(argc, argv, "+s:jh", options, NULL)) >= 0) {
                switch (c) {
                case 's':
                        socket_path = optarg;
                        break;
                case 'j':
                        json = true;
                        break;
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case 'V':
                        printf("rtfctl %s\n", RTF_VERSION);
                        return EXIT_SUCCESS;
                default:
                        fprintf(stderr, "Try 'rtfctl --help'.\n");
                        return 2;
                }
        }
        if (optind < argc && (strcmp(argv[optind], "run") == 0 || strcmp(argv[optind], "attach") == 0)) {
                bool attach = strcmp(argv[optind], "attach") == 0;
                struct launch_opts *o = calloc(1, sizeof(*o));
                char **sub = argv + optind;     /* launch_parse() restarts getopt */

                if (!o)
                        return LAUNCH_EXIT_FAILED;
                /* -s before the subcommand: librtf reads the socket from the environment. */
                if (setenv("RTF_SOCKET", socket_path, 1) < 0)
                        return LAUNCH_EXIT_FAILED;
                r = launch_parse(argc - optind, sub, attach, o);
                if (r == -1)
                        r = EXIT_SUCCESS;
                else if (r == -2)
                        r = 2;
                else if (attach)
                        r = launch_attach(o);
                else
                        r = launch_run(o, sub + r);
                free(o);
                return r;
        }
        if (optind < argc && strcmp(argv[optind], "top") == 0)
                return top_main(argc - optind, argv + optind, socket_path, json);
        if (optind != argc - 1) {
                fprintf(stderr, "rtfctl: expected one command (status, tasks, top, reload, run or attach). Try 'rtfctl --help'.\n");
                return 2;
        }
        if (strcmp(argv[optind], "status") == 0)
                r = list_status(socket_path, json);
        else if (strcmp(argv[optind], "tasks") == 0)
                r = list_tasks(socket_path, json);
        else if (strcmp(argv[optind], "reload") == 0)
                return reload_main(socket_path);
        else {
                fprintf(stderr, "rtfctl: unknown command '%s'. Try 'rtfctl --help'.\n", argv[optind]);
                return 2;
        }
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
