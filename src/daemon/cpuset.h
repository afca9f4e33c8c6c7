/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpuset partitions for partitioned SCHED_DEADLINE (PLATFORM.md and
 * Documentation/scheduler/sched-deadline.rst section 5), with whichever
 * cgroup version owns the cpuset controller (docs/KERNEL.md, "cpusets").
 *
 * cgroup v1 (cpuset-v1.c), under the cpuset hierarchy's root:
 *   rtf-cpuN     one exclusive cpuset per partitioned CPU N: its own root
 *                domain, in which a DEADLINE thread may be pinned;
 *   rtf-system   a load-balanced cpuset over the remaining CPUs, into which
 *                every other task of the machine is moved;
 * and sched_load_balance off at the root, so that the kernel builds one
 * root domain per cpuset.
 *
 * cgroup v2 (cpuset-v2.c), under the cgroup rtfd runs in (the v2 root, or
 * the subtree systemd delegates to rtfd.service):
 *   rtf/         a threaded domain: the processes that have a thread in a
 *                partition live here meanwhile (v2 moves a single thread
 *                only within its process's threaded subtree);
 *   rtf/cpuN     a threaded cgroup and a partition root ("root") of CPU N:
 *                its own root domain.  The CPUs come from the parent's
 *                effective set (cpuset.cpus.exclusive on the way down), so
 *                the rest of the system keeps the other CPUs where it is,
 *                load-balanced, without being moved.
 *
 * Everything is put back at exit, and leftovers of a crashed rtfd are
 * removed at start.  Where this is impossible (no cpuset controller we can
 * use, or no CPU would be left for the rest of the system) nothing is
 * changed and the callers run in global mode.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CPUSET_MAX_CPUS 1024

enum cpuset_version {
        CPUSET_NONE,
        CPUSET_V1,
        CPUSET_V2,
};

/* A process moved into rtf/ (v2) and the cgroup it came from. */
struct cpuset_origin {
        pid_t pid;
        char *path;                     /* relative to the v2 mount, "/..." */
};

#define CPUSET_MAX_ORIGINS 4096         /* processes with a thread in a v2 partition */

struct cpuset {
        enum cpuset_version version;
        char root[512];                 /* v1: the cpuset hierarchy's mount point; v2: the v2 mount */
        char base[512];                 /* v2: the cgroup rtf/ is made in, relative to root ("" = root) */
        uint32_t n_cpus;
        bool active;                    /* partitions exist */
        bool partitioned[CPUSET_MAX_CPUS];
        bool saved_load_balance;        /* v1 */
        bool v2_flat;                   /* v2 before Linux 6.7: partitions are children of the root (cpuset-v2.c) */
        /* v2: what setup changed above rtf/, to put back */
        uint32_t n_enabled;             /* cgroups (from the root down) whose subtree_control got +cpuset */
        bool base_enabled[32];
        char daemon_from[512];          /* v2: the delegated cgroup rtfd left for its daemon/ child ("" = none) */
        struct cpuset_origin *origins;
        size_t n_origins;
        int lock_fd;                    /* held while the partitions are ours */
};

#define CPUSET_NULL ((struct cpuset){ .root = "", .base = "", .daemon_from = "", .lock_fd = -1 })

/*
 * One rtfd at a time may own partitions: it holds an exclusive flock() on
 * this file.  Another rtfd (a test instance, a benchmark) neither removes
 * them as stale nor makes its own; it runs SCHED_DEADLINE in global mode.
 */
#define CPUSET_LOCK_FILE "/run/rtf-cpusets.lock"

/*
 * Give each CPU in want[] a root domain of its own.  Returns 0 when the
 * partitions exist, a positive CPUSET_E_* code (with the reason logged) when
 * the host does not allow them, or a negative errno.
 */
enum {
        CPUSET_E_UNAVAILABLE = 1,       /* no cpuset controller rtfd can use */
        CPUSET_E_NO_CPU_LEFT,           /* no CPU would be left for the system */
        CPUSET_E_BUSY,                  /* another live rtfd owns the partitions */
};
/*
 * `root` is a cpuset hierarchy (v1) or a cgroup2 mount (v2), told apart by
 * the file system's type; NULL finds the one that owns the cpuset
 * controller in /proc/self/mountinfo.  The choice and its reason are logged.
 */
int cpuset_setup(struct cpuset *cs, const char *root, uint32_t n_cpus,
                 const bool *want, bool any_wanted);
void cpuset_teardown(struct cpuset *cs);

/*
 * What cpuset_setup() would partition, decided by the same code but without
 * looking at or touching the kernel (rtfd --check-config): fills
 * cs->partitioned and cs->active as if the host allowed partitions.  0 or
 * CPUSET_E_NO_CPU_LEFT.
 */
int cpuset_plan(struct cpuset *cs, uint32_t n_cpus, const bool *want, bool any_wanted);

/* Move one thread into the partition of `cpu`, or back (cpu < 0). */
int cpuset_move_thread(struct cpuset *cs, pid_t tid, int cpu);

/* Rebuild the kernel's root domains (recovers leaked DEADLINE bandwidth).
 * `root` is used in global mode with v1, where cs has none. */
int cpuset_rebuild_root_domains(struct cpuset *cs, const char *root);
