/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EDF.so: SCHED_DEADLINE (ReTiF paper, section 5.1).
 *
 * Partitioned EDF with worst-fit allocation and the utilisation test of
 * eqs. 1-4 when the daemon gave each of our CPUs a root domain of its own:
 * only then may a DEADLINE thread be pinned (PLATFORM.md).  Otherwise the
 * kernel runs global EDF over the root domain, the threads stay unpinned,
 * and we admit with the global density bound over our n_cpus CPUs.
 *
 * Table 6: period and runtime mandatory, deadline and desired runtime
 * optional, priority ignored.
 */
#include <errno.h>
#include <stdlib.h>

#include "common.h"
#include "rtf/rtf.h"

/*
 * The kernel's limits (__checkparam_dl, sysctl_sched_dl_period_{min,max}
 * defaults): runtime >= 1024 ns, so 2 us is the shortest whole-us runtime;
 * period in [100 us, 2^22 us].  An administrator may widen the sysctls; we
 * keep the defaults so that what we admit the kernel accepts.
 */
#define EDF_RUNTIME_MIN_US 2ULL
#define EDF_PERIOD_MIN_US 100ULL
#define EDF_PERIOD_MAX_US (1ULL << 22)
/* 0.95 per root domain minus the 5 % fair-server reservation, with a margin. */
#define EDF_UTIL_THR_DEFAULT 900000000ULL

struct edf_state {
        struct plugin_base base;
        uint64_t util_thr;
        bool global;
        /* global mode: every task is in the pool, none on a core */
        struct plugin_list pool;
        uint32_t pool_tasks;
        uint64_t density_sum;
        /* partitioned: the processor-demand test's scratch and work limit */
        struct adm_edf_task *qpa;
        size_t qpa_size;
        uint64_t qpa_max_steps;
        /* the pool as a max-heap of densities: the bound needs the largest */
        struct plugin_node **heap;      /* pool_tasks entries */
        uint32_t heap_cap;
};

static uint64_t edf_deadline(const struct rtf_task_params *p) {
        return p->flags & RTF_PARAM_HAS_DEADLINE ? p->deadline_us : p->period_us;
}

static void edf_fini(void *state) {
        struct edf_state *s = state;

        if (!s)
                return;
        while (s->pool.next && s->pool.next != &s->pool) {
                struct plugin_node *n = plugin_node_of(s->pool.next);

                plugin_list_remove(&n->link);
                free(n);
        }
        free(s->heap);
        free(s->qpa);
        plugin_base_fini(&s->base);
        free(s);
}

static int edf_init(const struct rtf_plugin_host *host, const struct rtf_plugin_config *config,
                    void **ret_state) {
        struct edf_state *s;
        int r;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->util_thr = EDF_UTIL_THR_DEFAULT;
        s->qpa_max_steps = ADM_FP_RTA_DEFAULT_STEPS;
        plugin_list_init(&s->pool);

        const struct plugin_option options[] = {
                { "util", PLUGIN_OPTION_UTIL, &s->util_thr, 0, 0 },
                /* Bounds the CPU time of one request's processor-demand test; beyond it, refused. */
                { "qpa_max_steps", PLUGIN_OPTION_U64, &s->qpa_max_steps, 1000, 1000000000 },
        };
        /* The priority range means nothing to SCHED_DEADLINE ("100-100" is nominal). */
        r = plugin_base_init(&s->base, "EDF", host, config, options,
                             sizeof(options) / sizeof(options[0]), false);
        if (r < 0) {
                free(s);
                return r;
        }

        s->global = !config->partitioned;
        for (uint32_t i = 0; !s->global && i < config->n_cpus; i++)
                s->global = !config->partitioned[i];
        if (s->global)
                plugin_log(&s->base, RTF_LOG_NOTICE,
                           "%u CPUs without partitions of their own: global EDF, density bound, "
                           "threads not pinned, U_thr %.3f",
                           s->base.n_cpus, plugin_util(s->util_thr));
        else
                plugin_log(&s->base, RTF_LOG_INFO,
                           "%u partitioned CPUs: partitioned EDF, worst-fit, U_thr %.3f",
                           s->base.n_cpus, plugin_util(s->util_thr));
        *ret_state = s;
        return 0;
}

