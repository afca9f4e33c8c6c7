/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Issue 11, points 3-5, against the built plugins (RM.so, EDF.so), each a
 * check that fails on main (9e4110f): tasks without a runtime above tasks
 * that have one, RM without the kernel's reserved share, misleading
 * reasons.  And EDF's processor-demand test for D < T.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-host.h"
#include "tap.h"

/* One instance on CPUs 0..n_cpus-1 (partitioned for EDF), with options. */
static int plugin_open_n(struct plugin_instance *p, const char *file, uint32_t n_cpus, uint32_t lo, uint32_t hi,
                         const char *const *options, uint32_t n_options) {
        static const uint32_t cpus[] = { 0, 1 };
        static const bool part[] = { true, true };
        struct rtf_plugin_config c = config(file, lo, hi, cpus, part, n_cpus, options, n_options);
        int r;

        CHECK_EQ(plugin_instance_load(p, file), 0);
        if (!p->dl)
                return -ENOENT;
        r = plugin_instance_init(p, &c);
        CHECK_EQ(r, 0);
        if (r < 0)
                plugin_instance_close(p);
        return r;
}

static int plugin_open(struct plugin_instance *p, const char *file, uint32_t lo, uint32_t hi,
                       const char *const *options, uint32_t n_options) {
        return plugin_open_n(p, file, 1, lo, hi, options, n_options);
}

/* rtfd's create: accept, then schedule on OK or PARTIAL; the reason is printed. */
static int admit(struct plugin_instance *p, struct rtf_plugin_task *t, uint64_t period, uint64_t runtime,
                 uint64_t deadline, struct rtf_plugin_decision *d) {
        int v;

        *t = (struct rtf_plugin_task) { .params = params(period, runtime, 0, deadline, 0, 0), .core = -1 };
        v = p->ops->accept(p->state, &t->params, d);
        fprintf(stderr, "# (%llu, %llu, %llu): %d %s\n", (unsigned long long)period,
                (unsigned long long)runtime, (unsigned long long)deadline, v, d->reason);
        if (v > RTF_PLUGIN_NO)
                CHECK_EQ(p->ops->schedule(p->state, t, d), 0);
        return v;
}

/* Point 3: under RM a task without runtime never sits above one with a runtime. */
static void test_rm_no_runtime(void) {
        struct plugin_instance rm;
        struct rtf_plugin_task t[4];
        struct rtf_plugin_decision d;

        if (plugin_open(&rm, "RM.so", 1, 99, NULL, 0) < 0)
                return;
        CHECK_EQ(admit(&rm, &t[0], 10000, 5000, 0, &d), RTF_PLUGIN_OK);
        /* main: PARTIAL at priority 99, above the task it may starve */
        CHECK_EQ(admit(&rm, &t[1], 1000, 0, 0, &d), RTF_PLUGIN_NO);
        CHECK(strstr(d.reason, "without runtime") != NULL);
        /*
         * Below it, a task without runtime may still hog the CPU, and then
         * the kernel takes its 50 ms share from every FIFO thread at once:
         * a 10 ms deadline cannot survive that.
         */
        CHECK_EQ(admit(&rm, &t[1], 20000, 0, 0, &d), RTF_PLUGIN_NO);
        CHECK(strstr(d.reason, "share") != NULL);
        rm.ops->release(rm.state, &t[0]);

        /* A deadline that survives the hole: PARTIAL below it. */
        CHECK_EQ(admit(&rm, &t[0], 1000000, 100000, 0, &d), RTF_PLUGIN_OK);
        CHECK_EQ(admit(&rm, &t[1], 2000000, 0, 0, &d), RTF_PLUGIN_PARTIAL);
        CHECK(t[1].priority < t[0].priority);
        /* and then a task with a runtime cannot come in below it, nor one with a short deadline */
        CHECK_EQ(admit(&rm, &t[2], 4000000, 1000, 0, &d), RTF_PLUGIN_NO);
        CHECK(strstr(d.reason, "without runtime") != NULL);
        CHECK_EQ(admit(&rm, &t[2], 1000, 100, 0, &d), RTF_PLUGIN_NO);
        CHECK(strstr(d.reason, "share") != NULL);
        /* nor may a change move the guaranteed task below it */
        {
                struct rtf_task_params p = t[0].params;

                p.period_us = 3000000;
                CHECK_EQ(rm.ops->change(rm.state, &t[0], &p, &d), RTF_PLUGIN_NO);
                CHECK(strstr(d.reason, "without runtime") != NULL);
        }
        rm.ops->release(rm.state, &t[1]);
        rm.ops->release(rm.state, &t[0]);
        /* A CPU of tasks without runtime only: nothing to protect. */
        CHECK_EQ(admit(&rm, &t[0], 1000, 0, 0, &d), RTF_PLUGIN_PARTIAL);
        CHECK_EQ(admit(&rm, &t[1], 500, 0, 0, &d), RTF_PLUGIN_PARTIAL);
        rm.ops->release(rm.state, &t[1]);
        rm.ops->release(rm.state, &t[0]);
        plugin_instance_close(&rm);
}

