/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker between clients, plugins and the kernel: specifications,
 * plugin choice (section 3.3 of the paper), atomic change, attached threads,
 * and the recovery from the kernel misbehaviours of PLATFORM.md.
 *
 * A library: its state is one struct manager, passed to every operation; it
 * reaches the kernel only through a struct kernel_ops (kernel.h), so that
 * tests/unit/test-broker-*.c runs all of it as an ordinary user.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol.h"
#include "rtf/rtf-plugin.h"

struct spec;
struct user;

/* Who asks, as the kernel told us (SO_PEERCRED, SO_PEERGROUPS); never from a message. */
struct owner {
        uid_t uid;
        gid_t gid;
        pid_t pid;
        uint32_t *groups;               /* all supplementary groups */
        size_t n_groups;
        struct spec *specs;             /* this connection's specifications */
        uint32_t n_specs;
        struct user *user;              /* its uid's accounting (manager_owner_init) */
        bool counted;                   /* counts toward max_clients_per_uid */
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
        uint32_t max_requests_per_sec_per_uid;  /* all of a uid's connections together */
        uint32_t request_burst_per_uid;
        /* rtfd's own time a uid's requests may take: per mille of each second,
         * and the most it may use at once (ms); a costly admission test
         * (constrained deadlines, thousands of tasks) is charged what it
         * took, so that no uid slows everybody else down; root is exempt */
        uint32_t max_busy_permille_per_uid;
        uint32_t busy_burst_ms_per_uid;
};

/*
 * Root may hold this many connections and specifications beyond max_clients
 * and max_specs: users, each within its per-uid limits, can fill the global
 * ones together, and must not lock the administrator out (as the kernel keeps
 * the last files for root).
 */
#define LIMITS_ROOT_EXTRA 16

/* The global limit `max` (max_clients, max_specs) as it applies to `uid`. */
static inline uint64_t limits_global_for(uint32_t max, uid_t uid) {
        return (uint64_t)max + (uid == 0 ? LIMITS_ROOT_EXTRA : 0);
}

#define LIMITS_DEFAULT ((struct limits){ \
        .max_clients = 1024, .max_clients_per_uid = 64, .max_specs = 65536, \
        .max_specs_per_client = 8192, .max_specs_per_uid = 256, \
        .max_requests_per_sec = 2000, .request_burst = 200, \
        .max_requests_per_sec_per_uid = 8000, .request_burst_per_uid = 800, \
        .max_busy_permille_per_uid = 250, .busy_burst_ms_per_uid = 50 })

struct manager_machine;

struct manager_options {
        const char *config_path;        /* NULL = built-in default */
        const char *acl_path;
        bool acl_required;              /* --acl given: the file must exist */
        const char *plugindir;
        const char *cpuset_root;
        const char *state_path;         /* promoted threads, for recovery after a crash */
        struct limits limits;
        int32_t latency_hint_us;        /* /dev/cpu_dma_latency while threads are attached; -1 = off */
        /*
         * The whole-machine admission (soundness.h): `veto` is installed
         * with manager_set_veto(); `machine_report` is told the machine at
         * start, at a reload and by --check-config, the same code for all.
         */
        int (*veto)(void *userdata, const struct manager_machine *m, char *reason, size_t reason_size);
        int (*machine_report)(void *userdata, const struct manager_machine *m);
        void *machine_data;
        uint64_t rttime_us;             /* issue 10: RLIMIT_RTTIME for FIFO/RR without runtime; 0 = none */
};

struct manager;
struct event_loop;
struct kernel_ops;

/*
 * What a granted request got, or why it was refused (`reason`).  Broker
 * operations return RTF_OK, a positive RTF_SCHEDULE_FAIL / RTF_ACL_FAIL, or a
 * negative errno, with `reason` set for everything but RTF_OK.  The front end
 * (server.c) turns this into a wire reply; another front end would turn it
 * into its own.
 */
struct manager_result {
        uint64_t id;
        uint32_t priority;              /* granted kernel priority */
        uint64_t accepted_runtime_us;
        int32_t cpu;                    /* absolute CPU, -1 = not pinned */
        char plugin[RTF_PLUGIN_NAME_MAX];
        char reason[RTF_REASON_MAX];
};

const struct limits *manager_limits(const struct manager *m);

/* Allocate the broker; `kops` is how it reaches the kernel (kernel.h), with
 * `kdata` as their first argument (NULL: the manager itself, which is what
 * kernel_linux_ops wants); `ev` is the loop its thread-exit watches run in. */
int manager_new(const struct manager_options *o, const struct kernel_ops *kops, void *kdata,
                struct event_loop *ev, struct manager **ret);
/* Release everything left (demoting attached threads); takes NULL, returns NULL. */
struct manager *manager_free(struct manager *m);
/* Re-read the config file; on any error the running configuration stays. */
int manager_reload(struct manager *m);
/* Check a config file as rtfd would, without touching anything. */
int manager_check_config(const struct manager_options *o);

/* `plugin` is "" (any) or an instance name, RTF_PARAM_HAS_SCHEDULER set exactly when it is named. */
int manager_create(struct manager *m, struct owner *o, const struct rtf_task_params *req, const char *plugin,
                   struct manager_result *ret);
int manager_change(struct manager *m, struct owner *o, uint64_t id, const struct rtf_task_params *req,
                   const char *plugin, struct manager_result *ret);
