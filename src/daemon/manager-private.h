/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the parts of the broker share: manager.c (requests, threads,
 * watchdog) and manager-config.c (configuration, start, reload, stop).
 * Not an interface for anything else.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "access.h"
#include "config.h"
#include "cpuset.h"
#include "dl-health.h"
#include "enforce.h"
#include "ratelog.h"
#include "event.h"
#include "kernel.h"
#include "list.h"
#include "manager.h"
#include "plugin.h"
#include "pmqos.h"
#include "state.h"
#include "thread.h"
#include "user.h"
#include "util.h"

/* A decision as a plugin returned it, without its reason text (which
 * schedule() does not read): 16 bytes per spec instead of 144. */
struct spec_decision {
        int32_t core;
        uint32_t priority;
        uint64_t accepted_runtime_us;
};

static inline struct spec_decision spec_decision_of(const struct rtf_plugin_decision *d) {
        return (struct spec_decision){ d->core, d->priority, d->accepted_runtime_us };
}

static inline struct rtf_plugin_decision spec_decision_to(const struct spec_decision *d) {
        return (struct rtf_plugin_decision){ .core = d->core, .priority = d->priority,
                                             .accepted_runtime_us = d->accepted_runtime_us };
}

struct spec {
        uint64_t id;
        struct owner *owner;
        struct plugin *plugin;
        struct rtf_plugin_task task;
        /* what `plugin` decided when it scheduled `task`: a failed change is
         * taken back with it (rtf-plugin.h, schedule()) */
        struct spec_decision decision;
        struct spec_thread *att;        /* its thread, while one is attached */
        bool committing;                /* its own commit applies its setting */
        bool update_pending;            /* in mgr->pending */
        struct spec *pending_next;
        LIST_FIELDS(struct spec, hash);         /* in its bucket of the id table */
        LIST_FIELDS(struct spec, owner);        /* in owner->specs */
        LIST_FIELDS(struct spec, all);          /* in id order, for listings */
        uint64_t acl_util_ppb;          /* what it counts toward max_utilization rules */
        /* the client's last statistics report (REPORT): its claim, shown as
         * such; allocated at the first, as most specs never send one */
        struct spec_report *report;
};

/* What a spec has only while a thread is attached: most specs never are. */
struct spec_thread {
        struct thread thread;
        struct source source;           /* its pidfd: the thread's exit */
        struct spec *spec;
        struct manager *mgr;            /* for its exit handler */
        LIST_FIELDS(struct spec_thread, attached);      /* in mgr->attached */
        struct dl_sample last_sample;   /* the watchdog's previous look */
        bool hint;                      /* counts toward mgr->n_hinted */
        bool have_sample;
};

/*
 * A thread rtfd could not demote when it let it go (issue 10: no thread keeps
 * an rtf-applied policy once rtfd stops managing it): still held by its
 * pidfd, still in the journal, demoted again by every watchdog pass until
 * that works or the thread is gone.
 */
struct lingering_thread {
        struct thread thread;
        uid_t uid;                      /* whose specification it was attached to */
        LIST_FIELDS(struct lingering_thread, lingering);
};

/* A uid with this many lingering threads attaches no more until some are
 * demoted: each holds a pidfd and a journal line. */
#define LINGERING_MAX_PER_UID 16

struct spec_report {
        struct rtf_wire_stats stats;
        int64_t at_ns;                  /* when it arrived */
};

struct plugin_set {
        struct plugin *plugins;
        uint32_t n;
        struct rtf_config config;
        bool wants_partition[CPUSET_MAX_CPUS];
        bool any_partition;
};

/*
 * What the veto is handed, kept between requests and only grown: at 4096
 * tasks, allocating it per request cost more than the check (mlockall makes
 * every fresh mapping fault in, and free() gave it back).
 */
struct manager_machine_buf {
        struct manager_machine_instance *inst;
        size_t inst_cap;
        struct manager_machine_task *tasks;
        size_t tasks_cap;
};

struct manager {
        const struct kernel_ops *kops;  /* the only way to the kernel */
        void *kdata;
        struct event_loop *ev;          /* where thread exits are watched */
        struct plugin_host_ops hops;    /* plugins' callbacks, data = this */
        struct access access;           /* the policy in force */
        struct pmqos pmqos;             /* kernel_linux_ops's latency hint */
        struct manager_options opt;
        struct manager_options base;    /* as given on the command line */
        uint32_t n_cpus;
        struct plugin_set set;
        struct cpuset cpuset;
        struct spec **buckets;
        size_t n_buckets;
        uint32_t n_specs;
        uint64_t next_id;
        struct spec_thread *attached;   /* the attached threads */
        struct lingering_thread *lingering;     /* let go, not demoted yet */
        uint32_t n_hinted;              /* of them, those the policy grants the latency hint */
        /* Explicit commits: the settings plugins report changed
         * (task_updated) while a commit is open are applied once it is final. */
        unsigned commit_depth;
        struct spec *pending;
        manager_veto_fn veto;           /* the whole-machine check, NULL = none */
        void *veto_data;
        struct manager_machine_buf machine_buf;  /* the veto's arrays, kept between requests */
        struct spec *all_head, *all_tail;
        uint64_t inject_stuck_id;       /* test hook, see manager_init() */
        struct state state;             /* journal of promoted threads */
        struct enforcer *enforcer;      /* FIFO/RR runtimes (enforce.h); NULL until needed */
        struct ratelog refusals;        /* refusal lines per peer (ratelog.h) */
        uint64_t leak_recoveries;
        uint64_t stuck_recoveries;
        bool no_cpusets;                /* no cgroup v1 cpusets, or another rtfd owns them */
        struct user_registry users;     /* per-uid accounting */
};

/* Shared by the parts of the broker (manager*.c). */
int manager_fail(struct manager_result *r, int result, const char *fmt, ...) _printf_(3, 4);
struct spec *manager_spec_find(const struct manager *mgr, uint64_t id);
int manager_lookup_owned(struct manager *mgr, struct owner *o, uint64_t id, const char *what,
                         struct manager_result *r, struct spec **ret);
void manager_audit(struct manager *mgr, const struct owner *o, const char *what, uint64_t id,
                   const char *plugin, bool granted, unsigned line, const char *why);
int manager_fill_result(struct manager_result *r, const struct spec *s);

/* Ask the veto about the tentative state (plus `extra`, a spec not yet
 * listed); RTF_OK, or the refusal written into `r`. */
int manager_machine_veto(struct manager *mgr, const struct spec *extra, struct manager_result *r);
void manager_machine_buf_deinit(struct manager_machine_buf *b);

void manager_host_task_updated(void *data, struct plugin *p, struct rtf_plugin_task *task);

int manager_table_grow(struct manager *mgr);
const char *manager_policy_name(const struct plugin *p);
int manager_setting_of(const struct spec *s, struct rtf_sched_setting *ret);
int manager_apply_setting(struct manager *mgr, struct spec *s, const struct rtf_sched_setting *set);
/* Try again to demote the threads whose demotion failed (watchdog, stop). */
void manager_retry_lingering(struct manager *mgr);
void manager_spec_unattach(struct manager *mgr, struct spec *s, bool demote);
/* Whether the policy in force grants the latency hint to s's thread; keep
 * mgr->n_hinted and the kernel's hint in step. */
void manager_update_hint(struct manager *mgr, struct spec *s);
/* Open and close a commit: see manager_host_task_updated(). */
void manager_commit_begin(struct manager *mgr);
void manager_commit_end(struct manager *mgr);
