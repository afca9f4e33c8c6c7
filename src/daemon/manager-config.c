/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker's configuration: reading rtfd's config and policy files,
 * loading the plugin instances and the cpuset partitions at start, the
 * atomic reload on SIGHUP (every live specification re-admitted by the new
 * instances, or nothing changes), and the orderly stop.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"
#include "log.h"
#include "manager-private.h"
#include "pmqos.h"
#include "trusted.h"

/* ---- configuration ---- */

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

static int wants_partitions(const struct manager *mgr, const struct rtf_config *c, struct plugin_set *set) {
        memset(set->wants_partition, 0, sizeof(set->wants_partition));
        set->any_partition = false;
        for (uint32_t i = 0; i < c->n_plugins; i++) {
                uint32_t flags = 0;
                int r = plugin_peek_flags(&c->plugins[i], mgr->opt.plugindir, &flags);

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

static int set_load(struct manager *mgr, struct plugin_set *set) {
        set->plugins = calloc(set->config.n_plugins, sizeof(*set->plugins));
        if (!set->plugins)
                return -ENOMEM;
        for (uint32_t i = 0; i < set->config.n_plugins; i++) {
                int r = plugin_load(&set->plugins[i], &set->config.plugins[i], mgr->opt.plugindir, &mgr->cpuset,
                                    &mgr->hops);
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
                         manager_policy_name(p), p->config.prio_min, p->config.prio_max, cpus);
        }
        if (builtin)
                log_info("No configuration file: the built-in default");
        if (set->config.shared_cpus_allowed)
                log_info("Plugins share CPUs on purpose (set shared_cpus allow)");
        else
                rtf_config_for_each_overlap(&set->config, warn_overlap, (void *)&set->config);
}

static int parse_u32_setting(const struct manager *mgr, const struct rtf_config *c, const char *key, uint32_t *value) {
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
                                       mgr->opt.config_path, line, key, v);
        *value = (uint32_t)n;
        return 0;
}

/* 0 is the useful value (poll, never halt), so unlike the limits it is allowed. */
static int parse_hint_us(const struct manager *mgr, const struct rtf_config *c, uint32_t i, int32_t *value) {
        const char *v = c->settings[i].value;
        char *end;
        long n;

        if (*value == PMQOS_OFF)
                return 0;               /* "set latency_hint off" wins, whatever the order */
        errno = 0;
        n = strtol(v, &end, 10);
        if (errno || *end || end == v || n < 0 || n > 2000000000L)
                return log_error_errno(EINVAL, "%s:%u: set latency_hint_us: \"%s\" is not a number of microseconds",
                                       mgr->opt.config_path, c->settings[i].line, v);
        *value = (int32_t)n;
        return 0;
}

static int apply_settings(struct manager *mgr, const struct rtf_config *c) {
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
                { "max_requests_per_sec_per_uid", offsetof(struct limits, max_requests_per_sec_per_uid) },
                { "request_burst_per_uid", offsetof(struct limits, request_burst_per_uid) },
                { "max_busy_permille_per_uid", offsetof(struct limits, max_busy_permille_per_uid) },
                { "busy_burst_ms_per_uid", offsetof(struct limits, busy_burst_ms_per_uid) },
        };
        struct limits l = mgr->base.limits;
        int32_t hint = mgr->base.latency_hint_us;

        for (uint32_t i = 0; i < c->n_settings; i++) {
                bool ok = false;

                if (strcmp(c->settings[i].key, RTF_CONFIG_SHARED_CPUS) == 0)
                        continue;       /* the parser's own */
                if (strcmp(c->settings[i].key, "latency_hint") == 0) {
                        if (strcmp(c->settings[i].value, "off") != 0)
                                return log_error_errno(EINVAL, "%s:%u: set latency_hint: only \"off\" is known "
                                                       "(the value is set by latency_hint_us)",
                                                       mgr->opt.config_path, c->settings[i].line);
                        hint = PMQOS_OFF;
                        continue;
                }
                if (strcmp(c->settings[i].key, "latency_hint_us") == 0) {
                        if (parse_hint_us(mgr, c, i, &hint) < 0)
                                return -EINVAL;
                        continue;
                }

                for (size_t k = 0; k < ELEMENTSOF(known) && !ok; k++) {
                        if (strcmp(c->settings[i].key, known[k].key) != 0)
                                continue;
                        if (parse_u32_setting(mgr, c, known[k].key, (uint32_t *)((char *)&l + known[k].offset)) < 0)
                                return -EINVAL;
                        ok = true;
                }
                if (!ok)
                        return log_error_errno(EINVAL, "%s:%u: unknown setting \"%s\"",
                                               mgr->opt.config_path ? mgr->opt.config_path : "(built-in)",
                                               c->settings[i].line, c->settings[i].key);
        }
        mgr->opt.limits = l;
        mgr->opt.latency_hint_us = hint;
        return 0;
}

