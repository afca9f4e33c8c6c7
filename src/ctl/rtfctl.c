/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfctl: read-only views of rtfd for any user.
 *   rtfctl status   plugins, their cores, utilisation and priorities in use
 *   rtfctl tasks    every specification: owner, plugin, parameters, thread
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "protocol.h"
#include "rtf-config.h"

#define ROWS_LIMIT (1u << 20)   /* never page forever through a broken daemon */

static int connect_to(const char *path) {
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        struct timeval tv = { .tv_sec = 5 };
        int fd;

        if (strlen(path) >= sizeof(addr.sun_path))
                return -ENAMETOOLONG;
        memcpy(addr.sun_path, path, strlen(path) + 1);
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                int r = -errno;

                close(fd);
                return r;
        }
        return fd;
}

/* One page of rows starting at `start`. */
static int fetch(int fd, uint16_t type, uint32_t start, uint32_t seq, struct rtf_msg *ret) {
        uint8_t buf[RTF_MSG_MAX];
        struct rtf_msg req = { .header = { .type = type, .seq = seq }, .list = { .start = start } };
        ssize_t n;
        int len, r;

        len = rtf_msg_encode(&req, buf, sizeof(buf));
        if (len < 0)
                return len;
        if (send(fd, buf, (size_t)len, MSG_NOSIGNAL) != len)
                return -errno;
        n = recv(fd, buf, sizeof(buf), 0);
        if (n < 0)
                return -errno;
        if (n == 0)
                return -ECONNRESET;
        r = rtf_msg_decode(buf, (size_t)n, ret);
        if (r < 0 || ret->header.seq != seq || ret->header.type != (type | 0x100))
                return -EPROTO;
        return 0;
}

static const char *policy_of(const char *p) {
        return p[0] ? p : "-";
}

static json_object *core_json(const struct rtf_wire_core *c) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "plugin", json_object_new_string(c->plugin));
        json_object_object_add(o, "policy", json_object_new_string(c->policy));
        json_object_object_add(o, "cpu", json_object_new_int(c->cpu));
        json_object_object_add(o, "partitioned", json_object_new_boolean(c->partitioned));
        json_object_object_add(o, "tasks", json_object_new_int64(c->tasks));
        json_object_object_add(o, "prio_min", json_object_new_int64(c->prio_min));
        json_object_object_add(o, "prio_max", json_object_new_int64(c->prio_max));
        json_object_object_add(o, "prio_lowest_in_use", json_object_new_int64(c->prio_lowest));
        json_object_object_add(o, "prio_highest_in_use", json_object_new_int64(c->prio_highest));
        json_object_object_add(o, "utilization", json_object_new_double((double)c->utilization_ppm / 1e6));
        return o;
}

static json_object *task_json(const struct rtf_wire_task *t) {
        json_object *o = json_object_new_object();
        const struct rtf_wire_params *p = &t->params;

        json_object_object_add(o, "id", json_object_new_uint64(t->id));
        json_object_object_add(o, "uid", json_object_new_int64(t->uid));
        json_object_object_add(o, "pid", json_object_new_int(t->pid));
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
        return o;
}

static void print_core(const struct rtf_wire_core *c, bool header) {
        if (header)
                printf("# %-10s %-8s %4s %5s %6s %-9s %-9s %s\n", "plugin", "type", "cpu", "part", "tasks",
                       "range", "in-use", "utilisation");
        char range[24], used[24];
        snprintf(range, sizeof(range), "%" PRIu32 "-%" PRIu32, c->prio_min, c->prio_max);
        if (c->prio_highest)
                snprintf(used, sizeof(used), "%" PRIu32 "-%" PRIu32, c->prio_lowest, c->prio_highest);
        else
                snprintf(used, sizeof(used), "-");
        printf("  %-10s %-8s %4d %5s %6" PRIu32 " %-9s %-9s %.3f\n", c->plugin, policy_of(c->policy), c->cpu,
               c->partitioned ? "yes" : "no", c->tasks, range, used, (double)c->utilization_ppm / 1e6);
}

