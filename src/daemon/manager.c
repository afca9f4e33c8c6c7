/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "pmqos.h"

struct manager_state mgr;

const struct limits *manager_limits(void) {
        return &mgr.opt.limits;
}

static void fail(struct rtf_msg_reply *r, int result, const char *fmt, ...) _printf_(3, 4);
static void fail(struct rtf_msg_reply *r, int result, const char *fmt, ...) {
        va_list ap;

        r->result = result;
        va_start(ap, fmt);
        vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
        va_end(ap);
}

/* ---- the id table ---- */

static size_t bucket_of(uint64_t id) {
        return (size_t)(id * 0x9E3779B97F4A7C15ULL >> 20) & (mgr.n_buckets - 1);
}

int manager_table_grow(void) {
        size_t n = mgr.n_buckets ? mgr.n_buckets * 2 : 256;
        struct spec **b = calloc(n, sizeof(*b));

        if (!b)
                return -ENOMEM;
        for (size_t i = 0; i < mgr.n_buckets; i++)
                for (struct spec *s = mgr.buckets[i], *next; s; s = next) {
                        size_t k = (size_t)(s->id * 0x9E3779B97F4A7C15ULL >> 20) & (n - 1);

                        next = s->hash_next;
                        s->hash_next = b[k];
                        b[k] = s;
                }
        free(mgr.buckets);
        mgr.buckets = b;
        mgr.n_buckets = n;
        return 0;
}

static struct spec *spec_find(uint64_t id) {
        if (!mgr.n_buckets)
                return NULL;
        for (struct spec *s = mgr.buckets[bucket_of(id)]; s; s = s->hash_next)
                if (s->id == id)
                        return s;
        return NULL;
}

static void table_remove(struct spec *spec) {
        struct spec **p = &mgr.buckets[bucket_of(spec->id)];

        while (*p && *p != spec)
                p = &(*p)->hash_next;
        if (*p)
                *p = spec->hash_next;
}

/* ---- helpers ---- */

const char *manager_policy_name(const struct plugin *p) {
        return p->ops->name ? p->ops->name : "?";
}

static void params_from_wire(struct rtf_task_params *t, const struct rtf_wire_params *w) {
        *t = (struct rtf_task_params){
                .flags = w->flags,
                .priority = w->priority,
                .period_us = w->period_us,
                .runtime_us = w->runtime_us,
                .des_runtime_us = w->des_runtime_us,
                .deadline_us = w->deadline_us,
        };
}

static void params_to_wire(struct rtf_wire_params *w, const struct rtf_task_params *t, const char *plugin) {
        memset(w, 0, sizeof(*w));
        w->flags = t->flags;
        w->priority = t->priority;
        w->period_us = t->period_us;
        w->runtime_us = t->runtime_us;
        w->des_runtime_us = t->des_runtime_us;
        w->deadline_us = t->deadline_us;
        snprintf(w->plugin, sizeof(w->plugin), "%s", plugin);
}

#define MAX_TIME_US (UINT64_C(1) << 32)

/* Shape checks every plugin relies on; admission is the plugins' business. */
static int validate(const struct rtf_wire_params *w, struct rtf_msg_reply *r) {
        const struct {
                uint32_t flag;
                uint64_t value;
                const char *name;
        } times[] = {
                { RTF_PARAM_HAS_PERIOD, w->period_us, "period" },
                { RTF_PARAM_HAS_RUNTIME, w->runtime_us, "runtime" },
                { RTF_PARAM_HAS_DES_RUNTIME, w->des_runtime_us, "desired runtime" },
                { RTF_PARAM_HAS_DEADLINE, w->deadline_us, "deadline" },
        };

        if (w->flags & ~RTF_PARAM_KNOWN) {
                fail(r, -EINVAL, "unknown parameter flags 0x%x", w->flags & ~RTF_PARAM_KNOWN);
                return -EINVAL;
        }
        for (size_t i = 0; i < ELEMENTSOF(times); i++) {
                bool set = w->flags & times[i].flag;

                if (set ? times[i].value == 0 || times[i].value > MAX_TIME_US : times[i].value != 0) {
                        fail(r, -EINVAL, "%s %" PRIu64 " us is out of range (1..%" PRIu64 ")", times[i].name,
                             times[i].value, MAX_TIME_US);
                        return -EINVAL;
                }
        }
        if ((w->flags & RTF_PARAM_HAS_PRIORITY) ? w->priority < 1 || w->priority > 99 : w->priority != 0) {
                fail(r, -EINVAL, "priority %" PRIu32 " is out of range (1..99)", w->priority);
                return -EINVAL;
        }
        if (!(w->flags & RTF_PARAM_HAS_SCHEDULER) != !w->plugin[0]) {
                fail(r, -EINVAL, "plugin name and its flag disagree");
                return -EINVAL;
        }
        return 0;
}

