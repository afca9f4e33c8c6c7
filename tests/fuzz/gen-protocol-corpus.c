/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writes the seed corpus of fuzz-protocol: one valid packet of every message
 * type (rows replies with 0, 1 and 2 rows), each encoded by rtf_msg_encode()
 * so the seeds follow the header if a layout ever changes; and the types of
 * version 1 once more in a version-1 header, as older clients send them.
 *
 *   gen-protocol-corpus DIRECTORY
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"

/*
 * Encodes *m and, for the seeds of refusals, overwrites the 32-bit word at
 * `poke_offset` (if not 0) with `poke_value`.
 */
static int write_poked(int dfd, const char *name, const struct rtf_msg *m, size_t poke_offset,
                       uint32_t poke_value) {
        uint8_t buf[RTF_MSG_MAX];
        size_t done = 0;
        int n, fd;

        n = rtf_msg_encode(m, buf, sizeof(buf));
        if (n < 0) {
                fprintf(stderr, "%s: cannot encode: %s\n", name, strerror(-n));
                return n;
        }
        if (poke_offset != 0 && poke_offset + sizeof(poke_value) <= (size_t)n)
                memcpy(buf + poke_offset, &poke_value, sizeof(poke_value));

        fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
        if (fd < 0) {
                int r = -errno;

                fprintf(stderr, "%s: %s\n", name, strerror(-r));
                return r;
        }
        while (done < (size_t)n) {
                ssize_t w = write(fd, buf + done, (size_t)n - done);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0) {
                        int r = -errno;

                        fprintf(stderr, "%s: %s\n", name, strerror(-r));
                        close(fd);
                        return r;
                }
                done += (size_t)w;
        }
        if (close(fd) < 0) {
                int r = -errno;

                fprintf(stderr, "%s: %s\n", name, strerror(-r));
                return r;
        }
        return 0;
}

static int write_packet(int dfd, const char *name, const struct rtf_msg *m) {
        return write_poked(dfd, name, m, 0, 0);
}

static void params(struct rtf_wire_params *w, const char *plugin) {
        w->flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_DES_RUNTIME |
                RTF_PARAM_HAS_DEADLINE | RTF_PARAM_HAS_SCHEDULER;
        w->priority = 0;
        w->period_us = 10000;
        w->runtime_us = 1000;
        w->des_runtime_us = 2000;
        w->deadline_us = 8000;
        snprintf(w->plugin, sizeof(w->plugin), "%s", plugin);
}

static void core(struct rtf_wire_core *c, const char *plugin, const char *policy, int32_t cpu) {
        snprintf(c->plugin, sizeof(c->plugin), "%s", plugin);
        snprintf(c->policy, sizeof(c->policy), "%s", policy);
        c->cpu = cpu;
        c->partitioned = 1;
        c->tasks = 2;
        c->prio_min = 50;
        c->prio_max = 99;
        c->prio_lowest = 60;
        c->prio_highest = 70;
        c->utilization_ppm = 350000;
}

static void stats(struct rtf_wire_stats *st, uint32_t mode, uint32_t flags) {
        st->budget_mode = mode;
        st->flags = flags;
        st->period_ns = 4000000;
        st->budget_ns = mode ? 1000000 : 0;
        st->periods = 500;
        st->overruns = 12;
        st->missed_releases = 12;
        st->budget_exhaustions = mode ? 40 : 0;
        st->ignored_waits = mode ? 38 : 0;
        st->max_response_ns = 5500000;
        st->max_job_cpu_ns = 1000000;
}

static void task(struct rtf_wire_task *t, uint64_t id) {
        t->id = id;
        t->uid = 1000;
        t->pid = 4242;
        t->tid = 4243;
        t->cpu = 1;
        t->priority = 80;
        t->accepted_runtime_us = 1500;
        params(&t->params, "EDF");
}

int main(int argc, char **argv) {
        static struct rtf_msg m;
        int dfd, r = 0;

        if (argc != 2) {
                fprintf(stderr, "Usage: %s DIRECTORY\n", argv[0]);
                return EXIT_FAILURE;
        }
        dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
                return EXIT_FAILURE;
        }