/* Point 4: RM leaves the kernel's reserved share, like EDF's U_thr (util=). */
static void test_rm_reserved_share(void) {
        static const char *const util1[] = { "util=1" };
        struct plugin_instance rm;
        struct rtf_plugin_task t[2];
        struct rtf_plugin_decision d;

        if (plugin_open(&rm, "RM.so", 1, 99, NULL, 0) < 0)
                return;
        /* harmonic, U = 0.97: RTA alone says yes; SCHED_FIFO gets 0.95 of the CPU */
        CHECK_EQ(admit(&rm, &t[0], 100, 50, 0, &d), RTF_PLUGIN_OK);
        CHECK_EQ(admit(&rm, &t[1], 200, 94, 0, &d), RTF_PLUGIN_NO);
        CHECK(strstr(d.reason, "utilisation 0.970 > 0.950") != NULL);
        CHECK_EQ(admit(&rm, &t[1], 200, 88, 0, &d), RTF_PLUGIN_OK);
        rm.ops->release(rm.state, &t[1]);
        rm.ops->release(rm.state, &t[0]);
        /*
         * U = 0.94998, yet a window of the kernel's share can end with less
         * idle time than it owes, and the kernel takes the rest at once:
         * rtf-sim found this one missing at 1,007,579 us.
         */
        CHECK_EQ(admit(&rm, &t[0], 40327, 38310, 39731, &d), RTF_PLUGIN_NO);
        CHECK(strstr(d.reason, "of its share at once") != NULL);
        CHECK_EQ(admit(&rm, &t[0], 40327, 30000, 39731, &d), RTF_PLUGIN_OK);
        rm.ops->release(rm.state, &t[0]);
        plugin_instance_close(&rm);

        /* util=1 for a host without throttling: as before */
        if (plugin_open(&rm, "RM.so", 1, 99, util1, 1) < 0)
                return;
        CHECK_EQ(admit(&rm, &t[0], 100, 50, 0, &d), RTF_PLUGIN_OK);
        CHECK_EQ(admit(&rm, &t[1], 200, 94, 0, &d), RTF_PLUGIN_OK);
        rm.ops->release(rm.state, &t[1]);
        rm.ops->release(rm.state, &t[0]);
        plugin_instance_close(&rm);
}

/* Point 5: reasons that say what failed. */
static void test_reasons(void) {
        static const char *const util1[] = { "util=1" };
        struct plugin_instance p;
        struct rtf_plugin_task t[2];
        struct rtf_plugin_decision d;

        /* (1, 1) then (2^31, 1): U > 1, not "response-time analysis gave up" */
        if (plugin_open(&p, "RM.so", 1, 99, util1, 1) < 0)
                return;
        CHECK_EQ(admit(&p, &t[0], 1, 1, 0, &d), RTF_PLUGIN_OK);
        CHECK_EQ(admit(&p, &t[1], 1ULL << 31, 1, 0, &d), RTF_PLUGIN_NO);
        CHECK(strstr(d.reason, "gave up") == NULL);
        CHECK(strstr(d.reason, "utilisation 1.000000001 > 1.000000000") != NULL);
        p.ops->release(p.state, &t[0]);
        /* 1.00005 is not "1.000 > 1" */
        CHECK_EQ(admit(&p, &t[0], 100000, 50000, 0, &d), RTF_PLUGIN_OK);
        CHECK_EQ(admit(&p, &t[1], 100000, 50005, 0, &d), RTF_PLUGIN_NO);
        CHECK(strstr(d.reason, "1.00005 > 1.00000") != NULL);
        p.ops->release(p.state, &t[0]);
        plugin_instance_close(&p);

        if (plugin_open(&p, "EDF.so", 100, 100, util1, 1) < 0)
                return;
        CHECK_EQ(admit(&p, &t[0], 100000, 50000, 0, &d), RTF_PLUGIN_OK);
        CHECK_EQ(admit(&p, &t[1], 100000, 50005, 0, &d), RTF_PLUGIN_NO);
        CHECK(strstr(d.reason, "= 1.00005 > 1.00000") != NULL);
        p.ops->release(p.state, &t[0]);
        plugin_instance_close(&p);
}

