/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker over a fake kernel (broker-fixture.h): plugin choice, attach and
 * detach, each kernel step's failure, the watchdog and reload.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "broker-fixture.h"
#include "tap.h"

static void test_choice(void) {
        struct manager_result res;
        struct rtf_task_params p;
        struct fixture fx;
        int r;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        /* A reservation: the first plugin in the config that accepts it. */
        p = edf(1000, 10000);
        r = manager_create(fx.mgr, &fx.root, &p, "", &res);
        CHECK_EQ(r, RTF_OK);
        CHECK(strcmp(res.plugin, "EDF") == 0);
        CHECK_EQ(res.accepted_runtime_us, 1000);
        CHECK_EQ(res.cpu, -1);         /* global EDF (no partitions): not pinned */
        CHECK_EQ(res.reason[0], 0);
        /* A priority only: EDF cannot, FP can. */
        p = prio(30);
        r = manager_create(fx.mgr, &fx.root, &p, "", &res);
        CHECK_EQ(r, RTF_OK);
        CHECK(strcmp(res.plugin, "FP") == 0);
        CHECK_EQ(res.priority, 30);
        /* Named, but not configured. */
        p = edf(1000, 10000);
        p.flags |= RTF_PARAM_HAS_SCHEDULER;
        r = manager_create(fx.mgr, &fx.root, &p, "RM", &res);
        CHECK_EQ(r, RTF_SCHEDULE_FAIL);
        CHECK(strstr(res.reason, "no plugin named \"RM\"") != NULL);
        /* The name and its flag must agree. */
        r = manager_create(fx.mgr, &fx.root, &p, "", &res);
        CHECK_EQ(r, -EINVAL);
        /* Shape checks before any plugin is asked. */
        p = edf(0, 10000);
        r = manager_create(fx.mgr, &fx.root, &p, "", &res);
        CHECK_EQ(r, -EINVAL);
        CHECK(strstr(res.reason, "runtime 0 us is out of range") != NULL);
        p = prio(100);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, "", &res), -EINVAL);
        /* One ceiling with librtf: 2^32 us is out (it used to pass rtfd). */
        p = edf(1000, UINT64_C(1) << 32);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, "", &res), -EINVAL);
        CHECK(strstr(res.reason, "period 4294967296 us is out of range") != NULL);
        /* More than the CPU: every plugin refuses, and the reply says why each did. */
        p = edf(9500, 10000);
        r = manager_create(fx.mgr, &fx.root, &p, "", &res);
        CHECK_EQ(r, RTF_SCHEDULE_FAIL);
        CHECK(strncmp(res.reason, "EDF: ", 5) == 0);
        CHECK(strstr(res.reason, "; FP: a priority is mandatory") != NULL);
        CHECK_EQ(list(fx.mgr).n, 2);
        CHECK_EQ(fx.k.n_apply, 0);      /* nothing attached: the kernel is not asked */
        manager_owner_gone(fx.mgr, &fx.root);
        CHECK_EQ(list(fx.mgr).n, 0);
        fixture_stop(&fx);
}

static void test_attach(void) {
        struct manager_result res;
        struct rtf_task_params p = edf(2000, 10000);
        struct fake_thread *t;
        struct fixture fx;
        uint64_t id;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        t = fake_spawn(&fx.k, 100, 0);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, "", &res), RTF_OK);
        id = res.id;
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 100, &res), RTF_OK);
        CHECK_EQ(t->setting.policy, RTF_POLICY_DEADLINE);
        CHECK_EQ(t->setting.runtime_ns, 2000000);
        CHECK_EQ(t->setting.period_ns, 10000000);
        CHECK(fx.k.hint);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 100);
        /* One thread, one spec. */
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, "", &res), RTF_OK);
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, res.id, 100, &res), -EBUSY);
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 101, &res), -EBUSY);
        /* Detach demotes and lets the latency hint go. */
        CHECK_EQ(manager_detach(fx.mgr, &fx.root, id, &res), RTF_OK);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK(!fx.k.hint);
        CHECK_EQ(manager_detach(fx.mgr, &fx.root, id, &res), -EINVAL);
        /* The thread's exit: seen through its pidfd, the spec stays. */
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 100, &res), RTF_OK);
        fake_exit(t);
        CHECK_EQ(event_dispatch(&fx.ev, 0), 0);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        CHECK_EQ(list(fx.mgr).n, 2);
        CHECK_EQ(fx.k.n_open, fx.k.n_close);
        /* Opening a thread that is gone. */
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 100, &res), -ESRCH);
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 0, &res), -EINVAL);
        fixture_stop(&fx);
}

