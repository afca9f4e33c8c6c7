/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RM.so through the plugin ABI (plugin-host.h): rate-monotonic priorities and the response-time analysis. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-host.h"
#include "tap.h"

static void test_rm(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 5, 7 };
        struct rtf_plugin_config c = config("RM1", 10, 12, cpus, NULL, 2, NULL, 0);
        struct rtf_plugin_task a, b, t3, d, e;
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        struct rtf_plugin_core_status cs;
        void *st = NULL;

        CHECK_EQ(ops->flags & RTF_PLUGIN_WANTS_PARTITIONS, 0);
        /* the range must lie in 1..99 */
        {
                static const uint32_t ranges[][2] = { { 0, 99 }, { 50, 100 }, { 60, 50 } };

                for (size_t i = 0; i < ELEMS(ranges); i++) {
                        struct rtf_plugin_config r = config("RMX", ranges[i][0], ranges[i][1], cpus, NULL, 2, NULL, 0);

                        CHECK_EQ(host_init(ops, &r, &st), -EINVAL);
                        CHECK(logged("priority range"));
                }
        }
        {
                static const char *const bad[][1] = { { "util=1.5" }, { "rta_max_steps=5" } };

                check_bad_options(ops, bad[0], 1, 1, 99);
                check_bad_options(ops, bad[1], 1, 1, 99);
        }

        CHECK_EQ(host_init(ops, &c, &st), 0);
        if (!st)
                return;

        CHECK_EQ(create(ops, st, &a, params(100, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.core, 0);
        CHECK_EQ(a.priority, 12);
        CHECK_EQ(create(ops, st, &b, params(100, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(b.core, 1);
        CHECK_EQ(b.priority, 12);
        /* a shorter period on core 0 takes the top; a is pushed down and reported */
        updates_clear();
        CHECK_EQ(create(ops, st, &t3, params(50, 5, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t3.core, 0);
        CHECK_EQ(t3.priority, 12);
        CHECK_EQ(a.priority, 11);
        CHECK_EQ(th.n_updated, 1);
        CHECK(was_updated(&a));
        CHECK_EQ(ops->attach(st, &a, &set), 0);
        CHECK_EQ(set.policy, RTF_POLICY_FIFO);
        CHECK_EQ(set.priority, 11);
        CHECK_EQ(set.cpu, 5);
        CHECK_EQ(ops->attach(st, &b, &set), 0);
        CHECK_EQ(set.cpu, 7);
        CHECK_EQ(set.priority, 12);

        /* a longer period on the less loaded core 1: nobody moves */
        updates_clear();
        CHECK_EQ(create(ops, st, &d, params(200, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(d.core, 1);
        CHECK_EQ(d.priority, 11);
        CHECK_EQ(th.n_updated, 0);

        /*
         * no runtime: never above a task with one (issue 11 point 3), and not
         * below these either (test-plugins-soundness.c has the details)
         */
        CHECK_EQ(create(ops, st, &e, params(25, 0, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "without runtime") != NULL);
        CHECK_EQ(ops->core_status(st, 1, &cs), 0);
        CHECK_EQ(cs.tasks, 2);
        CHECK_EQ(cs.prio_lowest, 11);
        CHECK_EQ(cs.prio_highest, 12);
        CHECK_NEAR(cs.utilization, 0.15);

        /* releases re-prioritise back */
        updates_clear();
        ops->release(st, &t3);
        CHECK_EQ(a.priority, 12);
        CHECK_EQ(th.n_updated, 1);
        CHECK(was_updated(&a));

        /* change: a alone on core 0 takes a new period and stays there */
        CHECK_EQ(change(ops, st, &a, params(25, 5, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.core, 0);
        CHECK_EQ(a.priority, 12);
        CHECK_EQ(ops->core_status(st, 0, &cs), 0);
        CHECK_EQ(cs.tasks, 1);
        CHECK_NEAR(cs.utilization, 0.2);
        /* change of d to the shortest period on core 1: d and b swap, b is reported */
        updates_clear();
        CHECK_EQ(change(ops, st, &d, params(20, 2, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(d.core, 1);
        CHECK_EQ(d.priority, 12);
        CHECK_EQ(b.priority, 11);
        CHECK(was_updated(&b));
        CHECK_EQ(core_tasks(ops, st, 1), 2);

        /* mandatory period, sane runtime */
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_RUNTIME, .runtime_us = 10 }, &dec),
                 RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "period") != NULL);
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME, .period_us = 100 }, &dec),
                 RTF_PLUGIN_NO);
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params[]) { params(100, 60, 0, 50, 0, 0) }[0], &dec),
                 RTF_PLUGIN_NO);

        ops->release(st, &a);
        ops->release(st, &b);
        ops->release(st, &d);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 0);
        ops->fini(st);
}

static void test_rm_analysis(const struct rtf_plugin_ops *ops) {
        static const uint32_t one[] = { 3 }, two[] = { 5, 7 };
        /* util=1: the tests below are about RTA, not the kernel's reserved share */
        static const char *const util1[] = { "util=1" };
        struct rtf_plugin_config c = config("RM2", 1, 99, one, NULL, 1, util1, 1);
        struct rtf_plugin_task t[4];
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        void *st = NULL;

        /* (2,5), (4,7): U = 0.97 but R = 8 > 7 */
        CHECK_EQ(host_init(ops, &c, &st), 0);
        CHECK_EQ(create(ops, st, &t[0], params(5, 2, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(7, 4, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "miss its deadline") != NULL);
        fprintf(stderr, "# reason: %s\n", dec.reason);
        /* U > 1 is refused before any RTA */
        CHECK_EQ(create(ops, st, &t[1], params(7, 5, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "utilisation") != NULL);
        /* ... unless the ACL allows ignoring the test */
        CHECK_EQ(create(ops, st, &t[1], params(7, 4, 0, 0, 0, RTF_PARAM_IGNORE_ADMISSION), &dec),
                 RTF_PLUGIN_OK);
        CHECK(strstr(dec.reason, "ignored") != NULL);
        CHECK_EQ(t[1].priority, 98);
        ops->release(st, &t[1]);
        ops->release(st, &t[0]);
        /* harmonic (1,2), (2,4): U = 1, beyond the hyperbolic bound, fine for RTA */
        CHECK_EQ(create(ops, st, &t[0], params(2, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(4, 2, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[2], params(8, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        ops->release(st, &t[0]);
        ops->release(st, &t[1]);
        ops->fini(st);

        /* the least loaded core fails the RTA, the next one takes the task */
        c = config("RM3", 1, 99, two, NULL, 2, util1, 1);
        CHECK_EQ(host_init(ops, &c, &st), 0);
        CHECK_EQ(create(ops, st, &t[0], params(5, 2, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(100, 41, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t[0].core, 0);
        CHECK_EQ(t[1].core, 1);
        CHECK_EQ(t[1].priority, 99);
        updates_clear();
        CHECK_EQ(create(ops, st, &t[2], params(7, 4, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t[2].core, 1);
        CHECK_EQ(t[2].priority, 99);
        CHECK_EQ(t[1].priority, 98);
        CHECK(was_updated(&t[1]));
        CHECK_EQ(ops->attach(st, &t[2], &set), 0);
        CHECK_EQ(set.cpu, 7);
        for (int i = 0; i < 3; i++)
                ops->release(st, &t[i]);
        ops->fini(st);

        /*
         * Two priorities for three periods: (1,3) alone at 21, (1,4) and
         * (3,20) share 20.  In RM order the set passes the hyperbolic bound;
         * with the shared priority (3,20) delays (1,4) to 6 > 4.
         */
        c = config("RM4", 20, 21, one, NULL, 1, NULL, 0);
        CHECK_EQ(host_init(ops, &c, &st), 0);
        CHECK_EQ(create(ops, st, &t[0], params(3, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(20, 3, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t[0].priority, 21);
        CHECK_EQ(t[1].priority, 20);
        CHECK_EQ(create(ops, st, &t[2], params(4, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "RTA") != NULL);
        /* without a runtime it would share priority 20 with (3, 20): refused */
        CHECK_EQ(create(ops, st, &t[2], params(4, 0, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "without runtime") != NULL);
        /* a light one that passes RTA at the shared priority: the tie is logged */
        updates_clear();
        CHECK_EQ(create(ops, st, &t[2], params(40, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t[2].priority, 20);
        CHECK_EQ(t[1].priority, 20);
        CHECK_EQ(th.n_updated, 0);
        CHECK(logged("share"));
        ops->release(st, &t[2]);
        CHECK(logged("strict rate-monotonic order again"));
        for (int i = 0; i < 2; i++)
                ops->release(st, &t[i]);
        ops->fini(st);

        c = config("RM5", 20, 22, one, NULL, 1, util1, 1);
        CHECK_EQ(host_init(ops, &c, &st), 0);
        CHECK_EQ(create(ops, st, &t[0], params(3, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(20, 3, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[2], params(4, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t[0].priority, 22);
        CHECK_EQ(t[2].priority, 21);
        CHECK_EQ(t[1].priority, 20);
        /* rollback of a change that moved priorities restores them */
        {
                struct rtf_plugin_task old = t[2];

                CHECK_EQ(change(ops, st, &t[2], params(2, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
                CHECK_EQ(t[2].priority, 22);
                CHECK_EQ(t[0].priority, 21);
                rollback(ops, st, &t[2], &old);
                CHECK_EQ(t[0].priority, 22);
                CHECK_EQ(t[2].priority, 21);
                CHECK_EQ(t[1].priority, 20);
        }
        ops->fini(st); /* tasks still scheduled: our side is freed, theirs untouched */
}

int main(void) {
        static const struct plugin_test tests[] = {
                { "RM.so", "RM", test_rm },
                { "RM.so", "RM", test_rm_analysis },
        };

        return plugin_tests_run(tests, ELEMS(tests));
}