static uint32_t *uid_specs(uid_t uid, bool create) {
        for (size_t i = 0; i < mgr.n_uids; i++)
                if (mgr.uids[i].uid == uid)
                        return &mgr.uids[i].specs;
        if (create) {
                struct uid_count *u = realloc(mgr.uids, (mgr.n_uids + 1) * sizeof(*u));

                if (!u)
                        return NULL;
                mgr.uids = u;
                mgr.uids[mgr.n_uids] = (struct uid_count){ .uid = uid };
                return &mgr.uids[mgr.n_uids++].specs;
        }
        return NULL;
}

static bool refusal_logged(const struct owner *o) {
        uint64_t more;

        if (!ratelog_allow(&mgr.refusals, o->uid, o->pid, now_monotonic_ns(), &more))
                return false;
        if (more)
                log_notice("audit: uid %u pid %d: %" PRIu64 " more refusals not logged one by one",
                           (unsigned)o->uid, (int)o->pid, more);
        return true;
}

static void audit(const struct owner *o, const char *what, uint64_t id, const char *plugin, bool granted,
                  unsigned line, const char *why) {
        /* Root is not subject to the policy: its grants are not audit events. */
        if (o->uid == 0 && granted)
                return;
        if (granted && line)
                log_info("audit: uid %u pid %d %s spec %" PRIu64 " on %s: granted by %s:%u", (unsigned)o->uid,
                         (int)o->pid, what, id, plugin, access_policy_name(), line);
        else if (granted)
                log_info("audit: uid %u pid %d %s spec %" PRIu64 " on %s: granted", (unsigned)o->uid, (int)o->pid,
                         what, id, plugin);
        else if (refusal_logged(o))     /* issue 10: a few per second and peer (ratelog.h) */
                log_notice("audit: uid %u pid %d %s%s%s: refused: %s", (unsigned)o->uid, (int)o->pid, what,
                           plugin ? " on " : "", plugin ? plugin : "", why);
}

static bool owns(const struct owner *o, const struct spec *s) {
        return s->owner == o || o->uid == 0;
}

static struct spec *lookup_owned(struct owner *o, uint64_t id, const char *what, struct rtf_msg_reply *r) {
        struct spec *s = spec_find(id);

        if (!s) {
                fail(r, -ENOENT, "no specification %" PRIu64, id);
                return NULL;
        }
        /* Requirement 3 of section 4.1: only one's own specifications. */
        if (!owns(o, s)) {
                fail(r, -EPERM, "specification %" PRIu64 " belongs to another client", id);
                audit(o, what, id, NULL, false, 0, r->reason);
                return NULL;
        }
        return s;
}

static void fill_reply(struct rtf_msg_reply *r, const struct spec *s) {
        r->result = RTF_OK;
        r->id = s->id;
        r->priority = s->task.priority;
        r->accepted_runtime_us = s->task.accepted_runtime_us;
        r->cpu = plugin_cpu_of(s->plugin, s->task.core);
        snprintf(r->plugin, sizeof(r->plugin), "%s", s->plugin->name);
}

/* ---- kernel side ---- */

/* Journal a promotion or its end, for a restart after a crash (state.c). */
static void note_state(const struct spec *changed, bool add) {
        struct state_entry one = state_entry_of(&changed->att->thread);
        struct state_entry *live = NULL;
        size_t n = 0;

        if (mgr.state.lines >= STATE_COMPACT_LINES) {
                for (struct spec *s = mgr.attached; s; s = s->att->next)
                        n++;
                live = calloc(n ? n : 1, sizeof(*live));
                n = 0;
                for (struct spec *s = mgr.attached; live && s; s = s->att->next)
                        live[n++] = state_entry_of(&s->att->thread);
        }
        state_note(&mgr.state, add, &one, live, live ? n : SIZE_MAX / 4);
        free(live);
}

static void attached_unlink(struct spec *s) {
        struct spec_thread *a = s->att;

        if (a->prev)
                a->prev->att->next = a->next;
        else if (mgr.attached == s)
                mgr.attached = a->next;
        if (a->next)
                a->next->att->prev = a->prev;
        a->prev = a->next = NULL;
}