/* Every kernel step of attach and change fails once; the broker is left as before. */
static void test_kernel_failures(void) {
        struct manager_result res;
        struct rtf_task_params p = edf(2000, 10000), big = edf(4000, 10000);
        struct fake_thread *t;
        struct fixture fx;
        struct listed l;
        uint64_t id;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        t = fake_spawn(&fx.k, 200, 0);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, "", &res), RTF_OK);
        id = res.id;

        /* open */
        fx.k.fail_open = -ENOMEM;
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 200, &res), -ENOMEM);
        CHECK(strstr(res.reason, "cannot open thread 200") != NULL);
        /* apply: the kernel refuses the bandwidth, also after the root domains are rebuilt */
        fx.k.fail_apply = -EBUSY;
        fx.k.fail_apply_times = 2;
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 200, &res), RTF_SCHEDULE_FAIL);
        CHECK_EQ(fx.k.n_rebuild, 1);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        CHECK_EQ(fx.k.n_open, fx.k.n_close);
        /* apply: refused, and the rebuild of the root domains fails too */
        fx.k.fail_apply = -EBUSY;
        fx.k.fail_apply_times = 1;
        fx.k.fail_rebuild = -EIO;
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 200, &res), RTF_SCHEDULE_FAIL);
        CHECK_EQ(fx.k.n_rebuild, 2);
        CHECK_EQ(fx.k.n_apply, 3);      /* no retry without a rebuild */
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        /* apply: refused once, the rebuild of the root domains recovers it */
        fx.k.fail_apply = -EBUSY;
        fx.k.fail_apply_times = 1;
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 200, &res), RTF_OK);
        CHECK_EQ(fx.k.n_rebuild, 3);
        CHECK_EQ(t->setting.policy, RTF_POLICY_DEADLINE);

        /* change: the new setting is refused; the old one is back on the thread and in the plugin */
        fx.k.fail_apply = -EPERM;
        fx.k.fail_apply_times = 1;
        CHECK_EQ(manager_change(fx.mgr, &fx.root, id, &big, "", &res), -EPERM);
        CHECK(strstr(res.reason, "the kernel refused the new setting") != NULL);
        CHECK_EQ(t->setting.policy, RTF_POLICY_DEADLINE);
        CHECK_EQ(t->setting.runtime_ns, 2000000);
        l = list(fx.mgr);
        CHECK_EQ(l.params[0].runtime_us, 2000);
        CHECK_EQ(l.rows[0].accepted_runtime_us, 2000);
        CHECK_EQ(l.rows[0].tid, 200);
        /* ... and the plugin still counts the old runtime only: 0.2 + 0.7 fits */
        {
                struct rtf_task_params q = edf(7000, 10000);
                struct manager_result r2;

                CHECK_EQ(manager_create(fx.mgr, &fx.root, &q, "EDF", &r2), -EINVAL);      /* flag missing */
                q.flags |= RTF_PARAM_HAS_SCHEDULER;
                CHECK_EQ(manager_create(fx.mgr, &fx.root, &q, "EDF", &r2), RTF_OK);
                CHECK_EQ(manager_release(fx.mgr, &fx.root, r2.id, &r2), RTF_OK);
        }
        /* change: both the new and the restored setting are refused: demoted, detached */
        fx.k.fail_apply = -EPERM;
        fx.k.fail_apply_times = 2;
        CHECK_EQ(manager_change(fx.mgr, &fx.root, id, &big, "", &res), -EPERM);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        CHECK_EQ(list(fx.mgr).params[0].runtime_us, 2000);
        /* change that works */
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 200, &res), RTF_OK);
        CHECK_EQ(manager_change(fx.mgr, &fx.root, id, &big, "", &res), RTF_OK);
        CHECK_EQ(t->setting.runtime_ns, 4000000);
        CHECK_EQ(res.accepted_runtime_us, 4000);
        /* release: a failed demotion does not keep the spec, but the thread
         * is still held (not closed) and demoted again by the watchdog */
        fx.k.fail_demote = -EIO;
        CHECK_EQ(manager_release(fx.mgr, &fx.root, id, &res), RTF_OK);
        CHECK_EQ(list(fx.mgr).n, 0);
        CHECK_EQ(fx.k.n_open, fx.k.n_close + 1);
        CHECK(t->setting.policy != RTF_POLICY_OTHER);
        /* ... and is not attached again before that (the watchdog would demote
         * it under its new specification) */
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, "", &res), RTF_OK);
        id = res.id;
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 200, &res), -EBUSY);
        CHECK(strstr(res.reason, "thread 200 could not be demoted") != NULL);
        CHECK_EQ(manager_release(fx.mgr, &fx.root, id, &res), RTF_OK);
        manager_watchdog(fx.mgr);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK_EQ(fx.k.n_open, fx.k.n_close);
        fixture_stop(&fx);
}

