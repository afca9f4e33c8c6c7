/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sys/epoll.h>

#include "access.h"
#include "log.h"
#include "manager-private.h"
#include "task-params.h"
#include "pmqos.h"

const struct limits *manager_limits(const struct manager *mgr) {
        return &mgr->opt.limits;
}

/* Returns `result`, with the reason for it in `r`. */
int manager_fail(struct manager_result *r, int result, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
        va_end(ap);
        return result;
}

/* ---- the id table ---- */

static size_t bucket_of(const struct manager *mgr, uint64_t id) {
        return (size_t)(id * 0x9E3779B97F4A7C15ULL >> 20) & (mgr->n_buckets - 1);
}

int manager_table_grow(struct manager *mgr) {
        size_t n = mgr->n_buckets ? mgr->n_buckets * 2 : 256;
        struct spec **b = calloc(n, sizeof(*b));

        if (!b)
                return -ENOMEM;
        for (size_t i = 0; i < mgr->n_buckets; i++)
                for (struct spec *s = mgr->buckets[i], *next; s; s = next) {
                        size_t k = (size_t)(s->id * 0x9E3779B97F4A7C15ULL >> 20) & (n - 1);

                        next = s->hash_next;
                        LIST_PREPEND(hash, b[k], s);
                }
        free(mgr->buckets);
        mgr->buckets = b;
        mgr->n_buckets = n;
        return 0;
}

struct spec *manager_spec_find(const struct manager *mgr, uint64_t id) {
        if (!mgr->n_buckets)
                return NULL;
        struct spec *s;

        LIST_FOREACH(hash, s, mgr->buckets[bucket_of(mgr, id)])
                if (s->id == id)
                        return s;
        return NULL;
}

static void table_remove(struct manager *mgr, struct spec *spec) {
        LIST_REMOVE(hash, mgr->buckets[bucket_of(mgr, spec->id)], spec);
}

/* ---- helpers ---- */

const char *manager_policy_name(const struct plugin *p) {
        return p->ops->name ? p->ops->name : "?";
}

/* Shape checks every plugin relies on (task-params.h); admission is the plugins' business. */
static int validate(const struct rtf_task_params *w, const char *plugin, struct manager_result *r) {
        if (rtf_task_params_check(w, r->reason, sizeof(r->reason)) < 0)
                return -EINVAL;
        if (!(w->flags & RTF_PARAM_HAS_SCHEDULER) != !plugin[0])
                return manager_fail(r, -EINVAL, "plugin name and its flag disagree");
        return RTF_OK;
}

int manager_owner_init(struct manager *mgr, struct owner *o, bool counted) {
        int r = user_registry_ref(&mgr->users, o->uid, now_monotonic_ns(), mgr->opt.limits.request_burst_per_uid,
                                  &o->user);

        if (r < 0)
                return r;
        o->counted = counted;
        o->user->connections += counted;
        return 0;
}

uint32_t manager_connections_of(const struct manager *mgr, uid_t uid) {
        const struct user *u = user_registry_find(&mgr->users, uid);

        return u ? u->connections : 0;
}

uint64_t manager_bandwidth_of(const struct manager *mgr, uid_t uid) {
        const struct user *u = user_registry_find(&mgr->users, uid);

        return u ? u->bandwidth_ppb : 0;
}

bool manager_user_rate_allows(struct manager *mgr, struct owner *o) {
        if (o->uid == 0)
                return true;
        return user_rate_allows(o->user, now_monotonic_ns(), mgr->opt.limits.max_requests_per_sec_per_uid,
                                mgr->opt.limits.request_burst_per_uid);
}

bool manager_user_busy_allows(struct manager *mgr, struct owner *o) {
        if (o->uid == 0 || !o->user)
                return true;
        return user_busy_allows(o->user, now_monotonic_ns(), mgr->opt.limits.max_busy_permille_per_uid,
                                (uint64_t)mgr->opt.limits.busy_burst_ms_per_uid * NSEC_PER_MSEC);
}

int64_t manager_user_busy_wait_ns(const struct manager *mgr, const struct owner *o) {
        return o->uid == 0 || !o->user ? 0 : user_busy_wait_ns(o->user, mgr->opt.limits.max_busy_permille_per_uid);
}

void manager_user_charge(struct manager *mgr, struct owner *o, int64_t ns) {
        if (o->uid != 0 && o->user)
                user_busy_charge(o->user, ns);
}

