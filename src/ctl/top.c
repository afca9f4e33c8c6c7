/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfctl top: every interval, rtfd's tasks with their command, the CPU time
 * their thread used in the interval (the kernel's count, /proc/TID/stat),
 * and the periods and overruns their client reported.  On a terminal the
 * screen is redrawn; in a pipe (or with --plain) each refresh is a block of
 * plain text that starts with a '#' line; --json prints one JSON object per
 * refresh and line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fetch.h"
#include "names.h"
#include "top.h"

#define TOP_INTERVAL_MS_DEFAULT 1000u

struct cpu_sample {
        pid_t tid;
        uint64_t ticks;
};

struct top {
        struct cpu_sample *prev, *cur;
        uint32_t n_prev, n_cur;
        int64_t prev_ns;
};

void top_help(void) {
        printf("Usage: rtfctl [-s PATH] [--json] top [OPTION...]\n"
               "A live view of rtfd's tasks: user, process, thread and its command, plugin and\n"
               "priority, period and runtime, the CPU its thread used during the last interval (the\n"
               "kernel's count), and the periods and overruns its client reported (its claim).\n\n"
               "  -i, --interval MS  time between refreshes (default %u, 100..60000)\n"
               "  -n, --count N      stop after N refreshes (default: until interrupted)\n"
               "      --plain        no screen control: a block of text per refresh, each starting\n"
               "                     with a '#' line (the default when the output is not a terminal)\n"
               "  -h, --help         show this help\n"
               "With rtfctl --json: one JSON object per refresh and line.\n",
               TOP_INTERVAL_MS_DEFAULT);
}

static int64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* utime + stime of a thread in clock ticks; fields 14 and 15 of /proc/TID/stat, after the comm. */
static int thread_ticks(pid_t tid, uint64_t *ret) {
        char path[32], buf[1024];
        unsigned long long utime, stime;
        const char *p;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        p = fgets(buf, sizeof(buf), f);
        fclose(f);
        if (!p || !(p = strrchr(buf, ')')))
                return -EIO;
        if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
                return -EIO;
        *ret = utime + stime;
        return 0;
}

/* Percent of one CPU that `tid` used since the previous refresh; < 0 when unknown. */
static double cpu_percent(const struct top *t, pid_t tid, uint64_t ticks, double elapsed_s) {
        for (uint32_t i = 0; i < t->n_prev; i++)
                if (t->prev[i].tid == tid && elapsed_s > 0)
                        return (double)(ticks - t->prev[i].ticks) * 100.0 / ((double)sysconf(_SC_CLK_TCK) * elapsed_s);
        return -1;
}

static const struct rtf_wire_task_stats *stats_for(const struct rtf_wire_task_stats *s, uint32_t n, uint64_t id) {
        for (uint32_t i = 0; i < n; i++)
                if (s[i].id == id)
                        return &s[i];
        return NULL;
}

static void print_frame(struct top *t, const struct rtf_wire_task *tasks, uint32_t n,
                        const struct rtf_wire_task_stats *stats, uint32_t n_stats, bool screen, bool json,
                        unsigned interval_ms) {
        int64_t now = now_ns();
        double elapsed = t->prev_ns ? (double)(now - t->prev_ns) / 1e9 : 0;
        json_object *array = json ? json_object_new_array() : NULL;
        char clock[32];
        time_t wall = time(NULL);

        strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&wall));
        if (screen)
                printf("\033[H\033[2J");
        if (!json) {
                printf("# rtfctl top %s: %" PRIu32 " tasks, every %.1f s; cpu%%: of one CPU in the last interval; "
                       "periods, overruns: reported by the task's client\n", clock, n, interval_ms / 1e3);
                printf("# %-6s %-10s %7s %7s %-15s %-8s %4s %10s %10s %6s %10s %9s\n", "id", "user", "pid", "thread",
                       "command", "plugin", "prio", "period", "runtime", "cpu%", "periods", "overruns");
        }
        t->n_cur = 0;
        for (uint32_t i = 0; i < n; i++) {
                const struct rtf_wire_task *k = &tasks[i];
                const struct rtf_wire_task_stats *st = stats_for(stats, n_stats, k->id);
                char user[64], comm[64], cpu[16] = "-", periods[24] = "-", overruns[24] = "-";
                char user_word[4 * 64], comm_word[4 * 64];
                uint64_t ticks = 0;
                double pct = -1;

                if (k->tid && thread_ticks(k->tid, &ticks) == 0) {
                        pct = cpu_percent(t, k->tid, ticks, elapsed);
                        t->cur[t->n_cur++] = (struct cpu_sample){ .tid = k->tid, .ticks = ticks };
                }
                if (pct >= 0)
                        snprintf(cpu, sizeof(cpu), "%.1f", pct);
                if (st) {
                        snprintf(periods, sizeof(periods), "%" PRIu64, st->stats.periods);
                        snprintf(overruns, sizeof(overruns), "%" PRIu64, st->stats.overruns);
                }
                ctl_user_name(k->uid, user, sizeof(user));
                ctl_thread_comm(k->tid ? k->tid : k->pid, comm, sizeof(comm));
                if (json) {
                        json_object *o = json_object_new_object();

                        json_object_object_add(o, "id", json_object_new_uint64(k->id));
                        json_object_object_add(o, "user", json_object_new_string(user));
                        json_object_object_add(o, "pid", json_object_new_int(k->pid));
                        json_object_object_add(o, "tid", json_object_new_int(k->tid));
                        json_object_object_add(o, "command", json_object_new_string(comm));
                        json_object_object_add(o, "plugin", json_object_new_string(k->params.plugin));
                        json_object_object_add(o, "priority", json_object_new_int64(k->priority));
                        json_object_object_add(o, "period_us", json_object_new_uint64(k->params.period_us));
                        json_object_object_add(o, "runtime_us", json_object_new_uint64(k->accepted_runtime_us));
                        json_object_object_add(o, "cpu_percent", pct >= 0 ? json_object_new_double(pct) : NULL);
                        json_object_object_add(o, "periods", st ? json_object_new_uint64(st->stats.periods) : NULL);
                        json_object_object_add(o, "overruns", st ? json_object_new_uint64(st->stats.overruns) : NULL);
                        json_object_array_add(array, o);
                } else {
                        printf("  %-6" PRIu64 " %-10s %7d %7d %-15s %-8s %4" PRIu32 " %10" PRIu64 " %10" PRIu64
                               " %6s %10s %9s\n", k->id, ctl_one_word(user, user_word, sizeof(user_word)), k->pid,
                               k->tid, ctl_one_word(comm, comm_word, sizeof(comm_word)),
                               k->params.plugin, k->priority, k->params.period_us, k->accepted_runtime_us, cpu,
                               periods, overruns);
                }
        }
        if (json) {
                json_object *root = json_object_new_object();

                json_object_object_add(root, "time", json_object_new_string(clock));
                json_object_object_add(root, "interval_ms", json_object_new_int64(interval_ms));
                json_object_object_add(root, "tasks", array);
                printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
                json_object_put(root);
        }
        fflush(stdout);
        /* This refresh's samples are the next one's base. */
        struct cpu_sample *swap = t->prev;
        t->prev = t->cur;
        t->cur = swap;
        t->n_prev = t->n_cur;
        t->prev_ns = now;
}