int manager_release(struct manager *m, struct owner *o, uint64_t id, struct manager_result *ret);
int manager_attach(struct manager *m, struct owner *o, uint64_t id, pid_t tid, struct manager_result *ret);
int manager_detach(struct manager *m, struct owner *o, uint64_t id, struct manager_result *ret);
/*
 * A new connection's owner (uid, gid, pid, groups filled in): takes a
 * reference on its uid's accounting object; `counted` = it counts toward
 * max_clients_per_uid (not a connection kept only to be told why it is
 * refused).
 */
int manager_owner_init(struct manager *m, struct owner *o, bool counted);
/* How many counted connections `uid` has now. */
uint32_t manager_connections_of(const struct manager *m, uid_t uid);
/* The utilisation (ppb) of `uid`'s live specifications, 0 if it has none. */
uint64_t manager_bandwidth_of(const struct manager *m, uid_t uid);
/* One request of `o` against its uid's max_requests_per_sec_per_uid (root is exempt). */
bool manager_user_rate_allows(struct manager *m, struct owner *o);
/* May `o` start a request within its uid's share of rtfd's time
 * (max_busy_permille_per_uid)?  And charge what one took.  Root is exempt. */
bool manager_user_busy_allows(struct manager *m, struct owner *o);
void manager_user_charge(struct manager *m, struct owner *o, int64_t ns);
/* When manager_user_busy_allows() refused: how long until it allows again. */
int64_t manager_user_busy_wait_ns(const struct manager *m, const struct owner *o);
/* The connection is gone: release everything it held, and its uid reference. */
void manager_owner_gone(struct manager *m, struct owner *o);

/*
 * A client's statistics report for one of its specifications: stored if the
 * spec was created on this very connection (root included: a report speaks
 * for the process that runs the task).  Returns 0, -ENOENT or -EPERM (also
 * audited); there is no reply to carry it.
 */
int manager_report(struct manager *m, struct owner *o, uint64_t id, const struct rtf_wire_stats *stats);

/* Listings: rows from index `start` on, at most `max`, are passed to `fn`;
 * the return value is the number of rows there are. */
struct manager_core_row {
        const char *plugin;
        const char *policy;
        int32_t cpu;                    /* absolute */
        bool partitioned;
        uint32_t prio_min, prio_max;
        struct rtf_plugin_core_status status;
};

struct manager_task_row {
        uint64_t id;
        uid_t uid;
        pid_t pid;
        pid_t tid;                      /* 0 = no thread attached */
        int32_t cpu;
        uint32_t priority;
        uint64_t accepted_runtime_us;
        const struct rtf_task_params *params;
        const char *plugin;
};

struct manager_stats_row {
        uint64_t id;
        uint64_t age_ms;
        const struct rtf_wire_stats *stats;
};

uint32_t manager_list_cores(const struct manager *m, uint32_t start, uint32_t max,
                            void (*fn)(void *userdata, const struct manager_core_row *row), void *userdata);
uint32_t manager_list_tasks(const struct manager *m, uint32_t start, uint32_t max,
                            void (*fn)(void *userdata, const struct manager_task_row *row), void *userdata);
/* The last report of every spec that has one, in id order. */
uint32_t manager_list_task_stats(const struct manager *m, uint32_t start, uint32_t max,
                                 void (*fn)(void *userdata, const struct manager_stats_row *row), void *userdata);

/*
 * The whole-machine admission veto (issue 11; DESIGN.md, "The request
 * path").  Each plugin's own test covers only its instance; whether the
 * instances together are sound (shared CPUs, tasks that float, FIFO under
 * DEADLINE) is decided here.  After the chosen plugin has tentatively
 * committed a create or a change, and before any thread gets a setting, the
 * broker calls the veto with every plugin instance as it would then be.  A
 * refusal rolls the request back exactly like a kernel refusal, and the
 * client gets RTF_SCHEDULE_FAIL with the veto's reason.  Without a veto
 * installed nothing is built or called.
 */
struct manager_machine_task {
        uint64_t id;
        const struct rtf_task_params *params;
        int32_t cpu;                    /* absolute CPU, -1 = floats over the instance's CPUs */
        uint32_t priority;              /* granted kernel priority (FIFO/RR) */
        uint64_t accepted_runtime_us;
        bool attached;                  /* a thread runs it now */
        bool tentative;                 /* the request being decided */
        /* what a thread of it gets from the kernel (the plugin's attach()) */
        struct rtf_sched_setting setting;
};

struct manager_machine_instance {
        const char *name;               /* instance name from the config */
        const char *policy;             /* the plugin's own name: "EDF", "RM", ... */
        uint32_t n_cpus;
        const uint32_t *cpus;           /* absolute CPU numbers */
        const bool *partitioned;        /* per CPU: a root domain of its own */
        uint32_t prio_min, prio_max;
        uint32_t n_options;
        const char *const *options;     /* "key=value" words of its config line */
        uint32_t n_tasks;
        const struct manager_machine_task *tasks;
};

struct manager_machine {
        uint32_t n_cpus;                /* of the machine */
        uint32_t n_instances;
        const struct manager_machine_instance *instances;
};

/* Return 0 to let the request through; anything else refuses it, with `reason`. */
typedef int (*manager_veto_fn)(void *userdata, const struct manager_machine *m, char *reason, size_t reason_size);
void manager_set_veto(struct manager *m, manager_veto_fn fn, void *userdata);
/* Call fn with the machine as it is now (for start-up and --check-config reports). */
int manager_describe_machine(const struct manager *m,
                             int (*fn)(void *userdata, const struct manager_machine *m), void *userdata);

/* Periodic health check of attached SCHED_DEADLINE threads. */
void manager_watchdog(struct manager *m);
