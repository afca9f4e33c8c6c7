/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "log.h"
#include "soundness.h"
#include "util.h"

int soundness_read_host(struct soundness *sd) {
        char rt[32], period[32];
        struct utsname u;
        unsigned major = 0, minor = 0;
        int r;

        *sd = (struct soundness){
                .rt_share = ADM_MACHINE_RT_SHARE_DEFAULT,
                .rt_period_us = ADM_MACHINE_RT_PERIOD_DEFAULT,
        };
        r = read_text_file("/proc/sys/kernel/sched_rt_runtime_us", rt, sizeof(rt));
        if (r >= 0)
                r = read_text_file("/proc/sys/kernel/sched_rt_period_us", period, sizeof(period));
        if (r >= 0)
                r = adm_machine_parse_rt_share(rt, period, &sd->rt_share);
        if (r >= 0)
                sd->rt_period_us = strtoull(period, NULL, 10);
        if (r < 0)
                log_warning_errno(r, "Cannot read the kernel's real-time share (sched_rt_runtime_us): %m; "
                                     "assuming the default 0.95");
        /* The fair server (Linux 6.12) keeps 50 ms a second of every CPU for
         * SCHED_OTHER; its settings are in debugfs, which need not be
         * mounted: its default is assumed. */
        if (uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
            (major > 6 || (major == 6 && minor >= 12)))
                sd->fair_share = ADM_MACHINE_FAIR_SHARE_DEFAULT;
        return 0;
}

static uint32_t policy_of(const char *name, uint32_t fallback) {
        if (strcmp(name, "EDF") == 0)
                return ADM_MACHINE_DEADLINE;
        if (strcmp(name, "RR") == 0)
                return ADM_MACHINE_RR;
        if (strcmp(name, "RM") == 0 || strcmp(name, "FP") == 0)
                return ADM_MACHINE_FIFO;
        return fallback;
}

/* RM's own test already covers its tasks on a CPU it alone uses, the
 * kernel's share included, when its util= bound is within that share. */
static bool self_tested_instance(const struct manager_machine_instance *in, uint64_t rt_cap) {
        if (strcmp(in->policy, "RM") != 0)
                return false;
        for (uint32_t k = 0; k < in->n_options; k++)
                if (strncmp(in->options[k], "util=", 5) == 0) {
                        char *end;
                        double u = strtod(in->options[k] + 5, &end);

                        return *end == 0 && u > 0 && u * 1e9 <= (double)rt_cap;
                }
        return true;                    /* RM's default util=0.95 */
}

struct machine_view {
        struct adm_machine_host host;
        bool *partitioned;
        struct adm_machine_task *tasks;
        struct adm_machine_instance *instances;
        size_t n_tasks;
};

void soundness_deinit(struct soundness *sd) {
        free(sd->view.partitioned);
        free(sd->view.tasks);
        free(sd->view.instances);
        free(sd->view.scratch);
        free(sd->view.prev);
        free(sd->view.prev_partitioned);
        free(sd->view.proven);
        sd->view = (struct soundness_view){ 0 };
}

/* *p holds *cap elements of size; make it hold at least n (half again, so a growing set reallocates rarely). */
static int grow(void **p, size_t *cap, size_t n, size_t size) {
        void *q;

        if (n <= *cap)
                return 0;
        n += n / 2;
        q = reallocarray(*p, n, size);
        if (!q)
                return -ENOMEM;
        *p = q;
        *cap = n;
        return 0;
}

static int view_reserve(struct soundness_view *k, size_t n_cpus, size_t n_tasks, size_t n_instances) {
        int r;

        r = grow((void **)&k->partitioned, &k->cpus_cap, n_cpus, sizeof(*k->partitioned));
        if (r >= 0)
                r = grow((void **)&k->instances, &k->instances_cap, n_instances, sizeof(*k->instances));
        if (r >= 0)
                r = grow((void **)&k->scratch, &k->scratch_cap, n_tasks, sizeof(*k->scratch));
        if (r >= 0)
                r = grow((void **)&k->tasks, &k->tasks_cap, n_tasks, sizeof(*k->tasks));
        return r;
}

