/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "envelope.h"
#include "rtf-config.h"

void envelope_format_time(const struct timespec *t, char *buf, size_t size) {
        struct tm tm;
        char date[32];

        gmtime_r(&t->tv_sec, &tm);
        strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf, size, "%s.%03ldZ", date, t->tv_nsec / 1000000);
}

int envelope_join_cmdline(int argc, char *const argv[], char *buf, size_t size) {
        size_t used = 0;

        if (size == 0)
                return -EINVAL;
        buf[0] = '\0';
        for (int i = 0; i < argc; i++) {
                bool quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t\"'\\$") != NULL;
                int n = snprintf(buf + used, size - used, "%s%s%s%s", i ? " " : "", quote ? "'" : "", argv[i],
                                 quote ? "'" : "");

                if (n < 0 || (size_t)n >= size - used)
                        return -ENOBUFS;
                used += (size_t)n;
        }
        return 0;
}

static void add_time(json_object *o, const char *key) {
        struct timespec now;
        char buf[64];

        clock_gettime(CLOCK_REALTIME, &now);
        envelope_format_time(&now, buf, sizeof(buf));
        json_object_object_add(o, key, json_object_new_string(buf));
}

json_object *envelope_new(const char *tool, int argc, char *const argv[]) {
        json_object *o = json_object_new_object(), *k = json_object_new_object();
        struct utsname u;
        char cmd[8192];

        json_object_object_add(o, "file_version", json_object_new_int(ENVELOPE_FILE_VERSION));
        json_object_object_add(o, "tool", json_object_new_string(tool));
        json_object_object_add(o, "tool_version", json_object_new_string(RTF_VERSION));
        if (envelope_join_cmdline(argc, argv, cmd, sizeof(cmd)) < 0)
                snprintf(cmd, sizeof(cmd), "%s ...", argc > 0 ? argv[0] : tool);
        json_object_object_add(o, "cmdline", json_object_new_string(cmd));
        if (uname(&u) == 0) {
                json_object_object_add(k, "sysname", json_object_new_string(u.sysname));
                json_object_object_add(k, "release", json_object_new_string(u.release));
                json_object_object_add(k, "version", json_object_new_string(u.version));
                json_object_object_add(k, "machine", json_object_new_string(u.machine));
                json_object_object_add(k, "nodename", json_object_new_string(u.nodename));
        }
        json_object_object_add(o, "kernel", k);
        add_time(o, "start_time");
        return o;
}

void envelope_set_start_time(json_object *o, const struct timespec *t) {
        char buf[64];

        envelope_format_time(t, buf, sizeof(buf));
        json_object_object_add(o, "start_time", json_object_new_string(buf));
}

void envelope_finish(json_object *o, int return_code) {
        add_time(o, "end_time");
        json_object_object_add(o, "return_code", json_object_new_int(return_code));
}
