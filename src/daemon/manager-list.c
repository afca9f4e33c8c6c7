/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The broker's listings (rtfctl status/tasks/stats) and clients' statistics reports. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "log.h"
#include "manager-private.h"

/* ---- listings (rtfctl) ---- */

uint32_t manager_list_cores(const struct manager *mgr, uint32_t start, uint32_t max,
                            void (*fn)(void *userdata, const struct manager_core_row *row), void *userdata) {
        uint32_t index = 0, count = 0;

        for (uint32_t i = 0; i < mgr->set.n; i++) {
                const struct plugin *p = &mgr->set.plugins[i];

                for (uint32_t k = 0; k < p->config.n_cpus; k++, index++) {
                        struct manager_core_row row = {
                                .plugin = p->name,
                                .policy = manager_policy_name(p),
                                .cpu = (int32_t)p->cpus[k],
                                .partitioned = p->partitioned[k],
                                .prio_min = p->config.prio_min,
                                .prio_max = p->config.prio_max,
                        };

                        if (index < start || count >= max)
                                continue;
                        if (PLUGIN_HAS(p->ops, core_status))
                                p->ops->core_status(p->state, k, &row.status);
                        fn(userdata, &row);
                        count++;
                }
        }
        return index;
}

uint32_t manager_list_tasks(const struct manager *mgr, uint32_t start, uint32_t max,
                            void (*fn)(void *userdata, const struct manager_task_row *row), void *userdata) {
        uint32_t index = 0, count = 0;

        for (const struct spec *s = mgr->all_head; s; s = s->all_next, index++) {
                if (index < start || count >= max)
                        continue;
                fn(userdata, &(struct manager_task_row){
                        .id = s->id,
                        .uid = s->owner->uid,
                        .pid = s->owner->pid,
                        .tid = s->att ? s->att->thread.tid : 0,
                        .cpu = plugin_cpu_of(s->plugin, s->task.core),
                        .priority = s->task.priority,
                        .accepted_runtime_us = s->task.accepted_runtime_us,
                        .params = &s->task.params,
                        .plugin = s->plugin->name,
                });
                count++;
        }
        return index;
}

uint32_t manager_list_task_stats(const struct manager *mgr, uint32_t start, uint32_t max,
                                 void (*fn)(void *userdata, const struct manager_stats_row *row), void *userdata) {
        int64_t now = now_monotonic_ns();
        uint32_t index = 0, count = 0;

        for (const struct spec *s = mgr->all_head; s; s = s->all_next) {
                if (!s->report)
                        continue;
                if (index++ < start || count >= max)
                        continue;
                fn(userdata, &(struct manager_stats_row){
                        .id = s->id,
                        .age_ms = now > s->report->at_ns ? (uint64_t)(now - s->report->at_ns) / NSEC_PER_MSEC : 0,
                        .stats = &s->report->stats,
                });
                count++;
        }
        return index;
}

/* ---- statistics reported by clients ---- */

int manager_report(struct manager *mgr, struct owner *o, uint64_t id, const struct rtf_wire_stats *stats) {
        struct spec *s = manager_spec_find(mgr, id);

        if (!s)
                return -ENOENT;
        /* Not owns(): even root reports only for the tasks it runs itself. */
        if (s->owner != o) {
                char why[RTF_REASON_MAX];

                snprintf(why, sizeof(why), "specification %" PRIu64 " belongs to another client", id);
                manager_audit(mgr, o, "report statistics", id, NULL, false, 0, why);
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
