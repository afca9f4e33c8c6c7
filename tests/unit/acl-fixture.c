/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fixture of the access-control tests: see acl-fixture.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl-fixture.h"
#include "tap.h"

const char *const acl_plugins[4] = { "EDF", "RM", "FP", "RR" };

char acl_err[512];

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

const struct acl_lookup acl_fake_lookup = { .user = fake_user, .group = fake_group, .data = &lookups };

/* ---- helpers ---- */

int parse_n(const char *text, size_t len, struct acl_policy *ret) {
        struct acl_policy sentinel, pol;
        char *copy = test_copy_exact(text, len);
        int r;

        memset(&sentinel, 0x5A, sizeof(sentinel));
        pol = sentinel;
        memset(acl_err, 'x', sizeof(acl_err) - 1);
        acl_err[sizeof(acl_err) - 1] = '\0';
        r = acl_parse(copy, len, FILENAME, &acl_fake_lookup, acl_plugins, sizeof(acl_plugins) / sizeof(acl_plugins[0]),
                      &pol, acl_err, sizeof(acl_err));
        free(copy);
        if (r < 0)
                /* *ret is untouched on error. */
                CHECK(memcmp(&pol, &sentinel, sizeof(pol)) == 0);
        else if (r == 0)
                CHECK_EQ(acl_err[0], '\0');
        *ret = pol;
        return r;
}

int parse(const char *text, struct acl_policy *ret) {
        return parse_n(text, strlen(text), ret);
}

struct acl_policy parse_ok(const char *text, const char *src_file, int src_line) {
        struct acl_policy pol = ACL_POLICY_NULL;
        int r = parse(text, &pol);

        if (r != 0) {
                fprintf(stderr, "%s:%d: parse failed: r=%d err=\"%s\"\n", src_file, src_line, r, acl_err);
                pol = ACL_POLICY_NULL;
        }
        CHECK_EQ(r, 0);
        return pol;
}

void expect_error_r(const char *text, size_t len, int expected, unsigned line, const char *what,
                    const char *src_file, int src_line) {
        struct acl_policy pol;
        int r = parse_n(text, len, &pol);

        check_parse_error(r, expected, acl_err, FILENAME, line, what, src_file, src_line);
        if (r >= 0)
                acl_policy_deinit(&pol);
}

bool reason_has(const struct acl_verdict *v, const char *what) {
        return strstr(v->reason, what) != NULL;
}

const struct acl_subject user1 = { .uid = 1001, .gid = 100 };
const struct acl_subject user2 = { .uid = 1002, .gid = 100 };

struct acl_request req_rt(uint64_t runtime, uint64_t period) {
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

int check(const struct acl_policy *pol, const struct acl_subject *s, const char *plugin,
          const struct acl_request *req, struct acl_verdict *v) {
        return acl_check(pol, s, plugin, req, NULL, 0, v);
}

bool allowed(const struct acl_policy *pol, const struct acl_subject *s, const char *plugin,
             const struct acl_request *req) {
        struct acl_verdict v;
        int r = check(pol, s, plugin, req, &v);

        CHECK(r == ACL_ALLOW || r == ACL_DENY);
        CHECK_EQ(v.allowed, r == ACL_ALLOW);
        CHECK(v.reason[0] != '\0');
        return r == ACL_ALLOW;
}

int acl_tests_run(void (*const *tests)(void), size_t n) {
        for (size_t i = 0; i < n; i++)
                tests[i]();
        CHECK(lookups > 0);
        return test_done();
}
