/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers shared by the plugins (options, per-core bookkeeping, worst-fit,
 * logging) and the whole of the FP and RR plugins, which differ only by
 * name and kernel policy (ReTiF paper, section 5.3).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "rtf/rtf.h"

struct plugin_order {
        uint64_t util;
        uint32_t tasks;
        uint32_t not_current;           /* 0 for the core of the task being changed */
        uint32_t index;
};

void plugin_log(const struct plugin_base *b, int level, const char *fmt, ...) {
        char buf[512];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        b->host->log(b->host->data, level, "%s: %s", b->instance, buf);
}

void plugin_reason(struct rtf_plugin_decision *d, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
        va_end(ap);
}

void plugin_util_str(uint64_t ppb, unsigned digits, char *buf) {
        uint64_t scale = 1;

        for (unsigned k = digits; k < 9; k++)
                scale *= 10;
        snprintf(buf, PLUGIN_UTIL_STR, "%llu.%0*llu", (unsigned long long)(ppb / ADM_UTIL_ONE),
                 (int)digits, (unsigned long long)(ppb % ADM_UTIL_ONE / scale));
}

unsigned plugin_util_pair(uint64_t load_ppb, uint64_t bound_ppb, char *a, char *b) {
        unsigned digits = 3;
        uint64_t scale = 1000000;

        /* Truncated, the larger stays larger; add digits until they differ. */
        while (digits < 9 && load_ppb / scale == bound_ppb / scale) {
                digits++;
                scale /= 10;
        }
        plugin_util_str(load_ppb, digits, a);
        plugin_util_str(bound_ppb, digits, b);
        return digits;
}

int plugin_parse_util(const char *s, uint64_t *ret_ppb) {
        uint64_t whole = 0, frac = 0, scale = ADM_UTIL_ONE, v;
        const char *p = s;
        bool digits = false;

        for (; *p >= '0' && *p <= '9'; p++) {
                if (whole > 1)
                        return -ERANGE;
                whole = whole * 10 + (uint64_t)(*p - '0');
                digits = true;
        }
        if (*p == '.')
                /* Digits past the ninth are dropped: a lower threshold is the safe side. */
                for (p++; *p >= '0' && *p <= '9'; p++) {
                        scale /= 10;
                        frac += (uint64_t)(*p - '0') * scale;
                        digits = true;
                }
        if (!digits || *p != '\0')
                return -EINVAL;
        if (whole > 1)
                return -ERANGE;
        v = whole * ADM_UTIL_ONE + frac;
        if (v == 0 || v > ADM_UTIL_ONE)
                return -ERANGE;
        *ret_ppb = v;
        return 0;
}

