/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rtf plugin ABI (ReTiF paper, Table 4), versioned in the PipeWire SPA way.
 *
 * A plugin is a shared object in rtfd's plugindir that exports exactly one
 * symbol, RTF_PLUGIN_ENTRY (rtf_plugin_entry).  rtfd calls it with the ABI
 * version it speaks; the plugin returns its ops table, or NULL if it cannot
 * serve that version.  Every table starts with `version` and `size`; rtfd
 * checks both, and that a method is non-NULL, before calling it.
 *
 * Division of labour:
 *   - the plugin decides: admission (accept/change), which of its cores a
 *     task goes to, the kernel priority, the accepted runtime, and the
 *     kernel setting (policy, priority, runtime/deadline/period, CPU) that a
 *     thread of a task must have (attach);
 *   - rtfd does every system call: it holds the attached threads by pidfd,
 *     applies and withdraws the kernel settings, owns cpuset partitions, and
 *     re-applies settings when a plugin reports a change (host->task_updated).
 * So a plugin makes no OS calls and its admission math can be unit-tested
 * and reused outside Linux.  Plugins get host services only through the
 * `struct rtf_plugin_host` pointer passed to init, never by calling rtfd's
 * symbols.
 *
 * Threading: rtfd calls a plugin from one thread only.  No method may block.
 * All times are microseconds except in struct rtf_sched_setting (ns, as the
 * kernel wants them).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTF_PLUGIN_ABI_VERSION 1u
#define RTF_PLUGIN_ENTRY rtf_plugin_entry
#define RTF_PLUGIN_ENTRY_NAME "rtf_plugin_entry"
#define RTF_PLUGIN_REASON_MAX 128

/* Verdicts of accept/change (section 3.3 of the paper). */
enum rtf_plugin_verdict {
        RTF_PLUGIN_NO = 0,      /* cannot admit: reason says why */
        RTF_PLUGIN_PARTIAL = 1, /* admits, though recommended parameters are missing */
        RTF_PLUGIN_OK = 2,      /* admits fully */
};

/* The kernel scheduling policies a plugin may ask for. */
enum rtf_policy {
        RTF_POLICY_OTHER = 0,
        RTF_POLICY_FIFO = 1,
        RTF_POLICY_RR = 2,
        RTF_POLICY_DEADLINE = 6,
};

/* A request as the plugin sees it (flags are RTF_PARAM_* of rtf.h). */
struct rtf_task_params {
        uint32_t flags;
        uint32_t priority;
        uint64_t period_us;
        uint64_t runtime_us;
        uint64_t des_runtime_us;
        uint64_t deadline_us;
};

/* What accept/change propose and schedule commits. */
struct rtf_plugin_decision {
        int32_t core;                   /* index into the plugin's CPU list */
        uint32_t priority;              /* kernel priority, FIFO/RR only */
        uint64_t accepted_runtime_us;
        char reason[RTF_PLUGIN_REASON_MAX]; /* why NO; for OK/PARTIAL, optional information */
};

/* One admitted task, owned by rtfd; the plugin may use plugin_data. */
struct rtf_plugin_task {
        uint64_t id;
        struct rtf_task_params params;  /* the accepted parameters */
        uint64_t accepted_runtime_us;
        int32_t core;                   /* index into the plugin's CPU list, -1 = none */
        uint32_t priority;              /* granted kernel priority */
        uint32_t attached;              /* non-zero while a thread is attached (read-only) */
        uint32_t reserved;
        void *plugin_data;
};

/* The kernel setting for an attached thread. */
struct rtf_sched_setting {
        uint32_t policy;                /* enum rtf_policy */
        uint32_t priority;              /* FIFO/RR */
        uint64_t runtime_ns;            /* DEADLINE */
        uint64_t deadline_ns;
        uint64_t period_ns;
        int32_t cpu;                    /* absolute CPU number, -1 = not pinned */
        uint32_t flags;                 /* RTF_SETTING_* */
};

enum {
        /* Deliver SIGXCPU to the thread when it overruns its runtime (DEADLINE). */
        RTF_SETTING_DL_OVERRUN = 1u << 0,
};

/* Static description of one plugin instance (a line of rtfd's config). */
struct rtf_plugin_config {
        uint32_t size;
        uint32_t n_cpus;
        const char *instance;           /* the configured name, e.g. "RM1" */
        uint32_t prio_min;              /* priority range from the config */
        uint32_t prio_max;
        const uint32_t *cpus;           /* absolute CPU numbers, in config order */
        /* cpus[i] has a root domain of its own (a cpuset partition) */
        const bool *partitioned;
        uint32_t n_options;
        const char *const *options;     /* "key=value" words after the core list */
};