/*
 * Apply, working around the kernel's DEADLINE bandwidth leak: if the kernel
 * refuses bandwidth that our own accounting has free, rebuild the root
 * domains (which recounts the bandwidth of the tasks that exist) and retry.
 */
static int apply_setting(struct spec *s, const struct rtf_sched_setting *set);

int manager_apply_setting(struct spec *s, const struct rtf_sched_setting *set) {
        int r = apply_setting(s, set);

        /* Issue 10: a FIFO/RR runtime is a bound rtfd enforces (enforce.h); if
         * it cannot, the setting does not stay. */
        if (r >= 0 && (r = enforce_update(&mgr.enforcer, s->id, &s->att->thread, set, s->task.accepted_runtime_us * 1000,
                                          s->task.params.period_us * 1000, mgr.opt.rttime_us)) < 0)
                thread_demote(&s->att->thread, &mgr.cpuset, mgr.n_cpus);
        return r;
}

static int apply_setting(struct spec *s, const struct rtf_sched_setting *set) {
        int r;

        r = thread_apply(&s->att->thread, set, &mgr.cpuset, mgr.n_cpus);
        if (r != -EBUSY || set->policy != RTF_POLICY_DEADLINE)
                return r;
        log_warning("Kernel refused SCHED_DEADLINE bandwidth for thread %d of spec %" PRIu64
                    " that rtf's admission has free: rebuilding root domains (bandwidth leak workaround)",
                    (int)s->att->thread.tid, s->id);
        if (cpuset_rebuild_root_domains(&mgr.cpuset, mgr.opt.cpuset_root) < 0)
                return r;
        r = thread_apply(&s->att->thread, set, &mgr.cpuset, mgr.n_cpus);
        if (r >= 0) {
                mgr.leak_recoveries++;
                log_notice("Recovered leaked SCHED_DEADLINE bandwidth; thread %d promoted (recovery #%" PRIu64 ")",
                           (int)s->att->thread.tid, mgr.leak_recoveries);
        } else {
                log_warning_errno(r, "Retry after rebuilding root domains failed: %m");
        }
        return r;
}

int manager_setting_of(const struct spec *s, struct rtf_sched_setting *ret) {
        struct rtf_sched_setting set = { .cpu = -1 };
        int r;

        r = s->plugin->ops->attach(s->plugin->state, &s->task, &set);
        if (r < 0)
                return r;
        *ret = set;
        return 0;
}

static void thread_exited(struct source *src, uint32_t events);
static bool thread_taken(pid_t tid);

/* Withdraw the thread: demote it if it still lives, close its pidfd. */
void manager_spec_unattach(struct spec *s, bool demote) {
        struct spec_thread *a = s->att;

        if (!a)
                return;
        enforce_remove(mgr.enforcer, s->id);    /* issue 10: before the demotion, never after */
        if (demote && thread_alive(&a->thread)) {
                int r = thread_demote(&a->thread, &mgr.cpuset, mgr.n_cpus);

                if (r < 0 && r != -ESRCH)
                        log_warning_errno(r, "Failed to demote thread %d of spec %" PRIu64 ": %m",
                                          (int)a->thread.tid, s->id);
        }
        /* Issue 10: gone by its pidfd, it may run on as its process's leader
         * after an execve() with what it was given (thread.h). */
        if (!thread_alive(&a->thread))
                thread_demote_exec_successor(&a->thread, &mgr.cpuset, mgr.n_cpus, thread_taken(a->thread.tgid));
        event_remove(&a->source);
        s->task.attached = 0;
        attached_unlink(s);
        pmqos_update(mgr.attached != NULL, mgr.opt.latency_hint_us);
        note_state(s, false);
        thread_close(&a->thread);
        s->att = NULL;
        /* An event of this dispatch batch may still point at its source. */
        event_defer_free(a);
        if (s->plugin->ops->detach)
                s->plugin->ops->detach(s->plugin->state, &s->task);
}

static void thread_exited(struct source *src, uint32_t events) {
        struct spec *s = ((struct spec_thread *)((char *)src - offsetof(struct spec_thread, source)))->spec;

        log_info("Thread %d of spec %" PRIu64 " exited; its kernel reservation is gone, the spec stays admitted",
                 (int)s->att->thread.tid, s->id);
        manager_spec_unattach(s, false);
}

