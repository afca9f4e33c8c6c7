/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the access-control policy parser with a fake name service, and
 * every policy it accepts with a few fixed requests.  Aborts on any broken
 * invariant the daemon relies on: rules within their ranges, errors that
 * name the file, verdicts that name a rule that really matches, and no grant
 * beyond a max_utilization limit.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"

#define FUZZ_FILENAME "fuzz.acl"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const plugins[] = { "EDF", "RM", "FP", "RR" };
#define N_PLUGINS (sizeof(plugins) / sizeof(plugins[0]))

static int fake_user(void *data, const char *name, uint32_t *ret) {
        if (strcmp(name, "root") == 0)
                *ret = 0;
        else if (strcmp(name, "user1") == 0)
                *ret = 1001;
        else
                return -ENOENT;
        return 0;
}

static int fake_group(void *data, const char *name, uint32_t *ret) {
        if (strcmp(name, "audio") != 0)
                return -ENOENT;
        *ret = 29;
        return 0;
}

static const struct acl_lookup lookup = { .user = fake_user, .group = fake_group };

static const uint32_t audio_groups[] = { 5, 29 };
static const struct acl_subject subjects[] = {
        { .uid = 0, .gid = 0 },
        { .uid = 1001, .gid = 100, .groups = audio_groups, .n_groups = 2 },
        { .uid = 1002, .gid = 29 },
        { .uid = 4242, .gid = 4242 },
};

static const struct rtf_task_params requests[] = {
        { .flags = RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_PERIOD, .runtime_us = 1000, .period_us = 3000 },
        { .flags = RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_DES_RUNTIME |
                   RTF_PARAM_HAS_DEADLINE | RTF_PARAM_HAS_PRIORITY | RTF_PARAM_IGNORE_ADMISSION,
          .runtime_us = 500, .des_runtime_us = 9000, .period_us = 9000, .deadline_us = 5000, .priority = 50 },
        { .flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_PRIORITY, .period_us = 1, .priority = 99 },
        { .flags = 0 },
        { .flags = RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_PRIORITY,
          .runtime_us = UINT64_C(1) << 32, .period_us = UINT64_C(1) << 32, .priority = 1 },
};

static bool domain_matches(const struct acl_rule *r, const struct acl_subject *s) {
        switch (r->domain) {
        case ACL_DOMAIN_ALL:
                return true;
        case ACL_DOMAIN_USER:
                return r->id == s->uid;
        case ACL_DOMAIN_GROUP:
                if (r->id == s->gid)
                        return true;
                for (size_t i = 0; i < s->n_groups; i++)
                        if (s->groups[i] == r->id)
                                return true;
                return false;
        }
        abort();
}

static bool matches(const struct acl_rule *r, const struct acl_subject *s, const char *plugin) {
        return domain_matches(r, s) && (r->plugin[0] == '\0' || strcmp(r->plugin, plugin) == 0);
}

static void check_rules(const struct acl_policy *p) {
        unsigned last_line = 0;

        if (p->n_rules > ACL_MAX_RULES || (p->n_rules > 0 && !p->rules) || !p->filename ||
            strcmp(p->filename, FUZZ_FILENAME) != 0)
                abort();
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct acl_rule *r = &p->rules[i];
                bool known = r->plugin[0] == '\0';

                if (r->line <= last_line)
                        abort();
                last_line = r->line;
                if (r->domain == ACL_DOMAIN_ALL && r->id != 0)
                        abort();
                if (r->domain == ACL_DOMAIN_USER && r->id != 0 && r->id != 1001)
                        abort();
                if (r->domain == ACL_DOMAIN_GROUP && r->id != 29)
                        abort();
                for (size_t k = 0; k < N_PLUGINS; k++)
                        known |= strcmp(r->plugin, plugins[k]) == 0;
                if (!known || !acl_property_to_string(r->property))
                        abort();
                switch (r->property) {
                case ACL_MAX_UTILIZATION:
                        if (r->value == 0 || r->value >= (UINT64_C(1) << 32) * ACL_UTIL_ONE)
                                abort();
                        break;
                case ACL_MIN_PRIORITY:
                case ACL_MAX_PRIORITY:
                        if (r->value < ACL_PRIORITY_MIN || r->value > ACL_PRIORITY_MAX)
                                abort();
                        break;
                case ACL_IGNORE_ADM_TEST:
                case ACL_LATENCY_HINT:
                        if (r->value > 1)
                                abort();
                        break;
                default:
                        if (r->value == 0 || r->value > ACL_TIME_MAX_US)
                                abort();
                        break;
                }
                /* No two rules disagree on one limit. */
                for (size_t k = 0; k < i; k++) {
                        const struct acl_rule *q = &p->rules[k];

                        if (q->domain == r->domain && q->id == r->id && strcmp(q->plugin, r->plugin) == 0 &&
                            q->property == r->property && q->value != r->value)
                                abort();
                }
        }
}

struct count {
        const struct acl_policy *p;
        const struct acl_subject *s;
        const char *plugin;
        size_t last;
        int n;
};

