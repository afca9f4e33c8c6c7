/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <rtf/native.h> against a real rtfd, for test_native.py.
 *
 *   nativeclient hold PRIO PERIOD_US   a task at PRIO, periodic; prints
 *       {"create", "tid", "set_periodic"} once it waits, then on a line of
 *       stdin stops it and prints {"periods", "overruns", "delete"}
 *   nativeclient create PRIO           prints {"create", "reason"}
 */
#include <json-c/json.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rtf/native.h>

struct run {
        RTIME period;
        atomic_int set_periodic;        /* 1 until the task has called it */
        atomic_bool stop;
        unsigned long periods, overruns;
};

static void body(void *arg) {
        struct run *r = arg;
        unsigned long ov;

        atomic_store(&r->set_periodic, rt_task_set_periodic(NULL, TM_NOW, r->period));
        while (!atomic_load(&r->stop)) {
                ov = 0;
                if (rt_task_wait_period(&ov) == -ETIMEDOUT)
                        r->overruns += ov;
                r->periods++;
        }
}

static void print(json_object *o) {
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        fflush(stdout);
        json_object_put(o);
}

int main(int argc, char **argv) {
        struct run run = { 0 };
        json_object *o = json_object_new_object();
        RT_TASK task;
        char line[16];
        int r;

        if (argc < 3)
                return 2;
        mlockall(MCL_CURRENT | MCL_FUTURE);
        r = rt_task_create(&task, "probe", 0, atoi(argv[2]), T_JOINABLE);
        json_object_object_add(o, "create", json_object_new_int(r));
        json_object_object_add(o, "reason", json_object_new_string(rtf_last_reason()));
        if (strcmp(argv[1], "create") == 0 || r < 0) {
                print(o);
                return 0;
        }
        if (argc < 4)
                return 2;
        run.period = strtoull(argv[3], NULL, 10) * 1000;
        atomic_init(&run.set_periodic, 1);
        json_object_object_add(o, "tid", json_object_new_int(rtf_native_task_spec(&task)->tid));
        rt_task_start(&task, body, &run);
        while (atomic_load(&run.set_periodic) == 1)
                usleep(1000);
        json_object_object_add(o, "set_periodic", json_object_new_int(atomic_load(&run.set_periodic)));
        print(o);

        if (!fgets(line, sizeof(line), stdin))
                return 1;
        atomic_store(&run.stop, true);
        rt_task_join(&task);
        o = json_object_new_object();
        json_object_object_add(o, "periods", json_object_new_uint64(run.periods));
        json_object_object_add(o, "overruns", json_object_new_uint64(run.overruns));
        print(o);
        return 0;
}