/* The account name of `uid` for a log line ("?" if it has none); only on
 * refusals, which are rare, as the lookup may read /etc/passwd. */
static const char *user_name(uid_t uid, char *buf, size_t size) {
        struct passwd pw, *res = NULL;

        if (getpwuid_r(uid, &pw, buf, size, &res) != 0 || !res)
                return "?";
        return res->pw_name;
}

/* Refusals of one peer beyond a few a second are counted, not logged one by
 * one (issue 10, ratelog.h); grants are always logged. */
static bool refusal_logged(struct manager *mgr, const struct owner *o) {
        uint64_t more;

        if (!ratelog_allow(&mgr->refusals, o->uid, o->pid, now_monotonic_ns(), &more))
                return false;
        if (more)
                log_notice("audit: uid %u pid %d: %" PRIu64 " more refusals not logged one by one",
                           (unsigned)o->uid, (int)o->pid, more);
        return true;
}

void manager_audit(struct manager *mgr, const struct owner *o, const char *what, uint64_t id,
                   const char *plugin, bool granted, unsigned line, const char *why) {
        char buf[1024];

        /* Root is not subject to the policy: its grants are not audit events. */
        if (o->uid == 0 && granted)
                return;
        if (granted && line)
                log_info("audit: uid %u pid %d %s spec %" PRIu64 " on %s: granted by %s:%u", (unsigned)o->uid,
                         (int)o->pid, what, id, plugin, access_policy_name(&mgr->access), line);
        else if (granted)
                log_info("audit: uid %u pid %d %s spec %" PRIu64 " on %s: granted", (unsigned)o->uid, (int)o->pid,
                         what, id, plugin);
        else if (refusal_logged(mgr, o))
                log_notice("audit: uid %u pid %d %s%s%s: refused: %s (user %s)", (unsigned)o->uid, (int)o->pid,
                           what, plugin ? " on " : "", plugin ? plugin : "", why, user_name(o->uid, buf, sizeof(buf)));
}

static bool owns(const struct owner *o, const struct spec *s) {
        return s->owner == o || o->uid == 0;
}

int manager_lookup_owned(struct manager *mgr, struct owner *o, uint64_t id, const char *what,
                        struct manager_result *r, struct spec **ret) {
        struct spec *s = manager_spec_find(mgr, id);
        int q;

        if (!s)
                return manager_fail(r, -ENOENT, "no specification %" PRIu64, id);
        /* Requirement 3 of section 4.1: only one's own specifications. */
        if (!owns(o, s)) {
                q = manager_fail(r, -EPERM, "specification %" PRIu64 " belongs to another client", id);
                manager_audit(mgr, o, what, id, NULL, false, 0, r->reason);
                return q;
        }
        *ret = s;
        return 0;
}

int manager_fill_result(struct manager_result *r, const struct spec *s) {
        r->id = s->id;
        r->priority = s->task.priority;
        r->accepted_runtime_us = s->task.accepted_runtime_us;
        r->cpu = plugin_cpu_of(s->plugin, s->task.core);
        snprintf(r->plugin, sizeof(r->plugin), "%s", s->plugin->name);
        r->reason[0] = 0;
        return RTF_OK;
}

/* Give an attached thread what its plugin now says; demote it if the kernel refuses. */
static void reapply(struct manager *mgr, struct spec *s) {
        struct rtf_sched_setting set;
        int r;

        if (!s->att)
                return;
        r = manager_setting_of(s, &set);
        if (r >= 0)
                r = manager_apply_setting(mgr, s, &set);
        if (r < 0) {
                log_warning_errno(r, "Failed to re-apply plugin %s's new setting to thread %d of spec %" PRIu64
                                  ": %m; demoting it", s->plugin->name, (int)s->att->thread.tid, s->id);
                manager_spec_unattach(mgr, s, true);
        }
}

/*
 * Every call into a plugin that may change other tasks' settings (schedule,
 * release) happens inside a commit.  What the plugin reports meanwhile is
 * only noted; the threads get their settings once, when the outermost commit
 * ends, i.e. after the change is final or rolled back.  So a commit never
 * re-enters the kernel half-way, and a rolled-back change costs the other
 * threads nothing.
 */
void manager_commit_begin(struct manager *mgr) {
        mgr->commit_depth++;
}