/* A plugin changed a scheduled task's setting (RM re-prioritisation). */
static void task_updated(void *data, struct plugin *p, struct rtf_plugin_task *task) {
        struct spec *s = (struct spec *)((char *)task - offsetof(struct spec, task));
        struct rtf_sched_setting set;
        int r;

        if (s->committing || !s->att)
                return;
        r = manager_setting_of(s, &set);
        if (r >= 0)
                r = manager_apply_setting(s, &set);
        if (r < 0) {
                log_warning_errno(r, "Failed to re-apply plugin %s's new setting to thread %d of spec %" PRIu64
                                  ": %m; demoting it", p->name, (int)s->att->thread.tid, s->id);
                manager_spec_unattach(s, true);
        }
}

const struct plugin_host_ops manager_host_ops = {
        .task_updated = task_updated,
};

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
static int choose(struct owner *o, const struct rtf_wire_params *w, const struct rtf_task_params *req,
                  const struct spec *current, struct choice *ret, struct rtf_msg_reply *r) {
        struct choice partial = { 0 };
        char first_no[RTF_PLUGIN_NAME_MAX + RTF_PLUGIN_REASON_MAX + 2] = "";
        char first_acl[RTF_REASON_MAX] = "";
        bool any_acl_ok = false, named = w->plugin[0], any_named = false;

        for (uint32_t i = 0; i < mgr.set.n; i++) {
                struct plugin *p = &mgr.set.plugins[i];
                struct rtf_plugin_decision d = { .core = -1 };
                char why[RTF_REASON_MAX];
                unsigned line;
                int v;

                if (named && strcmp(w->plugin, p->name) != 0)
                        continue;
                any_named = true;
                if (!access_check(o, p->name, req, why, sizeof(why), &line)) {
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
                        return 0;
                }
                if (v == RTF_PLUGIN_PARTIAL && !partial.plugin)
                        partial = (struct choice){ p, d, line };
                if (v != RTF_PLUGIN_OK && v != RTF_PLUGIN_PARTIAL && !first_no[0]) {
                        size_t n = strlen(p->name);
                        /* Named after the instance, unless the plugin's reason already is ("EDF: ..."). */
                        bool named_already = strncmp(d.reason, p->name, n) == 0 && d.reason[n] == ':';

                        snprintf(first_no, sizeof(first_no), "%s%s%s", named_already ? "" : p->name,
                                 named_already ? "" : ": ", d.reason[0] ? d.reason : "parameters not accepted");
                }
        }
        if (partial.plugin) {
                *ret = partial;
                return 0;
        }
        if (named && !any_named) {
                fail(r, RTF_SCHEDULE_FAIL, "no plugin named \"%s\" is configured", w->plugin);
                return -ENOENT;
        }
        if (!any_acl_ok) {
                fail(r, RTF_ACL_FAIL, "%s", first_acl);
                return -EACCES;
        }
        fail(r, RTF_SCHEDULE_FAIL, "%s", first_no[0] ? first_no : "no plugin accepts these parameters");
        return -EBUSY;
}

/* ---- requests ---- */

void manager_create(struct owner *o, const struct rtf_wire_params *w, struct rtf_msg_reply *r) {
        struct rtf_task_params req;
        struct choice c;
        struct spec *s;
        int q;

        uint32_t *per_uid;

        if (validate(w, r) < 0)
                goto refused;
        if (o->n_specs >= mgr.opt.limits.max_specs_per_client) {
                fail(r, -EUSERS, "limit max_specs_per_client (%" PRIu32 ") reached", mgr.opt.limits.max_specs_per_client);
                goto refused;
        }
        per_uid = uid_specs(o->uid, true);
        if (!per_uid) {
                fail(r, -ENOMEM, "out of memory");
                return;
        }
        if (o->uid != 0 && *per_uid >= mgr.opt.limits.max_specs_per_uid) {
                fail(r, -EUSERS, "limit max_specs_per_uid (%" PRIu32 ") reached", mgr.opt.limits.max_specs_per_uid);
                goto refused;
        }
        if (mgr.n_specs >= mgr.opt.limits.max_specs) {
                fail(r, -EUSERS, "limit max_specs (%" PRIu32 ") reached", mgr.opt.limits.max_specs);
                goto refused;
        }
        params_from_wire(&req, w);
        if (choose(o, w, &req, NULL, &c, r) < 0)
                goto refused;
        if (mgr.n_specs + 1 > mgr.n_buckets * 2 && manager_table_grow() < 0) {
                fail(r, -ENOMEM, "out of memory");
                return;
        }
        s = calloc(1, sizeof(*s));
        if (!s) {
                fail(r, -ENOMEM, "out of memory");
                return;
        }
        s->id = ++mgr.next_id;
        s->owner = o;
        s->plugin = c.plugin;
        s->task = (struct rtf_plugin_task){ .id = s->id, .params = req, .core = -1 };
        s->committing = true;
        q = c.plugin->ops->schedule(c.plugin->state, &s->task, &c.decision);
        s->committing = false;
        if (q < 0) {
                log_error_errno(q, "Plugin %s failed to schedule a task it had just accepted: %m", c.plugin->name);
                free(s);
                fail(r, q, "plugin %s failed to schedule the task", c.plugin->name);
                return;
        }
        s->hash_next = mgr.buckets[bucket_of(s->id)];
        mgr.buckets[bucket_of(s->id)] = s;
        s->owner_next = o->specs;
        if (o->specs)
                o->specs->owner_prev = s;
        o->specs = s;
        s->all_prev = mgr.all_tail;
        if (mgr.all_tail)
                mgr.all_tail->all_next = s;
        else
                mgr.all_head = s;
        mgr.all_tail = s;
        o->n_specs++;
        (*per_uid)++;
        mgr.n_specs++;
        c.plugin->n_tasks++;
        s->acl_util_ppb = acl_request_util_ppb(&req);
        access_count(o, c.plugin->name, s->acl_util_ppb, true);
        fill_reply(r, s);
        audit(o, "create", s->id, c.plugin->name, true, c.acl_line, NULL);
        log_debug("uid %u pid %d: spec %" PRIu64 " admitted by %s", (unsigned)o->uid, (int)o->pid, s->id,
                  c.plugin->name);
        return;
refused:
        if (o->uid != 0)
                audit(o, "create", 0, w->plugin[0] ? w->plugin : NULL, false, 0, r->reason);
}

