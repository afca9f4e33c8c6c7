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
#include "config.h"
#include "cpuset.h"
#include "dl-health.h"
#include "event.h"
#include "log.h"
#include "manager.h"
#include "plugin.h"
#include "pmqos.h"
#include "state.h"
#include "thread.h"
#include "trusted.h"

struct spec {
        uint64_t id;
        struct owner *owner;
        struct plugin *plugin;
        struct rtf_plugin_task task;
        struct thread thread;
        bool attached;
        bool committing;                /* plugin callbacks for it are deferred */
        struct source thread_source;
        struct spec *hash_next;
        struct spec *owner_prev, *owner_next;
        struct spec *attached_prev, *attached_next;
        struct spec *all_prev, *all_next;       /* in id order, for listings */
        struct dl_sample last_sample;
        bool have_sample;
        uint64_t acl_util_ppb;          /* what it counts toward max_utilization rules */
};

struct plugin_set {
        struct plugin *plugins;
        uint32_t n;
        struct rtf_config config;
        bool wants_partition[CPUSET_MAX_CPUS];
        bool any_partition;
};

static struct {
        struct manager_options opt;
        struct manager_options base;    /* as given on the command line */
        uint32_t n_cpus;
        struct plugin_set set;
        struct cpuset cpuset;
        struct spec **buckets;
        size_t n_buckets;
        uint32_t n_specs;
        uint64_t next_id;
        struct spec *attached;          /* specs with a thread */
        struct spec *all_head, *all_tail;
        uint64_t inject_stuck_id;       /* test hook, see manager_init() */
        struct state state;             /* journal of promoted threads */
        uint64_t leak_recoveries;
        uint64_t stuck_recoveries;
        bool no_cpusets;                /* no cgroup v1 cpusets, or another rtfd owns them */
        struct uid_count {
                uint32_t uid;
                uint32_t specs;
        } *uids;
        size_t n_uids;
} m;

const struct limits *manager_limits(void) {
        return &m.opt.limits;
}

static void fail(struct rtf_msg_reply *r, int result, const char *fmt, ...) _printf_(3, 4);
static void fail(struct rtf_msg_reply *r, int result, const char *fmt, ...) {
        va_list ap;

        r->result = result;
        va_start(ap, fmt);
        vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
        va_end(ap);
}

static int64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * (int64_t)NSEC_PER_SEC + ts.tv_nsec;
}

/* ---- the id table ---- */

static size_t bucket_of(uint64_t id) {
        return (size_t)(id * 0x9E3779B97F4A7C15ULL >> 20) & (m.n_buckets - 1);
}

static int table_grow(void) {
        size_t n = m.n_buckets ? m.n_buckets * 2 : 256;
        struct spec **b = calloc(n, sizeof(*b));

        if (!b)
                return -ENOMEM;
        for (size_t i = 0; i < m.n_buckets; i++)
                for (struct spec *s = m.buckets[i], *next; s; s = next) {
                        size_t k = (size_t)(s->id * 0x9E3779B97F4A7C15ULL >> 20) & (n - 1);

                        next = s->hash_next;
                        s->hash_next = b[k];
                        b[k] = s;
                }
        free(m.buckets);
        m.buckets = b;
        m.n_buckets = n;
        return 0;
}

static struct spec *spec_find(uint64_t id) {
        if (!m.n_buckets)
                return NULL;
        for (struct spec *s = m.buckets[bucket_of(id)]; s; s = s->hash_next)
                if (s->id == id)
                        return s;
        return NULL;
}

static void table_remove(struct spec *spec) {
        struct spec **p = &m.buckets[bucket_of(spec->id)];

        while (*p && *p != spec)
                p = &(*p)->hash_next;
        if (*p)
                *p = spec->hash_next;
}

/* ---- helpers ---- */

static const char *policy_name(const struct plugin *p) {
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
        for (size_t i = 0; i < m.n_uids; i++)
                if (m.uids[i].uid == uid)
                        return &m.uids[i].specs;
        if (create) {
                struct uid_count *u = realloc(m.uids, (m.n_uids + 1) * sizeof(*u));

                if (!u)
                        return NULL;
                m.uids = u;
                m.uids[m.n_uids] = (struct uid_count){ .uid = uid };
                return &m.uids[m.n_uids++].specs;
        }
        return NULL;
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
        else
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
        struct state_entry one = { changed->thread.tid, changed->thread.starttime, changed->thread.pidfd_ino };
        struct state_entry *live = NULL;
        size_t n = 0;

        if (m.state.lines >= STATE_COMPACT_LINES) {
                for (struct spec *s = m.attached; s; s = s->attached_next)
                        n++;
                live = calloc(n ? n : 1, sizeof(*live));
                n = 0;
                for (struct spec *s = m.attached; live && s; s = s->attached_next)
                        live[n++] = (struct state_entry){ s->thread.tid, s->thread.starttime, s->thread.pidfd_ino };
        }
        state_note(&m.state, add, &one, live, live ? n : SIZE_MAX / 4);
        free(live);
}