void manager_commit_end(struct manager *mgr) {
        if (--mgr->commit_depth > 0)
                return;
        while (mgr->pending) {
                struct spec *s = mgr->pending;

                mgr->pending = s->pending_next;
                s->pending_next = NULL;
                s->update_pending = false;
                reapply(mgr, s);
        }
}

static void pending_remove(struct manager *mgr, struct spec *s) {
        if (!s->update_pending)
                return;
        for (struct spec **p = &mgr->pending; *p; p = &(*p)->pending_next)
                if (*p == s) {
                        *p = s->pending_next;
                        break;
                }
        s->pending_next = NULL;
        s->update_pending = false;
}

/* A plugin changed a scheduled task's setting (RM re-prioritisation). */
void manager_host_task_updated(void *data, struct plugin *p, struct rtf_plugin_task *task) {
        struct manager *mgr = data;
        struct spec *s = (struct spec *)((char *)task - offsetof(struct spec, task));

        if (s->committing || !s->att)
                return;
        if (mgr->commit_depth == 0) {
                /* Outside schedule/release, which the ABI forbids; served anyway. */
                reapply(mgr, s);
                return;
        }
        if (!s->update_pending) {
                s->update_pending = true;
                s->pending_next = mgr->pending;
                mgr->pending = s;
        }
}

/* ---- plugin choice (section 3.3) ---- */

struct choice {
        struct plugin *plugin;
        struct rtf_plugin_decision decision;
        unsigned acl_line;              /* the policy rule that granted it, 0 = root */
};

/*
 * Ask the plugins in configuration order (or only the named one): the first
 * OK wins, else the first PARTIAL.  `current` is the spec being changed, so
 * that its own plugin is asked through change(), not accept().
 */
static int choose(struct manager *mgr, struct owner *o, const char *plugin, const struct rtf_task_params *req,
                  const struct spec *current, struct choice *ret, struct manager_result *r) {
        struct choice partial = { 0 };
        /* Every refusing plugin's reason, in order: the client learns what
         * each one wants (the reply carries what fits in RTF_REASON_MAX). */
        char all_no[4 * (RTF_PLUGIN_NAME_MAX + RTF_PLUGIN_REASON_MAX)] = "";
        size_t len_no = 0;
        char first_acl[RTF_REASON_MAX] = "";
        bool any_acl_ok = false, named = plugin[0], any_named = false;

        for (uint32_t i = 0; i < mgr->set.n; i++) {
                struct plugin *p = &mgr->set.plugins[i];
                struct rtf_plugin_decision d = { .core = -1 };
                char why[RTF_REASON_MAX];
                unsigned line;
                int v;

                if (named && strcmp(plugin, p->name) != 0)
                        continue;
                any_named = true;
                if (!access_check(&mgr->access, o, p->name, req, why, sizeof(why), &line)) {
                        if (!first_acl[0])
                                snprintf(first_acl, sizeof(first_acl), "%s", why);
                        continue;
                }
                any_acl_ok = true;
                if (current && current->plugin == p)
                        v = p->ops->change(p->state, &current->task, req, &d);
                else
                        v = p->ops->accept(p->state, req, &d);
                d.reason[sizeof(d.reason) - 1] = 0;
                if (v == RTF_PLUGIN_OK) {
                        *ret = (struct choice){ p, d, line };
                        return RTF_OK;
                }
                if (v == RTF_PLUGIN_PARTIAL && !partial.plugin)
                        partial = (struct choice){ p, d, line };
                if (v != RTF_PLUGIN_OK && v != RTF_PLUGIN_PARTIAL && len_no < sizeof(all_no)) {
                        size_t n = strlen(p->name);
                        /* Named after the instance, unless the plugin's reason already is ("EDF: ..."). */
                        bool named_already = strncmp(d.reason, p->name, n) == 0 && d.reason[n] == ':';
                        int k = snprintf(all_no + len_no, sizeof(all_no) - len_no, "%s%s%s%s", len_no ? "; " : "",
                                         named_already ? "" : p->name, named_already ? "" : ": ",
                                         d.reason[0] ? d.reason : "parameters not accepted");

                        len_no = k < 0 ? sizeof(all_no) : MIN(len_no + (size_t)k, sizeof(all_no));
                }
        }
        if (partial.plugin) {
                *ret = partial;
                return RTF_OK;
        }
        if (named && !any_named)
                return manager_fail(r, RTF_SCHEDULE_FAIL, "no plugin named \"%s\" is configured", plugin);
        if (!any_acl_ok)
                return manager_fail(r, RTF_ACL_FAIL, "%s", first_acl);
        if (all_no[0])
                log_debug("uid %u pid %d: refused by every plugin: %s", (unsigned)o->uid, (int)o->pid, all_no);
        return manager_fail(r, RTF_SCHEDULE_FAIL, "%s", all_no[0] ? all_no : "no plugin accepts these parameters");
}