static void print_task(const struct rtf_wire_task *t, bool header) {
        const struct rtf_wire_params *p = &t->params;
        char cpu[16], tid[16];

        if (header)
                printf("# %-6s %6s %7s %-10s %10s %10s %10s %10s %4s %10s %4s %7s\n", "id", "uid", "pid",
                       "plugin", "period", "runtime", "deadline", "accepted", "prio", "des.rt", "cpu", "thread");
        snprintf(cpu, sizeof(cpu), t->cpu < 0 ? "any" : "%d", t->cpu);
        snprintf(tid, sizeof(tid), t->tid ? "%d" : "-", t->tid);
        printf("  %-6" PRIu64 " %6" PRIu32 " %7d %-10s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
               " %4" PRIu32 " %10" PRIu64 " %4s %7s\n",
               t->id, t->uid, t->pid, p->plugin, p->period_us, p->runtime_us, p->deadline_us,
               t->accepted_runtime_us, t->priority, p->des_runtime_us, cpu, tid);
}

static int list(const char *socket_path, uint16_t type, bool json) {
        json_object *array = json ? json_object_new_array() : NULL;
        uint32_t start = 0, seq = 1;
        struct rtf_msg *reply;
        int fd, r = 0;

        reply = malloc(sizeof(*reply));
        if (!reply)
                return -ENOMEM;
        fd = connect_to(socket_path);
        if (fd < 0) {
                fprintf(stderr, "rtfctl: cannot connect to rtfd at %s: %s\n", socket_path, strerror(-fd));
                free(reply);
                json_object_put(array);
                return fd;
        }
        for (;;) {
                r = fetch(fd, type, start, seq++, reply);
                if (r < 0) {
                        fprintf(stderr, "rtfctl: request failed: %s\n", strerror(-r));
                        break;
                }
                for (uint32_t i = 0; i < reply->rows.count; i++) {
                        if (type == RTF_MSG_STATUS) {
                                if (json)
                                        json_object_array_add(array, core_json(&reply->rows.cores[i]));
                                else
                                        print_core(&reply->rows.cores[i], start + i == 0);
                        } else {
                                if (json)
                                        json_object_array_add(array, task_json(&reply->rows.tasks[i]));
                                else
                                        print_task(&reply->rows.tasks[i], start + i == 0);
                        }
                }
                start += reply->rows.count;
                if (reply->rows.count == 0 || start >= reply->rows.total || start >= ROWS_LIMIT)
                        break;
        }
        if (r >= 0) {
                if (json) {
                        json_object *root = json_object_new_object();

                        json_object_object_add(root, type == RTF_MSG_STATUS ? "cores" : "tasks", array);
                        array = NULL;
                        printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                                                    JSON_C_TO_STRING_NOSLASHESCAPE));
                        json_object_put(root);
                } else if (start == 0) {
                        printf("# no %s\n", type == RTF_MSG_STATUS ? "plugins" : "tasks");
                }
        }
        json_object_put(array);
        close(fd);
        free(reply);
        return r;
}

static void help(void) {
        printf("Usage: rtfctl [OPTION...] COMMAND\n"
               "Show what rtfd manages.\n\n"
               "Commands:\n"
               "  status        plugins and their cores: tasks, priorities, utilisation\n"
               "  tasks         all task specifications\n\n"
               "Options:\n"
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
        uint16_t type;
        int c;

        while ((c = getopt_long(argc, argv, "s:jh", options, NULL)) >= 0) {
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
        if (optind != argc - 1) {
                fprintf(stderr, "rtfctl: expected one command (status or tasks). Try 'rtfctl --help'.\n");
                return 2;
        }
        if (strcmp(argv[optind], "status") == 0)
                type = RTF_MSG_STATUS;
        else if (strcmp(argv[optind], "tasks") == 0)
                type = RTF_MSG_TASKS;
        else {
                fprintf(stderr, "rtfctl: unknown command '%s'. Try 'rtfctl --help'.\n", argv[optind]);
                return 2;
        }
        return list(socket_path, type, json) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