static void spec_restore(struct spec *s, struct plugin *old_plugin, const struct rtf_plugin_task *old) {
        struct rtf_plugin_decision d = {
                .core = old->core,
                .priority = old->priority,
                .accepted_runtime_us = old->accepted_runtime_us,
        };
        int q;

        s->plugin = old_plugin;
        s->task.params = old->params;
        q = old_plugin->ops->schedule(old_plugin->state, &s->task, &d);
        if (q < 0)
                log_error_errno(q, "Plugin %s could not take back spec %" PRIu64 " after a failed change: %m",
                                old_plugin->name, s->id);
}

void manager_change(struct owner *o, uint64_t id, const struct rtf_wire_params *w, struct rtf_msg_reply *r) {
        struct rtf_plugin_task old;
        struct plugin *old_plugin;
        struct rtf_task_params req;
        struct rtf_sched_setting set;
        struct choice c;
        struct spec *s;
        int q;

        if (validate(w, r) < 0)
                return;
        s = lookup_owned(o, id, "change", r);
        if (!s)
                return;
        params_from_wire(&req, w);
        /* The policy judges the new parameters as if the old ones were gone. */
        access_count(s->owner, s->plugin->name, s->acl_util_ppb, false);
        if (choose(o, w, &req, s, &c, r) < 0) {
                access_count(s->owner, s->plugin->name, s->acl_util_ppb, true);
                if (o->uid != 0)
                        audit(o, "change", id, w->plugin[0] ? w->plugin : NULL, false, 0, r->reason);
                return;
        }

        /* Commit: the old plugin lets go, the new one takes over, then the
         * thread gets the new setting in as few steps as the kernel allows.
         * Any failure restores the old plugin, parameters and setting. */
        old = s->task;
        old_plugin = s->plugin;
        s->committing = true;
        old_plugin->ops->release(old_plugin->state, &s->task);
        s->task.params = req;
        s->plugin = c.plugin;
        q = c.plugin->ops->schedule(c.plugin->state, &s->task, &c.decision);
        if (q < 0) {
                spec_restore(s, old_plugin, &old);
                s->committing = false;
                access_count(s->owner, s->plugin->name, s->acl_util_ppb, true);
                fail(r, q, "plugin %s failed to schedule the task", c.plugin->name);
                return;
        }
        if (s->att) {
                q = manager_setting_of(s, &set);
                if (q >= 0)
                        q = manager_apply_setting(s, &set);
                if (q < 0) {
                        c.plugin->ops->release(c.plugin->state, &s->task);
                        spec_restore(s, old_plugin, &old);
                        s->committing = false;
                        if (q == -ESRCH) {
                                manager_spec_unattach(s, false);
                        } else if (manager_setting_of(s, &set) < 0 || manager_apply_setting(s, &set) < 0) {
                                manager_spec_unattach(s, true);
                        }
                        access_count(s->owner, s->plugin->name, s->acl_util_ppb, true);
                        fail(r, q == -EBUSY ? RTF_SCHEDULE_FAIL : q,
                             "the kernel refused the new setting: %s", strerror(-q));
                        return;
                }
        }
        s->committing = false;
        old_plugin->n_tasks--;
        c.plugin->n_tasks++;
        s->acl_util_ppb = acl_request_util_ppb(&req);
        access_count(s->owner, s->plugin->name, s->acl_util_ppb, true);
        fill_reply(r, s);
        audit(o, "change", id, c.plugin->name, true, c.acl_line, NULL);
}