/* ---- the tentative state: judged before any thread gets it ---- */

/*
 * The policy judges what the plugin grants, not only what was asked (issue
 * 10, 3): RM ignores a requested priority and FP/RR map it into their range,
 * so `max_priority` is checked against the priority the thread would get,
 * and the utilisation rules against the runtime granted.
 */
static int check_granted(struct manager *mgr, struct owner *o, const struct spec *s, struct manager_result *r) {
        struct rtf_task_params granted = s->task.params;
        struct rtf_sched_setting set;
        char why[RTF_REASON_MAX];
        unsigned line;
        int q;

        if (o->uid == 0)
                return RTF_OK;
        q = manager_setting_of(s, &set);
        if (q < 0)
                return manager_fail(r, q, "plugin %s has no kernel setting for the task", s->plugin->name);
        if (set.policy == RTF_POLICY_FIFO || set.policy == RTF_POLICY_RR) {
                granted.flags |= RTF_PARAM_HAS_PRIORITY;
                granted.priority = set.priority;
        }
        if (s->task.accepted_runtime_us) {
                granted.flags |= RTF_PARAM_HAS_RUNTIME;
                granted.runtime_us = s->task.accepted_runtime_us;
        }
        if (!access_check(&mgr->access, o, s->plugin->name, &granted, why, sizeof(why), &line))
                return manager_fail(r, RTF_ACL_FAIL, "%s would grant: %s", s->plugin->name, why);
        return RTF_OK;
}

/* After the chosen plugin's schedule(): the policy on what it grants, then the
 * whole machine.  `extra` is a spec not listed yet (a create). */
static int check_tentative(struct manager *mgr, struct owner *o, const struct spec *s, const struct spec *extra,
                           struct manager_result *r) {
        int q = check_granted(mgr, o, s, r);

        if (q != RTF_OK)
                return q;
        /* ignore_adm_test (a policy grant, or root) skips every admission
         * test, the whole machine's too: the kernel's own bandwidth check is
         * all that remains, as the paper defines it (DESIGN.md). */
        if (s->task.params.flags & RTF_PARAM_IGNORE_ADMISSION)
                return RTF_OK;
        return manager_machine_veto(mgr, extra, r);
}

/* ---- requests ---- */