/* The access-control policy for the plugin instances of `c`. */
static int parse_policy(const struct manager *mgr, const struct rtf_config *c, struct acl_policy *ret) {
        const char *names[RTF_CONFIG_MAX_PLUGINS];

        for (uint32_t i = 0; i < c->n_plugins && i < RTF_CONFIG_MAX_PLUGINS; i++)
                names[i] = c->plugins[i].name;
        return access_parse_file(mgr->opt.acl_path, mgr->opt.acl_required, names, c->n_plugins, ret);
}

static void recount_policy(struct manager *mgr) {
        for (struct spec *s = mgr->all_head; s; s = s->all_next)
                access_count(&mgr->access, s->owner, s->plugin->name, s->acl_util_ppb, true);
}

/* What manager_init() does, on a scratch context, without the kernel: the
 * partitions are planned, not made; the plugins are initialised and
 * unloaded, so their options are checked by their own code. */
int manager_check_config(const struct manager_options *o) {
        struct acl_policy policy = ACL_POLICY_NULL;
        struct plugin_set set = { 0 };
        _cleanup_(freep) struct manager *mgr = calloc(1, sizeof(*mgr));
        int r;

        if (!mgr)
                return -ENOMEM;
        mgr->opt = mgr->base = *o;
        mgr->n_cpus = online_cpus();
        mgr->cpuset = CPUSET_NULL;
        r = read_config(o->config_path, mgr->n_cpus, &set.config);
        if (r >= 0)
                r = apply_settings(mgr, &set.config);
        if (r >= 0)
                r = wants_partitions(mgr, &set.config, &set);
        if (r >= 0)
                r = cpuset_plan(&mgr->cpuset, mgr->n_cpus, set.wants_partition, set.any_partition);
        if (r >= 0)
                r = set_load(mgr, &set);
        if (r >= 0)
                r = parse_policy(mgr, &set.config, &policy);
        if (r >= 0)
                log_set(&set, !o->config_path);
        if (r >= 0 && o->machine_report) {
                mgr->set = set;         /* borrowed for the report; set_unload() frees it */
                r = manager_describe_machine(mgr, o->machine_report, o->machine_data);
                mgr->set = (struct plugin_set){ 0 };
        }
        acl_policy_deinit(&policy);
        set_unload(&set);
        return r;
}

int manager_new(const struct manager_options *o, const struct kernel_ops *kops, void *kdata,
                struct event_loop *ev, struct manager **ret) {
        struct acl_policy policy = ACL_POLICY_NULL;
        struct manager *mgr;
        const char *inject;
        int r;

        mgr = calloc(1, sizeof(*mgr));
        if (!mgr)
                return -ENOMEM;
        mgr->kops = kops;
        mgr->kdata = kdata ? kdata : mgr;
        mgr->ev = ev;
        mgr->hops = (struct plugin_host_ops){ .task_updated = manager_host_task_updated, .data = mgr };
        mgr->access = ACCESS_NULL;
        mgr->pmqos = PMQOS_NULL;
        mgr->state = STATE_NULL;
        mgr->opt = mgr->base = *o;
        mgr->n_cpus = online_cpus();
        mgr->cpuset = CPUSET_NULL;
        inject = getenv("RTFD_TEST_INJECT_STUCK");
        if (inject)
                mgr->inject_stuck_id = strtoull(inject, NULL, 10);

        {
                char dir[4096];

                int q = o->state_path ? mkdir_parent(o->state_path, 0755, dir, sizeof(dir)) : 0;

                if (q < 0)
                        log_warning_errno(q, "Failed to create %s: %m", dir);
        }
        /* Issue 10: a journal rtfd cannot trust stops it (the reason is logged). */
        r = state_open(&mgr->state, o->state_path);
        if (r < 0) {
                r = -EPERM;
                goto fail;
        }
        r = read_config(o->config_path, mgr->n_cpus, &mgr->set.config);
        if (r < 0)
                goto fail;
        r = apply_settings(mgr, &mgr->set.config);
        if (r < 0)
                goto fail;
        r = wants_partitions(mgr, &mgr->set.config, &mgr->set);
        if (r < 0)
                goto fail;
        r = cpuset_setup(&mgr->cpuset, o->cpuset_root, mgr->n_cpus, mgr->set.wants_partition, mgr->set.any_partition);
        if (r < 0)
                goto fail;
        mgr->no_cpusets = r == CPUSET_E_UNAVAILABLE || r == CPUSET_E_BUSY;
        r = set_load(mgr, &mgr->set);
        if (r < 0)
                goto fail;
        r = parse_policy(mgr, &mgr->set.config, &policy);
        if (r < 0)
                goto fail;
        r = access_install(&mgr->access, &policy);
        if (r < 0)
                goto fail;
        r = manager_table_grow(mgr);
        if (r < 0)
                goto fail;
        log_set(&mgr->set, !o->config_path);
        if (o->veto)
                manager_set_veto(mgr, o->veto, o->machine_data);
        if (o->machine_report) {
                r = manager_describe_machine(mgr, o->machine_report, o->machine_data);
                if (r < 0)
                        goto fail;
        }
        *ret = mgr;
        return 0;
fail:
        acl_policy_deinit(&policy);
        mgr->enforcer = enforce_free(mgr->enforcer);   /* issue 10 */
        set_unload(&mgr->set);
        cpuset_teardown(&mgr->cpuset);
        access_done(&mgr->access);
        state_close(&mgr->state, false);
        free(mgr);
        return r;
}