static void attached_unlink(struct spec *s) {
        if (s->attached_prev)
                s->attached_prev->attached_next = s->attached_next;
        else if (m.attached == s)
                m.attached = s->attached_next;
        if (s->attached_next)
                s->attached_next->attached_prev = s->attached_prev;
        s->attached_prev = s->attached_next = NULL;
}

/*
 * Apply, working around the kernel's DEADLINE bandwidth leak: if the kernel
 * refuses bandwidth that our own accounting has free, rebuild the root
 * domains (which recounts the bandwidth of the tasks that exist) and retry.
 */
static int apply_setting(struct spec *s, const struct rtf_sched_setting *set) {
        int r;

        r = thread_apply(&s->thread, set, &m.cpuset, m.n_cpus);
        if (r != -EBUSY || set->policy != RTF_POLICY_DEADLINE)
                return r;
        log_warning("Kernel refused SCHED_DEADLINE bandwidth for thread %d of spec %" PRIu64
                    " that rtf's admission has free: rebuilding root domains (bandwidth leak workaround)",
                    (int)s->thread.tid, s->id);
        if (cpuset_rebuild_root_domains(&m.cpuset, m.opt.cpuset_root) < 0)
                return r;
        r = thread_apply(&s->thread, set, &m.cpuset, m.n_cpus);
        if (r >= 0) {
                m.leak_recoveries++;
                log_notice("Recovered leaked SCHED_DEADLINE bandwidth; thread %d promoted (recovery #%" PRIu64 ")",
                           (int)s->thread.tid, m.leak_recoveries);
        } else {
                log_warning_errno(r, "Retry after rebuilding root domains failed: %m");
        }
        return r;
}

static int setting_of(const struct spec *s, struct rtf_sched_setting *ret) {
        struct rtf_sched_setting set = { .cpu = -1 };
        int r;

        r = s->plugin->ops->attach(s->plugin->state, &s->task, &set);
        if (r < 0)
                return r;
        *ret = set;
        return 0;
}

static void thread_exited(struct source *src, uint32_t events);

/* Withdraw the thread: demote it if it still lives, close its pidfd. */
static void spec_unattach(struct spec *s, bool demote) {
        if (!s->attached)
                return;
        if (demote && thread_alive(&s->thread)) {
                int r = thread_demote(&s->thread, &m.cpuset, m.n_cpus);

                if (r < 0 && r != -ESRCH)
                        log_warning_errno(r, "Failed to demote thread %d of spec %" PRIu64 ": %m",
                                          (int)s->thread.tid, s->id);
        }
        event_remove(&s->thread_source);
        thread_close(&s->thread);
        s->attached = false;
        s->task.attached = 0;
        attached_unlink(s);
        pmqos_update(m.attached != NULL, m.opt.latency_hint_us);
        note_state(s, false);
        if (s->plugin->ops->detach)
                s->plugin->ops->detach(s->plugin->state, &s->task);
}

static void thread_exited(struct source *src, uint32_t events) {
        struct spec *s = (struct spec *)((char *)src - offsetof(struct spec, thread_source));

        log_info("Thread %d of spec %" PRIu64 " exited; its kernel reservation is gone, the spec stays admitted",
                 (int)s->thread.tid, s->id);
        spec_unattach(s, false);
}

/* A plugin changed a scheduled task's setting (RM re-prioritisation). */
static void task_updated(void *data, struct plugin *p, struct rtf_plugin_task *task) {
        struct spec *s = (struct spec *)((char *)task - offsetof(struct spec, task));
        struct rtf_sched_setting set;
        int r;

        if (s->committing || !s->attached)
                return;
        r = setting_of(s, &set);
        if (r >= 0)
                r = apply_setting(s, &set);
        if (r < 0) {
                log_warning_errno(r, "Failed to re-apply plugin %s's new setting to thread %d of spec %" PRIu64
                                  ": %m; demoting it", p->name, (int)s->thread.tid, s->id);
                spec_unattach(s, true);
        }
}

