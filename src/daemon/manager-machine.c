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

/* Every instance with its tasks as they would be with `extra` (a create not
 * listed yet); the arrays are the caller's to free. */
static int machine_build(const struct manager *mgr, const struct spec *extra, struct manager_machine *ret_m,
                         struct manager_machine_instance **ret_inst, struct manager_machine_task **ret_tasks) {
        _cleanup_(freep) struct manager_machine_instance *inst = NULL;
        _cleanup_(freep) struct manager_machine_task *tasks = NULL;
        size_t n = 0;
        int q;

        inst = calloc(mgr->set.n ? mgr->set.n : 1, sizeof(*inst));
        tasks = calloc((size_t)mgr->n_specs + 1, sizeof(*tasks));
        if (!inst || !tasks)
                return -ENOMEM;
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
                        .n_options = p->config.n_options,
                        .options = p->config.options,
                        .tasks = tasks + n,
                };
                for (const struct spec *s = mgr->all_head; s; s = s->all_next)
                        if (s->plugin == p && n < (size_t)mgr->n_specs + 1) {
                                if ((q = task_of(s, s->committing, &tasks[n])) < 0)
                                        return q;
                                n++;
                                inst[i].n_tasks++;
                        }
                if (extra && extra->plugin == p && n < (size_t)mgr->n_specs + 1) {
                        if ((q = task_of(extra, true, &tasks[n])) < 0)
                                return q;
                        n++;
                        inst[i].n_tasks++;
                }
        }
        *ret_m = (struct manager_machine){ .n_cpus = mgr->n_cpus, .n_instances = mgr->set.n, .instances = inst };
        *ret_inst = TAKE_PTR(inst);
        *ret_tasks = TAKE_PTR(tasks);
        return 0;
}

int manager_machine_veto(struct manager *mgr, const struct spec *extra, struct manager_result *r) {
        _cleanup_(freep) struct manager_machine_instance *inst = NULL;
        _cleanup_(freep) struct manager_machine_task *tasks = NULL;
        struct manager_machine m;
        char why[RTF_REASON_MAX] = "";
        int q;

        if (!mgr->veto)
                return RTF_OK;
        q = machine_build(mgr, extra, &m, &inst, &tasks);
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
        _cleanup_(freep) struct manager_machine_instance *inst = NULL;
        _cleanup_(freep) struct manager_machine_task *tasks = NULL;
        struct manager_machine m;
        int q = machine_build(mgr, NULL, &m, &inst, &tasks);

        return q < 0 ? q : fn(userdata, &m);
}