/*
 * The densities of the global pool as a binary max-heap, so that a create,
 * change or release costs O(log n) and the largest is known at once, however
 * many tasks share it.
 */
static void heap_put(struct edf_state *s, uint32_t i, struct plugin_node *n) {
        s->heap[i] = n;
        n->heap_pos = i;
}

static void heap_up(struct edf_state *s, uint32_t i) {
        struct plugin_node *n = s->heap[i];

        while (i > 0 && s->heap[(i - 1) / 2]->util < n->util) {
                heap_put(s, i, s->heap[(i - 1) / 2]);
                i = (i - 1) / 2;
        }
        heap_put(s, i, n);
}

static void heap_down(struct edf_state *s, uint32_t i) {
        struct plugin_node *n = s->heap[i];

        for (;;) {
                uint32_t c = 2 * i + 1;

                if (c >= s->pool_tasks)
                        break;
                if (c + 1 < s->pool_tasks && s->heap[c + 1]->util > s->heap[c]->util)
                        c++;
                if (s->heap[c]->util <= n->util)
                        break;
                heap_put(s, i, s->heap[c]);
                i = c;
        }
        heap_put(s, i, n);
}

/* Room for one more, so that schedule() cannot fail; -ENOMEM. */
static int heap_reserve(struct edf_state *s) {
        struct plugin_node **h;
        uint32_t cap;

        if (s->pool_tasks < s->heap_cap)
                return 0;
        cap = s->heap_cap ? 2 * s->heap_cap : 64;
        h = realloc(s->heap, (size_t)cap * sizeof(*h));
        if (!h)
                return -ENOMEM;
        s->heap = h;
        s->heap_cap = cap;
        return 0;
}

static void heap_insert(struct edf_state *s, struct plugin_node *n) {
        heap_put(s, s->pool_tasks++, n);
        heap_up(s, n->heap_pos);
}

static void heap_remove(struct edf_state *s, struct plugin_node *n) {
        uint32_t i = n->heap_pos;
        struct plugin_node *last = s->heap[--s->pool_tasks];

        if (last == n)
                return;
        heap_put(s, i, last);
        heap_up(s, i);
        heap_down(s, last->heap_pos);
}

/* Largest density in the pool, not counting `exclude` (NULL or in the pool). */
static uint64_t pool_max(const struct edf_state *s, const struct plugin_node *exclude) {
        uint64_t max = 0;

        if (s->pool_tasks == 0)
                return 0;
        if (s->heap[0] != exclude)
                return s->heap[0]->util;
        /* The runner-up is one of the root's children. */
        for (uint32_t c = 1; c <= 2 && c < s->pool_tasks; c++)
                if (s->heap[c]->util > max)
                        max = s->heap[c]->util;
        return max;
}

static int edf_check_params(const struct rtf_task_params *req, struct rtf_plugin_decision *ret) {
        uint64_t deadline = edf_deadline(req);

        if ((req->flags & (RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME)) !=
            (RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME)) {
                plugin_reason(ret, "EDF: period and runtime are mandatory");
                return -EINVAL;
        }
        if (req->period_us < EDF_PERIOD_MIN_US || req->period_us > EDF_PERIOD_MAX_US) {
                plugin_reason(ret, "EDF: period %llu us outside %llu..%llu us",
                              (unsigned long long)req->period_us, EDF_PERIOD_MIN_US,
                              EDF_PERIOD_MAX_US);
                return -EINVAL;
        }
        if (deadline == 0 || deadline > req->period_us) {
                plugin_reason(ret, "EDF: deadline %llu us must be in 1..period (%llu us)",
                              (unsigned long long)deadline, (unsigned long long)req->period_us);
                return -EINVAL;
        }
        if (req->runtime_us < EDF_RUNTIME_MIN_US || req->runtime_us > deadline) {
                plugin_reason(ret, "EDF: runtime %llu us must be in %llu..deadline (%llu us)",
                              (unsigned long long)req->runtime_us, EDF_RUNTIME_MIN_US,
                              (unsigned long long)deadline);
                return -EINVAL;
        }
        if ((req->flags & RTF_PARAM_HAS_DES_RUNTIME) && req->des_runtime_us < req->runtime_us) {
                plugin_reason(ret, "EDF: desired runtime %llu us below runtime %llu us",
                              (unsigned long long)req->des_runtime_us,
                              (unsigned long long)req->runtime_us);
                return -EINVAL;
        }
        return 0;
}