static const struct plugin_host_ops host_ops = {
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

        for (uint32_t i = 0; i < m.set.n; i++) {
                struct plugin *p = &m.set.plugins[i];
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
                if (v != RTF_PLUGIN_OK && v != RTF_PLUGIN_PARTIAL && !first_no[0])
                        snprintf(first_no, sizeof(first_no), "%s: %s", p->name,
                                 d.reason[0] ? d.reason : "parameters not accepted");
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
        if (o->n_specs >= m.opt.limits.max_specs_per_client) {
                fail(r, -EUSERS, "limit max_specs_per_client (%" PRIu32 ") reached", m.opt.limits.max_specs_per_client);
                goto refused;
        }
        per_uid = uid_specs(o->uid, true);
        if (!per_uid) {
                fail(r, -ENOMEM, "out of memory");
                return;
        }
        if (o->uid != 0 && *per_uid >= m.opt.limits.max_specs_per_uid) {
                fail(r, -EUSERS, "limit max_specs_per_uid (%" PRIu32 ") reached", m.opt.limits.max_specs_per_uid);
                goto refused;
        }
        if (m.n_specs >= m.opt.limits.max_specs) {
                fail(r, -EUSERS, "limit max_specs (%" PRIu32 ") reached", m.opt.limits.max_specs);
                goto refused;
        }
        params_from_wire(&req, w);
        if (choose(o, w, &req, NULL, &c, r) < 0)
                goto refused;
        if (m.n_specs + 1 > m.n_buckets * 2 && table_grow() < 0) {
                fail(r, -ENOMEM, "out of memory");
                return;
        }
        s = calloc(1, sizeof(*s));
        if (!s) {
                fail(r, -ENOMEM, "out of memory");
                return;
        }
        s->id = ++m.next_id;
        s->owner = o;
        s->plugin = c.plugin;
        s->thread = THREAD_NULL;
        s->thread_source.fd = -1;
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
        s->hash_next = m.buckets[bucket_of(s->id)];
        m.buckets[bucket_of(s->id)] = s;
        s->owner_next = o->specs;
        if (o->specs)
                o->specs->owner_prev = s;
        o->specs = s;
        s->all_prev = m.all_tail;
        if (m.all_tail)
                m.all_tail->all_next = s;
        else
                m.all_head = s;
        m.all_tail = s;
        o->n_specs++;
        (*per_uid)++;
        m.n_specs++;
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
        if (s->attached) {
                q = setting_of(s, &set);
                if (q >= 0)
                        q = apply_setting(s, &set);
                if (q < 0) {
                        c.plugin->ops->release(c.plugin->state, &s->task);
                        spec_restore(s, old_plugin, &old);
                        s->committing = false;
                        if (q == -ESRCH) {
                                spec_unattach(s, false);
                        } else if (setting_of(s, &set) < 0 || apply_setting(s, &set) < 0) {
                                spec_unattach(s, true);
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

        spec_unattach(s, true);
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
                m.all_head = s->all_next;
        if (s->all_next)
                s->all_next->all_prev = s->all_prev;
        else
                m.all_tail = s->all_prev;
        o->n_specs--;
        m.n_specs--;
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
        for (struct spec *s = m.attached; s; s = s->attached_next)
                if (s->thread.tid == tid && thread_alive(&s->thread))
                        return true;
        return false;
}

void manager_attach(struct owner *o, uint64_t id, pid_t tid, struct rtf_msg_reply *r) {
        struct rtf_sched_setting set;
        struct spec *s;
        int q;

        if (tid <= 0) {
                fail(r, -EINVAL, "thread id %d is not valid", (int)tid);
                return;
        }
        s = lookup_owned(o, id, "attach", r);
        if (!s)
                return;
        if (s->attached) {
                fail(r, -EBUSY, "specification %" PRIu64 " already has thread %d attached", id, (int)s->thread.tid);
                return;
        }
        if (thread_taken(tid)) {
                fail(r, -EBUSY, "thread %d is already attached to another specification", (int)tid);
                return;
        }
        q = thread_open(tid, &s->thread);
        if (q < 0) {
                fail(r, q, "cannot open thread %d: %s", (int)tid, strerror(-q));
                return;
        }
        /* Requirement 3 of section 4.1: only one's own threads. */
        if (o->uid != 0 && (s->thread.ruid != o->uid || s->thread.euid != o->uid)) {
                thread_close(&s->thread);
                s->thread = THREAD_NULL;
                fail(r, -EPERM, "thread %d does not belong to uid %u", (int)tid, (unsigned)o->uid);
                audit(o, "attach", id, NULL, false, 0, r->reason);
                return;
        }
        q = setting_of(s, &set);
        if (q >= 0)
                q = apply_setting(s, &set);
        if (q < 0) {
                thread_close(&s->thread);
                s->thread = THREAD_NULL;
                fail(r, q == -EBUSY ? RTF_SCHEDULE_FAIL : q, "the kernel refused the setting: %s", strerror(-q));
                return;
        }
        q = event_add(&s->thread_source, s->thread.pidfd, EPOLLIN, thread_exited);
        if (q < 0) {
                thread_demote(&s->thread, &m.cpuset, m.n_cpus);
                thread_close(&s->thread);
                s->thread = THREAD_NULL;
                fail(r, q, "cannot watch thread %d", (int)tid);
                return;
        }
        s->attached = true;
        s->task.attached = 1;
        s->attached_next = m.attached;
        if (m.attached)
                m.attached->attached_prev = s;
        m.attached = s;
        pmqos_update(true, m.opt.latency_hint_us);
        note_state(s, true);
        fill_reply(r, s);
        audit(o, "attach", id, s->plugin->name, true, 0, NULL);
        log_debug("Thread %d attached to spec %" PRIu64, (int)tid, id);
}

void manager_detach(struct owner *o, uint64_t id, struct rtf_msg_reply *r) {
        struct spec *s = lookup_owned(o, id, "detach", r);

        if (!s)
                return;
        if (!s->attached) {
                fail(r, -EINVAL, "specification %" PRIu64 " has no thread attached", id);
                return;
        }
        spec_unattach(s, true);
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
        for (uint32_t i = 0; i < m.set.n; i++) {
                struct plugin *p = &m.set.plugins[i];

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
                        snprintf(row->policy, sizeof(row->policy), "%s", policy_name(p));
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
        for (struct spec *s = m.all_head; s; s = s->all_next, index++) {
                struct rtf_wire_task *row;

                if (index < start || ret->count >= RTF_TASKS_ROWS_MAX)
                        continue;
                row = &ret->tasks[ret->count++];
                memset(row, 0, sizeof(*row));
                row->id = s->id;
                row->uid = s->owner->uid;
                row->pid = s->owner->pid;
                row->tid = s->attached ? s->thread.tid : 0;
                row->cpu = plugin_cpu_of(s->plugin, s->task.core);
                row->priority = s->task.priority;
                row->accepted_runtime_us = s->task.accepted_runtime_us;
                params_to_wire(&row->params, &s->task.params, s->plugin->name);
        }
        ret->total = index;
}

/* ---- watchdog ---- */

void manager_watchdog(void) {
        for (struct spec *s = m.attached, *next; s; s = next) {
                struct dl_sample cur;
                struct rtf_sched_setting set;
                bool stuck;
                int r;

                next = s->attached_next;
                if (!s->thread.promoted || s->thread.applied.policy != RTF_POLICY_DEADLINE)
                        continue;
                r = thread_read_dl_state(&s->thread, &cur.runtime_ns, &cur.deadline_ns);
                if (r < 0)
                        continue;
                cur.now_ns = now_ns();
                stuck = dl_state_is_stuck(s->have_sample ? &s->last_sample : NULL, &cur,
                                          s->thread.applied.period_ns, s->thread.applied.deadline_ns);
                if (m.inject_stuck_id == s->id) {
                        stuck = true;
                        m.inject_stuck_id = 0;
                }
                s->last_sample = cur;
                s->have_sample = true;
                if (!stuck)
                        continue;
                log_warning("Thread %d of spec %" PRIu64 " is left throttled by the kernel (runtime %" PRId64
                            " ns, deadline %+.3f s ahead, unchanged): resetting its reservation",
                            (int)s->thread.tid, s->id, cur.runtime_ns,
                            (double)(cur.deadline_ns - cur.now_ns) / 1e9);
                /* Leaving SCHED_DEADLINE discards the kernel's broken CBS
                 * state; coming back starts a fresh one. */
                r = thread_demote(&s->thread, &m.cpuset, m.n_cpus);
                if (r >= 0)
                        r = setting_of(s, &set);
                if (r >= 0)
                        r = apply_setting(s, &set);
                s->have_sample = false;
                if (r < 0) {
                        log_warning_errno(r, "Failed to restore thread %d of spec %" PRIu64 ": %m; left demoted",
                                          (int)s->thread.tid, s->id);
                        spec_unattach(s, true);
                        continue;
                }
                m.stuck_recoveries++;
                log_notice("Thread %d of spec %" PRIu64 " runs again with a fresh reservation (recovery #%" PRIu64 ")",
                           (int)s->thread.tid, s->id, m.stuck_recoveries);
        }
}

/* ---- configuration ---- */

static void mkdir_parent(const char *path) {
        char dir[4096];
        char *slash;

        if (!path || snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
                return;
        slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return;
        *slash = 0;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                log_warning_errno(errno, "Failed to create %s: %m", dir);
}

static uint32_t online_cpus(void) {
        long n = sysconf(_SC_NPROCESSORS_CONF);

        return n < 1 ? 1 : (uint32_t)MIN(n, (long)CPUSET_MAX_CPUS);
}

static int read_config(const char *path, uint32_t n_cpus, struct rtf_config *ret) {
        _cleanup_(freep) char *buf = NULL;
        char err[512];
        size_t len;
        int r;

        if (!path)
                return rtf_config_default(n_cpus, ret);
        /* Plugin paths in it decide what code runs as root. */
        r = trusted_read(path, RTF_CONFIG_MAX_SIZE, "configuration", &buf, &len);
        if (r == -ENOENT)
                return log_error_errno(r, "Configuration %s does not exist", path);
        if (r < 0)
                return r;
        r = rtf_config_parse(buf, len, path, n_cpus, ret, err, sizeof(err));
        if (r < 0)
                log_error("%s", err);
        return r;
}

static void warn_overlap(void *userdata, uint32_t i, uint32_t j, uint32_t cpu) {
        const struct rtf_config *c = userdata;

        log_warning("Plugins %s (line %u) and %s (line %u) share CPU %" PRIu32
                    ": their guarantees may interfere (section 7.2 of the ReTiF paper)",
                    c->plugins[i].name, c->plugins[i].line, c->plugins[j].name, c->plugins[j].line, cpu);
}

static int wants_partitions(const struct rtf_config *c, struct plugin_set *set) {
        memset(set->wants_partition, 0, sizeof(set->wants_partition));
        set->any_partition = false;
        for (uint32_t i = 0; i < c->n_plugins; i++) {
                uint32_t flags = 0;
                int r = plugin_peek_flags(&c->plugins[i], m.opt.plugindir, &flags);

                if (r < 0)
                        return r;
                if (!(flags & RTF_PLUGIN_WANTS_PARTITIONS))
                        continue;
                for (uint32_t k = 0; k < c->plugins[i].n_cpus; k++)
                        if (c->plugins[i].cpus[k] < CPUSET_MAX_CPUS) {
                                set->wants_partition[c->plugins[i].cpus[k]] = true;
                                set->any_partition = true;
                        }
        }
        return 0;
}

static void set_unload(struct plugin_set *set) {
        for (uint32_t i = 0; i < set->n; i++)
                plugin_unload(&set->plugins[i]);
        free(set->plugins);
        set->plugins = NULL;
        set->n = 0;
        rtf_config_deinit(&set->config);
}

static int set_load(struct plugin_set *set) {
        set->plugins = calloc(set->config.n_plugins, sizeof(*set->plugins));
        if (!set->plugins)
                return -ENOMEM;
        for (uint32_t i = 0; i < set->config.n_plugins; i++) {
                int r = plugin_load(&set->plugins[i], &set->config.plugins[i], m.opt.plugindir, &m.cpuset,
                                    &host_ops);
                if (r < 0)
                        return r;
                set->n++;
        }
        return 0;
}

static void log_set(const struct plugin_set *set, bool builtin) {
        for (uint32_t i = 0; i < set->n; i++) {
                const struct plugin *p = &set->plugins[i];
                char cpus[256] = "";
                size_t len = 0;

                for (uint32_t k = 0; k < p->config.n_cpus && len + 16 < sizeof(cpus); k++)
                        len += snprintf(cpus + len, sizeof(cpus) - len, "%s%" PRIu32 "%s", k ? "," : "",
                                        p->cpus[k], p->partitioned[k] ? "*" : "");
                log_info("Plugin %s (%s, %s) priorities %" PRIu32 "-%" PRIu32 " on CPU %s", p->name, p->file,
                         policy_name(p), p->config.prio_min, p->config.prio_max, cpus);
        }
        if (builtin)
                log_info("No configuration file: built-in default (all plugins share every CPU; "
                         "SCHED_DEADLINE runs in global mode)");
        else
                rtf_config_for_each_overlap(&set->config, warn_overlap, (void *)&set->config);
}

static int parse_u32_setting(const struct rtf_config *c, const char *key, uint32_t *value) {
        const char *v = rtf_config_get_setting(c, key);
        unsigned line = 0;
        char *end;
        unsigned long n;

        if (!v)
                return 0;
        for (uint32_t i = 0; i < c->n_settings && !line; i++)
                if (strcmp(c->settings[i].key, key) == 0)
                        line = c->settings[i].line;
        errno = 0;
        n = strtoul(v, &end, 10);
        if (errno || *end || end == v || n == 0 || n > UINT32_MAX || v[0] == '-')
                return log_error_errno(EINVAL, "%s:%u: set %s: \"%s\" is not a positive number",
                                       m.opt.config_path, line, key, v);
        *value = (uint32_t)n;
        return 0;
}

/* 0 is the useful value (poll, never halt), so unlike the limits it is allowed. */
static int parse_hint_us(const struct rtf_config *c, uint32_t i, int32_t *value) {
        const char *v = c->settings[i].value;
        char *end;
        long n;

        if (*value == PMQOS_OFF)
                return 0;               /* "set latency_hint off" wins, whatever the order */
        errno = 0;
        n = strtol(v, &end, 10);
        if (errno || *end || end == v || n < 0 || n > 2000000000L)
                return log_error_errno(EINVAL, "%s:%u: set latency_hint_us: \"%s\" is not a number of microseconds",
                                       m.opt.config_path, c->settings[i].line, v);
        *value = (int32_t)n;
        return 0;
}

static int apply_settings(const struct rtf_config *c) {
        static const struct {
                const char *key;
                size_t offset;
        } known[] = {
                { "max_clients", offsetof(struct limits, max_clients) },
                { "max_clients_per_uid", offsetof(struct limits, max_clients_per_uid) },
                { "max_specs", offsetof(struct limits, max_specs) },
                { "max_specs_per_client", offsetof(struct limits, max_specs_per_client) },
                { "max_specs_per_uid", offsetof(struct limits, max_specs_per_uid) },
                { "max_requests_per_sec", offsetof(struct limits, max_requests_per_sec) },
                { "request_burst", offsetof(struct limits, request_burst) },
        };
        struct limits l = m.base.limits;
        int32_t hint = m.base.latency_hint_us;

        for (uint32_t i = 0; i < c->n_settings; i++) {
                bool ok = false;

                if (strcmp(c->settings[i].key, "latency_hint") == 0) {
                        if (strcmp(c->settings[i].value, "off") != 0)
                                return log_error_errno(EINVAL, "%s:%u: set latency_hint: only \"off\" is known "
                                                       "(the value is set by latency_hint_us)",
                                                       m.opt.config_path, c->settings[i].line);
                        hint = PMQOS_OFF;
                        continue;
                }
                if (strcmp(c->settings[i].key, "latency_hint_us") == 0) {
                        if (parse_hint_us(c, i, &hint) < 0)
                                return -EINVAL;
                        continue;
                }

                for (size_t k = 0; k < ELEMENTSOF(known) && !ok; k++) {
                        if (strcmp(c->settings[i].key, known[k].key) != 0)
                                continue;
                        if (parse_u32_setting(c, known[k].key, (uint32_t *)((char *)&l + known[k].offset)) < 0)
                                return -EINVAL;
                        ok = true;
                }
                if (!ok)
                        return log_error_errno(EINVAL, "%s:%u: unknown setting \"%s\"",
                                               m.opt.config_path ? m.opt.config_path : "(built-in)",
                                               c->settings[i].line, c->settings[i].key);
        }
        m.opt.limits = l;
        m.opt.latency_hint_us = hint;
        return 0;
}

/* The access-control policy for the plugin instances of `c`. */
static int parse_policy(const struct rtf_config *c, struct acl_policy *ret) {
        const char *names[RTF_CONFIG_MAX_PLUGINS];

        for (uint32_t i = 0; i < c->n_plugins && i < RTF_CONFIG_MAX_PLUGINS; i++)
                names[i] = c->plugins[i].name;
        return access_parse_file(m.opt.acl_path, m.opt.acl_required, names, c->n_plugins, ret);
}

static void recount_policy(void) {
        for (struct spec *s = m.all_head; s; s = s->all_next)
                access_count(s->owner, s->plugin->name, s->acl_util_ppb, true);
}

int manager_check_config(const struct manager_options *o) {
        struct plugin_set set = { 0 };
        int r;

        m.opt = m.base = *o;
        m.n_cpus = online_cpus();
        struct acl_policy policy = ACL_POLICY_NULL;

        r = read_config(o->config_path, m.n_cpus, &set.config);
        if (r >= 0)
                r = apply_settings(&set.config);
        if (r >= 0)
                r = wants_partitions(&set.config, &set);
        if (r >= 0)
                r = parse_policy(&set.config, &policy);
        acl_policy_deinit(&policy);
        rtf_config_deinit(&set.config);
        return r;
}

int manager_init(const struct manager_options *o) {
        struct acl_policy policy = ACL_POLICY_NULL;
        const char *inject;
        int r;

        m.opt = m.base = *o;
        m.n_cpus = online_cpus();
        m.cpuset = CPUSET_NULL;
        inject = getenv("RTFD_TEST_INJECT_STUCK");
        if (inject)
                m.inject_stuck_id = strtoull(inject, NULL, 10);

        mkdir_parent(o->state_path);
        state_open(&m.state, o->state_path);
        r = read_config(o->config_path, m.n_cpus, &m.set.config);
        if (r < 0)
                return r;
        r = apply_settings(&m.set.config);
        if (r < 0)
                goto fail;
        r = wants_partitions(&m.set.config, &m.set);
        if (r < 0)
                goto fail;
        r = cpuset_setup(&m.cpuset, o->cpuset_root, m.n_cpus, m.set.wants_partition, m.set.any_partition);
        if (r < 0)
                goto fail;
        m.no_cpusets = r == CPUSET_E_UNAVAILABLE || r == CPUSET_E_BUSY;
        r = set_load(&m.set);
        if (r < 0)
                goto fail;
        r = parse_policy(&m.set.config, &policy);
        if (r < 0)
                goto fail;
        r = access_install(&policy);
        if (r < 0)
                goto fail;
        r = table_grow();
        if (r < 0)
                goto fail;
        log_set(&m.set, !o->config_path);
        return 0;
fail:
        acl_policy_deinit(&policy);
        set_unload(&m.set);
        cpuset_teardown(&m.cpuset);
        return r;
}

/* Move every live spec into `next` (same plugin names); all or nothing. */
static int readmit_all(struct plugin_set *next) {
        struct rtf_plugin_task *saved = NULL;
        struct plugin **target = NULL;
        uint32_t n = 0, i = 0;
        int r = 0;

        if (m.n_specs) {
                saved = calloc(m.n_specs, sizeof(*saved));
                target = calloc(m.n_specs, sizeof(*target));
                if (!saved || !target) {
                        free(saved);
                        free(target);
                        return -ENOMEM;
                }
        }
        for (struct spec *s = m.all_head; s; s = s->all_next)
                s->committing = true;
        for (struct spec *s = m.all_head; s; s = s->all_next, n++) {
                struct rtf_plugin_decision d = { .core = -1 };
                struct plugin *p = NULL;
                int v;

                saved[n] = s->task;
                for (uint32_t k = 0; k < next->n; k++)
                        if (strcmp(next->plugins[k].name, s->plugin->name) == 0)
                                p = &next->plugins[k];
                if (!p) {
                        r = log_error_errno(ENOENT, "Reload: spec %" PRIu64 " is held by plugin %s, which the new "
                                            "configuration drops", s->id, s->plugin->name);
                        break;
                }
                /* The old instance's data stays with it (and in saved[]). */
                s->task.plugin_data = NULL;
                v = p->ops->accept(p->state, &s->task.params, &d);
                if (v != RTF_PLUGIN_OK && v != RTF_PLUGIN_PARTIAL) {
                        r = log_error_errno(EBUSY, "Reload: plugin %s of the new configuration refuses spec %" PRIu64
                                            ": %s", p->name, s->id, d.reason);
                        break;
                }
                s->task.attached = saved[n].attached;
                r = p->ops->schedule(p->state, &s->task, &d);
                if (r < 0)
                        break;
                target[n] = p;
                p->n_tasks++;
        }
        if (r < 0) {
                /* Undo: the new plugins forget, the specs get their old task back. */
                for (struct spec *s = m.all_head; s && i <= n && i < m.n_specs; s = s->all_next, i++) {
                        if (i < n) {
                                target[i]->ops->release(target[i]->state, &s->task);
                                target[i]->n_tasks--;
                        }
                        s->task = saved[i];
                }
        } else {
                for (struct spec *s = m.all_head; s; s = s->all_next, i++)
                        s->plugin = target[i];
        }
        for (struct spec *s = m.all_head; s; s = s->all_next)
                s->committing = false;
        free(saved);
        free(target);
        return r;
}

/*
 * Whether cpuset_setup() would leave the partitions as they are.  It makes
 * none without a cpuset hierarchy or when no CPU would be left for the rest
 * of the system, so a configuration that asks for those (the built-in
 * default's EDF on every CPU) changes nothing and may be reloaded with live
 * reservations.
 */
static bool same_partitions(const struct plugin_set *next) {
        uint32_t n_want = 0;
        bool any;

        for (uint32_t c = 0; c < m.cpuset.n_cpus; c++)
                n_want += next->wants_partition[c];
        any = next->any_partition && !m.no_cpusets && n_want > 0 && n_want < m.cpuset.n_cpus;
        if (m.cpuset.active != any)
                return false;
        for (uint32_t c = 0; c < m.cpuset.n_cpus; c++)
                if (m.cpuset.partitioned[c] != (next->wants_partition[c] && any))
                        return false;
        return true;
}

int manager_reload(void) {
        struct acl_policy policy = ACL_POLICY_NULL;
        struct plugin_set next = { 0 }, old;
        struct manager_options saved_opt = m.opt;
        int r;

        log_info("Reloading %s and %s", m.opt.config_path ? m.opt.config_path : "the built-in configuration",
                 m.opt.acl_path);
        r = read_config(m.opt.config_path, m.n_cpus, &next.config);
        if (r < 0)
                goto keep;
        r = apply_settings(&next.config);
        if (r < 0)
                goto keep;
        r = wants_partitions(&next.config, &next);
        if (r < 0)
                goto keep;
        if (!same_partitions(&next)) {
                /* Re-partitioning moves every thread of the machine; only
                 * when no reservation can be disturbed by it. */
                if (m.n_specs) {
                        r = log_error_errno(EBUSY, "Reload: the new configuration changes the SCHED_DEADLINE "
                                            "partitions, which needs no live reservations (%" PRIu32 " now)",
                                            m.n_specs);
                        goto keep;
                }
                cpuset_teardown(&m.cpuset);
                r = cpuset_setup(&m.cpuset, m.opt.cpuset_root, m.n_cpus, next.wants_partition,
                                 next.any_partition);
                if (r < 0) {
                        cpuset_setup(&m.cpuset, m.opt.cpuset_root, m.n_cpus, m.set.wants_partition,
                                     m.set.any_partition);
                        goto keep;
                }
                m.no_cpusets = r == CPUSET_E_UNAVAILABLE || r == CPUSET_E_BUSY;
        }
        r = set_load(&next);
        if (r < 0)
                goto keep;
        r = parse_policy(&next.config, &policy);
        if (r < 0)
                goto keep;
        r = readmit_all(&next);
        if (r < 0)
                goto keep;
        r = access_install(&policy);
        if (r < 0)
                log_error_errno(r, "Reload: cannot put the new access-control policy in force: %m; the old "
                                "one stays");
        else
                recount_policy();

        old = m.set;
        m.set = next;
        next = old;
        /* The old instances held the specs' tasks; they are unloaded
         * without being asked to release them again. */
        set_unload(&next);
        for (struct spec *s = m.attached, *n; s; s = n) {
                struct rtf_sched_setting set;

                n = s->attached_next;
                r = setting_of(s, &set);
                if (r >= 0)
                        r = apply_setting(s, &set);
                if (r < 0) {
                        log_warning_errno(r, "Reload: thread %d of spec %" PRIu64 " could not get its new setting: "
                                          "%m; demoted", (int)s->thread.tid, s->id);
                        spec_unattach(s, true);
                }
        }
        pmqos_update(m.attached != NULL, m.opt.latency_hint_us);
        log_set(&m.set, !m.opt.config_path);
        log_notice("Configuration reloaded");
        return 0;
keep:
        acl_policy_deinit(&policy);
        set_unload(&next);
        m.opt = saved_opt;
        log_error("Reload failed; the running configuration stays in force");
        return r;
}

void manager_done(void) {
        /* Clients are gone by now; anything left is demoted and released. */
        while (m.all_head) {
                struct owner *o = m.all_head->owner;

                manager_owner_gone(o);
        }
        set_unload(&m.set);
        cpuset_teardown(&m.cpuset);
        access_done();
        state_close(&m.state);
        free(m.uids);
        m.uids = NULL;
        m.n_uids = 0;
        free(m.buckets);
        m.buckets = NULL;
        m.n_buckets = 0;
}
