/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfd's access-control policy (section 4 of the paper): max_utilization,
 * summed over a subject's reservations as the daemon books them, and the
 * utilisation arithmetic.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl-fixture.h"
#include "tap.h"

/* ---- max_utilization and the daemon's bookkeeping ---- */

struct ledger {
        uint64_t *usage;
        size_t n;
        uint64_t delta;
        bool add;
};

static void ledger_apply(void *data, size_t rule) {
        struct ledger *l = data;

        CHECK(rule < l->n);
        if (rule >= l->n)
                return;
        if (l->add)
                l->usage[rule] += l->delta;
        else {
                CHECK(l->usage[rule] >= l->delta);
                l->usage[rule] -= l->delta;
        }
}

static int ledger_update(const struct acl_policy *pol, uint64_t *usage, const struct acl_subject *s,
                         const char *plugin, uint64_t util, bool add) {
        struct ledger l = { usage, pol->n_rules, util, add };

        return acl_for_each_util_rule(pol, s, plugin, ledger_apply, &l);
}

/* As rtfd would: check, and on success count the spec toward its rules. */
static int grant(const struct acl_policy *pol, uint64_t *usage, const struct acl_subject *s, const char *plugin,
                 uint64_t runtime, uint64_t period, struct acl_verdict *v) {
        struct acl_request q = req_rt(runtime, period);
        int r = acl_check(pol, s, plugin, &q, usage, pol->n_rules, v);

        if (r == ACL_ALLOW)
                CHECK(ledger_update(pol, usage, s, plugin, q.util_ppb, true) >= 0);
        return r;
}

static void test_intersection(void) {
        /* Section 4.3: user u1 limited to 0.5 anywhere, plugin p1 to 0.3 for everyone. */
        struct acl_policy pol = PARSE_OK("user1 - max_utilization 0.5\n- FP max_utilization 0.3\n");
        uint64_t usage[2] = { 0, 0 };
        struct acl_request q;
        struct acl_verdict v;

        q = req_rt(300, 1000);
        CHECK_EQ(acl_check(&pol, &user1, "FP", &q, usage, 2, &v), ACL_ALLOW);
        q = req_rt(301, 1000);
        CHECK_EQ(acl_check(&pol, &user1, "FP", &q, usage, 2, &v), ACL_DENY);
        CHECK_EQ(v.line, 2);
        CHECK(strcmp(v.reason, "uid 1001: utilization 0.301 + 0 held > max_utilization 0.3 (t.acl:2)") == 0);
        q = req_rt(500, 1000);
        CHECK_EQ(acl_check(&pol, &user1, "EDF", &q, usage, 2, &v), ACL_ALLOW);
        q = req_rt(501, 1000);
        CHECK_EQ(acl_check(&pol, &user1, "EDF", &q, usage, 2, &v), ACL_DENY);
        CHECK_EQ(v.line, 1);

        /* Which rules a spec counts toward. */
        CHECK_EQ(acl_for_each_util_rule(&pol, &user1, "FP", NULL, NULL), 2);
        CHECK_EQ(acl_for_each_util_rule(&pol, &user1, "EDF", NULL, NULL), 1);
        CHECK_EQ(acl_for_each_util_rule(&pol, &user2, "FP", NULL, NULL), 1);
        CHECK_EQ(acl_for_each_util_rule(&pol, &user2, "EDF", NULL, NULL), 0);
        CHECK_EQ(acl_for_each_util_rule(NULL, &user2, "EDF", NULL, NULL), -EINVAL);

        /* The usage array must cover every rule, or be absent. */
        CHECK_EQ(acl_check(&pol, &user1, "FP", &q, usage, 1, &v), -EINVAL);
        CHECK_EQ(acl_check(&pol, &user1, "FP", &q, NULL, 2, &v), -EINVAL);
        CHECK_EQ(acl_check(&pol, &user1, NULL, &q, NULL, 0, &v), -EINVAL);
        CHECK_EQ(acl_check(&pol, &user1, "FP", NULL, NULL, 0, &v), -EINVAL);
        CHECK_EQ(acl_check(&pol, &user1, "FP", &q, NULL, 0, NULL), -EINVAL);
        CHECK_EQ(acl_check(NULL, &user1, "FP", &q, NULL, 0, &v), -EINVAL);
        CHECK_EQ(acl_check(&pol, NULL, "FP", &q, NULL, 0, &v), -EINVAL);
        acl_policy_deinit(&pol);
}