/* Threads whose demotion failed are bounded per uid: at LINGERING_MAX_PER_UID
 * (16) the uid attaches no more until rtfd has demoted them. */
static void test_lingering_bound(void) {
        struct rtf_task_params p = prio(10);
        struct manager_result res;
        struct fixture fx;
        uint64_t id;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        for (pid_t tid = 300; tid < 317; tid++)
                fake_spawn(&fx.k, tid, 0);
        for (pid_t tid = 300; tid < 316; tid++) {
                CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, "", &res), RTF_OK);
                id = res.id;
                CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, tid, &res), RTF_OK);
                fx.k.fail_demote = -EIO;
                CHECK_EQ(manager_release(fx.mgr, &fx.root, id, &res), RTF_OK);
        }
        CHECK_EQ(fx.k.n_open, fx.k.n_close + 16);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, "", &res), RTF_OK);
        id = res.id;
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 316, &res), -EAGAIN);
        CHECK(strstr(res.reason, "16 threads of uid 0 could not be demoted") != NULL);
        manager_watchdog(fx.mgr);
        CHECK_EQ(fx.k.n_open, fx.k.n_close);
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 316, &res), RTF_OK);
        fixture_stop(&fx);
}

/* A thread that changes owners (a setuid exec) loses its setting at the next watchdog round. */
static void test_watchdog_owners(void) {
        struct owner a = { .uid = 65534, .gid = 65534, .pid = 10 };
        struct manager_result res;
        struct rtf_task_params p = edf(1000, 10000);
        struct fake_thread *t;
        struct fixture fx;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        owner_init(&fx, &a);
        t = fake_spawn(&fx.k, 400, 65534);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_OK);
        CHECK_EQ(manager_attach(fx.mgr, &a, res.id, 400, &res), RTF_OK);
        CHECK_EQ(t->setting.policy, RTF_POLICY_DEADLINE);
        manager_watchdog(fx.mgr);
        CHECK_EQ(t->setting.policy, RTF_POLICY_DEADLINE);
        /* Owners that cannot be read count as changed. */
        fx.k.fail_owners = -EIO;
        manager_watchdog(fx.mgr);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        CHECK_EQ(manager_attach(fx.mgr, &a, 1, 400, &res), RTF_OK);
        t->uid = 0;
        manager_watchdog(fx.mgr);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        manager_owner_gone(fx.mgr, &a);
        fixture_stop(&fx);
}

/* Reload: every live spec moves to the new instances (and its thread gets their
 * setting), or, if one cannot, nothing changes. */
static void test_reload(void) {
        struct rtf_task_params p = prio(30);
        struct manager_result res;
        struct fake_thread *t;
        struct fixture fx;
        unsigned applies;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        t = fake_spawn(&fx.k, 800, 0);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, "", &res), RTF_OK);
        CHECK(strcmp(res.plugin, "FP") == 0);
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, res.id, 800, &res), RTF_OK);
        CHECK_EQ(t->setting.priority, 30);
        /* FP's range moves up: the thread follows at once. */
        write_file(fx.config, "EDF EDF.so 100-100 0\nFP FP.so 40-89 0\n");
        applies = t->applies;
        CHECK_EQ(manager_reload(fx.mgr), 0);
        CHECK_EQ(t->applies, applies + 1);
        CHECK_EQ(t->setting.policy, RTF_POLICY_FIFO);
        CHECK(t->setting.priority >= 40);
        /* A configuration without FP cannot hold the spec: refused, the old one stays. */
        write_file(fx.config, "EDF EDF.so 100-100 0\n");
        CHECK(manager_reload(fx.mgr) < 0);
        CHECK_EQ(list(fx.mgr).n, 1);
        CHECK(strcmp(list(fx.mgr).rows[0].plugin, "FP") == 0);
        CHECK_EQ(t->setting.policy, RTF_POLICY_FIFO);
        /* A change still works on the instances in force. */
        p = prio(60);
        CHECK_EQ(manager_change(fx.mgr, &fx.root, 1, &p, "", &res), RTF_OK);
        CHECK_EQ(t->setting.priority, res.priority);
        manager_owner_gone(fx.mgr, &fx.root);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        fixture_stop(&fx);
}

int main(void) {
        static void (*const tests[])(void) = {
                test_choice, test_attach, test_kernel_failures, test_lingering_bound, test_watchdog_owners, test_reload,
        };

        return broker_tests_run(tests, ELEMS(tests));
}