int top_main(int argc, char **argv, const char *socket_path, bool json) {
        static const struct option options[] = {
                { "interval", required_argument, NULL, 'i' },
                { "count", required_argument, NULL, 'n' },
                { "plain", no_argument, NULL, 'p' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 }
        };
        unsigned interval_ms = TOP_INTERVAL_MS_DEFAULT;
        unsigned long count = 0, v;
        bool plain = !isatty(STDOUT_FILENO);
        struct top t = { 0 };
        struct ctl_conn conn;
        char *end;
        int c, r = 0;

        optind = 1;
        while ((c = getopt_long(argc, argv, "i:n:h", options, NULL)) >= 0) {
                switch (c) {
                case 'i':
                        errno = 0;
                        v = strtoul(optarg, &end, 10);
                        if (errno || *end || v < 100 || v > 60000) {
                                fprintf(stderr, "rtfctl top: --interval is 100..60000 ms: '%s'\n", optarg);
                                return 2;
                        }
                        interval_ms = (unsigned)v;
                        break;
                case 'n':
                        errno = 0;
                        count = strtoul(optarg, &end, 10);
                        if (errno || *end || count == 0) {
                                fprintf(stderr, "rtfctl top: --count is a number >= 1: '%s'\n", optarg);
                                return 2;
                        }
                        break;
                case 'p':
                        plain = true;
                        break;
                case 'h':
                        top_help();
                        return 0;
                default:
                        fprintf(stderr, "Try 'rtfctl top --help'.\n");
                        return 2;
                }
        }
        if (optind != argc) {
                fprintf(stderr, "rtfctl top: unexpected argument '%s'. Try 'rtfctl top --help'.\n", argv[optind]);
                return 2;
        }
        if (ctl_conn_open(&conn, socket_path) < 0)
                return 1;
        for (unsigned long frame = 0; count == 0 || frame < count; frame++) {
                void *task_rows = NULL, *stats_rows = NULL;
                uint32_t n = 0, n_stats = 0;

                if (frame > 0)
                        nanosleep(&(struct timespec){ .tv_sec = interval_ms / 1000,
                                                      .tv_nsec = (long)(interval_ms % 1000) * 1000000 }, NULL);
                r = ctl_fetch_all(&conn, RTF_MSG_TASKS, sizeof(struct rtf_wire_task), &task_rows, &n);
                if (r >= 0)
                        r = ctl_fetch_all(&conn, RTF_MSG_TASK_STATS, sizeof(struct rtf_wire_task_stats), &stats_rows,
                                          &n_stats);
                if (r >= 0) {
                        struct cpu_sample *more = realloc(t.cur, (n ? n : 1) * sizeof(*t.cur));

                        if (!more)
                                r = -ENOMEM;
                        else
                                t.cur = more;
                }
                if (r >= 0)
                        print_frame(&t, task_rows, n, stats_rows, n_stats, !plain && !json, json, interval_ms);
                free(task_rows);
                free(stats_rows);
                if (r < 0) {
                        fprintf(stderr, "rtfctl top: %s\n", strerror(-r));
                        break;
                }
        }
        ctl_conn_close(&conn);
        free(t.prev);
        free(t.cur);
        return r < 0 ? 1 : 0;
}
