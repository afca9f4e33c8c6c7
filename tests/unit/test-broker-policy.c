/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker over a fake kernel (broker-fixture.h): the policy, per-user
 * accounting, ownership, limits and rates, the policy on what a plugin
 * grants, and the latency hint.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "broker-fixture.h"
#include "tap.h"

/* The policy, per-user accounting, ownership and the limits, for uid 65534. */
static void test_policy_and_limits(void) {
        struct owner a = { .uid = 65534, .gid = 65534, .pid = 10 }, b = { .uid = 65534, .gid = 65534, .pid = 11 };
        struct owner other = { .uid = 65533, .gid = 65533, .pid = 12 };
        struct limits lim = LIMITS_DEFAULT;
        struct manager_result res;
        struct rtf_task_params p = edf(3000, 10000);
        struct fixture fx;
        uint64_t first;

        /* Named: FP would refuse a request without a priority for its own reason. */
        p.flags |= RTF_PARAM_HAS_SCHEDULER;

        lim.max_specs_per_client = 3;
        lim.max_specs_per_uid = 4;
        if (fixture_start(&fx, CONFIG, &lim) < 0)
                return;
        owner_init(&fx, &a);
        owner_init(&fx, &b);
        owner_init(&fx, &other);
        CHECK_EQ(manager_connections_of(fx.mgr, 65534), 2);
        CHECK_EQ(manager_connections_of(fx.mgr, 65533), 1);
        CHECK_EQ(manager_connections_of(fx.mgr, 1), 0);
        /* max_utilization 0.5 summed over all of the user's connections */
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "EDF", &res), RTF_OK);
        first = res.id;
        CHECK_EQ(manager_create(fx.mgr, &b, &p, "EDF", &res), RTF_ACL_FAIL);
        CHECK(strstr(res.reason, "max_utilization") != NULL);
        CHECK_EQ(manager_release(fx.mgr, &a, first, &res), RTF_OK);
        CHECK_EQ(manager_create(fx.mgr, &b, &p, "EDF", &res), RTF_OK);
        CHECK_EQ(manager_bandwidth_of(fx.mgr, 65534), 300000000);
        /* A change is judged without the spec's own old utilisation. */
        p = edf(4000, 10000);
        p.flags |= RTF_PARAM_HAS_SCHEDULER;
        CHECK_EQ(manager_change(fx.mgr, &b, res.id, &p, "EDF", &res), RTF_OK);
        CHECK_EQ(manager_bandwidth_of(fx.mgr, 65534), 400000000);
        /* Only one's own specifications. */
        CHECK_EQ(manager_release(fx.mgr, &a, res.id, &res), -EPERM);
        CHECK_EQ(manager_release(fx.mgr, &a, 9999, &res), -ENOENT);
        /* A thread of another user cannot be attached. */
        fake_spawn(&fx.k, 300, 0);
        CHECK_EQ(manager_attach(fx.mgr, &b, 2, 300, &res), -EPERM);
        CHECK_EQ(fx.k.n_apply, 0);
        /* A runtime above the period is refused as such, before the policy is asked. */
        p = edf(20000, 10000);
        p.flags |= RTF_PARAM_HAS_SCHEDULER;
        CHECK_EQ(manager_create(fx.mgr, &other, &p, "EDF", &res), -EINVAL);
        CHECK(strstr(res.reason, "runtime must be at most the period") != NULL);
        p = edf(4000, 10000);
        p.flags |= RTF_PARAM_HAS_SCHEDULER;
        /* No rule for this user and plugin: refused by the policy. */
        CHECK_EQ(manager_create(fx.mgr, &other, &p, "EDF", &res), RTF_ACL_FAIL);
        /* max_priority 40 on FP */
        p = prio(50);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_ACL_FAIL);
        p = prio(40);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_OK);
        /* max_specs_per_client 3, max_specs_per_uid 4 (b holds one) */
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_OK);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_OK);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), -EUSERS);
        CHECK(strstr(res.reason, "max_specs_per_client") != NULL);
        CHECK_EQ(manager_create(fx.mgr, &b, &p, "", &res), -EUSERS);
        CHECK(strstr(res.reason, "max_specs_per_uid") != NULL);
        /* A connection gone gives its share back to the user. */
        manager_owner_gone(fx.mgr, &a);
        CHECK_EQ(manager_connections_of(fx.mgr, 65534), 1);
        CHECK_EQ(manager_create(fx.mgr, &b, &p, "", &res), RTF_OK);
        CHECK_EQ(list(fx.mgr).n, 2);
        CHECK_EQ(manager_bandwidth_of(fx.mgr, 65534), 400000000);   /* b's EDF spec; FP has no runtime */
        manager_owner_gone(fx.mgr, &b);
        CHECK_EQ(manager_bandwidth_of(fx.mgr, 65534), 0);
        manager_owner_gone(fx.mgr, &other);
        fixture_stop(&fx);
}

