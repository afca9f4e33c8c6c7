/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The call site of the whole-machine admission veto: the tentative state of
 * every plugin instance, as manager.h describes it, handed to the check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "manager-private.h"

void manager_set_veto(struct manager *mgr, manager_veto_fn fn, void *userdata) {
        mgr->veto = fn;
        mgr->veto_data = userdata;
}

static int task_of(const struct spec *s, bool tentative, struct manager_machine_task *ret) {
        struct rtf_sched_setting set;
        int r = manager_setting_of(s, &set);

        if (r < 0)
                return r;
        *ret = (struct manager_machine_task){
                .id = s->id,
                .params = &s->task.params,
                .cpu = plugin_cpu_of(s->plugin, s->task.core),
                .priority = s->task.priority,
                .accepted_runtime_us = s->task.accepted_runtime_us,
                .attached = s->att != NULL,
                .tentative = tentative,
                .setting = set,
        };
        return 0;
}

void manager_machine_buf_deinit(struct manager_machine_buf *b) {
        free(b->inst);
        free(b->tasks);
        *b = (struct manager_machine_buf){ 0 };
}

static int buf_reserve(struct manager_machine_buf *b, size_t n_inst, size_t n_tasks) {
        if (n_inst > b->inst_cap) {
                struct manager_machine_instance *p = reallocarray(b->inst, n_inst, sizeof(*p));

                if (!p)
                        return -ENOMEM;
                b->inst = p;
                b->inst_cap = n_inst;
        }
        if (n_tasks > b->tasks_cap) {
                /* Grow by half again, so that a set filling up reallocates O(log n) times. */
                size_t cap = n_tasks + n_tasks / 2;
                struct manager_machine_task *p = reallocarray(b->tasks, cap, sizeof(*p));

                if (!p)
                        return -ENOMEM;
                b->tasks = p;
                b->tasks_cap = cap;
        }
        return 0;
}

/* The index of p in the running set, or SIZE_MAX for a plugin of another set. */
static size_t instance_of(const struct manager *mgr, const struct plugin *p) {
        uintptr_t base = (uintptr_t)mgr->set.plugins, at = (uintptr_t)p;

        if (at < base || (at - base) % sizeof(*p) != 0 || (at - base) / sizeof(*p) >= mgr->set.n)
                return SIZE_MAX;
        return (at - base) / sizeof(*p);
}

/*
 * Every instance with its tasks as they would be with `extra` (a create not
 * listed yet), into b.  One pass over the specs: each goes to its instance's
 * range, counted first (the specs list is not sorted by instance).
 */
static int machine_build(const struct manager *mgr, const struct spec *extra, struct manager_machine_buf *b,
                         struct manager_machine *ret_m) {
        uint32_t n_inst = mgr->set.n;
        size_t total = 0, i;
        int q;

        if ((q = buf_reserve(b, n_inst ? n_inst : 1, 0)) < 0)
                return q;
        for (i = 0; i < n_inst; i++) {
                const struct plugin *p = &mgr->set.plugins[i];

                b->inst[i] = (struct manager_machine_instance){
                        .name = p->name,
                        .policy = manager_policy_name(p),
                        .n_cpus = p->config.n_cpus,
                        .cpus = p->cpus,
                        .partitioned = p->partitioned,
                        .prio_min = p->config.prio_min,
                        .prio_max = p->config.prio_max,
                        .n_options = p->config.n_options,
                        .options = p->config.options,
                };
        }
        /* Count per instance, then turn the counts into starts: one pass
         * over the specs fills every instance (the list is not by instance). */
        for (const struct spec *s = mgr->all_head; s; s = s->all_next)
                if ((i = instance_of(mgr, s->plugin)) < n_inst)
                        b->inst[i].n_tasks++, total++;
        if (extra && (i = instance_of(mgr, extra->plugin)) < n_inst)
                b->inst[i].n_tasks++, total++;
        if ((q = buf_reserve(b, 0, total ? total : 1)) < 0)
                return q;
        total = 0;
        for (i = 0; i < n_inst; i++) {
                b->inst[i].tasks = b->tasks + total;
                total += b->inst[i].n_tasks;
                b->inst[i].n_tasks = 0;
        }
        for (const struct spec *s = mgr->all_head; s; s = s->all_next) {
                if ((i = instance_of(mgr, s->plugin)) >= n_inst)
                        continue;
                q = task_of(s, s->committing, &b->tasks[(size_t)(b->inst[i].tasks - b->tasks) + b->inst[i].n_tasks]);
                if (q < 0)
                        return q;
                b->inst[i].n_tasks++;
        }
        if (extra && (i = instance_of(mgr, extra->plugin)) < n_inst) {
                q = task_of(extra, true, &b->tasks[(size_t)(b->inst[i].tasks - b->tasks) + b->inst[i].n_tasks]);
                if (q < 0)
                        return q;
                b->inst[i].n_tasks++;
        }
        *ret_m = (struct manager_machine){ .n_cpus = mgr->n_cpus, .n_instances = n_inst, .instances = b->inst };
        return 0;
}

int manager_machine_veto(struct manager *mgr, const struct spec *extra, struct manager_result *r) {
        struct manager_machine m;
        char why[RTF_REASON_MAX] = "";
        int q;

        if (!mgr->veto)
                return RTF_OK;
        q = machine_build(mgr, extra, &mgr->machine_buf, &m);
        if (q < 0)
                return manager_fail(r, q, "cannot describe the whole machine: %s", strerror(-q));
        q = mgr->veto(mgr->veto_data, &m, why, sizeof(why));
        if (q == 0)
                return RTF_OK;
        why[sizeof(why) - 1] = 0;
        log_notice("Whole-machine admission check refuses the request: %s", why);
        return manager_fail(r, RTF_SCHEDULE_FAIL, "whole machine: %s", why[0] ? why : "not schedulable");
}

int manager_describe_machine(const struct manager *mgr,
                             int (*fn)(void *userdata, const struct manager_machine *m), void *userdata) {
        struct manager_machine_buf b = { 0 };
        struct manager_machine m;
        int q = machine_build(mgr, NULL, &b, &m);

        if (q >= 0)
                q = fn(userdata, &m);
        manager_machine_buf_deinit(&b);
        return q;
}