int plugin_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
        unsigned long long v;
        char *end;

        /* strtoull would accept a sign and leading blanks. */
        if (*s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (*end != '\0')
                return -EINVAL;
        if (errno == ERANGE || v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

static int option_apply(struct plugin_base *b, const struct plugin_option *o, const char *value) {
        uint64_t v;
        int r;

        switch (o->type) {
        case PLUGIN_OPTION_PLACEMENT: {
                static const char *const names[] = { "worst-fit", "first-fit", "best-fit" };

                for (uint32_t i = 0; i < 3; i++)
                        if (strcmp(value, names[i]) == 0) {
                                *(uint32_t *)o->value = i;
                                return 0;
                        }
                plugin_log(b, RTF_LOG_ERR, "option %s=%s: expected worst-fit, first-fit or best-fit",
                           o->key, value);
                return -EINVAL;
        }
        case PLUGIN_OPTION_UTIL:
                r = plugin_parse_util(value, &v);
                if (r < 0) {
                        plugin_log(b, RTF_LOG_ERR, "option %s=%s: expected a number in (0, 1]",
                                   o->key, value);
                        return -EINVAL;
                }
                *(uint64_t *)o->value = v;
                return 0;
        case PLUGIN_OPTION_U32:
        case PLUGIN_OPTION_U64:
                r = plugin_parse_u64(value, o->min, o->max, &v);
                if (r < 0) {
                        plugin_log(b, RTF_LOG_ERR, "option %s=%s: expected an integer in %llu..%llu",
                                   o->key, value, (unsigned long long)o->min,
                                   (unsigned long long)o->max);
                        return -EINVAL;
                }
                if (o->type == PLUGIN_OPTION_U32)
                        *(uint32_t *)o->value = (uint32_t)v;
                else
                        *(uint64_t *)o->value = v;
                return 0;
        }
        return -EINVAL;
}

static const struct plugin_option *option_find(const struct plugin_option *options, size_t n,
                                               const char *key, size_t key_len) {
        for (size_t i = 0; i < n; i++)
                if (strlen(options[i].key) == key_len && memcmp(options[i].key, key, key_len) == 0)
                        return &options[i];
        return NULL;
}

static int options_parse(struct plugin_base *b, const struct rtf_plugin_config *config,
                         const struct plugin_option *options, size_t n_options) {
        const struct plugin_option common[] = {
                { "max_tasks", PLUGIN_OPTION_U32, &b->max_tasks, 1, PLUGIN_MAX_TASKS_LIMIT },
                { "placement", PLUGIN_OPTION_PLACEMENT, &b->placement, 0, 0 },
        };
        const size_t n_common = sizeof(common) / sizeof(common[0]);
        uint64_t seen = 0;
        int r;

        if (config->n_options > 0 && !config->options) {
                plugin_log(b, RTF_LOG_ERR, "options missing from the configuration");
                return -EINVAL;
        }
        /* `seen` has a bit per option. */
        if (n_options + n_common > 64)
                return -EINVAL;

        for (uint32_t i = 0; i < config->n_options; i++) {
                const char *word = config->options[i], *eq;
                const struct plugin_option *o;
                size_t bit;

                eq = word ? strchr(word, '=') : NULL;
                if (!eq || eq == word) {
                        plugin_log(b, RTF_LOG_ERR, "option '%s' is not key=value", word ? word : "");
                        return -EINVAL;
                }
                o = option_find(options, n_options, word, (size_t)(eq - word));
                if (o)
                        bit = (size_t)(o - options);
                else {
                        o = option_find(common, n_common, word, (size_t)(eq - word));
                        if (!o) {
                                plugin_log(b, RTF_LOG_ERR, "unknown option '%.*s'",
                                           (int)(eq - word), word);
                                return -EINVAL;
                        }
                        bit = n_options + (size_t)(o - common);
                }
                if (seen & (1ULL << bit)) {
                        plugin_log(b, RTF_LOG_ERR, "option '%s' given twice", o->key);
                        return -EINVAL;
                }
                seen |= 1ULL << bit;
                r = option_apply(b, o, eq + 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

int plugin_base_init(struct plugin_base *b, const char *name, const struct rtf_plugin_host *host,
                     const struct rtf_plugin_config *config, const struct plugin_option *options,
                     size_t n_options, bool rt_range) {
        int r;

        /* Without a usable host there is nobody to tell: just refuse. */
        if (!b || !host || host->version != RTF_PLUGIN_ABI_VERSION ||
            host->size < sizeof(struct rtf_plugin_host) || !host->log || !host->task_updated)
                return -EINVAL;

        *b = (struct plugin_base) {
                .host = host,
                .name = name,
                .max_tasks = PLUGIN_MAX_TASKS_DEFAULT,
        };
        snprintf(b->instance, sizeof(b->instance), "%s",
                 config && config->instance ? config->instance : name);

        if (!config || config->size < sizeof(struct rtf_plugin_config)) {
                plugin_log(b, RTF_LOG_ERR, "configuration from an incompatible daemon");
                return -EINVAL;
        }
        if (config->n_cpus == 0 || config->n_cpus > PLUGIN_MAX_CPUS || !config->cpus) {
                plugin_log(b, RTF_LOG_ERR, "needs 1 to %u CPUs, got %u", PLUGIN_MAX_CPUS,
                           config->n_cpus);
                return -EINVAL;
        }
        if (config->prio_min > config->prio_max ||
            (rt_range && (config->prio_min < PLUGIN_RT_PRIO_MIN ||
                          config->prio_max > PLUGIN_RT_PRIO_MAX))) {
                plugin_log(b, RTF_LOG_ERR, "priority range %u-%u is empty or not within %u-%u",
                           config->prio_min, config->prio_max, PLUGIN_RT_PRIO_MIN,
                           PLUGIN_RT_PRIO_MAX);
                return -EINVAL;
        }
        b->prio_min = config->prio_min;
        b->prio_max = config->prio_max;

        r = options_parse(b, config, options, n_options);
        if (r < 0)
                return r;

        b->n_cpus = config->n_cpus;
        b->cores = calloc(b->n_cpus, sizeof(b->cores[0]));
        b->order = calloc(b->n_cpus, sizeof(b->order[0]));
        b->ranked = calloc(b->n_cpus, sizeof(b->ranked[0]));
        if (!b->cores || !b->order || !b->ranked) {
                plugin_base_fini(b);
                plugin_log(b, RTF_LOG_ERR, "out of memory");
                return -ENOMEM;
        }
        for (uint32_t i = 0; i < b->n_cpus; i++) {
                b->cores[i].cpu = config->cpus[i];
                plugin_list_init(&b->cores[i].tasks);
        }
        return 0;
}

void plugin_base_fini(struct plugin_base *b) {
        if (!b)
                return;
        for (uint32_t i = 0; b->cores && i < b->n_cpus; i++) {
                struct plugin_core *c = &b->cores[i];

                /*
                 * Tasks still here belong to the daemon: free our nodes, touch
                 * nothing else.  A list never initialised (init ran out of
                 * memory) is still all zeroes.
                 */
                while (c->tasks.next && c->tasks.next != &c->tasks) {
                        struct plugin_node *n = plugin_node_of(c->tasks.next);

                        plugin_list_remove(&n->link);
                        free(n);
                }
                free(c->periods.entries);
                free(c->buckets);
        }
        free(b->cores);
        free(b->order);
        free(b->ranked);
        free(b->spare);
        b->cores = NULL;
        b->order = NULL;
        b->ranked = NULL;
        b->spare = NULL;
}

int plugin_node_reserve(struct plugin_base *b) {
        if (!b->spare) {
                b->spare = calloc(1, sizeof(*b->spare));
                if (!b->spare)
                        return -ENOMEM;
        }
        return 0;
}

struct plugin_node *plugin_node_take(struct plugin_base *b, struct rtf_plugin_task *task) {
        struct plugin_node *n = b->spare ? b->spare : malloc(sizeof(*n));

        if (!n)
                return NULL;
        b->spare = NULL;
        *n = (struct plugin_node) { .task = task };
        plugin_list_init(&n->link);
        plugin_list_init(&n->bucket);
        task->plugin_data = n;
        return n;
}

void plugin_node_release(struct plugin_base *b, struct rtf_plugin_task *task) {
        struct plugin_node *n = task->plugin_data;

        if (!n)
                return;
        task->plugin_data = NULL;
        if (!b->spare)
                b->spare = n;
        else
                free(n);
}

static int order_compare(const void *pa, const void *pb) {
        const struct plugin_order *a = pa, *b = pb;

        if (a->util != b->util)
                return a->util < b->util ? -1 : 1;
        if (a->tasks != b->tasks)
                return a->tasks < b->tasks ? -1 : 1;
        if (a->not_current != b->not_current)
                return a->not_current < b->not_current ? -1 : 1;
        return a->index < b->index ? -1 : a->index > b->index;
}

uint32_t plugin_cores_by_load(struct plugin_base *b, const struct rtf_plugin_task *exclude,
                              uint64_t exclude_util, bool by_tasks_only, uint32_t *ret_order) {
        uint32_t n = 0;

        for (uint32_t i = 0; i < b->n_cpus; i++) {
                const struct plugin_core *c = &b->cores[i];
                bool here = exclude && exclude->core >= 0 && (uint32_t)exclude->core == i;
                uint32_t tasks = c->n_tasks - here;

                if (tasks >= b->max_tasks)
                        continue;
                b->order[n] = (struct plugin_order) {
                        .util = by_tasks_only ? 0 : c->util - (here ? exclude_util : 0),
                        .tasks = tasks,
                        .not_current = !here,
                        .index = i,
                };
                if (b->placement == PLUGIN_PLACEMENT_BEST_FIT) {
                        b->order[n].util = UINT64_MAX - b->order[n].util;
                        b->order[n].tasks = UINT32_MAX - tasks;
                } else if (b->placement == PLUGIN_PLACEMENT_FIRST_FIT)
                        b->order[n].util = b->order[n].tasks = b->order[n].not_current = 0;
                n++;
        }
        qsort(b->order, n, sizeof(b->order[0]), order_compare);
        for (uint32_t i = 0; i < n; i++)
                ret_order[i] = b->order[i].index;
        return n;
}

int plugin_check_core(const struct plugin_base *b, int32_t core) {
        return core >= 0 && (uint32_t)core < b->n_cpus ? 0 : -EINVAL;
}

int plugin_core_status(void *state, uint32_t core_index, struct rtf_plugin_core_status *ret) {
        struct plugin_base *b = state;
        const struct plugin_core *c;
        struct plugin_list *l;
        uint32_t lowest = 0, highest = 0;

        if (core_index >= b->n_cpus)
                return -EINVAL;
        c = &b->cores[core_index];
        /* O(tasks), but only for `rtfctl status`. */
        PLUGIN_LIST_FOREACH(l, &c->tasks) {
                uint32_t p = plugin_node_of(l)->task->priority;

                if (lowest == 0 || p < lowest)
                        lowest = p;
                if (p > highest)
                        highest = p;
        }
        *ret = (struct rtf_plugin_core_status) {
                .tasks = c->n_tasks,
                .prio_lowest = lowest,
                .prio_highest = highest,
                .utilization = plugin_util(c->util),
        };
        return 0;
}

int plugin_attach_fixed(const struct plugin_base *b, const struct rtf_plugin_task *task,
                        uint32_t policy, struct rtf_sched_setting *ret) {
        if (plugin_check_core(b, task->core) < 0 || task->priority == 0)
                return -EINVAL;
        *ret = (struct rtf_sched_setting) {
                .policy = policy,
                .priority = task->priority,
                .cpu = (int32_t)b->cores[task->core].cpu,
        };
        return 0;
}

/* ---- FP and RR ------------------------------------------------------------ */

struct prio_state {
        struct plugin_base base;
        uint32_t policy;
};

int prio_plugin_init(const struct rtf_plugin_host *host, const struct rtf_plugin_config *config,
                     const char *name, uint32_t policy, void **ret_state) {
        struct prio_state *s;
        int r;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->policy = policy;
        r = plugin_base_init(&s->base, name, host, config, NULL, 0, true);
        if (r < 0) {
                free(s);
                return r;
        }
        for (uint32_t i = 0; i < s->base.n_cpus; i++) {
                struct plugin_core *c = &s->base.cores[i];

                c->buckets = calloc(ADM_PRIO_KEYS, sizeof(c->buckets[0]));
                if (!c->buckets) {
                        plugin_log(&s->base, RTF_LOG_ERR, "out of memory");
                        prio_plugin_fini(s);
                        return -ENOMEM;
                }
                for (uint32_t k = 0; k < ADM_PRIO_KEYS; k++)
                        plugin_list_init(&c->buckets[k]);
        }
        *ret_state = s;
        return 0;
}

void prio_plugin_fini(void *state) {
        struct prio_state *s = state;

        if (!s)
                return;
        plugin_base_fini(&s->base);
        free(s);
}

static int prio_evaluate(struct prio_state *s, const struct rtf_task_params *req,
                         const struct rtf_plugin_task *exclude, struct rtf_plugin_decision *ret) {
        struct plugin_base *b = &s->base;
        struct adm_prio_set set;
        uint32_t map[ADM_PRIO_KEYS], n;
        const struct plugin_core *c;
        int r, ties;

        *ret = (struct rtf_plugin_decision) { .core = -1 };
        if (!(req->flags & RTF_PARAM_HAS_PRIORITY)) {
                plugin_reason(ret, "%s: a priority is mandatory", b->name);
                return RTF_PLUGIN_NO;
        }
        if (req->priority < PLUGIN_RT_PRIO_MIN || req->priority > ADM_PRIO_KEY_MAX) {
                plugin_reason(ret, "%s: priority %u outside %u..%u", b->name, req->priority,
                              PLUGIN_RT_PRIO_MIN, ADM_PRIO_KEY_MAX);
                return RTF_PLUGIN_NO;
        }
        r = plugin_node_reserve(b);
        if (r < 0)
                return r;

        n = plugin_cores_by_load(b, exclude, 0, true, b->ranked);
        if (n == 0) {
                plugin_reason(ret, "%s: every core holds %u tasks", b->name, b->max_tasks);
                return RTF_PLUGIN_NO;
        }
        c = &b->cores[b->ranked[0]];

        /* The mapping as it will be once the request is scheduled there. */
        set = c->prios;
        if (exclude && exclude->core == (int32_t)b->ranked[0]) {
                const struct plugin_node *node = exclude->plugin_data;

                (void)adm_prio_set_remove(&set, node->key);
        }
        (void)adm_prio_set_add(&set, req->priority);
        ties = adm_prio_set_map(&set, b->prio_min, b->prio_max, map);
        if (ties < 0)
                return ties;

        ret->core = (int32_t)b->ranked[0];
        ret->priority = map[req->priority];
        ret->accepted_runtime_us = req->flags & RTF_PARAM_HAS_RUNTIME ? req->runtime_us : 0;
        if (ties == ADM_PRIO_TIES)
                plugin_reason(ret, "%s: CPU %u: %u distinct priorities share %u levels, order not kept",
                              b->name, c->cpu, set.n_distinct, b->prio_max - b->prio_min + 1);
        return RTF_PLUGIN_OK;
}

int prio_plugin_accept(void *state, const struct rtf_task_params *req,
                       struct rtf_plugin_decision *ret) {
        struct rtf_plugin_decision d;
        int r = prio_evaluate(state, req, NULL, &d);

        if (r >= 0)
                *ret = d;
        return r;
}

int prio_plugin_change(void *state, const struct rtf_plugin_task *task,
                       const struct rtf_task_params *req, struct rtf_plugin_decision *ret) {
        struct rtf_plugin_decision d;
        int r;

        if (!task->plugin_data)
                return -EINVAL;
        r = prio_evaluate(state, req, task, &d);
        if (r >= 0)
                *ret = d;
        return r;
}

/*
 * Re-map the core after its set of requested priorities changed and tell
 * the daemon about every other task whose priority moved.  Only the keys
 * whose mapping changed are visited: O(keys + moved tasks).
 */
static void prio_remap(struct prio_state *s, struct plugin_core *c,
                       const struct rtf_plugin_task *skip) {
        struct plugin_base *b = &s->base;
        uint32_t map[ADM_PRIO_KEYS];
        bool ties;
        int r;

        r = adm_prio_set_map(&c->prios, b->prio_min, b->prio_max, map);
        if (r < 0)
                return; /* the range was checked at init */
        ties = r == ADM_PRIO_TIES;
        if (ties != c->ties)
                plugin_log(b, ties ? RTF_LOG_WARNING : RTF_LOG_INFO,
                           ties ? "CPU %u: %u distinct priorities share %u levels: "
                                  "requested order not kept (eq. 6)"
                                : "CPU %u: %u distinct priorities in %u levels: "
                                  "requested order kept again",
                           c->cpu, c->prios.n_distinct, b->prio_max - b->prio_min + 1);
        c->ties = ties;

        for (uint32_t k = 1; k < ADM_PRIO_KEYS; k++) {
                struct plugin_list *l;

                if (map[k] == c->map[k])
                        continue;
                c->map[k] = map[k];
                PLUGIN_LIST_FOREACH(l, &c->buckets[k]) {
                        struct plugin_node *n = plugin_container_of(l, struct plugin_node, bucket);

                        n->task->priority = map[k];
                        if (n->task != skip)
                                b->host->task_updated(b->host->data, n->task);
                }
        }
}

int prio_plugin_schedule(void *state, struct rtf_plugin_task *task,
                         const struct rtf_plugin_decision *decision) {
        struct prio_state *s = state;
        struct plugin_base *b = &s->base;
        struct plugin_node *n;
        struct plugin_core *c;
        uint32_t key = task->params.priority;

        if (plugin_check_core(b, decision->core) < 0 ||
            !(task->params.flags & RTF_PARAM_HAS_PRIORITY) || key < PLUGIN_RT_PRIO_MIN ||
            key > ADM_PRIO_KEY_MAX)
                return -EINVAL;
        n = plugin_node_take(b, task);
        if (!n)
                return -ENOMEM;
        c = &b->cores[decision->core];
        n->key = key;
        (void)adm_prio_set_add(&c->prios, key);
        plugin_list_append(&c->tasks, &n->link);
        plugin_list_append(&c->buckets[key], &n->bucket);
        c->n_tasks++;

        task->core = decision->core;
        task->accepted_runtime_us = decision->accepted_runtime_us;
        task->priority = c->map[key];
        prio_remap(s, c, task);
        return 0;
}

void prio_plugin_release(void *state, struct rtf_plugin_task *task) {
        struct prio_state *s = state;
        struct plugin_base *b = &s->base;
        struct plugin_node *n = task->plugin_data;
        struct plugin_core *c;

        if (!n || plugin_check_core(b, task->core) < 0)
                return;
        c = &b->cores[task->core];
        plugin_list_remove(&n->link);
        plugin_list_remove(&n->bucket);
        (void)adm_prio_set_remove(&c->prios, n->key);
        c->n_tasks--;
        plugin_node_release(b, task);
        prio_remap(s, c, task);
}

int prio_plugin_attach(void *state, const struct rtf_plugin_task *task,
                       struct rtf_sched_setting *ret) {
        struct prio_state *s = state;

        return plugin_attach_fixed(&s->base, task, s->policy, ret);
}