/* Move every live spec into `next` (same plugin names); all or nothing. */
static int readmit_all(struct manager *mgr, struct plugin_set *next) {
        struct rtf_plugin_task *saved = NULL;
        struct spec_decision *saved_decision = NULL;
        struct plugin **target = NULL;
        uint32_t n = 0, i = 0;
        int r = 0;

        if (mgr->n_specs) {
                saved = calloc(mgr->n_specs, sizeof(*saved));
                saved_decision = calloc(mgr->n_specs, sizeof(*saved_decision));
                target = calloc(mgr->n_specs, sizeof(*target));
                if (!saved || !saved_decision || !target) {
                        free(saved);
                        free(saved_decision);
                        free(target);
                        return -ENOMEM;
                }
        }
        /* The threads get the new instances' settings after the swap, in
         * manager_reload(); what the plugins report meanwhile is moot. */
        for (struct spec *s = mgr->all_head; s; s = s->all_next)
                s->committing = true;
        manager_commit_begin(mgr);
        for (struct spec *s = mgr->all_head; s; s = s->all_next, n++) {
                struct rtf_plugin_decision d = { .core = -1 };
                struct plugin *p = NULL;
                int v;

                saved[n] = s->task;
                saved_decision[n] = s->decision;
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
                s->decision = spec_decision_of(&d);
                target[n] = p;
                p->n_tasks++;
        }
        if (r < 0) {
                /* Undo: the new plugins forget, the specs get their old task back. */
                for (struct spec *s = mgr->all_head; s && i <= n && i < mgr->n_specs; s = s->all_next, i++) {
                        if (i < n) {
                                target[i]->ops->release(target[i]->state, &s->task);
                                target[i]->n_tasks--;
                        }
                        s->task = saved[i];
                        s->decision = saved_decision[i];
                }
        } else {
                for (struct spec *s = mgr->all_head; s; s = s->all_next, i++)
                        s->plugin = target[i];
        }
        for (struct spec *s = mgr->all_head; s; s = s->all_next)
                s->committing = false;
        manager_commit_end(mgr);
        free(saved);
        free(saved_decision);
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
static bool same_partitions(const struct manager *mgr, const struct plugin_set *next) {
        uint32_t n_want = 0;
        bool any;

        for (uint32_t c = 0; c < mgr->cpuset.n_cpus; c++)
                n_want += next->wants_partition[c];
        any = next->any_partition && !mgr->no_cpusets && n_want > 0 && n_want < mgr->cpuset.n_cpus;
        if (mgr->cpuset.active != any)
                return false;
        for (uint32_t c = 0; c < mgr->cpuset.n_cpus; c++)
                if (mgr->cpuset.partitioned[c] != (next->wants_partition[c] && any))
                        return false;
        return true;
}

int manager_reload(struct manager *mgr) {
        struct acl_policy policy = ACL_POLICY_NULL;
        struct plugin_set next = { 0 }, old;
        struct manager_options saved_opt = mgr->opt;
        int r;

        log_info("Reloading %s and %s", mgr->opt.config_path ? mgr->opt.config_path : "the built-in configuration",
                 mgr->opt.acl_path);
        r = read_config(mgr->opt.config_path, mgr->n_cpus, &next.config);
        if (r < 0)
                goto keep;
        r = apply_settings(mgr, &next.config);
        if (r < 0)
                goto keep;
        r = wants_partitions(mgr, &next.config, &next);
        if (r < 0)
                goto keep;
        if (!same_partitions(mgr, &next)) {
                /* Re-partitioning moves every thread of the machine; only
                 * when no reservation can be disturbed by it. */
                if (mgr->n_specs) {
                        r = log_error_errno(EBUSY, "Reload: the new configuration changes the SCHED_DEADLINE "
                                            "partitions, which needs no live reservations (%" PRIu32 " now)",
                                            mgr->n_specs);
                        goto keep;
                }
                cpuset_teardown(&mgr->cpuset);
                r = cpuset_setup(&mgr->cpuset, mgr->opt.cpuset_root, mgr->n_cpus, next.wants_partition,
                                 next.any_partition);
                if (r < 0) {
                        cpuset_setup(&mgr->cpuset, mgr->opt.cpuset_root, mgr->n_cpus, mgr->set.wants_partition,
                                     mgr->set.any_partition);
                        goto keep;
                }
                mgr->no_cpusets = r == CPUSET_E_UNAVAILABLE || r == CPUSET_E_BUSY;
        }
        r = set_load(mgr, &next);
        if (r < 0)
                goto keep;
        r = parse_policy(mgr, &next.config, &policy);
        if (r < 0)
                goto keep;
        r = readmit_all(mgr, &next);
        if (r < 0)
                goto keep;
        r = access_install(&mgr->access, &policy);
        if (r < 0)
                log_error_errno(r, "Reload: cannot put the new access-control policy in force: %m; the old "
                                "one stays");
        else
                recount_policy(mgr);

        old = mgr->set;
        mgr->set = next;
        next = old;
        /* The old instances held the specs' tasks; they are unloaded
         * without being asked to release them again. */
        set_unload(&next);
        struct spec_thread *a, *n;

        LIST_FOREACH_SAFE(attached, a, n, mgr->attached) {
                struct spec *s = a->spec;
                struct rtf_sched_setting set;

                r = manager_setting_of(s, &set);
                if (r >= 0)
                        r = manager_apply_setting(mgr, s, &set);
                if (r < 0) {
                        log_warning_errno(r, "Reload: thread %d of spec %" PRIu64 " could not get its new setting: "
                                          "%m; demoted", (int)s->att->thread.tid, s->id);
                        manager_spec_unattach(mgr, s, true);
                }
        }
        /* The new policy may grant or withdraw the latency hint. */
        LIST_FOREACH(attached, a, mgr->attached)
                manager_update_hint(mgr, a->spec);
        mgr->kops->latency_hint(mgr->kdata, mgr->n_hinted > 0, mgr->opt.latency_hint_us);
        log_set(&mgr->set, !mgr->opt.config_path);
        if (mgr->opt.machine_report)
                (void)manager_describe_machine(mgr, mgr->opt.machine_report, mgr->opt.machine_data);
        log_notice("Configuration reloaded");
        return 0;
keep:
        acl_policy_deinit(&policy);
        set_unload(&next);
        mgr->opt = saved_opt;
        log_error("Reload failed; the running configuration stays in force");
        return r;
}

struct manager *manager_free(struct manager *mgr) {
        bool keep_journal;

        if (!mgr)
                return NULL;
        /* Clients are gone by now; anything left is demoted and released. */
        while (mgr->all_head) {
                struct owner *o = mgr->all_head->owner;

                manager_owner_gone(mgr, o);
        }
        /* A thread still refusing its demotion keeps its journal line: the
         * next rtfd demotes it at start. */
        manager_retry_lingering(mgr);
        keep_journal = mgr->lingering != NULL;
        if (keep_journal)
                log_warning("Threads whose demotion failed are left in the state journal %s: the next rtfd "
                            "demotes them at start", mgr->state.path);
        while (mgr->lingering) {
                struct lingering_thread *l = mgr->lingering;

                LIST_REMOVE(lingering, mgr->lingering, l);
                mgr->kops->thread_close(mgr->kdata, &l->thread);
                free(l);
        }
        mgr->enforcer = enforce_free(mgr->enforcer);   /* issue 10 */
        set_unload(&mgr->set);
        cpuset_teardown(&mgr->cpuset);
        access_done(&mgr->access);
        pmqos_done(&mgr->pmqos);
        state_close(&mgr->state, keep_journal);
        user_registry_deinit(&mgr->users);
        manager_machine_buf_deinit(&mgr->machine_buf);
        free(mgr->buckets);
        free(mgr);
        return NULL;
}