/* The request rate per uid: a second connection buys no more. */
static void test_rate_per_uid(void) {
        struct owner a = { .uid = 65534, .pid = 10 }, b = { .uid = 65534, .pid = 11 };
        struct limits lim = LIMITS_DEFAULT;
        struct fixture fx;
        unsigned allowed = 0;

        lim.max_requests_per_sec_per_uid = 1;   /* next token in a second: none comes during the test */
        lim.request_burst_per_uid = 5;
        if (fixture_start(&fx, CONFIG, &lim) < 0)
                return;
        owner_init(&fx, &a);
        owner_init(&fx, &b);
        for (int i = 0; i < 4; i++)
                allowed += manager_user_rate_allows(fx.mgr, &a);
        for (int i = 0; i < 4; i++)
                allowed += manager_user_rate_allows(fx.mgr, &b);
        CHECK_EQ(allowed, 5);
        for (int i = 0; i < 20; i++)
                CHECK(manager_user_rate_allows(fx.mgr, &fx.root));
        manager_owner_gone(fx.mgr, &a);
        manager_owner_gone(fx.mgr, &b);
        fixture_stop(&fx);
}

/*
 * max_priority bounds the priority the plugin grants (issue 10, 3): RM ignores
 * the request's priority and gives the top of its range to a lone task; FP
 * maps a requested 10 into its range 50-89.  Both are refused, and rolled back.
 */
static void test_policy_on_granted(void) {
        struct owner a = { .uid = 65534, .gid = 65534, .pid = 10 };
        struct rtf_task_params rm = edf(1000, 10000), fp = prio(10);
        struct manager_result res;
        struct fixture fx;

        if (fixture_start_with(&fx, "RM RM.so 50-89 0\nFP FP.so 50-89 0\n",
                               "nobody RM max_priority 60\nnobody FP max_priority 20\n", NULL) < 0)
                return;
        owner_init(&fx, &a);
        rm.flags |= RTF_PARAM_HAS_SCHEDULER;
        fp.flags |= RTF_PARAM_HAS_SCHEDULER;
        CHECK_EQ(manager_create(fx.mgr, &a, &rm, "RM", &res), RTF_ACL_FAIL);
        CHECK(strstr(res.reason, "max_priority 60") != NULL);
        CHECK_EQ(manager_create(fx.mgr, &a, &fp, "FP", &res), RTF_ACL_FAIL);
        CHECK(strstr(res.reason, "max_priority 20") != NULL);
        CHECK_EQ(list(fx.mgr).n, 0);
        /* Rolled back: root gets the very same grants. */
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &rm, "RM", &res), RTF_OK);
        CHECK_EQ(res.priority, 89);
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &fp, "FP", &res), RTF_OK);
        CHECK_EQ(res.priority, 50);
        CHECK_EQ(list(fx.mgr).n, 2);
        manager_owner_gone(fx.mgr, &a);
        fixture_stop(&fx);
}

/* The latency hint is a property of the policy: root keeps it, others only where a rule grants it. */
static void test_latency_hint(void) {
        struct owner a = { .uid = 65534, .gid = 65534, .pid = 10 };
        struct rtf_task_params p = edf(1000, 10000);
        struct manager_result res;
        uint64_t on_edf, on_fp;
        struct fixture fx;

        if (fixture_start_with(&fx, CONFIG, "nobody EDF max_utilization 0.5\nnobody EDF latency_hint true\n"
                               "nobody FP max_priority 40\n", NULL) < 0)
                return;
        owner_init(&fx, &a);
        fake_spawn(&fx.k, 700, 65534);
        fake_spawn(&fx.k, 701, 65534);
        fake_spawn(&fx.k, 702, 0);
        p.flags |= RTF_PARAM_HAS_SCHEDULER;
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "EDF", &res), RTF_OK);
        on_edf = res.id;
        p = prio(30);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_OK);
        on_fp = res.id;
        /* No rule grants it on FP: attached, but no hint. */
        CHECK_EQ(manager_attach(fx.mgr, &a, on_fp, 701, &res), RTF_OK);
        CHECK(!fx.k.hint);
        CHECK_EQ(manager_attach(fx.mgr, &a, on_edf, 700, &res), RTF_OK);
        CHECK(fx.k.hint);
        CHECK_EQ(manager_detach(fx.mgr, &a, on_edf, &res), RTF_OK);
        CHECK(!fx.k.hint);              /* the FP thread alone does not hold it */
        /* Root: as before, any attached thread holds it. */
        CHECK_EQ(manager_create(fx.mgr, &fx.root, &p, "", &res), RTF_OK);
        CHECK_EQ(manager_attach(fx.mgr, &fx.root, res.id, 702, &res), RTF_OK);
        CHECK(fx.k.hint);
        manager_owner_gone(fx.mgr, &fx.root);
        CHECK(!fx.k.hint);
        manager_owner_gone(fx.mgr, &a);
        fixture_stop(&fx);
}

int main(void) {
        static void (*const tests[])(void) = {
                test_policy_and_limits, test_rate_per_uid, test_policy_on_granted, test_latency_hint,
        };

        return broker_tests_run(tests, ELEMS(tests));
}
