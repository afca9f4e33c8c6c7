/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtfd's access-control policy (section 4 of the paper): the parser. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl-fixture.h"
#include "tap.h"

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
        EXPECT_ERROR_N("- - max_runtime 5\n- - max\0_runtime 5\n", 37, -EINVAL, 2, "NUL byte");

        /* A lookup failure other than "no such name" is forwarded with its errno. */
        EXPECT_ERROR_N("broken - max_runtime 5\n", 23, -EIO, 1, "cannot look up user \"broken\"");
        EXPECT_ERROR_N("\n@broken - max_runtime 5\n", 25, -EIO, 2, "cannot look up group \"broken\"");

        /* Without callbacks nothing resolves, but `-` still works. */
        {
                const struct acl_lookup none = { 0 };
                static const char text[] = "- - max_runtime 5\nuser1 - max_runtime 5\n";

                CHECK_EQ(acl_parse(text, 18, FILENAME, &none, acl_plugins, 4, &pol, acl_err, sizeof(acl_err)), 0);
                CHECK_EQ(pol.n_rules, 1);
                acl_policy_deinit(&pol);
                CHECK_EQ(acl_parse(text, sizeof(text) - 1, FILENAME, NULL, acl_plugins, 4, &pol, acl_err,
                                   sizeof(acl_err)),
                         -EINVAL);
                CHECK(strstr(acl_err, FILENAME ":2: unknown user") == acl_err);
        }

        /* A configured name that no rule could store is as good as unknown. */
        {
                static const char *const long_names[] = {
                        "EDF", "P0123456789012345678901234567890123",
                };
                static const char text[] = "- P0123456789012345678901234567890123 max_runtime 5\n";

                CHECK_EQ(acl_parse(text, sizeof(text) - 1, FILENAME, &acl_fake_lookup, long_names, 2, &pol, acl_err,
                                   sizeof(acl_err)),
                         -EINVAL);
                CHECK(strstr(acl_err, FILENAME ":1: unknown plugin") == acl_err);
        }

        /* Invalid arguments. */
        CHECK_EQ(acl_parse(NULL, 1, FILENAME, &acl_fake_lookup, acl_plugins, 4, &pol, acl_err, sizeof(acl_err)),
                 -EINVAL);
        CHECK_EQ(acl_parse("", 0, FILENAME, &acl_fake_lookup, NULL, 4, &pol, acl_err, sizeof(acl_err)), -EINVAL);
        CHECK_EQ(acl_parse("", 0, FILENAME, &acl_fake_lookup, acl_plugins, 4, NULL, acl_err, sizeof(acl_err)),
                 -EINVAL);
        /* No plugin list: only `-` may be named, and NULL err is fine. */
        CHECK_EQ(acl_parse("- EDF max_runtime 5", 19, NULL, &acl_fake_lookup, NULL, 0, &pol, NULL, 0), -EINVAL);
        CHECK_EQ(acl_parse("- - max_runtime 5", 17, NULL, &acl_fake_lookup, NULL, 0, &pol, NULL, 0), 0);
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
        EXPECT_ERROR_N(text, n, -EINVAL, 0, "file is larger than 1048576 bytes");
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
                CHECK(strcmp(acl_err, FILENAME ":2: rule repeats line 1") == 0);
                acl_policy_deinit(&pol);
                EXPECT_ERROR_N(text, ll * (ACL_MAX_RULES + 1), -EINVAL, ACL_MAX_RULES + 1,
                               "too many rules (at most 4096)");
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
        CHECK(strcmp(acl_err, FILENAME ":2: rule repeats line 1") == 0);
        CHECK_EQ(pol.n_rules, 2);
        acl_policy_deinit(&pol);
        CHECK_EQ(parse("- - max_utilization 0.5\n- - max_utilization 0.500\nuser1 - min_period 1\n"
                       "- - max_utilization .5x\n", &pol), -EINVAL);
        CHECK(strstr(acl_err, FILENAME ":4: ") == acl_err);

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
                        pol = PARSE_OK(line);
                        CHECK_EQ(pol.n_rules, 1);
                        if (pol.n_rules == 1) {
                                CHECK(strcmp(acl_property_to_string(pol.rules[0].property), b[i].property) == 0);
                                CHECK_EQ(pol.rules[0].value, b[i].ok_values[k]);
                        }
                        acl_policy_deinit(&pol);
                }
                for (size_t k = 0; k < 10 && b[i].bad[k]; k++) {
                        snprintf(line, sizeof(line), "#\nuser1 FP %s %s\n", b[i].property, b[i].bad[k]);
                        EXPECT_ERROR_N(line, strlen(line), -EINVAL, 2, b[i].property);
                }
        }
        EXPECT_ERROR("- - max_utilization 0.0000000001\n", 1, "more than 9 decimals");
        EXPECT_ERROR("- - max_utilization 0\n", 1, "greater than 0");
        CHECK(acl_property_to_string(_ACL_PROPERTY_MAX) == NULL);
}

/* ---- evaluation ---- */
int main(void) {
        static void (*const tests[])(void) = {
                test_listing3, test_syntax, test_limits, test_duplicates, test_min_max, test_value_boundaries,
        };

        return acl_tests_run(tests, ELEMS(tests));
}