static void spec_free(struct spec *s) {
        struct owner *o = s->owner;

        uint32_t *per_uid = uid_specs(o->uid, false);

        manager_spec_unattach(s, true);
        access_count(o, s->plugin->name, s->acl_util_ppb, false);
        s->plugin->ops->release(s->plugin->state, &s->task);
        s->plugin->n_tasks--;
        if (per_uid && *per_uid)
                (*per_uid)--;
        table_remove(s);
        if (s->owner_prev)
                s->owner_prev->owner_next = s->owner_next;
        else
                o->specs = s->owner_next;
        if (s->owner_next)
                s->owner_next->owner_prev = s->owner_prev;
        if (s->all_prev)
                s->all_prev->all_next = s->all_next;
        else
                mgr.all_head = s->all_next;
        if (s->all_next)
                s->all_next->all_prev = s->all_prev;
        else
                mgr.all_tail = s->all_prev;
        o->n_specs--;
        mgr.n_specs--;
        free(s->report);
        event_defer_free(s);
}

void manager_release(struct owner *o, uint64_t id, struct rtf_msg_reply *r) {
        struct spec *s = lookup_owned(o, id, "release", r);

        if (!s)
                return;
        audit(o, "release", id, s->plugin->name, true, 0, NULL);
        spec_free(s);
        r->result = RTF_OK;
        r->id = id;
}

static bool thread_taken(pid_t tid) {
        for (struct spec *s = mgr.attached; s; s = s->att->next)
                if (s->att->thread.tid == tid && thread_alive(&s->att->thread))
                        return true;
        return false;
}

void manager_attach(struct owner *o, uint64_t id, pid_t tid, struct rtf_msg_reply *r) {
        struct rtf_sched_setting set;
        struct spec_thread *a;
        struct spec *s;
        int q;

        if (tid <= 0) {
                fail(r, -EINVAL, "thread id %d is not valid", (int)tid);
                return;
        }
        s = lookup_owned(o, id, "attach", r);
        if (!s)
                return;
        if (s->att) {
                fail(r, -EBUSY, "specification %" PRIu64 " already has thread %d attached", id, (int)s->att->thread.tid);
                return;
        }
        if (thread_taken(tid)) {
                fail(r, -EBUSY, "thread %d is already attached to another specification", (int)tid);
                return;
        }
        a = calloc(1, sizeof(*a));
        if (!a) {
                fail(r, -ENOMEM, "out of memory");
                return;
        }
        a->spec = s;
        a->source.fd = -1;
        q = thread_open(tid, &a->thread);
        if (q < 0) {
                free(a);
                fail(r, q, "cannot open thread %d: %s", (int)tid, strerror(-q));
                return;
        }
        /* Requirement 3 of section 4.1: only one's own threads. */
        if (o->uid != 0 && (a->thread.ruid != o->uid || a->thread.euid != o->uid)) {
                thread_close(&a->thread);
                free(a);
                fail(r, -EPERM, "thread %d does not belong to uid %u", (int)tid, (unsigned)o->uid);
                audit(o, "attach", id, NULL, false, 0, r->reason);
                return;
        }
        s->att = a;                     /* for manager_apply_setting(); not in the list yet */
        q = manager_setting_of(s, &set);
        if (q >= 0)
                q = manager_apply_setting(s, &set);
        if (q < 0)
                fail(r, q == -EBUSY ? RTF_SCHEDULE_FAIL : q, "the kernel refused the setting: %s", strerror(-q));
        else if ((q = event_add(&a->source, a->thread.pidfd, EPOLLIN, thread_exited)) < 0) {
                thread_demote(&a->thread, &mgr.cpuset, mgr.n_cpus);
                fail(r, q, "cannot watch thread %d", (int)tid);
        }
        if (q < 0) {
                enforce_remove(mgr.enforcer, s->id);    /* issue 10 */
                s->att = NULL;
                thread_close(&a->thread);
                free(a);
                return;
        }
        s->task.attached = 1;
        a->next = mgr.attached;
        if (mgr.attached)
                mgr.attached->att->prev = s;
        mgr.attached = s;
        pmqos_update(true, mgr.opt.latency_hint_us);
        note_state(s, true);
        fill_reply(r, s);
        audit(o, "attach", id, s->plugin->name, true, 0, NULL);
        log_debug("Thread %d attached to spec %" PRIu64, (int)tid, id);
}

