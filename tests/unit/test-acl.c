/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of rtfd's access-control policy (section 4 of the paper). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "tap.h"

#define FILENAME "t.acl"

static const char *const plugins[] = { "EDF", "RM", "FP", "RR" };

static char err[512];

/* ---- fake name service ---- */

struct fake_name {
        const char *name;
        uint32_t id;
        int error;              /* returned instead of id when non-zero */
};

static const struct fake_name fake_users[] = {
        { "root", 0, 0 },
        { "user1", 1001, 0 },
        { "user2", 1002, 0 },
        { "user1alias", 1001, 0 },
        /* A name made of digits is still a name. */
        { "1234", 4321, 0 },
        { "broken", 0, -EIO },
};

static const struct fake_name fake_groups[] = {
        { "cdrom", 24, 0 },
        { "audio", 29, 0 },
        { "video", 44, 0 },
        { "broken", 0, -EIO },
};

static unsigned lookups;

static int fake_find(const struct fake_name *names, size_t n, const char *name, uint32_t *ret) {
        lookups++;
        for (size_t i = 0; i < n; i++)
                if (strcmp(names[i].name, name) == 0) {
                        if (names[i].error)
                                return names[i].error;
                        *ret = names[i].id;
                        return 0;
                }
        return -ENOENT;
}

static int fake_user(void *data, const char *name, uint32_t *ret) {
        CHECK(data == &lookups);
        return fake_find(fake_users, sizeof(fake_users) / sizeof(fake_users[0]), name, ret);
}

static int fake_group(void *data, const char *name, uint32_t *ret) {
        CHECK(data == &lookups);
        return fake_find(fake_groups, sizeof(fake_groups) / sizeof(fake_groups[0]), name, ret);
}

static const struct acl_lookup lookup = { .user = fake_user, .group = fake_group, .data = &lookups };

/* ---- helpers ---- */

/*
 * Parses from a heap copy of exactly `len` bytes, without a terminating NUL,
 * so that AddressSanitizer catches any read past the end.
 */
static int parse_n(const char *text, size_t len, struct acl_policy *ret) {
        struct acl_policy sentinel, pol;
        char *copy = malloc(len ? len : 1);
        int r;

        if (!copy)
                abort();
        memcpy(copy, text, len);
        memset(&sentinel, 0x5A, sizeof(sentinel));
        pol = sentinel;
        memset(err, 'x', sizeof(err) - 1);
        err[sizeof(err) - 1] = '\0';
        r = acl_parse(copy, len, FILENAME, &lookup, plugins, sizeof(plugins) / sizeof(plugins[0]), &pol,
                      err, sizeof(err));
        free(copy);
        if (r < 0)
                /* *ret is untouched on error. */
                CHECK(memcmp(&pol, &sentinel, sizeof(pol)) == 0);
        else if (r == 0)
                CHECK_EQ(err[0], '\0');
        *ret = pol;
        return r;
}

static int parse(const char *text, struct acl_policy *ret) {
        return parse_n(text, strlen(text), ret);
}

/* Parses text that must be valid, without warnings. */
static struct acl_policy parse_ok(const char *text, int src_line) {
        struct acl_policy pol = ACL_POLICY_NULL;
        int r = parse(text, &pol);

        if (r != 0) {
                fprintf(stderr, "test-acl.c:%d: parse failed: r=%d err=\"%s\"\n", src_line, r, err);
                pol = ACL_POLICY_NULL;
        }
        CHECK_EQ(r, 0);
        return pol;
}
#define PARSE_OK(text) parse_ok(text, __LINE__)

/*
 * Checks that `text` is refused with `expected` (an errno) and
 * "t.acl:LINE: ..." (LINE 0: "t.acl: ...") containing `what`.
 */