static void view_free(struct machine_view *v) {
        free(v->partitioned);
        free(v->tasks);
        free(v->instances);
        free(v->host.scratch);
}

static int view_build(const struct soundness *sd, const struct manager_machine *m, struct machine_view *v,
                      struct soundness_view *keep) {
        size_t n = 0;
        uint64_t rt_cap = sd->rt_share < ADM_UTIL_ONE - sd->fair_share ? sd->rt_share : ADM_UTIL_ONE - sd->fair_share;
        size_t n_cpus = m->n_cpus ? m->n_cpus : 1, n_inst = m->n_instances ? m->n_instances : 1;

        *v = (struct machine_view){ 0 };
        for (uint32_t i = 0; i < m->n_instances; i++)
                n += m->instances[i].n_tasks;
        if (keep) {
                int r = view_reserve(keep, n_cpus, n ? n : 1, n_inst);

                if (r < 0)
                        return r;
                memset(keep->partitioned, 0, n_cpus * sizeof(*keep->partitioned));
                v->partitioned = keep->partitioned;
                v->tasks = keep->tasks;
                v->instances = keep->instances;
                v->host.scratch = keep->scratch;
        } else {
                v->partitioned = calloc(n_cpus, sizeof(*v->partitioned));
                v->tasks = calloc(n ? n : 1, sizeof(*v->tasks));
                v->instances = calloc(n_inst, sizeof(*v->instances));
                v->host.scratch = calloc(n ? n : 1, sizeof(*v->host.scratch));
                if (!v->partitioned || !v->tasks || !v->instances || !v->host.scratch)
                        return -ENOMEM;
        }
        v->host.scratch_size = n ? n : 1;
        for (uint32_t i = 0; i < m->n_instances; i++) {
                const struct manager_machine_instance *in = &m->instances[i];
                bool self_tested = self_tested_instance(in, rt_cap);

                v->instances[i] = (struct adm_machine_instance){
                        .name = in->name,
                        .policy = policy_of(in->policy, ADM_MACHINE_FIFO),
                        .cpus = in->cpus,
                        .n_cpus = in->n_cpus,
                        .prio_min = in->prio_min,
                        .prio_max = in->prio_max,
                        .tasks_without_runtime = strcmp(in->policy, "EDF") != 0,
                };
                for (uint32_t k = 0; k < in->n_cpus; k++)
                        if (in->partitioned && in->partitioned[k] && in->cpus[k] < m->n_cpus)
                                v->partitioned[in->cpus[k]] = true;
                for (uint32_t k = 0; k < in->n_tasks; k++) {
                        const struct manager_machine_task *t = &in->tasks[k];
                        const struct rtf_sched_setting *s = &t->setting;
                        struct adm_machine_task *a = &v->tasks[v->n_tasks++];

                        *a = (struct adm_machine_task){
                                .instance = i,
                                .policy = s->policy,
                                .cpu = s->cpu,
                                .priority = s->priority,
                                .self_tested = self_tested,
                        };
                        if (s->policy == RTF_POLICY_DEADLINE) {
                                a->runtime_us = s->runtime_ns / 1000;
                                a->period_us = s->period_ns / 1000;
                                a->deadline_us = s->deadline_ns / 1000;
                                /* Not pinned where there is no partition: the kernel runs it
                                 * anywhere in the shared root domain. */
                                if (a->cpu >= 0 && ((uint32_t)a->cpu >= m->n_cpus || !v->partitioned[a->cpu]))
                                        a->cpu = -1;
                        } else {
                                const struct rtf_task_params *p = t->params;

                                /* A FIFO/RR thread is bounded by what rtfd enforces: the
                                 * runtime the plugin accepted, per period. */
                                a->runtime_us = (p->flags & RTF_PARAM_HAS_RUNTIME) ? t->accepted_runtime_us : 0;
                                a->period_us = p->period_us;
                                a->deadline_us = (p->flags & RTF_PARAM_HAS_DEADLINE) ? p->deadline_us : 0;
                                if (a->runtime_us && !a->period_us)
                                        a->runtime_us = 0;      /* a runtime without a period bounds nothing */
                        }
                }
        }
        v->host.n_cpus = m->n_cpus;
        v->host.partitioned = v->partitioned;
        v->host.rt_share = sd->rt_share;
        v->host.fair_share = sd->fair_share;
        v->host.rt_period_us = sd->rt_period_us;
        return 0;
}