static void test_aggregate(void) {
        struct acl_policy pol = PARSE_OK("user1 - max_utilization 0.5\n"      /* 1 */
                                         "user2 - max_utilization 2\n"        /* 2 */
                                         "- FP max_utilization 0.3\n");       /* 3 */
        uint64_t usage[3] = { 0 };
        struct acl_verdict v;
        struct acl_request q;

        /* Three specs of 0.2 on EDF: the third would make 0.6 > 0.5. */
        CHECK_EQ(grant(&pol, usage, &user1, "EDF", 200, 1000, &v), ACL_ALLOW);
        CHECK_EQ(grant(&pol, usage, &user1, "EDF", 100, 500, &v), ACL_ALLOW);
        CHECK_EQ(usage[0], 400000000);
        CHECK_EQ(grant(&pol, usage, &user1, "RR", 200, 1000, &v), ACL_DENY);
        CHECK(strcmp(v.reason, "uid 1001: utilization 0.2 + 0.4 held > max_utilization 0.5 (t.acl:1)") == 0);
        CHECK_EQ(grant(&pol, usage, &user1, "RR", 100, 1000, &v), ACL_ALLOW);
        CHECK_EQ(usage[0], 500000000);
        CHECK_EQ(grant(&pol, usage, &user1, "RR", 1, 1000000000, &v), ACL_DENY);

        /* Release one of 0.2: there is room again. */
        CHECK_EQ(ledger_update(&pol, usage, &user1, "EDF", 200000000, false), 1);
        CHECK_EQ(usage[0], 300000000);

        /* Change the other 0.2 spec to 0.45, then 0.4: its old share is removed before the check. */
        CHECK_EQ(ledger_update(&pol, usage, &user1, "EDF", 200000000, false), 1);
        CHECK_EQ(usage[0], 100000000);
        q = req_rt(450, 1000);
        CHECK_EQ(acl_check(&pol, &user1, "EDF", &q, usage, 3, &v), ACL_DENY);
        CHECK(reason_has(&v, "utilization 0.45 + 0.1 held > max_utilization 0.5"));
        q = req_rt(300, 750);
        CHECK_EQ(acl_check(&pol, &user1, "EDF", &q, usage, 3, &v), ACL_ALLOW);
        CHECK_EQ(ledger_update(&pol, usage, &user1, "EDF", q.util_ppb, true), 1);
        CHECK_EQ(usage[0], 500000000);

        /* The FP rule is shared by everyone on FP; user2's own 2 CPUs do not help. */
        CHECK_EQ(grant(&pol, usage, &user2, "FP", 250, 1000, &v), ACL_ALLOW);
        CHECK_EQ(usage[1], 250000000);
        CHECK_EQ(usage[2], 250000000);
        CHECK_EQ(grant(&pol, usage, &user2, "FP", 60, 1000, &v), ACL_DENY);
        CHECK_EQ(v.line, 3);
        CHECK_EQ(grant(&pol, usage, &user2, "FP", 50, 1000, &v), ACL_ALLOW);
        CHECK_EQ(grant(&pol, usage, &user2, "EDF", 1700, 1000, &v), ACL_ALLOW);
        CHECK_EQ(usage[1], 2000000000);
        CHECK_EQ(grant(&pol, usage, &user2, "EDF", 1, 1000000, &v), ACL_DENY);
        CHECK_EQ(v.line, 2);

        /* Sums near overflow do not wrap. */
        usage[1] = UINT64_MAX;
        CHECK_EQ(grant(&pol, usage, &user2, "EDF", 1, 1000, &v), ACL_DENY);
        usage[1] = 0;
        q = req_rt(1, 1);
        q.util_ppb = UINT64_MAX;
        CHECK_EQ(acl_check(&pol, &user2, "EDF", &q, usage, 3, &v), ACL_DENY);
        acl_policy_deinit(&pol);
}