enum rtf_log_level {
        RTF_LOG_ERR = 3,
        RTF_LOG_WARNING = 4,
        RTF_LOG_NOTICE = 5,
        RTF_LOG_INFO = 6,
        RTF_LOG_DEBUG = 7,
};

/* Services rtfd offers a plugin. */
struct rtf_plugin_host {
        uint32_t version;               /* RTF_PLUGIN_ABI_VERSION */
        uint32_t size;
        void *data;                     /* pass back as the first argument */
        void (*log)(void *data, int level, const char *fmt, ...)
                __attribute__((format(printf, 3, 4)));
        /*
         * The plugin changed the priority or core of a task it had already
         * scheduled (RM re-prioritisation).  May be called from
         * schedule/release only.  rtfd only notes it: once the change that
         * called schedule/release is final (committed, or rolled back),
         * it calls attach() for every task reported and applies the result
         * to its thread, once.  So attach() must describe the plugin's state
         * as it is then, not as it was at the report.
         */
        void (*task_updated)(void *data, struct rtf_plugin_task *task);
};

/* Per-core figures for `rtfctl status`. */
struct rtf_plugin_core_status {
        uint32_t tasks;
        uint32_t prio_lowest;           /* 0 when unused */
        uint32_t prio_highest;
        double utilization;             /* declared utilisation on the core */
};

enum {
        /* rtfd should give each CPU of this plugin a root domain of its own */
        RTF_PLUGIN_WANTS_PARTITIONS = 1u << 0,
};

struct rtf_plugin_ops {
        uint32_t version;               /* RTF_PLUGIN_ABI_VERSION */
        uint32_t size;                  /* sizeof(struct rtf_plugin_ops) */
        const char *name;               /* e.g. "EDF" */
        uint32_t flags;                 /* RTF_PLUGIN_WANTS_PARTITIONS */
        uint32_t reserved;

        /* Return 0, or a negative errno with a message logged through host. */
        int (*init)(const struct rtf_plugin_host *host,
                    const struct rtf_plugin_config *config, void **ret_state);
        void (*fini)(void *state);

        /* Admission of a new task: RTF_PLUGIN_{OK,PARTIAL,NO}, fill *ret. */
        int (*accept)(void *state, const struct rtf_task_params *req,
                      struct rtf_plugin_decision *ret);
        /* Admission of new parameters for a task this plugin holds. */
        int (*change)(void *state, const struct rtf_plugin_task *task,
                      const struct rtf_task_params *req, struct rtf_plugin_decision *ret);
        /*
         * Commit a decision this plugin instance just returned (no other call
         * to this instance in between; other instances may have been asked).
         * task->params already hold the new parameters; schedule() writes
         * task->core, task->priority and task->accepted_runtime_us.  Must not
         * fail for a decision just returned; returns 0 or a negative errno.
         *
         * Rollback: when a change fails after release() (the new plugin's
         * schedule failed, or the kernel refused the new setting), rtfd
         * calls schedule() again with the decision this instance returned
         * for this very task when it last scheduled it (its core, priority
         * and accepted runtime; the reason text is not kept), and the task's
         * old parameters.  The instance is then in the state it had when it
         * returned that decision, so this must not fail either.  rtfd never
         * passes a decision the plugin did not return.
         */
        int (*schedule)(void *state, struct rtf_plugin_task *task,
                        const struct rtf_plugin_decision *decision);
        /* The task leaves this plugin (released, or moved elsewhere). */
        void (*release)(void *state, struct rtf_plugin_task *task);

        /* The kernel setting a thread of this task must get. */
        int (*attach)(void *state, const struct rtf_plugin_task *task,
                      struct rtf_sched_setting *ret);
        /* The task's thread went away (detached, exited, demoted). Optional. */
        void (*detach)(void *state, const struct rtf_plugin_task *task);

        /* Optional: figures for core_index (0..n_cpus-1). */
        int (*core_status)(void *state, uint32_t core_index,
                           struct rtf_plugin_core_status *ret);
};

typedef const struct rtf_plugin_ops *(*rtf_plugin_entry_fn)(uint32_t host_abi_version);

/* The one symbol a plugin exports. */
const struct rtf_plugin_ops *RTF_PLUGIN_ENTRY(uint32_t host_abi_version);

#ifdef __cplusplus
}
#endif
