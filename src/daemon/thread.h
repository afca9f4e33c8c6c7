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

struct cpuset;

struct thread {
        pid_t tid;
        pid_t tgid;
        uid_t ruid;
        uid_t euid;
        int pidfd;
        uint64_t pidfd_ino;             /* tells it from a successor with its id (pidfs) */
        uint64_t compat_starttime;      /* 0, or: pidfd is its process's (thread-compat.h) */
        int original_nice;
        int cpuset_cpu;                 /* the partition it was moved into, -1 = none */
        bool promoted;                  /* `applied` is in force */
        struct rtf_sched_setting applied;
};

#define THREAD_NULL ((struct thread){ .pidfd = -1, .cpuset_cpu = -1 })

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

/* Back to SCHED_OTHER (its original nice value) on all CPUs. */
int thread_demote(struct thread *t, struct cpuset *cs, uint32_t n_cpus);

/* DEADLINE run-time state from /proc/<tgid>/task/<tid>/sched. */
int thread_read_dl_state(const struct thread *t, int64_t *ret_runtime_ns,
                         int64_t *ret_deadline_ns);
