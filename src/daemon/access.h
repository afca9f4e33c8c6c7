/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The administrator's access-control policy in force (section 4 of the
 * paper): loading the policy file, the per-rule utilisation sums of the live
 * specifications, and the check of a request.  The rules themselves are the
 * pure module acl.c.
 *
 * Root is not subject to the policy (it could set any policy with chrt
 * anyway) and its specifications count toward no rule.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl.h"

struct owner;

/*
 * Read and parse `path`: a regular file owned by root (or rtfd's user) and
 * not writable by group or others.  A missing file is an error if
 * `required`, else an empty policy (everybody but root is refused).
 */
int access_parse_file(const char *path, bool required, const char *const *plugins, size_t n_plugins,
                      struct acl_policy *ret);
/* The policy in force and the utilisation each rule's live specifications sum to. */
struct access {
        struct acl_policy policy;
        uint64_t *usage;                /* one per rule */
};

#define ACCESS_NULL ((struct access){ .policy = ACL_POLICY_NULL })

/* Put `p` in force (taking it over); all utilisation sums restart at 0. */
int access_install(struct access *a, struct acl_policy *p);
void access_done(struct access *a);
size_t access_rules(const struct access *a);
/* The policy file's base name, for audit lines. */
const char *access_policy_name(const struct access *a);

/*
 * May `o` get `req` from plugin `plugin`?  `util_ppb` is the request's
 * utilisation.  Returns true, or false with the reason (rule, value, file and
 * line) in `reason`.  `ret_line` is the deciding rule's line (0 = none).
 */
bool access_check(const struct access *a, const struct owner *o, const char *plugin, const struct rtf_task_params *req,
                  char *reason, size_t reason_size, unsigned *ret_line);
/* May a thread of `o` on `plugin` hold the latency hint?  Root: always (rtfd's
 * setting alone decides); others: only if a rule grants latency_hint. */
bool access_latency_hint(const struct access *a, const struct owner *o, const char *plugin);
/* Add or remove a live specification's utilisation to the sums it counts toward. */
void access_count(struct access *a, const struct owner *o, const char *plugin, uint64_t util_ppb, bool add);