void manager_detach(struct owner *o, uint64_t id, struct rtf_msg_reply *r) {
        struct spec *s = lookup_owned(o, id, "detach", r);

        if (!s)
                return;
        if (!s->att) {
                fail(r, -EINVAL, "specification %" PRIu64 " has no thread attached", id);
                return;
        }
        manager_spec_unattach(s, true);
        fill_reply(r, s);
        audit(o, "detach", id, s->plugin->name, true, 0, NULL);
}

void manager_owner_gone(struct owner *o) {
        while (o->specs)
                spec_free(o->specs);
}

/* ---- listings (rtfctl) ---- */

void manager_list_cores(uint32_t start, struct rtf_msg_rows *ret) {
        uint32_t index = 0;

        ret->start = start;
        ret->count = 0;
        for (uint32_t i = 0; i < mgr.set.n; i++) {
                struct plugin *p = &mgr.set.plugins[i];

                for (uint32_t k = 0; k < p->config.n_cpus; k++, index++) {
                        struct rtf_plugin_core_status st = { 0 };
                        struct rtf_wire_core *row;

                        if (index < start || ret->count >= RTF_STATUS_ROWS_MAX)
                                continue;
                        if (p->ops->core_status)
                                p->ops->core_status(p->state, k, &st);
                        row = &ret->cores[ret->count++];
                        memset(row, 0, sizeof(*row));
                        snprintf(row->plugin, sizeof(row->plugin), "%s", p->name);
                        snprintf(row->policy, sizeof(row->policy), "%s", manager_policy_name(p));
                        row->cpu = (int32_t)p->cpus[k];
                        row->partitioned = p->partitioned[k];
                        row->tasks = st.tasks;
                        row->prio_min = p->config.prio_min;
                        row->prio_max = p->config.prio_max;
                        row->prio_lowest = st.prio_lowest;
                        row->prio_highest = st.prio_highest;
                        row->utilization_ppm = st.utilization > 0 ? (uint64_t)(st.utilization * 1e6 + 0.5) : 0;
                }
        }
        ret->total = index;
}

void manager_list_tasks(uint32_t start, struct rtf_msg_rows *ret) {
        uint32_t index = 0;

        ret->start = start;
        ret->count = 0;
        for (struct spec *s = mgr.all_head; s; s = s->all_next, index++) {
                struct rtf_wire_task *row;

                if (index < start || ret->count >= RTF_TASKS_ROWS_MAX)
                        continue;
                row = &ret->tasks[ret->count++];
                memset(row, 0, sizeof(*row));
                row->id = s->id;
                row->uid = s->owner->uid;
                row->pid = s->owner->pid;
                row->tid = s->att ? s->att->thread.tid : 0;
                row->cpu = plugin_cpu_of(s->plugin, s->task.core);
                row->priority = s->task.priority;
                row->accepted_runtime_us = s->task.accepted_runtime_us;
                params_to_wire(&row->params, &s->task.params, s->plugin->name);
        }
        ret->total = index;
}

void manager_list_task_stats(uint32_t start, struct rtf_msg_rows *ret) {
        int64_t now = now_monotonic_ns();
        uint32_t index = 0;

        ret->start = start;
        ret->count = 0;
        for (struct spec *s = mgr.all_head; s; s = s->all_next) {
                struct rtf_wire_task_stats *row;

                if (!s->report)
                        continue;
                if (index++ < start || ret->count >= RTF_TASK_STATS_ROWS_MAX)
                        continue;
                row = &ret->task_stats[ret->count++];
                *row = (struct rtf_wire_task_stats){
                        .id = s->id,
                        .age_ms = now > s->report->at_ns ? (uint64_t)(now - s->report->at_ns) / NSEC_PER_MSEC : 0,
                        .stats = s->report->stats,
                };
        }
        ret->total = index;
}

/* ---- statistics reported by clients ---- */

