/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker between clients, plugins and the kernel: specifications,
 * plugin choice (section 3.3 of the paper), atomic change, attached threads,
 * and the recovery from the kernel misbehaviours of PLATFORM.md.
 *
 * Results written into a reply: RTF_OK, RTF_SCHEDULE_FAIL, RTF_ACL_FAIL, or a
 * negative errno, with a reason text for refusals.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol.h"

struct spec;

/* Who asks, as the kernel told us (SO_PEERCRED, SO_PEERGROUPS); never from a message. */
struct owner {
        uid_t uid;
        gid_t gid;
        pid_t pid;
        uint32_t *groups;               /* all supplementary groups */
        size_t n_groups;
        struct spec *specs;             /* this connection's specifications */
        uint32_t n_specs;
};

/* Every limit on what clients control; `set` lines of the config override them. */
struct limits {
        uint32_t max_clients;
        uint32_t max_clients_per_uid;   /* root is exempt */
        uint32_t max_specs;
        uint32_t max_specs_per_client;
        uint32_t max_specs_per_uid;     /* root is exempt */
        uint32_t max_requests_per_sec;  /* per connection; root is exempt */
        uint32_t request_burst;
};

#define LIMITS_DEFAULT ((struct limits){ \
        .max_clients = 1024, .max_clients_per_uid = 64, .max_specs = 65536, \
        .max_specs_per_client = 8192, .max_specs_per_uid = 256, \
        .max_requests_per_sec = 2000, .request_burst = 200 })

struct manager_options {
        const char *config_path;        /* NULL = built-in default */
        const char *acl_path;
        bool acl_required;              /* --acl given: the file must exist */
        const char *plugindir;
        const char *cpuset_root;
        const char *state_path;         /* promoted threads, for recovery after a crash */
        struct limits limits;
        int32_t latency_hint_us;        /* /dev/cpu_dma_latency while threads are attached; -1 = off */
        uint64_t rttime_us;             /* issue 10: RLIMIT_RTTIME for FIFO/RR without runtime; 0 = none */
};

const struct limits *manager_limits(void);

int manager_init(const struct manager_options *o);
void manager_done(void);
/* Re-read the config file; on any error the running configuration stays. */
int manager_reload(void);
/* Check a config file as rtfd would, without touching anything. */
int manager_check_config(const struct manager_options *o);

void manager_create(struct owner *o, const struct rtf_wire_params *req, struct rtf_msg_reply *ret);
void manager_change(struct owner *o, uint64_t id, const struct rtf_wire_params *req,
                    struct rtf_msg_reply *ret);
void manager_release(struct owner *o, uint64_t id, struct rtf_msg_reply *ret);
void manager_attach(struct owner *o, uint64_t id, pid_t tid, struct rtf_msg_reply *ret);
void manager_detach(struct owner *o, uint64_t id, struct rtf_msg_reply *ret);
/* The connection is gone: release everything it held. */
void manager_owner_gone(struct owner *o);

/*
 * A client's statistics report for one of its specifications: stored if the
 * spec was created on this very connection (root included: a report speaks
 * for the process that runs the task).  Returns 0, -ENOENT or -EPERM (also
 * audited); there is no reply to carry it.
 */
int manager_report(struct owner *o, uint64_t id, const struct rtf_wire_stats *stats);

void manager_list_cores(uint32_t start, struct rtf_msg_rows *ret);
void manager_list_tasks(uint32_t start, struct rtf_msg_rows *ret);
/* The last report of every spec that has one, in id order. */
void manager_list_task_stats(uint32_t start, struct rtf_msg_rows *ret);

/* Periodic health check of attached SCHED_DEADLINE threads. */
void manager_watchdog(void);
