/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* FP.so and RR.so through the plugin ABI (plugin-host.h): requested priorities mapped into a range. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-host.h"
#include "tap.h"

static void test_fp(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 2, 3 };
        struct rtf_plugin_config c = config("FP1", 50, 52, cpus, NULL, 2, NULL, 0);
        struct rtf_plugin_task p10, p20, p30, p5, p40, p45, p60;
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        void *st = NULL;

        {
                static const char *const bad[][1] = { { "util=0.9" } };

                check_bad_options(ops, bad[0], 1, 1, 99);
        }
        CHECK_EQ(host_init(ops, &(struct rtf_plugin_config[]) { config("FPX", 0, 99, cpus, NULL, 2, NULL, 0) }[0], &st),
                 -EINVAL);

        CHECK_EQ(host_init(ops, &c, &st), 0);
        if (!st)
                return;
        CHECK_EQ(create(ops, st, &p10, params(0, 0, 0, 0, 10, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p10.core, 0);
        CHECK_EQ(p10.priority, 50);
        CHECK_EQ(create(ops, st, &p20, params(0, 0, 0, 0, 20, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p20.core, 1);
        CHECK_EQ(p20.priority, 50);
        CHECK_EQ(create(ops, st, &p30, params(0, 0, 0, 0, 30, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p30.core, 0);
        CHECK_EQ(p30.priority, 51);
        CHECK_EQ(p10.priority, 50);
        CHECK_EQ(th.n_updated, 0);
        /* 5 below 20 on core 1: 20 moves up and is reported */
        CHECK_EQ(create(ops, st, &p5, params(0, 0, 0, 0, 5, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p5.core, 1);
        CHECK_EQ(p5.priority, 50);
        CHECK_EQ(p20.priority, 51);
        CHECK_EQ(th.n_updated, 1);
        CHECK(was_updated(&p20));
        CHECK_EQ(create(ops, st, &p40, params(0, 0, 0, 0, 40, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &p45, params(0, 0, 0, 0, 45, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p40.core, 0);
        CHECK_EQ(p40.priority, 52);
        CHECK_EQ(p45.core, 1);
        CHECK_EQ(p45.priority, 52);
        /* a fourth distinct priority in three levels: eq. 6 fails, said and logged */
        updates_clear();
        CHECK_EQ(create(ops, st, &p60, params(0, 0, 0, 0, 60, 0), &dec), RTF_PLUGIN_OK);
        CHECK(strstr(dec.reason, "order not kept") != NULL);
        CHECK_EQ(p60.core, 0);
        CHECK_EQ(p60.priority, 52);
        CHECK_EQ(p40.priority, 51);
        CHECK_EQ(p30.priority, 50);
        CHECK_EQ(p10.priority, 50);
        CHECK_EQ(th.n_updated, 2);
        CHECK(was_updated(&p40) && was_updated(&p30));
        CHECK(logged("FP1: CPU 2: 4 distinct priorities share 3 levels"));
        CHECK_EQ(ops->attach(st, &p60, &set), 0);
        CHECK_EQ(set.policy, RTF_POLICY_FIFO);
        CHECK_EQ(set.priority, 52);
        CHECK_EQ(set.cpu, 2);
        CHECK_EQ(ops->attach(st, &p45, &set), 0);
        CHECK_EQ(set.cpu, 3);
        updates_clear();
        ops->release(st, &p60);
        CHECK_EQ(p40.priority, 52);
        CHECK_EQ(p30.priority, 51);
        CHECK_EQ(th.n_updated, 2);
        CHECK(logged("order kept again"));

        /* change of p10 to 35, staying on core 0 */
        CHECK_EQ(change(ops, st, &p10, params(0, 0, 0, 0, 35, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p10.core, 0);
        CHECK_EQ(p30.priority, 50);
        CHECK_EQ(p10.priority, 51);
        CHECK_EQ(p40.priority, 52);
        CHECK_EQ(core_tasks(ops, st, 0), 3);
        CHECK_EQ(core_tasks(ops, st, 1), 3);

        /* the priority is mandatory and a POSIX one */
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_PERIOD, .period_us = 10 }, &dec),
                 RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "mandatory") != NULL);
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_PRIORITY, .priority = 0 }, &dec),
                 RTF_PLUGIN_NO);
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_PRIORITY, .priority = 100 }, &dec),
                 RTF_PLUGIN_NO);

        ops->release(st, &p10);
        ops->release(st, &p20);
        ops->release(st, &p30);
        ops->release(st, &p5);
        ops->release(st, &p40);
        ops->release(st, &p45);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 0);
        ops->fini(st);

        /* the full range keeps requests as they are */
        c = config("FP2", 1, 99, cpus, NULL, 2, NULL, 0);
        CHECK_EQ(host_init(ops, &c, &st), 0);
        CHECK_EQ(create(ops, st, &p10, params(0, 0, 0, 0, 17, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p10.priority, 17);
        CHECK_EQ(create(ops, st, &p20, params(0, 0, 0, 0, 99, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p20.priority, 99);
        ops->release(st, &p10);
        ops->release(st, &p20);
        ops->fini(st);
}

static void test_rr(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 9 };
        struct rtf_plugin_config c = config("RR", 1, 50, cpus, NULL, 1, NULL, 0);
        struct rtf_plugin_task a, b;
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        void *st = NULL;

        CHECK(strcmp(ops->name, "RR") == 0);
        CHECK_EQ(host_init(ops, &c, &st), 0);
        CHECK_EQ(create(ops, st, &a, params(0, 0, 0, 0, 80, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.priority, 50);
        CHECK_EQ(create(ops, st, &b, params(0, 0, 0, 0, 90, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.priority, 49);
        CHECK_EQ(b.priority, 50);
        CHECK(was_updated(&a));
        CHECK_EQ(ops->attach(st, &b, &set), 0);
        CHECK_EQ(set.policy, RTF_POLICY_RR);
        CHECK_EQ(set.priority, 50);
        CHECK_EQ(set.cpu, 9);
        ops->release(st, &a);
        ops->release(st, &b);
        ops->fini(st);
}

int main(void) {
        static const struct plugin_test tests[] = {
                { "FP.so", "FP", test_fp },
                { "RR.so", "RR", test_rr },
        };

        return plugin_tests_run(tests, ELEMS(tests));
}
