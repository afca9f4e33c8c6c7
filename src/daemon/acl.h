/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfd's access-control policy (section 4 of the ReTiF paper): a whitelist of
 * rules, one a line, in the format of Listing 3:
 *
 *   # Domain  Plugin-name  Property         Value
 *   user1     EDF          max_utilization  0.7
 *   @cdrom    -            max_period       9000
 *
 * Domain is a user name, @group, or `-` (everyone); Plugin-name is a plugin
 * instance of rtfd's configuration, or `-` (any plugin).  The properties are
 * those of Table 5:
 *
 *   max_utilization                  > 0, in CPUs, at most 9 decimals (kept in ppb)
 *   max_runtime                      us, 1..2^32
 *   min_period, max_period           us, 1..2^32
 *   min_deadline, max_deadline       us, 1..2^32
 *   min_priority, max_priority       1..99
 *   ignore_adm_test                  true | false
 *   latency_hint                     true | false: while a thread of the
 *                                    subject's is attached, rtfd may hold
 *                                    /dev/cpu_dma_latency (off unless granted)
 *
 * Default deny: a request is refused unless at least one rule matches its
 * subject and plugin, and then every matching rule must hold (section 4.3).
 *
 * Pure code: no OS calls.  Names are resolved through struct acl_lookup, so
 * the parser runs in unit tests and under a fuzzer with fake users.  The
 * module never treats uid 0 specially; whether root bypasses the policy is
 * the daemon's decision.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtf/rtf.h"
#include "rtf/rtf-plugin.h"
#include "task-params.h"

#define ACL_MAX_SIZE (1u << 20)         /* bytes of a policy file */
#define ACL_LINE_MAX 4096u              /* bytes of a line, without its '\n' */
#define ACL_MAX_RULES 4096u
#define ACL_NAME_MAX 256u               /* bytes of a user or group name, as LOGIN_NAME_MAX */
#define ACL_TIME_MAX_US RTF_TIME_LIMIT_US      /* a bound at least as large as any valid time */
#define ACL_PRIORITY_MIN RTF_PRIORITY_MIN
#define ACL_PRIORITY_MAX RTF_PRIORITY_MAX
#define ACL_UTIL_ONE UINT64_C(1000000000)       /* one full CPU, in ppb */
#define ACL_GROUPS_MAX 65536u           /* NGROUPS_MAX of Linux */
#define ACL_REASON_MAX 128u             /* what a reply to the client carries (RTF_REASON_MAX) */

enum acl_property {
        ACL_MAX_UTILIZATION,            /* value in ppb */
        ACL_MAX_RUNTIME,                /* value in us */
        ACL_MIN_PERIOD,
        ACL_MAX_PERIOD,
        ACL_MIN_DEADLINE,
        ACL_MAX_DEADLINE,
        ACL_MIN_PRIORITY,               /* value 1..99 */
        ACL_MAX_PRIORITY,
        ACL_IGNORE_ADM_TEST,            /* value 0 or 1 */
        ACL_LATENCY_HINT,               /* value 0 or 1; bounds nothing, see acl_grants_latency_hint() */
        _ACL_PROPERTY_MAX,
};

enum acl_domain {
        ACL_DOMAIN_ALL,                 /* `-` */
        ACL_DOMAIN_USER,                /* id is a uid */
        ACL_DOMAIN_GROUP,               /* id is a gid */
};

struct acl_rule {
        enum acl_domain domain;
        uint32_t id;
        char plugin[RTF_PLUGIN_NAME_MAX];       /* "" = any plugin */
        enum acl_property property;
        uint64_t value;
        unsigned line;
};

struct acl_policy {
        struct acl_rule *rules;         /* in file order */
        size_t n_rules;
        char *filename;                 /* for reasons: "FILE:LINE" */
};

#define ACL_POLICY_NULL ((struct acl_policy){ 0 })

/*
 * Name resolution, provided by the daemon (getpwnam_r/getgrnam_r) or by
 * tests.  Each returns 0 and writes the id, -ENOENT if there is no such name,
 * or another negative errno, which acl_parse() forwards.  A NULL callback
 * resolves nothing.
 */
