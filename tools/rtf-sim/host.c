/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-sim's plugin host (host.h).  The commit order is rtfd's: the plugin
 * decides (accept/change), the decision is scheduled, and the whole-machine
 * check then vetoes it by rolling back, as the broker would.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "rtf/rtf.h"

static void host_log(void *data, int level, const char *fmt, ...) {
        /* The plugins' notices are not what a campaign is about: only errors. */
        va_list ap;

        if (level > RTF_LOG_ERR)
                return;
        va_start(ap, fmt);
        fprintf(stderr, "rtf-sim: plugin: ");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
}

static void host_task_updated(void *data, struct rtf_plugin_task *task) {
        /* attach() is asked again before every simulation: nothing to do. */
}

int host_open(struct host *h, const char *plugin_dir) {
        h->plugin_host = (struct rtf_plugin_host) {
                .version = RTF_PLUGIN_ABI_VERSION,
                .size = sizeof(struct rtf_plugin_host),
                .data = h,
                .log = host_log,
                .task_updated = host_task_updated,
        };
        for (uint32_t i = 0; i < h->n_inst; i++) {
                struct host_instance *in = &h->inst[i];
                rtf_plugin_entry_fn entry;
                char path[4096];
                void *sym;
                int r;

                snprintf(path, sizeof(path), "%s/%s", plugin_dir, in->file);
                in->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
                if (!in->dl) {
                        fprintf(stderr, "rtf-sim: %s\n", dlerror());
                        return -ENOENT;
                }
                sym = dlsym(in->dl, RTF_PLUGIN_ENTRY_NAME);
                if (!sym)
                        return -ENOENT;
                memcpy(&entry, &sym, sizeof(entry));
                in->ops = entry(RTF_PLUGIN_ABI_VERSION);
                if (!in->ops)
                        return -EPROTO;
                for (uint32_t k = 0; k < in->n_cpus; k++)
                        in->partitioned[k] = h->partitioned[in->cpus[k]];
                struct rtf_plugin_config c = {
                        .size = sizeof(c), .n_cpus = in->n_cpus, .instance = in->name,
                        .prio_min = in->prio_min, .prio_max = in->prio_max, .cpus = in->cpus,
                        .partitioned = in->partitioned, .n_options = in->n_options,
                        .options = in->options,
                };
                r = in->ops->init(&h->plugin_host, &c, &in->state);
                if (r < 0) {
                        fprintf(stderr, "rtf-sim: %s: init failed: %s\n", in->name, strerror(-r));
                        return r;
                }
        }
        return 0;
}

void host_close(struct host *h) {
        host_release_all(h);
        for (uint32_t i = 0; i < h->n_inst; i++) {
                if (h->inst[i].ops && h->inst[i].state)
                        h->inst[i].ops->fini(h->inst[i].state);
                if (h->inst[i].dl)
                        dlclose(h->inst[i].dl);
                h->inst[i].dl = NULL;
                h->inst[i].state = NULL;
        }
}

static struct rtf_task_params params_of(const struct host_request *rq) {
        return (struct rtf_task_params) {
                .flags = (rq->period_us ? RTF_PARAM_HAS_PERIOD : 0) |
                         (rq->runtime_us ? RTF_PARAM_HAS_RUNTIME : 0) |
                         (rq->des_runtime_us ? RTF_PARAM_HAS_DES_RUNTIME : 0) |
                         (rq->deadline_us ? RTF_PARAM_HAS_DEADLINE : 0) |
                         (rq->priority ? RTF_PARAM_HAS_PRIORITY : 0),
                .priority = rq->priority,
                .period_us = rq->period_us,
                .runtime_us = rq->runtime_us,
                .des_runtime_us = rq->des_runtime_us,
                .deadline_us = rq->deadline_us,
        };
}

/* The kernel setting of task k, as machine.c and the simulator need it. */
static int setting_of(struct host *h, uint32_t k, struct rtf_sched_setting *ret) {
        struct host_task *t = &h->tasks[k];
        const struct host_instance *in = &h->inst[t->instance];

        return in->ops->attach(in->state, &t->task, ret);
}

static int machine_task_of(struct host *h, uint32_t k, struct adm_machine_task *ret) {
        const struct rtf_task_params *p = &h->tasks[k].task.params;
        struct rtf_sched_setting s;
        int r = setting_of(h, k, &s);

        if (r < 0)
                return r;
        *ret = (struct adm_machine_task) {
                .instance = h->tasks[k].instance,
                .policy = s.policy,
                .cpu = s.cpu,
                .priority = s.priority,
                /* RM runs RTA over its own tasks with the same share (util= at its default) */
                .self_tested = strcmp(h->inst[h->tasks[k].instance].file, "RM.so") == 0 &&
                               h->inst[h->tasks[k].instance].n_options == 0,
        };
        if (s.policy == RTF_POLICY_DEADLINE) {
                ret->runtime_us = s.runtime_ns / 1000;
                ret->period_us = s.period_ns / 1000;
                ret->deadline_us = s.deadline_ns / 1000;
        } else {
                ret->runtime_us = p->flags & RTF_PARAM_HAS_RUNTIME ? p->runtime_us : 0;
                ret->period_us = p->period_us;
                ret->deadline_us = p->flags & RTF_PARAM_HAS_DEADLINE ? p->deadline_us : 0;
        }
        return 0;
}

