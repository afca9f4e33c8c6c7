/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An attached thread: held by a pidfd (PIDFD_THREAD), so that rtfd notices its
 * exit at once (the pidfd polls readable) and never mistakes a recycled thread
 * id for it: before and after every system call on the thread id, the pidfd
 * must still say "alive".
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtf/rtf-plugin.h"
#include "sched-attr.h"

struct cpuset;

/*
 * What a thread had before rtfd promoted it, given back at the end: an
 * unprivileged user cannot leave SCHED_IDLE, SCHED_BATCH or a positive nice
 * value on her own, so rtfd must not be the way out.  A thread that was
 * real-time before comes back SCHED_OTHER: rtfd does not know who granted
 * that policy, and a real-time policy without a reservation behind it is
 * exactly what rtfd must never leave behind.
 */
struct thread_original {
        int policy;                     /* SCHED_OTHER, SCHED_BATCH or SCHED_IDLE */
        int nice;
        bool reset_on_fork;
};

#define THREAD_ORIGINAL_NULL ((struct thread_original){ .policy = 0 /* SCHED_OTHER */ })

struct thread {
        pid_t tid;
        pid_t tgid;
        uid_t ruid;
        uid_t euid;
        int pidfd;
        uint64_t pidfd_ino;             /* tells it from a successor with its id (pidfs) */
        uint64_t compat_starttime;      /* 0, or: pidfd is its process's (thread-compat.h) */
        /*
         * A non-leader thread that calls execve() becomes its process's
         * leader: the kernel gives it the leader's pid and its own pidfd
         * reports an exit.  The process pidfd (of tgid) pins the pid it then
         * runs under, so that rtfd can find it and take back what it gave.
         */
        int proc_pidfd;                 /* -1 for a leader */
        uint64_t proc_ino;              /* pidfs inode of the process pid */
        bool leader_was_rt;             /* the leader had a real-time policy of its own at attach */
        struct thread_original original;
        int cpuset_cpu;                 /* the partition it was moved into, -1 = none */
        bool promoted;                  /* `applied` is in force */
        struct rtf_sched_setting applied;
};

#define THREAD_NULL ((struct thread){ .pidfd = -1, .proc_pidfd = -1, .cpuset_cpu = -1 })

/*
 * Open thread `tid` (a thread id, or a process id meaning its main thread):
 * returns 0, -ESRCH if it does not exist, or another negative errno.
 */
int thread_open(pid_t tid, struct thread *ret);
void thread_close(struct thread *t);
/* The thread's real and effective uid now (they change at a setuid exec). */
int thread_read_owners(const struct thread *t, uid_t *ret_ruid, uid_t *ret_euid);
bool thread_alive(const struct thread *t);

/*
 * Give the thread `s`.  Returns 0; -EBUSY if the kernel refused the
 * DEADLINE bandwidth; -ESRCH if the thread is gone; another negative errno.
 * On failure the thread keeps the setting it had, or is demoted if even that
 * cannot be restored.
 */
int thread_apply(struct thread *t, const struct rtf_sched_setting *s,
                 struct cpuset *cs, uint32_t n_cpus);

/*
 * Issue 10, point 4: a FIFO/RR thread that its plugin placed on one CPU is
 * still there and nowhere else (it may have moved itself with
 * sched_setaffinity(), which a cpuset partition forbids but affinity alone
 * does not).  1 = holds, 0 = it moved, or a negative errno (-ESRCH: gone).
 */
int thread_placement_holds(const struct thread *t, uint32_t n_cpus);

/*
 * Only the policy and priority of a FIFO/RR/OTHER setting, nothing else (no
 * affinity, no cpuset, no bookkeeping): for the runtime enforcer, which
 * throttles and restores a thread the broker placed (enforce.h).
 */
int thread_set_policy(struct thread *t, const struct rtf_sched_setting *s);

/* Back to its original policy and nice value (struct thread_original) on all CPUs. */
int thread_demote(struct thread *t, struct cpuset *cs, uint32_t n_cpus);

/*
 * `t` is gone by its pidfd.  If it was not its process's leader, the process
 * lives on and its leader now runs with what rtfd gave `t` (SCHED_RESET_ON_FORK
 * marks it: no unprivileged program can clear that flag), `t` exec'd: demote
 * the process's leader to `t`'s original setting.  `leader_attached`: another
 * specification holds the leader, which then answers for it.  Returns 1 if it
 * demoted a successor, 0 if there was none, or a negative errno.
 */
int thread_demote_exec_successor(struct thread *t, struct cpuset *cs, uint32_t n_cpus, bool leader_attached);

/*
 * Decide from the kernel's attributes `now` of a process's leader whether it
 * is the successor of an attached thread that exec'd (pure, for tests):
 * `applied` is what rtfd gave the thread, NULL if unknown (a journal).
 */
bool thread_is_exec_successor(const struct rtf_sched_attr *now, bool leader_was_rt,
                              const struct rtf_sched_setting *applied);

/* SCHED_FIFO, SCHED_RR or SCHED_DEADLINE. */
bool thread_policy_is_rt(uint32_t policy);

/* Give thread `tid`, pinned by `pidfd`, its `original` setting on all CPUs
 * (after a restart: the cpusets of the previous rtfd are gone). */
int thread_restore_original(pid_t tid, int pidfd, const struct thread_original *original);

/* DEADLINE run-time state from /proc/<tgid>/task/<tid>/sched. */
int thread_read_dl_state(const struct thread *t, int64_t *ret_runtime_ns,
                         int64_t *ret_deadline_ns);
