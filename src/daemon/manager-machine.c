/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The call site of the whole-machine admission veto: the tentative state of
 * every plugin instance, as manager.h describes it, handed to the check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "manager-private.h"

void manager_set_veto(struct manager *mgr, manager_veto_fn fn, void *userdata) {
        mgr->veto = fn;
        mgr->veto_data = userdata;
}

static struct manager_machine_task task_of(const struct spec *s, bool tentative) {
        return (struct manager_machine_task){
                .id = s->id,
                .params = &s->task.params,
                .cpu = plugin_cpu_of(s->plugin, s->task.core),
                .priority = s->task.priority,
                .accepted_runtime_us = s->task.accepted_runtime_us,
                .attached = s->att != NULL,
                .tentative = tentative,
        };
}

int manager_machine_veto(struct manager *mgr, const struct spec *extra, struct manager_result *r) {
        _cleanup_(freep) struct manager_machine_instance *inst = NULL;
        _cleanup_(freep) struct manager_machine_task *tasks = NULL;
        struct manager_machine m = { .n_cpus = mgr->n_cpus, .n_instances = mgr->set.n };
        char why[RTF_REASON_MAX] = "";
        size_t n = 0;
        int q;

        if (!mgr->veto)
                return RTF_OK;
        inst = calloc(mgr->set.n ? mgr->set.n : 1, sizeof(*inst));
        tasks = calloc((size_t)mgr->n_specs + 1, sizeof(*tasks));
        if (!inst || !tasks)
                return manager_fail(r, -ENOMEM, "out of memory");
        for (uint32_t i = 0; i < mgr->set.n; i++) {
                const struct plugin *p = &mgr->set.plugins[i];

                inst[i] = (struct manager_machine_instance){
                        .name = p->name,
                        .policy = manager_policy_name(p),
                        .n_cpus = p->config.n_cpus,
                        .cpus = p->cpus,
                        .partitioned = p->partitioned,
                        .prio_min = p->config.prio_min,
                        .prio_max = p->config.prio_max,
                        .tasks = tasks + n,
                };
                for (const struct spec *s = mgr->all_head; s; s = s->all_next)
                        if (s->plugin == p && n < (size_t)mgr->n_specs + 1) {
                                tasks[n++] = task_of(s, s->committing);
                                inst[i].n_tasks++;
                        }
                if (extra && extra->plugin == p && n < (size_t)mgr->n_specs + 1) {
                        tasks[n++] = task_of(extra, true);
                        inst[i].n_tasks++;
                }
        }
        m.instances = inst;
        q = mgr->veto(mgr->veto_data, &m, why, sizeof(why));
        if (q == 0)
                return RTF_OK;
        why[sizeof(why) - 1] = 0;
        log_notice("Whole-machine admission check refuses the request: %s", why);
        return manager_fail(r, RTF_SCHEDULE_FAIL, "whole machine: %s", why[0] ? why : "not schedulable");
}