static void count_util_rule(void *data, size_t rule) {
        struct count *c = data;

        if (rule >= c->p->n_rules || (c->n > 0 && rule <= c->last) ||
            c->p->rules[rule].property != ACL_MAX_UTILIZATION || !matches(&c->p->rules[rule], c->s, c->plugin))
                abort();
        c->last = rule;
        c->n++;
}

static void check_verdicts(const struct acl_policy *p, uint64_t *usage, uint64_t fill) {
        for (size_t si = 0; si < sizeof(subjects) / sizeof(subjects[0]); si++)
                for (size_t pi = 0; pi <= N_PLUGINS; pi++) {
                        /* One name that no rule can mention. */
                        const char *plugin = pi < N_PLUGINS ? plugins[pi] : "unknown";
                        const struct acl_subject *s = &subjects[si];
                        struct count c = { p, s, plugin, 0, 0 };
                        bool any = false;
                        int n;

                        for (size_t i = 0; i < p->n_rules; i++)
                                any |= matches(&p->rules[i], s, plugin);
                        n = acl_for_each_util_rule(p, s, plugin, count_util_rule, &c);
                        if (n != c.n)
                                abort();
                        /* The latency hint: some matching rule grants it, none withdraws it. */
                        {
                                bool yes = false, no = false;

                                for (size_t i = 0; i < p->n_rules; i++) {
                                        const struct acl_rule *r = &p->rules[i];

                                        if (r->property == ACL_LATENCY_HINT && matches(r, s, plugin)) {
                                                yes |= r->value != 0;
                                                no |= r->value == 0;
                                        }
                                }
                                if (acl_grants_latency_hint(p, s, plugin) != (yes && !no))
                                        abort();
                        }

                        for (size_t ri = 0; ri < sizeof(requests) / sizeof(requests[0]); ri++) {
                                struct acl_request req = { .params = requests[ri] };
                                struct acl_verdict v;
                                int r;

                                req.util_ppb = acl_request_util_ppb(&req.params);
                                r = acl_check(p, s, plugin, &req, usage, usage ? p->n_rules : 0, &v);
                                if (r != ACL_ALLOW && r != ACL_DENY)
                                        abort();
                                if (v.allowed != (r == ACL_ALLOW) || !memchr(v.reason, '\0', sizeof(v.reason)) ||
                                    v.reason[0] == '\0')
                                        abort();
                                /* Default deny. */
                                if (!any && r == ACL_ALLOW)
                                        abort();
                                if (v.rule < -1 || (v.rule >= 0 && (size_t)v.rule >= p->n_rules))
                                        abort();
                                if (v.rule >= 0) {
                                        if (!matches(&p->rules[v.rule], s, plugin) || v.line != p->rules[v.rule].line)
                                                abort();
                                } else if (v.line != 0 || r == ACL_ALLOW)
                                        abort();
                                if (r != ACL_ALLOW)
                                        continue;
                                /* A grant keeps within every limit that applies. */
                                for (size_t i = 0; i < p->n_rules; i++) {
                                        const struct acl_rule *rule = &p->rules[i];

                                        if (rule->property != ACL_MAX_UTILIZATION || !matches(rule, s, plugin))
                                                continue;
                                        if (fill > rule->value || req.util_ppb > rule->value - fill)
                                                abort();
                                }
                                if ((req.params.flags & RTF_PARAM_IGNORE_ADMISSION)) {
                                        bool granted = false;

                                        for (size_t i = 0; i < p->n_rules; i++)
                                                if (p->rules[i].property == ACL_IGNORE_ADM_TEST &&
                                                    matches(&p->rules[i], s, plugin)) {
                                                        if (p->rules[i].value == 0)
                                                                abort();
                                                        granted = true;
                                                }
                                        if (!granted)
                                                abort();
                                }
                        }
                }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct acl_policy p = ACL_POLICY_NULL;
        uint64_t *usage;
        char err[256];
        int r;

        r = acl_parse((const char *)data, size, FUZZ_FILENAME, &lookup, plugins, N_PLUGINS, &p, err, sizeof(err));
        if (r < 0) {
                if (r != -EINVAL && r != -ENOMEM)
                        abort();
                if (r == -EINVAL && strncmp(err, FUZZ_FILENAME ":", strlen(FUZZ_FILENAME ":")) != 0)
                        abort();
                /* Untouched on error. */
                if (p.rules || p.n_rules || p.filename)
                        abort();
                return 0;
        }
        if (r > 0 && strncmp(err, FUZZ_FILENAME ":", strlen(FUZZ_FILENAME ":")) != 0)
                abort();
        if ((size_t)r >= ACL_MAX_RULES || (r > 0 && (size_t)r >= p.n_rules))
                abort();

        check_rules(&p);

        /* Nothing held, then every rule already at 0.5 CPU. */
        check_verdicts(&p, NULL, 0);
        usage = calloc(p.n_rules ? p.n_rules : 1, sizeof(*usage));
        if (!usage)
                abort();
        for (size_t i = 0; i < p.n_rules; i++)
                usage[i] = ACL_UTIL_ONE / 2;
        check_verdicts(&p, usage, ACL_UTIL_ONE / 2);
        free(usage);

        acl_policy_deinit(&p);
        acl_policy_deinit(&p);
        return 0;
}