/* Room for the tasks of the biggest core plus one, for the processor-demand test. */
static int qpa_reserve(struct edf_state *s, size_t n) {
        struct adm_edf_task *t;

        if (n <= s->qpa_size)
                return 0;
        t = realloc(s->qpa, sizeof(t[0]) * n);
        if (!t)
                return -ENOMEM;
        s->qpa = t;
        s->qpa_size = n;
        return 0;
}

/*
 * Can core i take the request (without `exclude`)?  Eq. 3 first (O(1));
 * when it fails and a deadline is shorter than its period, processor
 * demand (QPA, O(tasks x points), bounded by *steps), where the request
 * gets its runtime Q and no more.  why (or NULL) gets the reason.
 */
static int edf_test_partition(struct edf_state *s, uint32_t i, const struct adm_edf_request *r,
                              uint64_t period_us, const struct rtf_plugin_task *exclude, uint64_t *steps,
                              struct adm_edf_result *res, struct rtf_plugin_decision *why) {
        const struct plugin_core *c = &s->base.cores[i];
        const struct plugin_node *own = exclude ? exclude->plugin_data : NULL;
        uint64_t load = c->util - (own && exclude->core == (int32_t)i ? own->util : 0);
        struct plugin_list *l;
        bool constrained = r->window_us < period_us;
        size_t n = 0;
        int k, q;

        k = adm_edf_test_core(load, s->util_thr, r, res);
        if (k != ADM_REJECT)
                return k;
        k = qpa_reserve(s, c->n_tasks + 1);
        if (k < 0)
                return k;
        PLUGIN_LIST_FOREACH(l, &c->tasks) {
                const struct plugin_node *t = plugin_node_of(l);

                if (t == own)
                        continue;
                s->qpa[n++] = (struct adm_edf_task) {
                        .runtime_us = t->task->accepted_runtime_us,
                        .deadline_us = edf_deadline(&t->task->params),
                        .period_us = t->task->params.period_us,
                };
                constrained |= edf_deadline(&t->task->params) < t->task->params.period_us;
        }
        s->qpa[n++] = (struct adm_edf_task) {
                .runtime_us = r->runtime_us, .deadline_us = r->window_us, .period_us = period_us,
        };
        q = constrained ? adm_edf_qpa(s->qpa, n, s->util_thr, steps) : ADM_REJECT;
        if (q < 0)
                return q;
        if (q == ADM_ADMIT) {
                res->accepted_runtime_us = r->runtime_us;
                res->accepted_util = res->util;
                return ADM_ADMIT;
        }
        if (why) {
                char total[PLUGIN_UTIL_STR], cap[PLUGIN_UTIL_STR];
                char x[PLUGIN_UTIL_STR], y[PLUGIN_UTIL_STR];
                unsigned digits = plugin_util_pair(load + res->util, s->util_thr, total, cap);

                plugin_util_str(load, digits, x);
                plugin_util_str(res->util, digits, y);
                plugin_reason(why, "EDF: CPU %u utilisation %s + %s = %s > %s%s", c->cpu, x, y, total,
                              cap, !constrained ? "" : q == ADM_GAVE_UP ?
                              ", processor demand gave up (qpa_max_steps)" : ", processor demand too");
        }
        return ADM_REJECT;
}

