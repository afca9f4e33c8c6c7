/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Code shared by the plugins of the suite (compiled into each module, so
 * nothing here is exported; plugin.map keeps only rtf_plugin_entry).
 *
 * Cores are always named by their POSITION in the plugin's CPU list
 * (task->core, decision->core, plugin_base.cores[]); only attach() turns a
 * position into an absolute CPU number.  A plugin configured on CPUs 5-7 has
 * cores 0, 1, 2.
 *
 * Memory: schedule() must not fail, so everything a task will need is
 * reserved by accept()/change() (a spare node, room in per-core arrays) and
 * only consumed by schedule().  A dropped decision leaves the reservation
 * for the next request.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/admission.h"
#include "rtf/rtf-plugin.h"
#include "task-params.h"

#define PLUGIN_INSTANCE_MAX 32
/* Default and hard limit of tasks per core (option max_tasks=). */
#define PLUGIN_MAX_TASKS_DEFAULT 1024u
#define PLUGIN_MAX_TASKS_LIMIT 65536u
#define PLUGIN_MAX_CPUS 4096u
/* SCHED_FIFO/SCHED_RR priorities on Linux (sched_get_priority_min/max): rtf's one range. */
#define PLUGIN_RT_PRIO_MIN RTF_PRIORITY_MIN
#define PLUGIN_RT_PRIO_MAX RTF_PRIORITY_MAX

#define plugin_container_of(ptr, type, member) \
        ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* A utilisation in ppb as a fraction of a CPU, for messages and status. */
static inline double plugin_util(uint64_t ppb) {
        return (double)ppb / (double)ADM_UTIL_ONE;
}

/*
 * A reason's "load > bound" with just enough decimals that the two differ
 * (1.00005 > 1.00000, never 1.000 > 1.000): writes both, truncated, into
 * a and b (at least PLUGIN_UTIL_STR bytes each); returns the decimals used.
 */
#define PLUGIN_UTIL_STR 24
unsigned plugin_util_pair(uint64_t load_ppb, uint64_t bound_ppb, char *a, char *b);
/* ppb truncated to `digits` decimals (3..9), for the other figures of such a reason. */
void plugin_util_str(uint64_t ppb, unsigned digits, char *buf);

/* A circular doubly-linked list; the head is a node that carries no entry. */
struct plugin_list {
        struct plugin_list *prev, *next;
};

static inline void plugin_list_init(struct plugin_list *head) {
        head->prev = head->next = head;
}

static inline void plugin_list_append(struct plugin_list *head, struct plugin_list *item) {
        item->prev = head->prev;
        item->next = head;
        head->prev->next = item;
        head->prev = item;
}

static inline void plugin_list_remove(struct plugin_list *item) {
        item->prev->next = item->next;
        item->next->prev = item->prev;
        item->prev = item->next = item;
}

#define PLUGIN_LIST_FOREACH(pos, head) \
        for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

/* What a plugin keeps for each task it schedules (task->plugin_data). */
struct plugin_node {
        struct plugin_list link;        /* in its core's list, or EDF's global pool */
        struct plugin_list bucket;      /* FP/RR: in its requested priority's list */
        struct rtf_plugin_task *task;
        uint64_t util;                  /* EDF: accepted density, rounded up */
        struct adm_fp_load load;        /* RM: what the task adds to its core */
        uint64_t runtime_us;            /* RM: C, 0 = not declared */
        uint64_t period_us;             /* RM: T, its key in the core's period set */
        uint64_t deadline_us;           /* RM: min(D, T) */
        uint64_t window_work;           /* RM: adm_window_work() over the kernel's window */
        uint32_t key;                   /* FP/RR: requested priority */
        uint32_t heap_pos;              /* EDF, global: index in the density heap */
        bool dirty;                     /* priority changed, task_updated pending */
};

static inline struct plugin_node *plugin_node_of(struct plugin_list *link) {
        return plugin_container_of(link, struct plugin_node, link);
}

/* Per-core bookkeeping; the plugin-specific parts are unused by the others. */
struct plugin_core {
        uint32_t cpu;                   /* absolute CPU number, for attach() only */
        uint32_t n_tasks;
        uint64_t util;                  /* declared utilisation, ppb */
        struct plugin_list tasks;
        bool ties;                      /* eq. 6 does not hold on this core */
        /* RM */
        struct adm_fp_load load;
        uint64_t window_work;           /* sum of the tasks' window_work */
        struct adm_period_set periods;
        /* FP/RR */
        struct adm_prio_set prios;
        uint32_t map[ADM_PRIO_KEYS];    /* requested -> granted priority */
        struct plugin_list *buckets;    /* ADM_PRIO_KEYS lists */
};

/*
 * The order in which a new task tries the cores (option placement=):
 * worst-fit, the least loaded first (the default: it leaves each core the
 * most room); best-fit, the most loaded first (it keeps whole cores free
 * for big tasks); first-fit, in the order of the configuration.  The
 * plugins with a test take the first core that passes it.
 */
enum plugin_placement {
        PLUGIN_PLACEMENT_WORST_FIT = 0,
        PLUGIN_PLACEMENT_FIRST_FIT = 1,
        PLUGIN_PLACEMENT_BEST_FIT = 2,
};

