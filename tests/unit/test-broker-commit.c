/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker over a fake kernel (broker-fixture.h): explicit commits, their
 * rollback, and the whole-machine check (veto) they pass through.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "broker-fixture.h"
#include "tap.h"

/*
 * Explicit commits: RM re-prioritises the other tasks of a CPU when a change
 * brings a new period.  When the kernel then refuses the changed task's
 * setting, the change is rolled back, and the other thread gets its (old)
 * setting once, after the rollback, instead of the new one and then the old
 * one in the middle of the commit.
 */
static void test_commit_defers_updates(void) {
        struct manager_result res;
        struct rtf_task_params a = edf(1000, 10000), b = edf(1000, 20000), fast = edf(1000, 5000);
        struct fake_thread *ta, *tb;
        struct fixture fx;
        uint32_t prio_a, prio_b;
        unsigned applies_a;
        uint64_t id_b;

        if (fixture_start_with(&fx, "RM RM.so 50-89 0\n", "", NULL) < 0)
                return;
        ta = fake_spawn(&fx.k, 500, 0);
        tb = fake_spawn(&fx.k, 501, 0);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &a, "", &res), RTF_OK);
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, res.id, 500, &res), RTF_OK);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &b, "", &res), RTF_OK);
        id_b = res.id;
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id_b, 501, &res), RTF_OK);
        prio_a = ta->setting.priority;
        prio_b = tb->setting.priority;
        CHECK(prio_a > prio_b);         /* rate-monotonic: the shorter period ranks higher */
        applies_a = ta->applies;

        fx.k.fail_apply = -EPERM;
        fx.k.fail_apply_times = 1;
        CHECK_EQ(manager_change(fx.mgr, &fx.root, id_b, &fast, "", &res), -EPERM);
        CHECK_EQ(ta->setting.priority, prio_a);
        CHECK_EQ(tb->setting.priority, prio_b);
        CHECK(ta->applies <= applies_a + 1);

        /* The same change, committed: A moves down once, B gets the top. */
        applies_a = ta->applies;
        CHECK_EQ(manager_change(fx.mgr, &fx.root, id_b, &fast, "", &res), RTF_OK);
        CHECK(tb->setting.priority > ta->setting.priority);
        CHECK(ta->setting.priority < prio_a);
        CHECK_EQ(ta->applies, applies_a + 1);
        manager_owner_gone(fx.mgr, &fx.root);
        CHECK_EQ(ta->setting.policy, RTF_POLICY_OTHER);
        fixture_stop(&fx);
}

/* A whole-machine check that refuses any tentative task of 4000 us, and shows what it was given. */
struct veto_seen {
        unsigned calls;
        uint32_t n_instances, n_tasks, n_tentative;
        char first_instance[32];
};

static int veto_4000(void *userdata, const struct manager_machine *m, char *reason, size_t reason_size) {
        struct veto_seen *seen = userdata;
        bool refuse = false;

        seen->calls++;
        seen->n_instances = m->n_instances;
        seen->n_tasks = seen->n_tentative = 0;
        snprintf(seen->first_instance, sizeof(seen->first_instance), "%s", m->instances[0].name);
        for (uint32_t i = 0; i < m->n_instances; i++)
                for (uint32_t k = 0; k < m->instances[i].n_tasks; k++) {
                        const struct manager_machine_task *t = &m->instances[i].tasks[k];

                        seen->n_tasks++;
                        seen->n_tentative += t->tentative;
                        refuse |= t->tentative && t->params->runtime_us == 4000;
                }
        if (refuse)
                snprintf(reason, reason_size, "4000 us does not fit");
        return refuse ? -1 : 0;
}

