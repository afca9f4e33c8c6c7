/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpuset partitions for partitioned SCHED_DEADLINE (PLATFORM.md and
 * Documentation/scheduler/sched-deadline.rst section 5).
 *
 * With cgroup v1 cpusets, rtfd creates under the cpuset root:
 *   rtf-cpuN     one exclusive cpuset per partitioned CPU N: its own root
 *                domain, in which a DEADLINE thread may be pinned;
 *   rtf-system   a load-balanced cpuset over the remaining CPUs, into which
 *                every other task of the machine is moved;
 * and turns sched_load_balance off at the root so that the kernel builds one
 * root domain per cpuset.  Everything is put back at exit, and leftovers of a
 * crashed rtfd are removed at start.  Where this is impossible (no cpuset v1,
 * or no CPU would be left for the rest of the system) nothing is changed and
 * the callers run in global mode.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CPUSET_MAX_CPUS 1024

struct cpuset {
        char root[256];                 /* the cpuset hierarchy's mount point */
        uint32_t n_cpus;
        bool active;                    /* partitions exist */
        bool partitioned[CPUSET_MAX_CPUS];
        bool saved_load_balance;
        int lock_fd;                    /* held while the partitions are ours */
};

#define CPUSET_NULL ((struct cpuset){ .root = "", .lock_fd = -1 })

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
        CPUSET_E_UNAVAILABLE = 1,       /* no cgroup v1 cpuset hierarchy */
        CPUSET_E_NO_CPU_LEFT,           /* no CPU would be left for the system */
        CPUSET_E_BUSY,                  /* another live rtfd owns the partitions */
};
int cpuset_setup(struct cpuset *cs, const char *root, uint32_t n_cpus,
                 const bool *want, bool any_wanted);
void cpuset_teardown(struct cpuset *cs);

/* Remove what a previous rtfd left behind (after a crash). */
void cpuset_cleanup_stale(const char *root);

/* Move one thread into the partition of `cpu`, or back (cpu < 0). */
int cpuset_move_thread(struct cpuset *cs, pid_t tid, int cpu);

/* Rebuild the kernel's root domains (recovers leaked DEADLINE bandwidth). */
int cpuset_rebuild_root_domains(struct cpuset *cs, const char *root);
