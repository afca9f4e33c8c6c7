/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "envelope.h"
#include "tap.h"

int main(void) {
        char *argv[] = { "rtf-latency", "--duration", "2", "a b", "" };
        struct timespec t = { .tv_sec = 1795000000, .tv_nsec = 123456789 };
        json_object *o, *v;
        char buf[128];

        envelope_format_time(&t, buf, sizeof(buf));
        CHECK(strcmp(buf, "2026-11-18T11:06:40.123Z") == 0);
        CHECK_EQ(envelope_join_cmdline(5, argv, buf, sizeof(buf)), 0);
        CHECK(strcmp(buf, "rtf-latency --duration 2 'a b' ''") == 0);
        CHECK_EQ(envelope_join_cmdline(5, argv, buf, 10), -105);

        o = envelope_new("rtf-latency", 3, argv);
        CHECK(json_object_object_get_ex(o, "file_version", &v) && json_object_get_int(v) == ENVELOPE_FILE_VERSION);
        CHECK(json_object_object_get_ex(o, "tool", &v) && strcmp(json_object_get_string(v), "rtf-latency") == 0);
        CHECK(json_object_object_get_ex(o, "tool_version", &v));
        CHECK(json_object_object_get_ex(o, "cmdline", &v) &&
              strcmp(json_object_get_string(v), "rtf-latency --duration 2") == 0);
        CHECK(json_object_object_get_ex(o, "kernel", &v) && json_object_object_get_ex(v, "release", NULL));
        CHECK(json_object_object_get_ex(o, "start_time", NULL));
        CHECK(!json_object_object_get_ex(o, "end_time", NULL));
        envelope_set_start_time(o, &t);
        CHECK(json_object_object_get_ex(o, "start_time", &v) &&
              strcmp(json_object_get_string(v), "2026-11-18T11:06:40.123Z") == 0);
        envelope_finish(o, 3);
        CHECK(json_object_object_get_ex(o, "end_time", NULL));
        CHECK(json_object_object_get_ex(o, "return_code", &v) && json_object_get_int(v) == 3);
        json_object_put(o);
        return test_done();
}