int manager_report(struct owner *o, uint64_t id, const struct rtf_wire_stats *stats) {
        struct spec *s = spec_find(id);

        if (!s)
                return -ENOENT;
        /* Not owns(): even root reports only for the tasks it runs itself. */
        if (s->owner != o) {
                char why[RTF_REASON_MAX];

                snprintf(why, sizeof(why), "specification %" PRIu64 " belongs to another client", id);
                audit(o, "report statistics", id, NULL, false, 0, why);
                return -EPERM;
        }
        if (!s->report) {
                s->report = malloc(sizeof(*s->report));
                if (!s->report)
                        return -ENOMEM;
        }
        s->report->stats = *stats;
        s->report->at_ns = now_monotonic_ns();
        return 0;
}

/* ---- watchdog ---- */

/*
 * Requirement 3 of section 4.1 holds while a thread stays attached, not only
 * when it was: a thread that changed owners since (it exec'd a setuid
 * program) loses what its former owner's specification gave it.
 */
static bool owners_still_match(struct spec *s) {
        uid_t ruid, euid;
        int r;

        if (s->owner->uid == 0)
                return true;
        r = thread_read_owners(&s->att->thread, &ruid, &euid);
        if (r == -ESRCH)
                return true;            /* its exit is handled by its pidfd */
        if (r >= 0 && ruid == s->owner->uid && euid == s->owner->uid)
                return true;
        if (r < 0)
                log_warning_errno(r, "Cannot read the owners of thread %d of spec %" PRIu64 ": %m; demoting it",
                                  (int)s->att->thread.tid, s->id);
        else
                log_notice("audit: uid %u pid %d: thread %d of spec %" PRIu64 " now belongs to uid %u/%u "
                           "(a setuid program?): demoted and detached",
                           (unsigned)s->owner->uid, (int)s->owner->pid, (int)s->att->thread.tid, s->id,
                           (unsigned)ruid, (unsigned)euid);
        manager_spec_unattach(s, true);
        return false;
}

void manager_watchdog(void) {
        for (struct spec *s = mgr.attached, *next; s; s = next) {
                struct dl_sample cur;
                struct rtf_sched_setting set;
                bool stuck;
                int r;

                next = s->att->next;
                if (!owners_still_match(s))
                        continue;
                /* Issue 10: a thread that left the CPU its plugin chose loses its policy. */
                if (thread_placement_holds(&s->att->thread, mgr.n_cpus) == 0) {
                        log_notice("audit: uid %u pid %d: thread %d of spec %" PRIu64 " moved itself off CPU %d: "
                                   "demoted and detached", (unsigned)s->owner->uid, (int)s->owner->pid,
                                   (int)s->att->thread.tid, s->id, s->att->thread.applied.cpu);
                        manager_spec_unattach(s, true);
                        continue;
                }
                if (!s->att->thread.promoted || s->att->thread.applied.policy != RTF_POLICY_DEADLINE)
                        continue;
                r = thread_read_dl_state(&s->att->thread, &cur.runtime_ns, &cur.deadline_ns);
                if (r < 0)
                        continue;
                cur.now_ns = now_monotonic_ns();
                stuck = dl_state_is_stuck(s->att->have_sample ? &s->att->last_sample : NULL, &cur,
                                          s->att->thread.applied.period_ns, s->att->thread.applied.deadline_ns);
                if (mgr.inject_stuck_id == s->id) {
                        stuck = true;
                        mgr.inject_stuck_id = 0;
                }
                s->att->last_sample = cur;
                s->att->have_sample = true;
                if (!stuck)
                        continue;
                log_warning("Thread %d of spec %" PRIu64 " is left throttled by the kernel (runtime %" PRId64
                            " ns, deadline %+.3f s ahead, unchanged): resetting its reservation",
                            (int)s->att->thread.tid, s->id, cur.runtime_ns,
                            (double)(cur.deadline_ns - cur.now_ns) / 1e9);
                /* Leaving SCHED_DEADLINE discards the kernel's broken CBS
                 * state; coming back starts a fresh one. */
                r = thread_demote(&s->att->thread, &mgr.cpuset, mgr.n_cpus);
                if (r >= 0)
                        r = manager_setting_of(s, &set);
                if (r >= 0)
                        r = manager_apply_setting(s, &set);
                s->att->have_sample = false;
                if (r < 0) {
                        log_warning_errno(r, "Failed to restore thread %d of spec %" PRIu64 ": %m; left demoted",
                                          (int)s->att->thread.tid, s->id);
                        manager_spec_unattach(s, true);
                        continue;
                }
                mgr.stuck_recoveries++;
                log_notice("Thread %d of spec %" PRIu64 " runs again with a fresh reservation (recovery #%" PRIu64 ")",
                           (int)s->att->thread.tid, s->id, mgr.stuck_recoveries);
        }
}