static int edf_evaluate(struct edf_state *s, const struct rtf_task_params *req,
                        const struct rtf_plugin_task *exclude, struct rtf_plugin_decision *ret) {
        struct plugin_base *b = &s->base;
        const struct plugin_node *own = exclude ? exclude->plugin_data : NULL;
        struct adm_edf_request r = {
                .runtime_us = req->runtime_us,
                .window_us = edf_deadline(req),
        };
        struct adm_edf_result res;
        int k;

        *ret = (struct rtf_plugin_decision) { .core = -1 };
        if (edf_check_params(req, ret) < 0)
                return RTF_PLUGIN_NO;
        if (req->flags & RTF_PARAM_HAS_DES_RUNTIME)
                /* More than the deadline is never usable. */
                r.des_runtime_us = req->des_runtime_us < r.window_us ? req->des_runtime_us : r.window_us;

        k = plugin_node_reserve(b);
        if (k < 0)
                return k;

        if (s->global) {
                uint64_t sum = s->density_sum - (own ? own->util : 0), max = pool_max(s, own);

                if (s->pool_tasks - (own != NULL) >= b->max_tasks * b->n_cpus) {
                        plugin_reason(ret, "EDF: %u tasks already", s->pool_tasks);
                        return RTF_PLUGIN_NO;
                }
                k = heap_reserve(s);
                if (k < 0)
                        return k;
                k = adm_edf_test_global(sum, max, b->n_cpus, s->util_thr, &r, &res);
                if (k < 0)
                        return k;
                if (k != ADM_ADMIT) {
                        uint64_t top = max > res.util ? max : res.util;
                        char bound[PLUGIN_UTIL_STR], cap[PLUGIN_UTIL_STR];
                        char x[PLUGIN_UTIL_STR], y[PLUGIN_UTIL_STR], z[PLUGIN_UTIL_STR];
                        unsigned digits;

                        /* GFB: sum + (m - 1) max <= m U_thr, the two sides printed so that they differ */
                        digits = plugin_util_pair(sum + res.util + (uint64_t)(b->n_cpus - 1) * top,
                                                  (uint64_t)b->n_cpus * s->util_thr, bound, cap);
                        plugin_util_str(sum, digits, x);
                        plugin_util_str(res.util, digits, y);
                        plugin_util_str(top, digits, z);
                        plugin_reason(ret, "EDF: global on %u CPUs: density %s + %s, max %s: "
                                      "%s > %s (GFB bound)", b->n_cpus, x, y, z, bound, cap);
                }
        } else {
                uint32_t n = plugin_cores_by_load(b, exclude, own ? own->util : 0, false, b->ranked);
                uint64_t steps = s->qpa_max_steps;

                if (n == 0) {
                        plugin_reason(ret, "EDF: every core holds %u tasks", b->max_tasks);
                        return RTF_PLUGIN_NO;
                }
                /* In the order of the placement heuristic, the first core that passes. */
                k = ADM_REJECT;
                for (uint32_t i = 0; i < n && k != ADM_ADMIT; i++) {
                        k = edf_test_partition(s, b->ranked[i], &r, req->period_us, exclude, &steps, &res,
                                               i == 0 ? ret : NULL);
                        if (k < 0)
                                return k;
                        if (k == ADM_ADMIT || i == 0)
                                ret->core = (int32_t)b->ranked[i];
                }
        }

        if (k != ADM_ADMIT) {
                if (!(req->flags & RTF_PARAM_IGNORE_ADMISSION)) {
                        ret->core = -1;
                        return RTF_PLUGIN_NO;
                }
                /* The daemon's ACL let this client skip the test; it gets Q and no more. */
                ret->accepted_runtime_us = req->runtime_us;
                plugin_reason(ret, "EDF: test failed, admitted with runtime %llu us "
                              "(admission test ignored)",
                              (unsigned long long)req->runtime_us);
                return RTF_PLUGIN_OK;
        }
        ret->accepted_runtime_us = res.accepted_runtime_us;
        return RTF_PLUGIN_OK;
}

static int edf_accept(void *state, const struct rtf_task_params *req,
                      struct rtf_plugin_decision *ret) {
        struct rtf_plugin_decision d;
        int r = edf_evaluate(state, req, NULL, &d);

        if (r >= 0)
                *ret = d;
        return r;
}

static int edf_change(void *state, const struct rtf_plugin_task *task,
                      const struct rtf_task_params *req, struct rtf_plugin_decision *ret) {
        struct rtf_plugin_decision d;
        int r;

        if (!task->plugin_data)
                return -EINVAL;
        r = edf_evaluate(state, req, task, &d);
        if (r >= 0)
                *ret = d;
        return r;
}