struct acl_lookup {
        int (*user)(void *data, const char *name, uint32_t *ret_uid);
        int (*group)(void *data, const char *name, uint32_t *ret_gid);
        void *data;
};

/*
 * Parse `len` bytes of `buf` (not NUL-terminated).  `filename` is used in
 * messages and kept in the policy for reasons; `plugins` are the configured
 * plugin instance names a rule may name.
 *
 * Returns the number of warnings (rules that repeat an earlier rule
 * identically; the first is described in err) and fills *ret (free with
 * acl_policy_deinit()); or -EINVAL with "FILE:LINE: message" in err; or
 * -ENOMEM; or a lookup's negative errno (message in err).  An empty policy is
 * valid: it denies everything.
 */
int acl_parse(const char *buf, size_t len, const char *filename, const struct acl_lookup *lookup,
              const char *const *plugins, size_t n_plugins, struct acl_policy *ret, char *err,
              size_t errlen);

void acl_policy_deinit(struct acl_policy *p);

const char *acl_property_to_string(enum acl_property p);

/*
 * Who asks: the peer's uid, primary gid and all supplementary groups (the
 * paper uses only the effective group; a member of @audio through a
 * supplementary group is still a member).
 */
struct acl_subject {
        uint32_t uid;
        uint32_t gid;
        const uint32_t *groups;
        size_t n_groups;                /* at most ACL_GROUPS_MAX */
};

struct acl_request {
        struct rtf_task_params params;  /* flags are RTF_PARAM_* */
        uint64_t util_ppb;              /* normally acl_request_util_ppb(&params) */
};

struct acl_verdict {
        bool allowed;
        /* Denied: the violated rule, or -1 (no rule matched, or none grants ignore_adm_test).
         * Allowed: the first matching rule. */
        int32_t rule;
        unsigned line;                  /* of that rule, 0 if none */
        char reason[ACL_REASON_MAX];    /* "uid 1001: period 500 us < min_period 1000 (acl.conf:7)" */
};

/* Outcomes of acl_check(). */
enum {
        ACL_ALLOW = 0,
        ACL_DENY = 1,
};

/*
 * May `subject` place `req` on plugin instance `plugin`?
 *
 * usage[i] is the utilisation (ppb) already held toward max_utilization rule
 * i by the live specifications that count toward it (see
 * acl_for_each_util_rule()); when a specification changes, its own old
 * contribution must already be subtracted.  usage is NULL (nothing held) or
 * has exactly p->n_rules entries; entries of other rules are ignored.
 *
 * Returns ACL_ALLOW or ACL_DENY and fills *ret_verdict in both cases, or
 * -EINVAL for invalid arguments.
 */
int acl_check(const struct acl_policy *p, const struct acl_subject *subject, const char *plugin,
              const struct acl_request *req, const uint64_t *usage, size_t n_usage,
              struct acl_verdict *ret_verdict);

/*
 * Calls fn for every max_utilization rule that a specification of `subject`
 * on `plugin` counts toward, in rule order: the daemon adds the spec's
 * utilisation to those rules' sums when it is granted and subtracts it when
 * it changes or is released.  A rule's sum is shared by everything its
 * domain covers: `- EDF max_utilization 1` caps all users together on EDF,
 * `@audio - max_utilization 0.5` the members of audio together (section 4.2,
 * i: the aggregate is kept per subject of the rule).  Returns the number of
 * calls, or -EINVAL.
 */
int acl_for_each_util_rule(const struct acl_policy *p, const struct acl_subject *subject,
                           const char *plugin, void (*fn)(void *data, size_t rule), void *data);

/*
 * Whether `subject`'s threads on `plugin` may hold the latency hint: at least
 * one matching rule says `latency_hint true` and none says false (the hint
 * costs the whole machine power, so it is off unless granted).
 */
bool acl_grants_latency_hint(const struct acl_policy *p, const struct acl_subject *subject, const char *plugin);

/*
 * max(Q, Qd) / min(T, D) in ppb, rounded up (a load is never under-counted);
 * 0 when the runtime or the period is missing.  Saturates at UINT64_MAX.
 */
uint64_t acl_request_util_ppb(const struct rtf_task_params *params);
