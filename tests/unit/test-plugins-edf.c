/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* EDF.so through the plugin ABI (plugin-host.h): partitioned, global, its options. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-host.h"
#include "tap.h"

static void test_edf_partitioned(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 5, 7 };
        static const bool part[] = { true, true };
        static const char *const opts[] = { "util=0.5" };
        struct rtf_plugin_config c = config("EDF1", 100, 100, cpus, part, 2, opts, 1);
        struct rtf_plugin_task a, b, t3, d, e, old;
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        void *st = NULL;

        CHECK_EQ(host_init(ops, &c, &st), 0);
        if (!st)
                return;
        CHECK(logged("EDF1: 2 partitioned CPUs"));

        /* worst-fit spreads: core 0 (CPU 5), then core 1 (CPU 7) */
        CHECK_EQ(create(ops, st, &a, params(10000, 2000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.core, 0);
        CHECK_EQ(a.accepted_runtime_us, 2000);
        CHECK_EQ(ops->attach(st, &a, &set), 0);
        CHECK_EQ(set.policy, RTF_POLICY_DEADLINE);
        CHECK_EQ(set.cpu, 5);
        CHECK_EQ(set.runtime_ns, 2000000);
        CHECK_EQ(set.deadline_ns, 10000000);
        CHECK_EQ(set.period_ns, 10000000);
        CHECK_EQ(set.flags, 0);         /* the overrun signal is opt-in */
        a.params.flags |= RTF_PARAM_OVERRUN_SIGNAL;
        CHECK_EQ(ops->attach(st, &a, &set), 0);
        CHECK_EQ(set.flags, RTF_SETTING_DL_OVERRUN);
        a.params.flags &= ~RTF_PARAM_OVERRUN_SIGNAL;
        CHECK_EQ(create(ops, st, &b, params(10000, 2000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(b.core, 1);
        CHECK_EQ(ops->attach(st, &b, &set), 0);
        CHECK_EQ(set.cpu, 7);

        /* exactly U_thr: admitted; one more microsecond: refused */
        CHECK_EQ(create(ops, st, &t3, params(10000, 3000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t3.core, 0);
        CHECK_NEAR(core_util(ops, st, 0), 0.5);
        CHECK_EQ(create(ops, st, &d, params(10000, 3001, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK_EQ(dec.core, -1);
        CHECK(strcmp(dec.reason, "EDF: CPU 7 utilisation 0.2000 + 0.3001 = 0.5001 > 0.5000") == 0);
        fprintf(stderr, "# reason: %s\n", dec.reason);

        /* eq. 4: Q = 1000, Qd = 5000 on a core at 0.2 of 0.5 -> 3000; the deadline is the window */
        CHECK_EQ(create(ops, st, &d, params(20000, 1000, 5000, 10000, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(d.core, 1);
        CHECK_EQ(d.accepted_runtime_us, 3000);
        CHECK_EQ(ops->attach(st, &d, &set), 0);
        CHECK_EQ(set.runtime_ns, 3000000);
        CHECK_EQ(set.deadline_ns, 10000000);
        CHECK_EQ(set.period_ns, 20000000);
        CHECK_NEAR(core_util(ops, st, 1), 0.5);

        /* everything full: refused, unless the ACL lets the client ignore the test: then Q */
        CHECK_EQ(create(ops, st, &e, params(10000, 100, 900, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK_EQ(create(ops, st, &e, params(10000, 100, 900, 0, 0, RTF_PARAM_IGNORE_ADMISSION), &dec),
                 RTF_PLUGIN_OK);
        CHECK(strstr(dec.reason, "ignored") != NULL);
        CHECK_EQ(e.accepted_runtime_us, 100);
        CHECK_EQ(e.core, 0);
        CHECK_NEAR(core_util(ops, st, 0), 0.51);
        ops->release(st, &e);
        CHECK(e.plugin_data == NULL);
        CHECK_NEAR(core_util(ops, st, 0), 0.5);

        /* mandatory and sane parameters */
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_PERIOD, .period_us = 1000 }, &dec),
                 RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "mandatory") != NULL);
        {
                struct rtf_task_params bad[] = {
                        params(10000, 100, 0, 20000, 0, 0),     /* D > T */
                        params(10000, 1, 0, 0, 0, 0),           /* runtime below 1024 ns */
                        params(10000, 200, 100, 0, 0, 0),       /* Qd < Q */
                        params(50, 10, 0, 0, 0, 0),             /* period below 100 us */
                        params(5000000, 10, 0, 0, 0, 0),        /* period above 2^22 us */
                        params(10000, 600, 0, 500, 0, 0),       /* runtime > deadline */
                };

                for (size_t i = 0; i < ELEMS(bad); i++) {
                        CHECK_EQ(ops->accept(st, &bad[i], &dec), RTF_PLUGIN_NO);
                        CHECK(strncmp(dec.reason, "EDF: ", 5) == 0);
                }
        }

        CHECK_EQ(core_tasks(ops, st, 0), 2);
        CHECK_EQ(core_tasks(ops, st, 1), 2);
        {
                struct rtf_plugin_core_status cs;

                CHECK_EQ(ops->core_status(st, 2, &cs), -EINVAL);
        }

        /* change: the task's own share is not counted against it */
        CHECK_EQ(change(ops, st, &a, params(10000, 2500, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK_EQ(a.accepted_runtime_us, 2000);
        CHECK_EQ(change(ops, st, &a, params(10000, 1000, 4000, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.core, 0);
        CHECK_EQ(a.accepted_runtime_us, 2000); /* room (0.5 - 0.3) x 10000 */
        CHECK_NEAR(core_util(ops, st, 0), 0.5);
        CHECK_EQ(change(ops, st, &a, params(10000, 1000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_NEAR(core_util(ops, st, 0), 0.4);

        /* rollback: the old decision is re-scheduled and the books are as before */
        old = t3;
        CHECK_EQ(change(ops, st, &t3, params(10000, 500, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_NEAR(core_util(ops, st, 0), 0.15);
        rollback(ops, st, &t3, &old);
        CHECK_NEAR(core_util(ops, st, 0), 0.4);
        CHECK_EQ(core_tasks(ops, st, 0), 2);

        ops->release(st, &a);
        ops->release(st, &b);
        ops->release(st, &t3);
        ops->release(st, &d);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 0);
        CHECK_NEAR(core_util(ops, st, 0) + core_util(ops, st, 1), 0);
        CHECK_EQ(th.n_updated, 0);
        ops->fini(st);
}

static void test_edf_global(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 5, 7 };
        static const bool part[] = { true, false };
        static const char *const opts[] = { "util=1" };
        struct rtf_plugin_config c = config("EDFG", 100, 100, cpus, part, 2, opts, 1);
        struct rtf_plugin_task a, b, x;
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        void *st = NULL;

        CHECK_EQ(host_init(ops, &c, &st), 0);
        if (!st)
                return;
        CHECK(logged("global EDF"));

        /* GFB on 2 CPUs: 0.9 + 0.9 (max) = 1.8 <= 2 */
        CHECK_EQ(create(ops, st, &a, params(10000, 9000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.core, -1);
        CHECK_EQ(ops->attach(st, &a, &set), 0);
        CHECK_EQ(set.cpu, -1);
        CHECK_EQ(set.policy, RTF_POLICY_DEADLINE);
        /* 1.8 + 0.9 = 2.7 > 2, 1.4 + 0.9 = 2.3 > 2, 1.1 + 0.9 = 2.0 <= 2 */
        CHECK_EQ(create(ops, st, &b, params(10000, 9000, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "global") != NULL);
        fprintf(stderr, "# reason: %s\n", dec.reason);
        CHECK_EQ(create(ops, st, &b, params(10000, 5000, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK_EQ(create(ops, st, &b, params(10000, 2000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 2);
        CHECK_NEAR(core_util(ops, st, 0) + core_util(ops, st, 1), 1.1);

        /* without the 0.9 task the max drops: 0.2 + 0.9 + 0.9 = 2.0 */
        ops->release(st, &a);
        CHECK_EQ(create(ops, st, &a, params(10000, 9000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        /* change of the max holder: counted without its own density */
        CHECK_EQ(change(ops, st, &a, params(10000, 9000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &x, params(10000, 100, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        ops->release(st, &a);
        ops->release(st, &b);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 0);
        ops->fini(st);

        /* no partition information at all: global too */
        c.partitioned = NULL;
        CHECK_EQ(host_init(ops, &c, &st), 0);
        CHECK(logged("global EDF"));
        ops->fini(st);
}

/* GFB's room on m CPUs at U_thr 1 (ppb), as admission/edf.c computes it. */
static int64_t model_gfb_room(uint64_t sum, uint64_t max, uint64_t m) {
        uint64_t cap = m * 1000000000ULL;

        if (sum + (m - 1) * max > cap)
                return -1;
        if (cap - sum - (m - 1) * max < max)
                return (int64_t)(cap - sum - (m - 1) * max);
        return (int64_t)((cap - sum) / m);
}

/*
 * The largest density of the global pool, kept through random creates,
 * changes and releases (a heap in EDF.so), seen from outside: a probe that
 * asks for the whole window is granted exactly the room GFB leaves, and that
 * room depends on the largest density.
 */
static void test_edf_global_max(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 0, 1 };
        static const char *const opts[] = { "util=1" };
        struct rtf_plugin_config c = config("EDFM", 100, 100, cpus, NULL, 2, opts, 1);
        enum { N = 16, WINDOW = 1000000 };
        struct rtf_plugin_task t[N];
        uint64_t runtime[N] = { 0 };    /* 0 = not admitted; density = runtime * 1000 ppb */
        struct rtf_plugin_decision dec;
        unsigned seed = 12345, mismatches = 0;
        void *st = NULL;

        CHECK_EQ(host_init(ops, &c, &st), 0);
        if (!st)
                return;
        for (int step = 0; step < 3000; step++) {
                uint64_t sum = 0, max = 0, r;
                unsigned i = (unsigned)rand_r(&seed) % N;
                int64_t room;
                int v;

                r = 5000 + (uint64_t)rand_r(&seed) % 400000;
                for (unsigned k = 0; k < N; k++)
                        if (k != i && runtime[k]) {
                                sum += runtime[k] * 1000;
                                max = runtime[k] * 1000 > max ? runtime[k] * 1000 : max;
                        }
                room = model_gfb_room(sum, max > r * 1000 ? max : r * 1000, 2);
                if (runtime[i] && rand_r(&seed) % 3 == 0) {
                        ops->release(st, &t[i]);
                        runtime[i] = 0;
                } else if (runtime[i]) {
                        v = change(ops, st, &t[i], params(WINDOW, r, 0, 0, 0, 0), &dec);
                        mismatches += (v == RTF_PLUGIN_OK) != (room >= (int64_t)(r * 1000));
                        if (v == RTF_PLUGIN_OK)
                                runtime[i] = r;
                } else {
                        v = create(ops, st, &t[i], params(WINDOW, r, 0, 0, 0, 0), &dec);
                        mismatches += (v == RTF_PLUGIN_OK) != (room >= (int64_t)(r * 1000));
                        if (v == RTF_PLUGIN_OK)
                                runtime[i] = r;
                }

                sum = max = 0;
                for (unsigned k = 0; k < N; k++)
                        if (runtime[k]) {
                                sum += runtime[k] * 1000;
                                max = runtime[k] * 1000 > max ? runtime[k] * 1000 : max;
                        }
                room = model_gfb_room(sum, max > 2000 ? max : 2000, 2);
                v = ops->accept(st, &(struct rtf_task_params){ .flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME |
                                                                       RTF_PARAM_HAS_DES_RUNTIME,
                                                              .period_us = WINDOW, .runtime_us = 2,
                                                              .des_runtime_us = WINDOW }, &dec);
                if (room >= 2000)
                        mismatches += v != RTF_PLUGIN_OK ||
                                      dec.accepted_runtime_us != (uint64_t)room * WINDOW / 1000000000ULL;
                else
                        mismatches += v != RTF_PLUGIN_NO;
        }
        CHECK_EQ(mismatches, 0);
        for (unsigned k = 0; k < N; k++)
                if (runtime[k])
                        ops->release(st, &t[k]);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 0);
        ops->fini(st);
}

static void test_edf_options(const struct rtf_plugin_ops *ops) {
        static const char *const bad[][2] = {
                { "util=0", NULL }, { "util=1.5", NULL }, { "util=abc", NULL },
                { "util=", NULL }, { "util", NULL }, { "foo=1", NULL },
                { "util=0.5", "util=0.6" }, { "max_tasks=0", NULL }, { "max_tasks=-1", NULL },
                { "=3", NULL },
        };
        static const uint32_t cpus[] = { 0, 1 };
        static const bool part[] = { true, true };
        static const char *const opts[] = { "max_tasks=1", "util=1" };
        struct rtf_plugin_config c = config("EDFM", 100, 100, cpus, part, 2, opts, 2);
        struct rtf_plugin_task t[3];
        struct rtf_plugin_decision dec;
        void *st = NULL;

        for (size_t i = 0; i < ELEMS(bad); i++)
                check_bad_options(ops, bad[i], bad[i][1] ? 2 : 1, 100, 100);
        check_bad_options(ops, bad[5], 1, 100, 100);
        CHECK(logged("unknown option 'foo'"));

        /* a bad host or config: refused */
        host_reset();
        th.host.version = RTF_PLUGIN_ABI_VERSION + 1;
        CHECK_EQ(ops->init(&th.host, &c, &st), -EINVAL);
        c.n_cpus = 0;
        CHECK_EQ(host_init(ops, &c, &st), -EINVAL);
        c.n_cpus = 2;

        /* max_tasks per core */
        CHECK_EQ(host_init(ops, &c, &st), 0);
        CHECK_EQ(create(ops, st, &t[0], params(1000, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(1000, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[2], params(1000, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "every core") != NULL);
        /* a change of a task that is there is not blocked by the limit */
        CHECK_EQ(change(ops, st, &t[1], params(1000, 20, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        /* fini with tasks still scheduled frees our side only */
        ops->fini(st);
}

int main(void) {
        static const struct plugin_test tests[] = {
                { "EDF.so", "EDF", test_edf_partitioned },
                { "EDF.so", "EDF", test_edf_global },
                { "EDF.so", "EDF", test_edf_global_max },
                { "EDF.so", "EDF", test_edf_options },
        };

        return plugin_tests_run(tests, ELEMS(tests));
}