/* The veto: ADM_ADMIT or ADM_REJECT (reason in h->reason). */
static int machine_veto(struct host *h) {
        struct adm_machine_task set[HOST_MAX_TASKS];
        struct adm_machine_instance in[HOST_MAX_INSTANCES];
        struct adm_edf_task scratch[HOST_MAX_TASKS];
        struct adm_machine_verdict v;
        size_t n = 0;
        int r;

        if (!h->veto)
                return ADM_ADMIT;
        h->machine.scratch = scratch;
        h->machine.scratch_size = HOST_MAX_TASKS;
        for (uint32_t k = 0; k < HOST_MAX_TASKS; k++)
                if (h->tasks[k].used && machine_task_of(h, k, &set[n]) == 0)
                        n++;
        r = adm_machine_check(&h->machine, set, n, &v);
        h->machine.scratch = NULL;
        h->machine.scratch_size = 0;
        if (r == ADM_ADMIT)
                return r;
        for (uint32_t i = 0; i < h->n_inst; i++)
                in[i] = (struct adm_machine_instance) { .name = h->inst[i].name };
        if (r < 0)
                snprintf(h->reason, sizeof(h->reason), "machine: invalid description (%s)", strerror(-r));
        else
                adm_machine_explain(&v, in, h->n_inst, set, h->reason, sizeof(h->reason));
        return ADM_REJECT;
}

int host_create(struct host *h, uint32_t i, const struct host_request *rq) {
        struct host_instance *in = &h->inst[i];
        struct rtf_plugin_decision d;
        struct host_task *t = NULL;
        int v;

        for (uint32_t k = 0; k < HOST_MAX_TASKS && !t; k++)
                if (!h->tasks[k].used)
                        t = &h->tasks[k];
        if (!t) {
                snprintf(h->reason, sizeof(h->reason), "rtf-sim: %u tasks at most", HOST_MAX_TASKS);
                return -1;
        }
        *t = (struct host_task) {
                .task = { .id = ++h->next_id, .params = params_of(rq), .core = -1 },
                .instance = i,
        };
        v = in->ops->accept(in->state, &t->task.params, &d);
        if (v <= RTF_PLUGIN_NO) {
                snprintf(h->reason, sizeof(h->reason), "%s", d.reason);
                return -1;
        }
        if (in->ops->schedule(in->state, &t->task, &d) < 0) {
                snprintf(h->reason, sizeof(h->reason), "schedule failed");
                return -1;
        }
        t->used = true;
        if (machine_veto(h) != ADM_ADMIT) {
                in->ops->release(in->state, &t->task);
                t->used = false;
                return -1;
        }
        return (int)(t - h->tasks);
}

int host_change(struct host *h, uint32_t k, const struct host_request *rq) {
        struct host_task *t = &h->tasks[k];
        struct host_instance *in = &h->inst[t->instance];
        struct rtf_plugin_task old = t->task;
        struct rtf_task_params p = params_of(rq);
        struct rtf_plugin_decision d, back = {
                .core = old.core, .priority = old.priority,
                .accepted_runtime_us = old.accepted_runtime_us,
        };
        int v;

        v = in->ops->change(in->state, &t->task, &p, &d);
        if (v <= RTF_PLUGIN_NO) {
                snprintf(h->reason, sizeof(h->reason), "%s", d.reason);
                return 0;
        }
        in->ops->release(in->state, &t->task);
        t->task.params = p;
        if (in->ops->schedule(in->state, &t->task, &d) < 0 || machine_veto(h) != ADM_ADMIT) {
                /* rtfd's rollback: release, old parameters, old decision */
                in->ops->release(in->state, &t->task);
                t->task.params = old.params;
                (void)in->ops->schedule(in->state, &t->task, &back);
                return 0;
        }
        return 1;
}

void host_release(struct host *h, uint32_t k) {
        struct host_task *t = &h->tasks[k];

        if (!t->used)
                return;
        h->inst[t->instance].ops->release(h->inst[t->instance].state, &t->task);
        t->used = false;
}

void host_release_all(struct host *h) {
        for (uint32_t k = 0; k < HOST_MAX_TASKS; k++)
                host_release(h, k);
}

uint32_t host_count(const struct host *h) {
        uint32_t n = 0;

        for (uint32_t k = 0; k < HOST_MAX_TASKS; k++)
                n += h->tasks[k].used;
        return n;
}

size_t host_sim_tasks(struct host *h, struct sim_task *ret, size_t max) {
        size_t n = 0;

        for (uint32_t k = 0; k < HOST_MAX_TASKS && n < max; k++) {
                struct adm_machine_task m;

                if (!h->tasks[k].used || machine_task_of(h, k, &m) < 0)
                        continue;
                ret[n++] = (struct sim_task) {
                        .policy = m.policy,
                        .cpu = m.policy == SIM_DEADLINE && m.cpu >= 0 && !h->partitioned[m.cpu] ? -1 : m.cpu,
                        .priority = m.priority,
                        /* DEADLINE: the whole budget, the most its CBS lets it take */
                        .exec_us = m.runtime_us,
                        .period_us = m.period_us,
                        .deadline_us = m.deadline_us && m.deadline_us < m.period_us ? m.deadline_us : m.period_us,
                        .label = k,
                };
        }
        return n;
}
