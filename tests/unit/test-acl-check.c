/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtfd's access-control policy (section 4 of the paper): checking a request against it. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl-fixture.h"
#include "tap.h"

/* Each bound holds exactly at its value and fails one beyond it. */
static void test_check_boundaries(void) {
        struct acl_policy pol = PARSE_OK(
                "user1 EDF max_runtime 1000\n"          /* 1 */
                "user1 RM min_period 1000\n"            /* 2 */
                "user1 RM max_period 2000\n"            /* 3 */
                "user1 FP min_deadline 1000\n"          /* 4 */
                "user1 FP max_deadline 2000\n"          /* 5 */
                "user1 RR min_priority 10\n"            /* 6 */
                "user1 RR max_priority 20\n");          /* 7 */
        struct acl_request q;
        struct acl_verdict v;

        q = req_rt(1000, 10000);
        CHECK(allowed(&pol, &user1, "EDF", &q));
        q.params.runtime_us = 1001;
        CHECK_EQ(check(&pol, &user1, "EDF", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: runtime 1001 us > max_runtime 1000 (t.acl:1)") == 0);
        CHECK_EQ(v.rule, 0);
        CHECK_EQ(v.line, 1);
        CHECK(!v.allowed);
        /* The desired runtime is what a plugin may grant, so it is bounded too. */
        q = req_rt(500, 10000);
        q.params.flags |= RTF_PARAM_HAS_DES_RUNTIME;
        q.params.des_runtime_us = 1000;
        CHECK(allowed(&pol, &user1, "EDF", &q));
        q.params.des_runtime_us = 1001;
        CHECK_EQ(check(&pol, &user1, "EDF", &q, &v), ACL_DENY);
        CHECK(reason_has(&v, "desired runtime 1001 us > max_runtime 1000 (t.acl:1)"));
        q.params.flags &= ~(uint32_t)RTF_PARAM_HAS_RUNTIME;
        CHECK_EQ(check(&pol, &user1, "EDF", &q, &v), ACL_DENY);
        q.params.des_runtime_us = 999;
        CHECK(allowed(&pol, &user1, "EDF", &q));

        q = req_rt(10, 1000);
        CHECK(allowed(&pol, &user1, "RM", &q));
        q.params.period_us = 999;
        CHECK_EQ(check(&pol, &user1, "RM", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: period 999 us < min_period 1000 (t.acl:2)") == 0);
        q.params.period_us = 2000;
        CHECK(allowed(&pol, &user1, "RM", &q));
        q.params.period_us = 2001;
        CHECK_EQ(check(&pol, &user1, "RM", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: period 2001 us > max_period 2000 (t.acl:3)") == 0);
        CHECK_EQ(v.line, 3);

        /* Deadline: the declared one, else the period. */
        q = req_rt(10, 5000);
        q.params.flags |= RTF_PARAM_HAS_DEADLINE;
        q.params.deadline_us = 1000;
        CHECK(allowed(&pol, &user1, "FP", &q));
        q.params.deadline_us = 999;
        CHECK_EQ(check(&pol, &user1, "FP", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: deadline 999 us < min_deadline 1000 (t.acl:4)") == 0);
        q.params.deadline_us = 2000;
        CHECK(allowed(&pol, &user1, "FP", &q));
        q.params.deadline_us = 2001;
        CHECK_EQ(check(&pol, &user1, "FP", &q, &v), ACL_DENY);
        CHECK(reason_has(&v, "> max_deadline 2000 (t.acl:5)"));
        q = req_rt(10, 2000);
        CHECK(allowed(&pol, &user1, "FP", &q));
        q.params.period_us = 2001;
        CHECK_EQ(check(&pol, &user1, "FP", &q, &v), ACL_DENY);
        CHECK(reason_has(&v, "deadline (the period) 2001 us > max_deadline 2000 (t.acl:5)"));

        /* Priority: bounded when declared, free when the plugin picks it. */
        q = req_rt(10, 1000);
        CHECK(allowed(&pol, &user1, "RR", &q));
        q.params.flags |= RTF_PARAM_HAS_PRIORITY;
        q.params.priority = 10;
        CHECK(allowed(&pol, &user1, "RR", &q));
        q.params.priority = 9;
        CHECK_EQ(check(&pol, &user1, "RR", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: priority 9 < min_priority 10 (t.acl:6)") == 0);
        q.params.priority = 20;
        CHECK(allowed(&pol, &user1, "RR", &q));
        q.params.priority = 21;
        CHECK_EQ(check(&pol, &user1, "RR", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: priority 21 > max_priority 20 (t.acl:7)") == 0);
        acl_policy_deinit(&pol);

        /* Utilisation: exactly at the limit, and one ppb beyond. */
        pol = PARSE_OK("user1 - max_utilization 0.25\n");
        q = req_rt(250, 1000);
        CHECK_EQ(q.util_ppb, 250000000);
        CHECK(allowed(&pol, &user1, "EDF", &q));
        q.util_ppb++;
        CHECK_EQ(check(&pol, &user1, "EDF", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: utilization 0.250000001 + 0 held > max_utilization 0.25 (t.acl:1)") == 0);
        acl_policy_deinit(&pol);
}

static void test_undeclared(void) {
        struct acl_policy pol = PARSE_OK(
                "user1 EDF max_runtime 1000\n"
                "user1 RM min_period 1000\n"
                "user1 FP max_deadline 1000\n"
                "user1 RR max_utilization 1\n"
                "user2 - max_priority 50\n");
        struct acl_request none = { .params = { .flags = 0 } };
        struct acl_request period_only = { .params = { .flags = RTF_PARAM_HAS_PERIOD, .period_us = 1000 } };
        struct acl_verdict v;

        CHECK_EQ(check(&pol, &user1, "EDF", &period_only, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: rule t.acl:1 bounds the runtime: declare one") == 0);
        CHECK_EQ(v.line, 1);
        CHECK_EQ(check(&pol, &user1, "RM", &none, &v), ACL_DENY);
        CHECK(reason_has(&v, "rule t.acl:2 bounds the period"));
        CHECK_EQ(check(&pol, &user1, "FP", &none, &v), ACL_DENY);
        CHECK(reason_has(&v, "rule t.acl:3 bounds the deadline"));
        CHECK(allowed(&pol, &user1, "FP", &period_only));
        CHECK_EQ(check(&pol, &user1, "RR", &period_only, &v), ACL_DENY);
        CHECK(reason_has(&v, "rule t.acl:4 bounds the utilization: declare a runtime and a period"));
        /* A priority bound does not require a priority. */
        CHECK(allowed(&pol, &user2, "RM", &none));
        acl_policy_deinit(&pol);
}

static void test_default_deny(void) {
        struct acl_policy pol = ACL_POLICY_NULL;
        struct acl_request q = req_rt(10, 1000);
        struct acl_verdict v;

        /* Not even parsed: the null policy denies everything. */
        CHECK_EQ(check(&pol, &user1, "EDF", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "no rule grants uid 1001 the plugin EDF") == 0);
        CHECK_EQ(v.rule, -1);
        CHECK_EQ(v.line, 0);

        pol = PARSE_OK("");
        CHECK_EQ(check(&pol, &user1, "EDF", &q, &v), ACL_DENY);
        acl_policy_deinit(&pol);

        /* Listing 3: user1 may use EDF only; cdrom members any plugin. */
        pol = PARSE_OK("user1 EDF max_utilization 0.7\n@cdrom - max_period 9000\n");
        CHECK(allowed(&pol, &user1, "EDF", &q));
        CHECK_EQ(check(&pol, &user1, "RM", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "no rule grants uid 1001 the plugin RM") == 0);
        CHECK_EQ(check(&pol, &user2, "EDF", &q, &v), ACL_DENY);
        {
                const struct acl_subject cd = { .uid = 1002, .gid = 24 };

                CHECK(allowed(&pol, &cd, "RM", &q));
                CHECK(allowed(&pol, &cd, "NotConfigured", &q));
                q.params.period_us = 9001;
                CHECK_EQ(check(&pol, &cd, "RM", &q, &v), ACL_DENY);
                CHECK(reason_has(&v, "(t.acl:2)"));
        }
        acl_policy_deinit(&pol);

        /* Root is not special to the module. */
        pol = PARSE_OK("user1 - max_runtime 5\n");
        {
                const struct acl_subject root = { .uid = 0, .gid = 0 };

                CHECK(!allowed(&pol, &root, "EDF", &q));
        }
        acl_policy_deinit(&pol);
}

static void test_groups(void) {
        struct acl_policy pol = PARSE_OK("@audio EDF max_runtime 1000\n");
        const uint32_t with_audio[] = { 5, 44, 29 }, without[] = { 5, 44 };
        const struct acl_subject supplementary = { .uid = 1002, .gid = 100, .groups = with_audio, .n_groups = 3 };
        const struct acl_subject primary = { .uid = 1002, .gid = 29 };
        const struct acl_subject other = { .uid = 1002, .gid = 100, .groups = without, .n_groups = 2 };
        /* A gid equal to the group's as a uid does not make a member. */
        const struct acl_subject uid_29 = { .uid = 29, .gid = 100 };
        struct acl_request q = req_rt(1000, 10000);
        struct acl_verdict v;

        CHECK(allowed(&pol, &supplementary, "EDF", &q));
        CHECK(allowed(&pol, &primary, "EDF", &q));
        CHECK(!allowed(&pol, &other, "EDF", &q));
        CHECK(!allowed(&pol, &uid_29, "EDF", &q));
        q.params.runtime_us = 1001;
        CHECK_EQ(check(&pol, &supplementary, "EDF", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1002: runtime 1001 us > max_runtime 1000 (t.acl:1)") == 0);

        /* Malformed subjects. */
        {
                const struct acl_subject no_array = { .uid = 1, .gid = 1, .n_groups = 1 };
                const struct acl_subject too_many = { .uid = 1, .gid = 1, .groups = with_audio,
                                                      .n_groups = ACL_GROUPS_MAX + 1 };

                CHECK_EQ(check(&pol, &no_array, "EDF", &q, &v), -EINVAL);
                CHECK_EQ(check(&pol, &too_many, "EDF", &q, &v), -EINVAL);
        }
        acl_policy_deinit(&pol);
}

/* A rule on one plugin neither grants nor limits another. */
static void test_plugins(void) {
        struct acl_policy pol = PARSE_OK("user1 EDF max_runtime 1000\nuser1 - max_period 100000\n");
        struct acl_request q = req_rt(5000, 10000);
        struct acl_verdict v;

        CHECK_EQ(check(&pol, &user1, "EDF", &q, &v), ACL_DENY);
        CHECK_EQ(v.line, 1);
        CHECK_EQ(check(&pol, &user1, "RM", &q, &v), ACL_ALLOW);
        CHECK(v.allowed);
        CHECK_EQ(v.rule, 1);
        CHECK_EQ(v.line, 2);
        CHECK(strcmp(v.reason, "granted by t.acl:2") == 0);
        acl_policy_deinit(&pol);

        pol = PARSE_OK("user1 EDF max_runtime 1000\n");
        CHECK_EQ(check(&pol, &user1, "RM", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "no rule grants uid 1001 the plugin RM") == 0);
        /* Names are exact. */
        CHECK_EQ(check(&pol, &user1, "EDF2", &q, &v), ACL_DENY);
        CHECK_EQ(check(&pol, &user1, "ED", &q, &v), ACL_DENY);
        acl_policy_deinit(&pol);
}

static void test_ignore_admission(void) {
        struct acl_policy pol = PARSE_OK("user1 - max_runtime 1000\nuser2 - max_runtime 1000\n");
        struct acl_request q = req_rt(100, 1000);
        struct acl_verdict v;

        CHECK(allowed(&pol, &user1, "EDF", &q));
        q.params.flags |= RTF_PARAM_IGNORE_ADMISSION;
        CHECK_EQ(check(&pol, &user1, "EDF", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: no rule grants ignore_adm_test on EDF") == 0);
        CHECK_EQ(v.rule, -1);
        acl_policy_deinit(&pol);

        pol = PARSE_OK("- - ignore_adm_test true\n"     /* 1 */
                       "user1 - ignore_adm_test false\n" /* 2 */
                       "user2 RM ignore_adm_test false\n"); /* 3 */
        CHECK_EQ(check(&pol, &user1, "EDF", &q, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: ignore_adm_test is false (t.acl:2)") == 0);
        CHECK_EQ(v.line, 2);
        CHECK(allowed(&pol, &user2, "EDF", &q));
        CHECK_EQ(check(&pol, &user2, "RM", &q, &v), ACL_DENY);
        CHECK_EQ(v.line, 3);
        /* Without the flag, a false rule is only a grant. */
        q.params.flags &= ~(uint32_t)RTF_PARAM_IGNORE_ADMISSION;
        CHECK(allowed(&pol, &user1, "EDF", &q));
        CHECK(allowed(&pol, &user2, "RM", &q));
        acl_policy_deinit(&pol);

        /* A grant on another plugin does not carry over. */
        pol = PARSE_OK("user1 EDF ignore_adm_test true\nuser1 RM max_runtime 1000\n");
        q.params.flags |= RTF_PARAM_IGNORE_ADMISSION;
        CHECK(allowed(&pol, &user1, "EDF", &q));
        CHECK(!allowed(&pol, &user1, "RM", &q));
        acl_policy_deinit(&pol);
}

/* latency_hint: off unless a matching rule grants it and none withdraws it. */
static void test_latency_hint(void) {
        struct acl_policy pol = PARSE_OK("user1 EDF latency_hint true\n"
                                         "user1 RM max_runtime 1000\n"
                                         "- RM latency_hint true\n"
                                         "user2 RM latency_hint false\n");
        struct acl_request q = req_rt(100, 1000);

        CHECK(acl_grants_latency_hint(&pol, &user1, "EDF"));
        CHECK(acl_grants_latency_hint(&pol, &user1, "RM"));         /* through `-` */
        CHECK(!acl_grants_latency_hint(&pol, &user2, "RM"));        /* withdrawn for user2 */
        CHECK(!acl_grants_latency_hint(&pol, &user2, "EDF"));       /* no rule at all */
        CHECK(!acl_grants_latency_hint(&pol, &user1, "FP"));
        /* It bounds nothing: a request it matches is granted as by any rule. */
        CHECK(allowed(&pol, &user1, "EDF", &q));
        acl_policy_deinit(&pol);

        pol = PARSE_OK("user1 - max_runtime 1000\n");
        CHECK(!acl_grants_latency_hint(&pol, &user1, "EDF"));       /* off unless granted */
        acl_policy_deinit(&pol);
        EXPECT_ERROR("user1 - latency_hint yes\n", 1, "invalid latency_hint \"yes\" (expected true or false)");
}

int main(void) {
        static void (*const tests[])(void) = {
                test_check_boundaries, test_undeclared, test_default_deny, test_groups, test_plugins,
                test_ignore_admission, test_latency_hint,
        };

        return acl_tests_run(tests, ELEMS(tests));
}