static void test_machine_veto(void) {
        struct manager_result res;
        struct rtf_task_params small = edf(3000, 10000), refused = edf(4000, 10000), big = edf(5000, 10000);
        struct veto_seen seen = { 0 };
        struct fake_thread *t;
        struct fixture fx;
        uint64_t id;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        manager_set_veto(fx.mgr, veto_4000, &seen);
        t = fake_spawn(&fx.k, 600, 0);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &small, "", &res), RTF_OK);
        id = res.id;
        CHECK_EQ(seen.calls, 1);
        CHECK_EQ(seen.n_instances, 2);
        CHECK(strcmp(seen.first_instance, "EDF") == 0);
        CHECK_EQ(seen.n_tasks, 1);
        CHECK_EQ(seen.n_tentative, 1);
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, id, 600, &res), RTF_OK);
        /* Refused by the veto: rolled back, the plugin holds nothing of it. */
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &refused, "", &res), RTF_SCHEDULE_FAIL);
        CHECK(strstr(res.reason, "whole machine: 4000 us does not fit") != NULL);
        CHECK_EQ(seen.n_tasks, 2);
        CHECK_EQ(list(fx.mgr).n, 1);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &big, "", &res), RTF_OK);       /* 0.3 + 0.5 fits */
        CHECK_EQ(manager_release(fx.mgr, &fx.root, res.id, &res), RTF_OK);
        /* A change refused by the veto keeps the old parameters and setting. */
        CHECK_EQ(manager_change(fx.mgr, &fx.root, id, &refused, "", &res), RTF_SCHEDULE_FAIL);
        CHECK_EQ(list(fx.mgr).params[0].runtime_us, 3000);
        CHECK_EQ(t->setting.runtime_ns, 3000000);
        CHECK_EQ(manager_change(fx.mgr, &fx.root, id, &big, "", &res), RTF_OK);
        CHECK_EQ(t->setting.runtime_ns, 5000000);
        fixture_stop(&fx);
}

/* The veto's kept arrays: every spec once, in its instance, in list order, the create's own tentative. */
struct veto_layout {
        unsigned calls, bad, n_tasks, n_tentative;
};

static int veto_layout_check(void *userdata, const struct manager_machine *m, char *reason, size_t reason_size) {
        struct veto_layout *seen = userdata;

        (void)reason, (void)reason_size;
        seen->calls++;
        seen->n_tasks = seen->n_tentative = 0;
        for (uint32_t i = 0; i < m->n_instances; i++) {
                uint32_t want = strcmp(m->instances[i].name, "EDF") == 0 ? RTF_POLICY_DEADLINE : RTF_POLICY_FIFO;
                uint64_t last = 0;

                for (uint32_t k = 0; k < m->instances[i].n_tasks; k++) {
                        const struct manager_machine_task *t = &m->instances[i].tasks[k];

                        seen->bad += t->setting.policy != want || (t->id != 0 && t->id <= last);
                        last = t->id ? t->id : last;    /* the create's own has no id yet */
                        seen->n_tasks++;
                        seen->n_tentative += t->tentative;
                }
        }
        return 0;
}

/* 64 creates over two instances, interleaved, every fifth followed by a release from the middle. */
static void test_machine_veto_layout(void) {
        struct veto_layout seen = { 0 };
        struct manager_result res;
        struct fixture fx;
        uint64_t ids[64];
        uint32_t live = 0;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        manager_set_veto(fx.mgr, veto_layout_check, &seen);
        for (uint32_t i = 0; i < 64; i++) {
                struct rtf_task_params p = i % 3 ? prio(1 + i % 80) : edf(10, 100000);

                p.flags |= RTF_PARAM_HAS_SCHEDULER;
                CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, i % 3 ? "FP" : "EDF", &res), RTF_OK);
                ids[live++] = res.id;
                CHECK(seen.n_tasks == live && seen.n_tentative == 1);
                if (i % 5 == 4) {
                        CHECK_EQ(manager_release(fx.mgr, &fx.root, ids[live / 2], &res), RTF_OK);
                        memmove(&ids[live / 2], &ids[live / 2 + 1], (live - live / 2 - 1) * sizeof(ids[0]));
                        live--;
                }
        }
        CHECK(seen.calls == 64 && seen.bad == 0);
        fixture_stop(&fx);
}

int main(void) {
        static void (*const tests[])(void) = {
                test_commit_defers_updates, test_machine_veto, test_machine_veto_layout,
        };

        return broker_tests_run(tests, ELEMS(tests));
}