/* The first member of every plugin's state. */
struct plugin_base {
        const struct rtf_plugin_host *host;
        const char *name;               /* "EDF", "RM", ... */
        char instance[PLUGIN_INSTANCE_MAX];
        uint32_t prio_min;
        uint32_t prio_max;
        uint32_t n_cpus;
        uint32_t max_tasks;             /* per core */
        uint32_t placement;             /* enum plugin_placement (option placement=) */
        struct plugin_core *cores;
        struct plugin_node *spare;
        /* scratch for worst-fit, n_cpus entries each */
        struct plugin_order *order;
        uint32_t *ranked;
};

enum plugin_option_type {
        PLUGIN_OPTION_UTIL,             /* decimal in (0, 1] -> uint64_t ppb */
        PLUGIN_OPTION_PLACEMENT,        /* worst-fit, first-fit, best-fit -> uint32_t */
        PLUGIN_OPTION_U32,              /* decimal integer in [min, max] */
        PLUGIN_OPTION_U64,
};

struct plugin_option {
        const char *key;
        enum plugin_option_type type;
        void *value;                    /* uint64_t * or uint32_t *, holds the default */
        uint64_t min;
        uint64_t max;
};

/*
 * Check host and config, copy what the plugin needs (the daemon's config
 * need not outlive init), allocate the cores and parse config->options
 * against `options` plus the common max_tasks=.  Unknown or malformed
 * options are an error logged through host.  `rt_range` demands a priority
 * range inside 1..99.  0 or a negative errno, with a message logged.
 */
int plugin_base_init(struct plugin_base *b, const char *name, const struct rtf_plugin_host *host,
                     const struct rtf_plugin_config *config, const struct plugin_option *options,
                     size_t n_options, bool rt_range);
void plugin_base_fini(struct plugin_base *b);

void plugin_log(const struct plugin_base *b, int level, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Write the decision's reason ("RM: ..."), truncated to fit. */
void plugin_reason(struct rtf_plugin_decision *d, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* Parsers of option values, pure: 0 or -EINVAL/-ERANGE. */
int plugin_parse_util(const char *s, uint64_t *ret_ppb);
int plugin_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/* Make sure schedule() will find a node; -ENOMEM. */
int plugin_node_reserve(struct plugin_base *b);
/* Hand the reserved node to task (NULL only if reserve was not called and malloc fails). */
struct plugin_node *plugin_node_take(struct plugin_base *b, struct rtf_plugin_task *task);
/* Forget task's node: kept as the spare, or freed. */
void plugin_node_release(struct plugin_base *b, struct rtf_plugin_task *task);

/*
 * The cores that still take a task (fewer than max_tasks), in the order
 * of b->placement: worst-fit, least loaded first; best-fit, most loaded
 * first; first-fit, by position.  Load is util, then number of tasks
 * (by_tasks_only: the number of tasks alone); a remaining tie goes to the
 * core `exclude` is on (not for first-fit), then to the lowest position.  `exclude` (a task being changed, or
 * NULL) is counted out, with exclude_util.  Fills ret_order, returns how
 * many cores it holds.
 */
uint32_t plugin_cores_by_load(struct plugin_base *b, const struct rtf_plugin_task *exclude,
                              uint64_t exclude_util, bool by_tasks_only, uint32_t *ret_order);

/* -EINVAL unless 0 <= core < n_cpus. */
int plugin_check_core(const struct plugin_base *b, int32_t core);

/* core_status for plugins whose cores carry everything (RM, FP, RR). */
int plugin_core_status(void *state, uint32_t core_index, struct rtf_plugin_core_status *ret);

/* attach for the POSIX fixed-priority policies. */
int plugin_attach_fixed(const struct plugin_base *b, const struct rtf_plugin_task *task,
                        uint32_t policy, struct rtf_sched_setting *ret);

/* Shared implementation of FP.so and RR.so: they differ by name and policy. */
int prio_plugin_init(const struct rtf_plugin_host *host, const struct rtf_plugin_config *config,
                     const char *name, uint32_t policy, void **ret_state);
void prio_plugin_fini(void *state);
int prio_plugin_accept(void *state, const struct rtf_task_params *req,
                       struct rtf_plugin_decision *ret);
int prio_plugin_change(void *state, const struct rtf_plugin_task *task,
                       const struct rtf_task_params *req, struct rtf_plugin_decision *ret);
int prio_plugin_schedule(void *state, struct rtf_plugin_task *task,
                         const struct rtf_plugin_decision *decision);
void prio_plugin_release(void *state, struct rtf_plugin_task *task);
int prio_plugin_attach(void *state, const struct rtf_plugin_task *task,
                       struct rtf_sched_setting *ret);

#define PRIO_PLUGIN_OPS(plugin_name, init_fn) {                 \
        .version = RTF_PLUGIN_ABI_VERSION,                      \
        .size = sizeof(struct rtf_plugin_ops),                  \
        .name = (plugin_name),                                  \
        .init = (init_fn),                                      \
        .fini = prio_plugin_fini,                               \
        .accept = prio_plugin_accept,                           \
        .change = prio_plugin_change,                           \
        .schedule = prio_plugin_schedule,                       \
        .release = prio_plugin_release,                         \
        .attach = prio_plugin_attach,                           \
        .core_status = plugin_core_status,                      \
}
