/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"
#include "log.h"
#include "manager.h"
#include "trusted.h"

static int lookup_user(void *data, const char *name, uint32_t *ret_uid) {
        struct passwd pw, *res = NULL;
        char buf[4096];

        if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) != 0 || !res)
                return -ENOENT;
        *ret_uid = (uint32_t)pw.pw_uid;
        return 0;
}

static int lookup_group(void *data, const char *name, uint32_t *ret_gid) {
        struct group gr, *res = NULL;
        char buf[16384];

        if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) != 0 || !res)
                return -ENOENT;
        *ret_gid = (uint32_t)gr.gr_gid;
        return 0;
}

int access_parse_file(const char *path, bool required, const char *const *plugins, size_t n_plugins,
                      struct acl_policy *ret) {
        static const struct acl_lookup lookup = { .user = lookup_user, .group = lookup_group };
        _cleanup_(freep) char *buf = NULL;
        const char *base;
        char err[512];
        size_t len = 0;
        int r;

        r = trusted_read(path, ACL_MAX_SIZE, "access-control policy", &buf, &len);
        if (r == -ENOENT && !required)
                log_notice("No access-control policy at %s: only root may reserve anything", path);
        else if (r == -ENOENT)
                return log_error_errno(r, "Access-control policy %s does not exist", path);
        else if (r < 0)
                return r;
        /* Reasons sent to clients are short: name the file by its base name. */
        base = strrchr(path, '/');
        base = base ? base + 1 : path;
        r = acl_parse(buf ? buf : "", len, base, &lookup, plugins, n_plugins, ret, err, sizeof(err));
        if (r < 0)
                log_error("%s (in %s)", err, path);
        else if (r > 0)
                log_warning("%s (in %s)", err, path);
        return r < 0 ? r : 0;
}

int access_install(struct access *a, struct acl_policy *p) {
        uint64_t *u = calloc(p->n_rules ? p->n_rules : 1, sizeof(*u));

        if (!u)
                return -ENOMEM;
        acl_policy_deinit(&a->policy);
        free(a->usage);
        a->policy = *p;
        *p = ACL_POLICY_NULL;
        a->usage = u;
        return 0;
}

void access_done(struct access *a) {
        acl_policy_deinit(&a->policy);
        free(a->usage);
        a->usage = NULL;
}

const char *access_policy_name(const struct access *a) {
        return a->policy.filename ? a->policy.filename : "(no policy)";
}

size_t access_rules(const struct access *a) {
        return a->policy.n_rules;
}

static void subject_of(const struct owner *o, struct acl_subject *s) {
        *s = (struct acl_subject){
                .uid = (uint32_t)o->uid,
                .gid = (uint32_t)o->gid,
                .groups = o->groups,
                .n_groups = o->n_groups,
        };
}

bool access_check(const struct access *a, const struct owner *o, const char *plugin, const struct rtf_task_params *req,
                  char *reason, size_t reason_size, unsigned *ret_line) {
        struct acl_request ar = { .params = *req };
        struct acl_subject s;
        struct acl_verdict v;
        int r;

        *ret_line = 0;
        if (o->uid == 0)
                return true;
        subject_of(o, &s);
        ar.util_ppb = acl_request_util_ppb(req);
        r = acl_check(&a->policy, &s, plugin, &ar, a->usage, a->policy.n_rules, &v);
        if (r < 0) {
                snprintf(reason, reason_size, "access check failed: %s", strerror(-r));
                return false;
        }
        *ret_line = v.line;
        if (r != ACL_ALLOW)
                snprintf(reason, reason_size, "%s", v.reason);
        return r == ACL_ALLOW;
}

bool access_latency_hint(const struct access *a, const struct owner *o, const char *plugin) {
        struct acl_subject s;

        if (o->uid == 0)
                return true;
        subject_of(o, &s);
        return acl_grants_latency_hint(&a->policy, &s, plugin);
}

struct count_op {
        uint64_t *usage;
        uint64_t amount;
        bool add;
};

static void count_rule(void *data, size_t rule) {
        const struct count_op *op = data;

        if (op->add)
                op->usage[rule] += op->amount;
        else
                op->usage[rule] -= MIN(op->amount, op->usage[rule]);
}

void access_count(struct access *a, const struct owner *o, const char *plugin, uint64_t util_ppb, bool add) {
        struct count_op op = { .usage = a->usage, .amount = util_ppb, .add = add };
        struct acl_subject s;

        if (o->uid == 0 || util_ppb == 0)
                return;
        subject_of(o, &s);
        acl_for_each_util_rule(&a->policy, &s, plugin, count_rule, &op);
}