#define RESET(t) do { memset(&m, 0, sizeof(m)); m.header.type = (t); m.header.seq = 7; } while (0)
#define WRITE(name) do { if (write_packet(dfd, (name), &m) < 0) r = -1; } while (0)

        RESET(RTF_MSG_CREATE);
        params(&m.create.params, "EDF");
        WRITE("create");
        RESET(RTF_MSG_CREATE);
        params(&m.create.params, "");
        WRITE("create-any-plugin");

        RESET(RTF_MSG_CHANGE);
        m.change.id = 1;
        params(&m.change.params, "RM1");
        WRITE("change");

        RESET(RTF_MSG_RELEASE);
        m.id.id = 1;
        WRITE("release");

        RESET(RTF_MSG_ATTACH);
        m.attach.id = 1;
        m.attach.tid = 4243;
        WRITE("attach");

        RESET(RTF_MSG_DETACH);
        m.id.id = 1;
        WRITE("detach");

        RESET(RTF_MSG_STATUS);
        WRITE("status");

        RESET(RTF_MSG_TASKS);
        m.list.start = 2;
        WRITE("tasks");

        RESET(RTF_MSG_REPLY);
        m.reply.result = RTF_OK;
        m.reply.priority = 80;
        m.reply.id = 1;
        m.reply.accepted_runtime_us = 1500;
        m.reply.cpu = 1;
        snprintf(m.reply.plugin, sizeof(m.reply.plugin), "EDF");
        WRITE("reply-ok");
        RESET(RTF_MSG_REPLY);
        m.reply.result = RTF_SCHEDULE_FAIL;
        m.reply.cpu = -1;
        snprintf(m.reply.reason, sizeof(m.reply.reason), "no plugin could admit the task");
        WRITE("reply-refused");

        RESET(RTF_MSG_STATUS_REPLY);
        m.rows.total = 0;
        WRITE("status-reply-empty");
        RESET(RTF_MSG_STATUS_REPLY);
        m.rows.total = 3;
        m.rows.count = 1;
        core(&m.rows.cores[0], "EDF", "DEADLINE", 0);
        WRITE("status-reply-1");
        RESET(RTF_MSG_STATUS_REPLY);
        m.rows.total = 3;
        m.rows.start = 1;
        m.rows.count = 2;
        core(&m.rows.cores[0], "RM1", "FIFO", 1);
        core(&m.rows.cores[1], "RR", "RR", 1);
        WRITE("status-reply-2");

        RESET(RTF_MSG_TASKS_REPLY);
        WRITE("tasks-reply-empty");
        RESET(RTF_MSG_TASKS_REPLY);
        m.rows.total = 2;
        m.rows.count = 1;
        task(&m.rows.tasks[0], 1);
        WRITE("tasks-reply-1");
        RESET(RTF_MSG_TASKS_REPLY);
        m.rows.total = 2;
        m.rows.count = 2;
        task(&m.rows.tasks[0], 1);
        task(&m.rows.tasks[1], 2);
        WRITE("tasks-reply-2");

        RESET(RTF_MSG_REPORT);
        m.report.id = 1;
        stats(&m.report.stats, RTF_BUDGET_SOFT, 0);
        WRITE("report");
        RESET(RTF_MSG_REPORT);
        m.report.id = 2;
        stats(&m.report.stats, RTF_BUDGET_HARD, RTF_STATS_FINAL);
        WRITE("report-final");
        RESET(RTF_MSG_REPORT);
        m.report.id = 3;
        stats(&m.report.stats, RTF_BUDGET_NONE, 0);
        WRITE("report-no-budget");

        RESET(RTF_MSG_TASK_STATS);
        WRITE("task-stats");
        RESET(RTF_MSG_TASK_STATS_REPLY);
        WRITE("task-stats-reply-empty");
        RESET(RTF_MSG_TASK_STATS_REPLY);
        m.rows.total = 2;
        m.rows.count = 2;
        m.rows.task_stats[0].id = 1;
        m.rows.task_stats[0].age_ms = 250;
        stats(&m.rows.task_stats[0].stats, RTF_BUDGET_SOFT, 0);
        m.rows.task_stats[1].id = 5;
        stats(&m.rows.task_stats[1].stats, RTF_BUDGET_NONE, RTF_STATS_FINAL);
        WRITE("task-stats-reply-2");

        /* Reports rtfd refuses: a version-2 type in a version-1 header, more overruns than periods. */
        RESET(RTF_MSG_REPORT);
        m.report.id = 1;
        stats(&m.report.stats, RTF_BUDGET_SOFT, 0);
        if (write_poked(dfd, "invalid-report-v1", &m, offsetof(struct rtf_msg_header, version), 1) < 0)
                r = -1;
        if (write_poked(dfd, "invalid-report-overruns", &m, sizeof(struct rtf_msg_header) +
                        offsetof(struct rtf_msg_report, stats.overruns), 501) < 0)
                r = -1;

        /* An older client's requests and rtfd's answers to it. */
        RESET(RTF_MSG_CREATE);
        m.header.version = 1;
        params(&m.create.params, "EDF");
        WRITE("v1-create");
        RESET(RTF_MSG_TASKS);
        m.header.version = 1;
        WRITE("v1-tasks");
        RESET(RTF_MSG_TASKS_REPLY);
        m.header.version = 1;
        m.rows.total = 1;
        m.rows.count = 1;
        task(&m.rows.tasks[0], 1);
        WRITE("v1-tasks-reply-1");

        close(dfd);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