static int edf_schedule(void *state, struct rtf_plugin_task *task,
                        const struct rtf_plugin_decision *decision) {
        struct edf_state *s = state;
        struct plugin_base *b = &s->base;
        uint64_t window = edf_deadline(&task->params);
        struct plugin_node *n;

        if (window == 0 || window > ADM_TIME_MAX_US || decision->accepted_runtime_us == 0 ||
            decision->accepted_runtime_us > window)
                return -EINVAL;
        if (!s->global && plugin_check_core(b, decision->core) < 0)
                return -EINVAL;
        n = plugin_node_take(b, task);
        if (!n)
                return -ENOMEM;
        /* The kernel reserves the accepted runtime, so that is what loads the CPU. */
        n->util = adm_util_up(decision->accepted_runtime_us, window);

        if (s->global) {
                plugin_list_append(&s->pool, &n->link);
                heap_insert(s, n);
                s->density_sum += n->util;
                task->core = -1;
        } else {
                struct plugin_core *c = &b->cores[decision->core];

                plugin_list_append(&c->tasks, &n->link);
                c->n_tasks++;
                c->util += n->util;
                task->core = decision->core;
        }
        task->priority = 0;
        task->accepted_runtime_us = decision->accepted_runtime_us;
        return 0;
}

static void edf_release(void *state, struct rtf_plugin_task *task) {
        struct edf_state *s = state;
        struct plugin_node *n = task->plugin_data;

        if (!n)
                return;
        plugin_list_remove(&n->link);
        if (s->global) {
                heap_remove(s, n);
                s->density_sum -= n->util;
        } else if (plugin_check_core(&s->base, task->core) == 0) {
                struct plugin_core *c = &s->base.cores[task->core];

                c->n_tasks--;
                c->util -= n->util;
        }
        plugin_node_release(&s->base, task);
}

static int edf_attach(void *state, const struct rtf_plugin_task *task,
                      struct rtf_sched_setting *ret) {
        struct edf_state *s = state;
        int32_t cpu = -1;

        if (!s->global) {
                if (plugin_check_core(&s->base, task->core) < 0)
                        return -EINVAL;
                cpu = (int32_t)s->base.cores[task->core].cpu;
        }
        if (task->accepted_runtime_us == 0)
                return -EINVAL;
        *ret = (struct rtf_sched_setting) {
                .policy = RTF_POLICY_DEADLINE,
                .runtime_ns = task->accepted_runtime_us * 1000,
                .deadline_ns = edf_deadline(&task->params) * 1000,
                .period_ns = task->params.period_us * 1000,
                .cpu = cpu,
                /* Opt-in: SIGXCPU ends a process that does not handle it. */
                .flags = task->params.flags & RTF_PARAM_OVERRUN_SIGNAL ? RTF_SETTING_DL_OVERRUN : 0,
        };
        return 0;
}

static int edf_core_status(void *state, uint32_t core_index, struct rtf_plugin_core_status *ret) {
        struct edf_state *s = state;
        uint32_t m = s->base.n_cpus;

        if (core_index >= m)
                return -EINVAL;
        if (!s->global)
                return plugin_core_status(state, core_index, ret);
        /*
         * Global: no task has a core.  Spread the pool's figures so that
         * summing over the cores gives the pool's totals.
         */
        *ret = (struct rtf_plugin_core_status) {
                .tasks = s->pool_tasks / m + (core_index < s->pool_tasks % m),
                .utilization = plugin_util(s->density_sum) / m,
        };
        return 0;
}

static const struct rtf_plugin_ops edf_ops = {
        .version = RTF_PLUGIN_ABI_VERSION,
        .size = sizeof(struct rtf_plugin_ops),
        .name = "EDF",
        .flags = RTF_PLUGIN_WANTS_PARTITIONS,
        .init = edf_init,
        .fini = edf_fini,
        .accept = edf_accept,
        .change = edf_change,
        .schedule = edf_schedule,
        .release = edf_release,
        .attach = edf_attach,
        .core_status = edf_core_status,
};

const struct rtf_plugin_ops *rtf_plugin_entry(uint32_t host_abi_version) {
        return host_abi_version == RTF_PLUGIN_ABI_VERSION ? &edf_ops : NULL;
}