static void expect_error_r(const char *text, size_t len, int expected, unsigned line, const char *what,
                           int src_line) {
        struct acl_policy pol;
        char prefix[64];
        int r;

        r = parse_n(text, len, &pol);
        if (line > 0)
                snprintf(prefix, sizeof(prefix), FILENAME ":%u: ", line);
        else
                snprintf(prefix, sizeof(prefix), FILENAME ": ");
        if (r != expected || strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
                fprintf(stderr, "test-acl.c:%d: got r=%d err=\"%s\", expected \"%s...%s...\"\n",
                        src_line, r, err, prefix, what);
        CHECK_EQ(r, expected);
        CHECK(strncmp(err, prefix, strlen(prefix)) == 0);
        CHECK(strstr(err, what) != NULL);
        if (r >= 0)
                acl_policy_deinit(&pol);
}
#define EXPECT_ERROR(text, line, what) expect_error_r(text, strlen(text), -EINVAL, line, what, __LINE__)

static bool reason_has(const struct acl_verdict *v, const char *what) {
        return strstr(v->reason, what) != NULL;
}

static const struct acl_subject user1 = { .uid = 1001, .gid = 100 };
static const struct acl_subject user2 = { .uid = 1002, .gid = 100 };

static struct acl_request req_rt(uint64_t runtime, uint64_t period) {
        struct acl_request r = {
                .params = {
                        .flags = RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_PERIOD,
                        .runtime_us = runtime,
                        .period_us = period,
                },
        };

        r.util_ppb = acl_request_util_ppb(&r.params);
        return r;
}

static int check(const struct acl_policy *pol, const struct acl_subject *s, const char *plugin,
                 const struct acl_request *req, struct acl_verdict *v) {
        return acl_check(pol, s, plugin, req, NULL, 0, v);
}

/* Allowed, or prints why not. */
static bool allowed(const struct acl_policy *pol, const struct acl_subject *s, const char *plugin,
                    const struct acl_request *req) {
        struct acl_verdict v;
        int r = check(pol, s, plugin, req, &v);

        CHECK(r == ACL_ALLOW || r == ACL_DENY);
        CHECK_EQ(v.allowed, r == ACL_ALLOW);
        CHECK(v.reason[0] != '\0');
        return r == ACL_ALLOW;
}

/* ---- parsing ---- */

static void test_listing3(void) {
        static const char text[] =
                "# Domain Plugin-name Property Value\n"
                "# Limit the aggregate utilization of user1 on EDF to 70%\n"
                "user1 EDF max_utilization 0.7\n"
                "# Limit the CDROM group task period using any plugin to 9 ms\n"
                "@cdrom - max_period 9000\n";
        struct acl_policy pol = PARSE_OK(text);

        CHECK_EQ(pol.n_rules, 2);
        if (pol.n_rules != 2)
                return;
        CHECK_EQ(pol.rules[0].domain, ACL_DOMAIN_USER);
        CHECK_EQ(pol.rules[0].id, 1001);
        CHECK(strcmp(pol.rules[0].plugin, "EDF") == 0);
        CHECK_EQ(pol.rules[0].property, ACL_MAX_UTILIZATION);
        CHECK_EQ(pol.rules[0].value, 700000000);
        CHECK_EQ(pol.rules[0].line, 3);
        CHECK_EQ(pol.rules[1].domain, ACL_DOMAIN_GROUP);
        CHECK_EQ(pol.rules[1].id, 24);
        CHECK(strcmp(pol.rules[1].plugin, "") == 0);
        CHECK_EQ(pol.rules[1].property, ACL_MAX_PERIOD);
        CHECK_EQ(pol.rules[1].value, 9000);
        CHECK_EQ(pol.rules[1].line, 5);
        CHECK(strcmp(pol.filename, FILENAME) == 0);
        acl_policy_deinit(&pol);
        /* Idempotent, as a destructor on a cleanup path must be. */
        acl_policy_deinit(&pol);
        acl_policy_deinit(NULL);
}

static void test_syntax(void) {
        struct acl_policy pol;

        /* Empty files, blank lines, comments anywhere, tabs and CRLF, no final newline. */
        pol = PARSE_OK("");
        CHECK_EQ(pol.n_rules, 0);
        acl_policy_deinit(&pol);
        pol = PARSE_OK("\n\n   \n\t# only comments\n");
        CHECK_EQ(pol.n_rules, 0);
        acl_policy_deinit(&pol);
        pol = PARSE_OK("\tuser1\tRM  min_priority\t10 # comment\r\n- - max_runtime 5");
        CHECK_EQ(pol.n_rules, 2);
        if (pol.n_rules == 2) {
                CHECK_EQ(pol.rules[0].value, 10);
                CHECK_EQ(pol.rules[1].domain, ACL_DOMAIN_ALL);
                CHECK_EQ(pol.rules[1].line, 2);
        }
        acl_policy_deinit(&pol);

        /* A name of digits is looked up as a name. */
        pol = PARSE_OK("1234 - max_runtime 5\n");
        CHECK_EQ(pol.n_rules, 1);
        if (pol.n_rules == 1)
                CHECK_EQ(pol.rules[0].id, 4321);
        acl_policy_deinit(&pol);

        EXPECT_ERROR("\n1001 - max_runtime 5\n", 2, "unknown user \"1001\" (numeric ids are not accepted");
        EXPECT_ERROR("- - max_runtime 5\nnobody - max_runtime 5\n", 2, "unknown user \"nobody\"");
        EXPECT_ERROR("@nogroup - max_runtime 5\n", 1, "unknown group \"nogroup\"");
        EXPECT_ERROR("@user1 - max_runtime 5\n", 1, "unknown group \"user1\"");
        EXPECT_ERROR("cdrom - max_runtime 5\n", 1, "unknown user \"cdrom\"");
        EXPECT_ERROR("@ - max_runtime 5\n", 1, "empty group name");
        EXPECT_ERROR("#\n#\nuser1 XX max_runtime 5\n", 3, "unknown plugin \"XX\"");
        EXPECT_ERROR("user1 edf max_runtime 5\n", 1, "unknown plugin \"edf\"");
        EXPECT_ERROR("user1 EDF max_util 0.5\n", 1, "unknown property \"max_util\"");
        EXPECT_ERROR("user1 EDF MAX_RUNTIME 5\n", 1, "unknown property");
        EXPECT_ERROR("user1 EDF max_runtime\n", 1, "got 3 words");
        EXPECT_ERROR("user1 EDF max_runtime 5 6\n", 1, "got 5 words");
        EXPECT_ERROR("user1\n", 1, "got 1 word");
        EXPECT_ERROR("user1 EDF max_runtime 5#\nuser1 EDF max_runtime#5\n", 2, "got 3 words");
        EXPECT_ERROR("user1 EDF max_runtime \x01" "5\n", 1, "control character 0x01");
        EXPECT_ERROR("- - max_runtime 5\n- - max_runtime 5 \x7f\n", 2, "control character 0x7f");
        expect_error_r("- - max_runtime 5\n- - max\0_runtime 5\n", 37, -EINVAL, 2, "NUL byte", __LINE__);

        /* A lookup failure other than "no such name" is forwarded with its errno. */
        expect_error_r("broken - max_runtime 5\n", 23, -EIO, 1, "cannot look up user \"broken\"", __LINE__);
        expect_error_r("\n@broken - max_runtime 5\n", 25, -EIO, 2, "cannot look up group \"broken\"", __LINE__);

        /* Without callbacks nothing resolves, but `-` still works. */
        {
                const struct acl_lookup none = { 0 };
                static const char text[] = "- - max_runtime 5\nuser1 - max_runtime 5\n";

                CHECK_EQ(acl_parse(text, 18, FILENAME, &none, plugins, 4, &pol, err, sizeof(err)), 0);
                CHECK_EQ(pol.n_rules, 1);
                acl_policy_deinit(&pol);
                CHECK_EQ(acl_parse(text, sizeof(text) - 1, FILENAME, NULL, plugins, 4, &pol, err, sizeof(err)),
                         -EINVAL);
                CHECK(strstr(err, FILENAME ":2: unknown user") == err);
        }

        /* A configured name that no rule could store is as good as unknown. */
        {
                static const char *const long_names[] = {
                        "EDF", "P0123456789012345678901234567890123",
                };
                static const char text[] = "- P0123456789012345678901234567890123 max_runtime 5\n";

                CHECK_EQ(acl_parse(text, sizeof(text) - 1, FILENAME, &lookup, long_names, 2, &pol, err, sizeof(err)),
                         -EINVAL);
                CHECK(strstr(err, FILENAME ":1: unknown plugin") == err);
        }

        /* Invalid arguments. */
        CHECK_EQ(acl_parse(NULL, 1, FILENAME, &lookup, plugins, 4, &pol, err, sizeof(err)), -EINVAL);
        CHECK_EQ(acl_parse("", 0, FILENAME, &lookup, NULL, 4, &pol, err, sizeof(err)), -EINVAL);
        CHECK_EQ(acl_parse("", 0, FILENAME, &lookup, plugins, 4, NULL, err, sizeof(err)), -EINVAL);
        /* No plugin list: only `-` may be named, and NULL err is fine. */
        CHECK_EQ(acl_parse("- EDF max_runtime 5", 19, NULL, &lookup, NULL, 0, &pol, NULL, 0), -EINVAL);
        CHECK_EQ(acl_parse("- - max_runtime 5", 17, NULL, &lookup, NULL, 0, &pol, NULL, 0), 0);
        CHECK(strcmp(pol.filename, "<acl>") == 0);
        acl_policy_deinit(&pol);
}

static void test_limits(void) {
        struct acl_policy pol;
        char *text;
        size_t n;

        /* Lines: 4096 bytes (without '\n') are fine, 4097 are not. */
        text = malloc(4096 + 1 + 4097 + 2);
        if (!text)
                abort();
        memset(text, ' ', 4096);
        memcpy(text, "- - max_runtime 5", 17);
        text[4096] = '\n';
        memset(text + 4097, '#', 4097);
        text[4097 + 4097] = '\n';
        text[4097 + 4098] = '\0';
        EXPECT_ERROR(text, 2, "line longer than 4096 characters");
        /* The same, 4096 bytes on line 2, without a final newline. */
        text[4097 + 4096] = '\0';
        pol = PARSE_OK(text);
        CHECK_EQ(pol.n_rules, 1);
        acl_policy_deinit(&pol);
        free(text);

        /* Size: 1 MiB is fine, one more byte is not (the whole file, line 0). */
        n = ACL_MAX_SIZE + 1;
        text = malloc(n + 1);
        if (!text)
                abort();
        memset(text, '\n', n);
        text[n] = '\0';
        expect_error_r(text, n, -EINVAL, 0, "file is larger than 1048576 bytes", __LINE__);
        CHECK_EQ(parse_n(text, n - 1, &pol), 0);
        acl_policy_deinit(&pol);
        free(text);

        /* Rules: 4096 are fine (identical repeats only warn), the 4097th is not. */
        {
                static const char line[] = "- - max_runtime 5\n";
                size_t ll = sizeof(line) - 1;

                text = malloc(ll * (ACL_MAX_RULES + 1) + 1);
                if (!text)
                        abort();
                for (size_t i = 0; i <= ACL_MAX_RULES; i++)
                        memcpy(text + i * ll, line, ll);
                CHECK_EQ(parse_n(text, ll * ACL_MAX_RULES, &pol), (int)ACL_MAX_RULES - 1);
                CHECK_EQ(pol.n_rules, ACL_MAX_RULES);
                CHECK(strcmp(err, FILENAME ":2: rule repeats line 1") == 0);
                acl_policy_deinit(&pol);
                expect_error_r(text, ll * (ACL_MAX_RULES + 1), -EINVAL, ACL_MAX_RULES + 1, "too many rules (at most 4096)",
                               __LINE__);
                free(text);
        }

        /* Names longer than any login name. */
        {
                char line[600];

                snprintf(line, sizeof(line), "%0300d - max_runtime 5\n", 1);
                EXPECT_ERROR(line, 1, "user name is too long");
                snprintf(line, sizeof(line), "@%0300d - max_runtime 5\n", 1);
                EXPECT_ERROR(line, 1, "group name is too long");
        }
}

static void test_duplicates(void) {
        struct acl_policy pol;

        /* Same domain, plugin and property with another value: refused, naming both lines. */
        EXPECT_ERROR("user1 EDF max_period 9000\n\n\nuser1 EDF max_period 8000\n", 4,
                     "max_period 8000 contradicts max_period 9000 on line 1");
        EXPECT_ERROR("- - max_utilization 0.5\n- - max_utilization 0.50000001\n", 2,
                     "max_utilization 0.50000001 contradicts max_utilization 0.5 on line 1");
        EXPECT_ERROR("@audio - ignore_adm_test true\n@audio - ignore_adm_test false\n", 2,
                     "ignore_adm_test false contradicts ignore_adm_test true on line 1");
        /* Two names of one uid are one domain. */
        EXPECT_ERROR("user1 RM max_priority 50\nuser1alias RM max_priority 40\n", 2, "on line 1");

        /* The same value twice is allowed, with a warning. */
        CHECK_EQ(parse("user1 EDF max_period 9000\nuser1 EDF max_period 09000\n", &pol), 1);
        CHECK(strcmp(err, FILENAME ":2: rule repeats line 1") == 0);
        CHECK_EQ(pol.n_rules, 2);
        acl_policy_deinit(&pol);
        CHECK_EQ(parse("- - max_utilization 0.5\n- - max_utilization 0.500\nuser1 - min_period 1\n"
                       "- - max_utilization .5x\n", &pol), -EINVAL);
        CHECK(strstr(err, FILENAME ":4: ") == err);

        /* Another domain, plugin or property is another rule. */
        pol = PARSE_OK("user1 EDF max_period 9000\n"
                       "user2 EDF max_period 8000\n"
                       "user1 RM max_period 7000\n"
                       "user1 - max_period 6000\n"
                       "@cdrom EDF max_period 5000\n"
                       "- EDF max_period 4000\n"
                       "user1 EDF min_period 9000\n");
        CHECK_EQ(pol.n_rules, 7);
        acl_policy_deinit(&pol);
}

static void test_min_max(void) {
        struct acl_policy pol;

        EXPECT_ERROR("user1 EDF max_period 9000\nuser1 EDF min_period 9001\n", 2,
                     "min_period 9001 and max_period 9000 on line 1 cannot both hold");
        EXPECT_ERROR("user1 EDF min_period 9001\n#\nuser1 EDF max_period 9000\n", 3,
                     "max_period 9000 and min_period 9001 on line 1 cannot both hold");
        EXPECT_ERROR("- - min_deadline 2\n- - max_deadline 1\n", 2, "on line 1");
        EXPECT_ERROR("@audio FP max_priority 10\n@audio FP min_priority 11\n", 2, "on line 1");

        /* Equal bounds pin the value; different subjects do not pair. */
        pol = PARSE_OK("user1 EDF max_period 9000\nuser1 EDF min_period 9000\n"
                       "- - min_deadline 5\n- EDF max_deadline 4\n"
                       "user1 - min_priority 50\nuser2 - max_priority 40\n"
                       "- - min_period 10\n- - max_deadline 5\n");
        CHECK_EQ(pol.n_rules, 8);
        acl_policy_deinit(&pol);
}

struct boundary {
        const char *property;
        const char *ok[4];
        const char *bad[10];
        uint64_t ok_values[4];
};

static void test_value_boundaries(void) {
        static const struct boundary b[] = {
                { "max_utilization",
                  { "0.000000001", "4294967295.999999999", "0.7", "2" },
                  { "0", "0.000000000", "0.0000000001", "4294967296", "1.", ".5", "-1", "+1", "1e3", "0x1" },
                  { 1, UINT64_C(4294967295999999999), 700000000, 2000000000 } },
                { "max_runtime",
                  { "1", "4294967296", "0001", NULL },
                  { "0", "4294967297", "-1", "1.5", "18446744073709551617", "1us", NULL },
                  { 1, UINT64_C(4294967296), 1 } },
                { "min_period",
                  { "1", "4294967296", NULL, NULL },
                  { "0", "4294967297", NULL },
                  { 1, UINT64_C(4294967296) } },
                { "max_period",
                  { "1", "4294967296", NULL, NULL },
                  { "0", "4294967297", NULL },
                  { 1, UINT64_C(4294967296) } },
                { "min_deadline",
                  { "1", "4294967296", NULL, NULL },
                  { "0", "4294967297", NULL },
                  { 1, UINT64_C(4294967296) } },
                { "max_deadline",
                  { "1", "4294967296", NULL, NULL },
                  { "0", "4294967297", NULL },
                  { 1, UINT64_C(4294967296) } },
                { "min_priority",
                  { "1", "99", NULL, NULL },
                  { "0", "100", "-1", NULL },
                  { 1, 99 } },
                { "max_priority",
                  { "1", "99", NULL, NULL },
                  { "0", "100", "1000000000000", NULL },
                  { 1, 99 } },
                { "ignore_adm_test",
                  { "true", "false", NULL, NULL },
                  { "True", "1", "yes", "0", "truee", NULL },
                  { 1, 0 } },
        };

        for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
                char line[128];

                for (size_t k = 0; k < 4 && b[i].ok[k]; k++) {
                        struct acl_policy pol;

                        snprintf(line, sizeof(line), "#\nuser1 FP %s %s\n", b[i].property, b[i].ok[k]);
                        pol = parse_ok(line, __LINE__);
                        CHECK_EQ(pol.n_rules, 1);
                        if (pol.n_rules == 1) {
                                CHECK(strcmp(acl_property_to_string(pol.rules[0].property), b[i].property) == 0);
                                CHECK_EQ(pol.rules[0].value, b[i].ok_values[k]);
                        }
                        acl_policy_deinit(&pol);
                }
                for (size_t k = 0; k < 10 && b[i].bad[k]; k++) {
                        snprintf(line, sizeof(line), "#\nuser1 FP %s %s\n", b[i].property, b[i].bad[k]);
                        expect_error_r(line, strlen(line), -EINVAL, 2, b[i].property, __LINE__);
                }
        }
        EXPECT_ERROR("- - max_utilization 0.0000000001\n", 1, "more than 9 decimals");
        EXPECT_ERROR("- - max_utilization 0\n", 1, "greater than 0");
        CHECK(acl_property_to_string(_ACL_PROPERTY_MAX) == NULL);
}

/* ---- evaluation ---- */

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
        test_listing3();
        test_syntax();
        test_limits();
        test_duplicates();
        test_min_max();
        test_value_boundaries();
        test_check_boundaries();
        test_undeclared();
        test_default_deny();
        test_groups();
        test_plugins();
        test_ignore_admission();
        test_intersection();
        test_aggregate();
        test_util();
        test_latency_hint();
        CHECK(lookups > 0);
        return test_done();
}
