/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the parts of the broker share: manager.c (requests, threads,
 * watchdog) and manager-config.c (configuration, start, reload, stop).
 * Not an interface for anything else.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "cpuset.h"
#include "dl-health.h"
#include "enforce.h"
#include "ratelog.h"
#include "event.h"
#include "manager.h"
#include "plugin.h"
#include "state.h"
#include "thread.h"

struct spec {
        uint64_t id;
        struct owner *owner;
        struct plugin *plugin;
        struct rtf_plugin_task task;
        struct spec_thread *att;        /* its thread, while one is attached */
        bool committing;                /* plugin callbacks for it are deferred */
        struct spec *hash_next;
        struct spec *owner_prev, *owner_next;
        struct spec *all_prev, *all_next;       /* in id order, for listings */
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
        struct spec *prev, *next;       /* in mgr.attached */
        struct dl_sample last_sample;   /* the watchdog's previous look */
        bool have_sample;
};

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

struct manager_state {
        struct manager_options opt;
        struct manager_options base;    /* as given on the command line */
        uint32_t n_cpus;
        struct plugin_set set;
        struct cpuset cpuset;
        struct spec **buckets;
        size_t n_buckets;
        uint32_t n_specs;
        uint64_t next_id;
        struct spec *attached;          /* specs with a thread */
        struct spec *all_head, *all_tail;
        uint64_t inject_stuck_id;       /* test hook, see manager_init() */
        struct state state;             /* journal of promoted threads */
        struct enforcer *enforcer;      /* FIFO/RR runtimes (enforce.h); NULL until needed */
        struct ratelog refusals;        /* refusal lines per peer (ratelog.h) */
        uint64_t leak_recoveries;
        uint64_t stuck_recoveries;
        bool no_cpusets;                /* no cgroup v1 cpusets, or another rtfd owns them */
        struct uid_count {
                uint32_t uid;
                uint32_t specs;
        } *uids;
        size_t n_uids;
};

extern struct manager_state mgr;

extern const struct plugin_host_ops manager_host_ops;

int manager_table_grow(void);
const char *manager_policy_name(const struct plugin *p);
int manager_setting_of(const struct spec *s, struct rtf_sched_setting *ret);
int manager_apply_setting(struct spec *s, const struct rtf_sched_setting *set);
void manager_spec_unattach(struct spec *s, bool demote);