int manager_create(struct manager *mgr, struct owner *o, const struct rtf_task_params *req, const char *plugin,
                   struct manager_result *r) {
        struct choice c;
        struct spec *s;
        int q;

        q = validate(req, plugin, r);
        if (q != RTF_OK)
                goto refused;
        if (o->n_specs >= mgr->opt.limits.max_specs_per_client) {
                q = manager_fail(r, -EUSERS, "limit max_specs_per_client (%" PRIu32 ") reached",
                         mgr->opt.limits.max_specs_per_client);
                goto refused;
        }
        if (!o->user)
                return manager_fail(r, -EINVAL, "the owner has no accounting object (manager_owner_init)");
        if (o->uid != 0 && o->user->specs >= mgr->opt.limits.max_specs_per_uid) {
                q = manager_fail(r, -EUSERS, "limit max_specs_per_uid (%" PRIu32 ") reached",
                                 mgr->opt.limits.max_specs_per_uid);
                goto refused;
        }
        if (mgr->n_specs >= limits_global_for(mgr->opt.limits.max_specs, o->uid)) {
                q = manager_fail(r, -EUSERS, "limit max_specs (%" PRIu32 ") reached", mgr->opt.limits.max_specs);
                goto refused;
        }
        q = choose(mgr, o, plugin, req, NULL, &c, r);
        if (q != RTF_OK)
                goto refused;
        if (mgr->n_specs + 1 > mgr->n_buckets * 2 && manager_table_grow(mgr) < 0)
                return manager_fail(r, -ENOMEM, "out of memory");
        s = calloc(1, sizeof(*s));
        if (!s)
                return manager_fail(r, -ENOMEM, "out of memory");
        s->id = ++mgr->next_id;
        s->owner = o;
        s->plugin = c.plugin;
        s->task = (struct rtf_plugin_task){ .id = s->id, .params = *req, .core = -1 };
        s->decision = spec_decision_of(&c.decision);
        s->committing = true;
        manager_commit_begin(mgr);
        q = c.plugin->ops->schedule(c.plugin->state, &s->task, &c.decision);
        if (q < 0) {
                s->committing = false;
                manager_commit_end(mgr);
                log_error_errno(q, "Plugin %s failed to schedule a task it had just accepted: %m", c.plugin->name);
                free(s);
                return manager_fail(r, q, "plugin %s failed to schedule the task", c.plugin->name);
        }
        q = check_tentative(mgr, o, s, s, r);
        if (q != RTF_OK) {
                c.plugin->ops->release(c.plugin->state, &s->task);
                s->committing = false;
                manager_commit_end(mgr);
                free(s);
                goto refused;
        }
        s->committing = false;
        LIST_PREPEND(hash, mgr->buckets[bucket_of(mgr, s->id)], s);
        LIST_PREPEND(owner, o->specs, s);
        LIST_APPEND_TAIL(all, mgr->all_head, mgr->all_tail, s);
        o->n_specs++;
        o->user->specs++;
        mgr->n_specs++;
        c.plugin->n_tasks++;
        s->acl_util_ppb = acl_request_util_ppb(req);
        o->user->bandwidth_ppb += s->acl_util_ppb;
        access_count(&mgr->access, o, c.plugin->name, s->acl_util_ppb, true);
        manager_commit_end(mgr);
        manager_audit(mgr, o, "create", s->id, c.plugin->name, true, c.acl_line, NULL);
        log_debug("uid %u pid %d: spec %" PRIu64 " admitted by %s", (unsigned)o->uid, (int)o->pid, s->id,
                  c.plugin->name);
        return manager_fill_result(r, s);
refused:
        if (o->uid != 0)
                manager_audit(mgr, o, "create", 0, plugin[0] ? plugin : NULL, false, 0, r->reason);
        return q;
}

/* Take a failed change back: the old plugin schedules the task again with
 * the decision it returned for it itself (rtf-plugin.h allows exactly this). */
static void spec_restore(struct spec *s, struct plugin *old_plugin, const struct rtf_plugin_task *old) {
        struct rtf_plugin_decision d = spec_decision_to(&s->decision);
        int q;

        s->plugin = old_plugin;
        s->task.params = old->params;
        q = old_plugin->ops->schedule(old_plugin->state, &s->task, &d);
        if (q < 0)
                log_error_errno(q, "Plugin %s could not take back spec %" PRIu64 " after a failed change: %m",
                                old_plugin->name, s->id);
}