/* Which CPUs have the tasks of the last admitted set again (same host, same partitions). */
static int view_proven(struct soundness_view *k, struct machine_view *v) {
        uint32_t n_cpus = v->host.n_cpus;
        int r;

        if (k->prev_n_cpus != n_cpus || n_cpus == 0 ||
            memcmp(k->prev_partitioned, v->partitioned, n_cpus * sizeof(*v->partitioned)) != 0)
                return 0;
        r = grow((void **)&k->proven, &k->proven_cap, n_cpus, sizeof(*k->proven));
        if (r < 0)
                return r;
        adm_machine_same_cpus(&v->host, k->prev, k->n_prev, v->tasks, v->n_tasks, k->proven);
        v->host.proven = k->proven;
        return 0;
}

/* The set just admitted becomes the one to compare with: the arrays swap, nothing is copied but the partitions. */
static int view_keep_admitted(struct soundness_view *k, const struct machine_view *v) {
        struct adm_machine_task *t = k->prev;
        size_t cap = k->prev_cap;
        int r;

        k->prev_n_cpus = 0;
        r = grow((void **)&k->prev_partitioned, &k->prev_cpus_cap, v->host.n_cpus, sizeof(*k->prev_partitioned));
        if (r < 0)
                return r;
        memcpy(k->prev_partitioned, v->partitioned, v->host.n_cpus * sizeof(*v->partitioned));
        k->prev = k->tasks;
        k->prev_cap = k->tasks_cap;
        k->n_prev = v->n_tasks;
        k->tasks = t;
        k->tasks_cap = cap;
        k->prev_n_cpus = v->host.n_cpus;
        return 0;
}

int soundness_veto(void *userdata, const struct manager_machine *m, char *reason, size_t reason_size) {
        struct soundness *sd = userdata;
        struct machine_view v;
        struct adm_machine_verdict verdict;
        int r;

        r = view_build(sd, m, &v, &sd->view);
        if (r >= 0)
                r = view_proven(&sd->view, &v);
        if (r >= 0)
                r = adm_machine_check(&v.host, v.tasks, v.n_tasks, &verdict);
        if (r == ADM_ADMIT) {
                if (view_keep_admitted(&sd->view, &v) < 0)
                        sd->view.prev_n_cpus = 0;       /* nothing to compare with: the next check does it all */
                return 0;
        }
        if (r < 0)
                snprintf(reason, reason_size, "cannot check the whole machine: %s", strerror(-r));
        else
                adm_machine_explain(&verdict, v.instances, m->n_instances, v.tasks, reason, reason_size);
        return r < 0 ? r : 1;
}

int soundness_report(void *userdata, const struct manager_machine *m) {
        const struct soundness *sd = userdata;
        struct machine_view v;
        char buf[4096];
        int r;

        r = view_build(sd, m, &v, NULL);
        if (r >= 0)
                r = adm_machine_config_check(&v.host, v.instances, m->n_instances, buf, sizeof(buf));
        view_free(&v);
        if (r < 0)
                return log_error_errno(r, "Cannot check the configuration for the whole machine: %m");
        log_info("Whole machine: real-time threads may use %.3f of each CPU (sched_rt_runtime_us%s)",
                 (double)sd->rt_share / 1e9, sd->fair_share ? ", fair server" : "");
        for (char *line = buf, *end; *line; line = end + 1) {
                end = strchr(line, '\n');
                if (!end)
                        break;
                *end = 0;
                log_notice("Whole machine: %s", line);
        }
        if (r == ADM_MACHINE_CONFIG_SHARED)
                log_notice("Whole machine: instances share CPUs; every request is also checked across all of them");
        return r;
}