/* Less pessimism: processor demand where the density sum refuses (D < T). */
static void test_edf_processor_demand(void) {
        static const char *const util1[] = { "util=1" };
        struct plugin_instance p;
        struct rtf_plugin_task t[3];
        struct rtf_plugin_decision d;

        if (plugin_open(&p, "EDF.so", 100, 100, util1, 1) < 0)
                return;
        /* density 0.8 + 0.3 = 1.1, but h(500) = 400, h(1000) = 700: schedulable (main refuses) */
        CHECK_EQ(admit(&p, &t[0], 1000, 400, 500, &d), RTF_PLUGIN_OK);
        CHECK_EQ(admit(&p, &t[1], 1000, 300, 0, &d), RTF_PLUGIN_OK);
        CHECK_EQ(t[1].accepted_runtime_us, 300);
        p.ops->release(p.state, &t[1]);
        /* h(600) = 700 > 600: refused, and the reason says both tests failed */
        CHECK_EQ(admit(&p, &t[1], 1000, 300, 600, &d), RTF_PLUGIN_NO);
        CHECK(strstr(d.reason, "processor demand too") != NULL);
        p.ops->release(p.state, &t[0]);
        plugin_instance_close(&p);
}

/* The placement heuristic is an option: worst-fit (default), first-fit, best-fit. */
static void test_placement(void) {
        static const char *const first[] = { "placement=first-fit" };
        static const char *const best[] = { "placement=best-fit" };
        static const char *const bad[] = { "placement=random" };
        static const char *const files[] = { "RM.so", "EDF.so" };
        struct plugin_instance p;
        struct rtf_plugin_task t[4];
        struct rtf_plugin_decision d;

        for (size_t f = 0; f < ELEMS(files); f++) {
                uint32_t lo = f ? 100 : 1, hi = f ? 100 : 99;

                if (plugin_open_n(&p, files[f], 2, lo, hi, NULL, 0) < 0)
                        return;
                CHECK_EQ(admit(&p, &t[0], 1000, 100, 0, &d), RTF_PLUGIN_OK);
                CHECK_EQ(admit(&p, &t[1], 1000, 100, 0, &d), RTF_PLUGIN_OK);
                CHECK(t[0].core == 0 && t[1].core == 1);
                p.ops->release(p.state, &t[1]);
                p.ops->release(p.state, &t[0]);
                plugin_instance_close(&p);

                if (plugin_open_n(&p, files[f], 2, lo, hi, first, 1) < 0)
                        return;
                CHECK_EQ(admit(&p, &t[0], 1000, 100, 0, &d), RTF_PLUGIN_OK);
                CHECK_EQ(admit(&p, &t[1], 1000, 100, 0, &d), RTF_PLUGIN_OK);
                CHECK(t[0].core == 0 && t[1].core == 0);
                /* does not fit on core 0 any more: the next one */
                CHECK_EQ(admit(&p, &t[2], 1000, 750, 0, &d), RTF_PLUGIN_OK);
                CHECK_EQ(t[2].core, 1);
                for (int i = 2; i >= 0; i--)
                        p.ops->release(p.state, &t[i]);
                plugin_instance_close(&p);

                if (plugin_open_n(&p, files[f], 2, lo, hi, best, 1) < 0)
                        return;
                CHECK_EQ(admit(&p, &t[0], 1000, 100, 0, &d), RTF_PLUGIN_OK);
                CHECK_EQ(admit(&p, &t[1], 1000, 600, 0, &d), RTF_PLUGIN_OK);
                CHECK_EQ(t[1].core, t[0].core);
                /* the fullest core that still fits */
                CHECK_EQ(admit(&p, &t[2], 1000, 400, 0, &d), RTF_PLUGIN_OK);
                CHECK(t[2].core != t[0].core);
                CHECK_EQ(admit(&p, &t[3], 1000, 150, 0, &d), RTF_PLUGIN_OK);
                CHECK_EQ(t[3].core, t[0].core);
                for (int i = 3; i >= 0; i--)
                        p.ops->release(p.state, &t[i]);
                plugin_instance_close(&p);
        }
        {
                static const uint32_t cpus[] = { 0 };
                struct rtf_plugin_config c = config("RM", 1, 99, cpus, NULL, 1, bad, 1);
                struct plugin_instance q;

                if (plugin_instance_load(&q, "RM.so") < 0)
                        return;
                CHECK_EQ(plugin_instance_init(&q, &c), -EINVAL);
                plugin_instance_close(&q);
        }
}

int main(void) {
        if (!getenv("RTF_BUILD_PLUGINDIR")) {
                fprintf(stderr, "RTF_BUILD_PLUGINDIR is not set: no plugins to test\n");
                return 77;
        }
        test_rm_no_runtime();
        test_rm_reserved_share();
        test_reasons();
        test_edf_processor_demand();
        test_placement();
        return test_done();
}