int manager_change(struct manager *mgr, struct owner *o, uint64_t id, const struct rtf_task_params *req,
                   const char *plugin, struct manager_result *r) {
        struct rtf_plugin_task old;
        struct plugin *old_plugin;
        struct rtf_sched_setting set;
        struct choice c;
        struct spec *s = NULL;
        int q;

        q = validate(req, plugin, r);
        if (q != RTF_OK)
                return q;
        q = manager_lookup_owned(mgr, o, id, "change", r, &s);
        if (q < 0)
                return q;
        /* The policy judges the new parameters as if the old ones were gone. */
        access_count(&mgr->access, s->owner, s->plugin->name, s->acl_util_ppb, false);
        q = choose(mgr, o, plugin, req, s, &c, r);
        if (q != RTF_OK) {
                access_count(&mgr->access, s->owner, s->plugin->name, s->acl_util_ppb, true);
                if (o->uid != 0)
                        manager_audit(mgr, o, "change", id, plugin[0] ? plugin : NULL, false, 0, r->reason);
                return q;
        }

        /* Commit: the old plugin lets go, the new one takes over, then the
         * thread gets the new setting in as few steps as the kernel allows.
         * Any failure restores the old plugin, parameters and setting. */
        old = s->task;
        old_plugin = s->plugin;
        s->committing = true;
        manager_commit_begin(mgr);
        old_plugin->ops->release(old_plugin->state, &s->task);
        s->task.params = *req;
        s->plugin = c.plugin;
        q = c.plugin->ops->schedule(c.plugin->state, &s->task, &c.decision);
        if (q < 0) {
                spec_restore(s, old_plugin, &old);
                s->committing = false;
                manager_commit_end(mgr);
                access_count(&mgr->access, s->owner, s->plugin->name, s->acl_util_ppb, true);
                return manager_fail(r, q, "plugin %s failed to schedule the task", c.plugin->name);
        }
        q = check_tentative(mgr, o, s, NULL, r);
        if (q != RTF_OK) {
                c.plugin->ops->release(c.plugin->state, &s->task);
                spec_restore(s, old_plugin, &old);
                s->committing = false;
                manager_commit_end(mgr);
                access_count(&mgr->access, s->owner, s->plugin->name, s->acl_util_ppb, true);
                if (o->uid != 0)
                        manager_audit(mgr, o, "change", id, c.plugin->name, false, 0, r->reason);
                return q;
        }
        if (s->att) {
                q = manager_setting_of(s, &set);
                if (q >= 0)
                        q = manager_apply_setting(mgr, s, &set);
                if (q < 0) {
                        c.plugin->ops->release(c.plugin->state, &s->task);
                        spec_restore(s, old_plugin, &old);
                        s->committing = false;
                        if (q == -ESRCH) {
                                manager_spec_unattach(mgr, s, false);
                        } else if (manager_setting_of(s, &set) < 0 || manager_apply_setting(mgr, s, &set) < 0) {
                                manager_spec_unattach(mgr, s, true);
                        }
                        manager_commit_end(mgr);
                        access_count(&mgr->access, s->owner, s->plugin->name, s->acl_util_ppb, true);
                        return manager_fail(r, q == -EBUSY ? RTF_SCHEDULE_FAIL : q,
                                            "the kernel refused the new setting: %s", strerror(-q));
                }
        }
        s->committing = false;
        s->decision = spec_decision_of(&c.decision);
        manager_commit_end(mgr);
        old_plugin->n_tasks--;
        c.plugin->n_tasks++;
        s->owner->user->bandwidth_ppb -= s->acl_util_ppb;
        s->acl_util_ppb = acl_request_util_ppb(req);
        s->owner->user->bandwidth_ppb += s->acl_util_ppb;
        access_count(&mgr->access, s->owner, s->plugin->name, s->acl_util_ppb, true);
        manager_audit(mgr, o, "change", id, c.plugin->name, true, c.acl_line, NULL);
        return manager_fill_result(r, s);
}

static void spec_free(struct manager *mgr, struct spec *s) {
        struct owner *o = s->owner;

        manager_spec_unattach(mgr, s, true);
        pending_remove(mgr, s);
        access_count(&mgr->access, o, s->plugin->name, s->acl_util_ppb, false);
        manager_commit_begin(mgr);
        s->plugin->ops->release(s->plugin->state, &s->task);
        s->plugin->n_tasks--;
        o->user->specs--;
        o->user->bandwidth_ppb -= s->acl_util_ppb;
        table_remove(mgr, s);
        LIST_REMOVE(owner, o->specs, s);
        LIST_REMOVE_TAIL(all, mgr->all_head, mgr->all_tail, s);
        o->n_specs--;
        mgr->n_specs--;
        free(s->report);
        event_defer_free(mgr->ev, s);
        manager_commit_end(mgr);
}

int manager_release(struct manager *mgr, struct owner *o, uint64_t id, struct manager_result *r) {
        struct spec *s = NULL;
        int q;

        q = manager_lookup_owned(mgr, o, id, "release", r, &s);
        if (q < 0)
                return q;
        manager_audit(mgr, o, "release", id, s->plugin->name, true, 0, NULL);
        spec_free(mgr, s);
        r->id = id;
        r->reason[0] = 0;
        return RTF_OK;
}

void manager_owner_gone(struct manager *mgr, struct owner *o) {
        /* One commit: the others' threads are re-prioritised once, at the end. */
        manager_commit_begin(mgr);
        while (o->specs)
                spec_free(mgr, o->specs);
        manager_commit_end(mgr);
        if (o->user) {
                o->user->connections -= o->counted;
                const struct limits *l = &mgr->opt.limits;

                /* A uid that used up its requests or its share of rtfd's time
                 * does not get them back by closing its last connection. */
                o->user = user_unref(&mgr->users, o->user,
                                     o->uid == 0 ? 0 : user_owes_until_ns(o->user, now_monotonic_ns(),
                                                                          l->max_requests_per_sec_per_uid,
                                                                          l->request_burst_per_uid,
                                                                          l->max_busy_permille_per_uid,
                                                                          (uint64_t)l->busy_burst_ms_per_uid *
                                                                                  NSEC_PER_MSEC));
        }
}