/* ---- utilisation arithmetic ---- */

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

/* The obvious formula, in a type where it cannot overflow. */
static uint64_t util_reference(uint64_t q, uint64_t w) {
        u128 v = ((u128)q * ACL_UTIL_ONE + w - 1) / w;

        return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static unsigned util_mismatches(void) {
        static const uint64_t values[] = {
                1, 2, 3, 7, 999, 1000, 1001, 333333, 1000000, UINT64_C(4294967295), UINT64_C(4294967296),
                UINT64_C(10000000000), UINT64_C(18446744073), UINT64_C(18446744074), UINT64_C(1) << 62,
                UINT64_MAX / 3, UINT64_MAX - 1, UINT64_MAX,
        };
        struct rtf_task_params t = { .flags = RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_PERIOD };
        uint64_t x = 88172645463325252ULL;
        unsigned mismatches = 0;

        for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
                for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
                        t.runtime_us = values[i];
                        t.period_us = values[k];
                        if (acl_request_util_ppb(&t) != util_reference(values[i], values[k])) {
                                fprintf(stderr, "util %" PRIu64 "/%" PRIu64 ": %" PRIu64 " != %" PRIu64 "\n",
                                        values[i], values[k], acl_request_util_ppb(&t),
                                        util_reference(values[i], values[k]));
                                mismatches++;
                        }
                }
        for (unsigned i = 0; i < 100000; i++) {
                uint64_t q, w;

                /* xorshift64: deterministic, and the shifts cover every magnitude. */
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                q = x >> (x % 64);
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                w = (x >> (x % 64)) | 1;
                t.runtime_us = q;
                t.period_us = w;
                if (acl_request_util_ppb(&t) != util_reference(q, w))
                        mismatches++;
        }
        return mismatches;
}
#endif

static void test_util(void) {
        struct rtf_task_params t = { .flags = RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_PERIOD };

        t.runtime_us = 1;
        t.period_us = 3;
        CHECK_EQ(acl_request_util_ppb(&t), 333333334);
        t.runtime_us = 3;
        CHECK_EQ(acl_request_util_ppb(&t), 1000000000);
        /* max(Q, Qd) over min(T, D). */
        t.flags |= RTF_PARAM_HAS_DES_RUNTIME | RTF_PARAM_HAS_DEADLINE;
        t.des_runtime_us = 2;
        t.deadline_us = 6;
        CHECK_EQ(acl_request_util_ppb(&t), 1000000000);
        t.des_runtime_us = 6;
        CHECK_EQ(acl_request_util_ppb(&t), 2000000000);
        t.deadline_us = 2;
        CHECK_EQ(acl_request_util_ppb(&t), 3000000000);
        /* Missing runtime or period: nothing to count. */
        t.flags &= ~(uint32_t)RTF_PARAM_HAS_RUNTIME;
        CHECK_EQ(acl_request_util_ppb(&t), 0);
        t.flags |= RTF_PARAM_HAS_RUNTIME;
        t.flags &= ~(uint32_t)RTF_PARAM_HAS_PERIOD;
        CHECK_EQ(acl_request_util_ppb(&t), 0);
        CHECK_EQ(acl_request_util_ppb(NULL), 0);

        /* Exact against 128-bit arithmetic, also where q * 10^9 overflows 64 bits. */
#ifdef __SIZEOF_INT128__
        CHECK_EQ(util_mismatches(), 0);
#endif
        /* Saturates rather than wraps. */
        t.flags = RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_PERIOD;
        t.runtime_us = UINT64_MAX;
        t.period_us = 1;
        CHECK(acl_request_util_ppb(&t) == UINT64_MAX);
        t.runtime_us = UINT64_C(18446744073);
        CHECK(acl_request_util_ppb(&t) == UINT64_C(18446744073000000000));
}

int main(void) {
        static void (*const tests[])(void) = {
                test_intersection, test_aggregate, test_util,
        };

        return acl_tests_run(tests, ELEMS(tests));
}
