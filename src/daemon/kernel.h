/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every step the broker takes on the kernel, as one small table, so that the
 * broker (manager*.c) is a library: rtfd passes kernel_linux_ops (real
 * system calls, kernel-linux.c), tests/unit/broker-fixture.c passes a fake
 * kernel that records and can fail every step.  What each member returns is
 * what the thread.c function of the same name documents.
 *
 * Not in the table: the cpuset partitions, which are set up once at start
 * and at a reload (cpuset.c; a unit test names a cpuset root that does not
 * exist, so there are none), and the crash journal, which is a plain file.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtf/rtf-plugin.h"

struct thread;

struct kernel_ops {
        /* Hold thread `tid` (pidfd, owners); its pidfd polls readable at its exit. */
        int (*thread_open)(void *data, pid_t tid, struct thread *ret);
        void (*thread_close)(void *data, struct thread *t);
        bool (*thread_alive)(void *data, const struct thread *t);
        int (*thread_read_owners)(void *data, const struct thread *t, uid_t *ret_ruid, uid_t *ret_euid);
        /* Apply a setting (policy, priority or reservation, CPU or partition). */
        int (*thread_apply)(void *data, struct thread *t, const struct rtf_sched_setting *s);
        /* Back to SCHED_OTHER on every CPU. */
        int (*thread_demote)(void *data, struct thread *t);
        int (*thread_read_dl_state)(void *data, const struct thread *t, int64_t *ret_runtime_ns,
                                    int64_t *ret_deadline_ns);
        /* The DEADLINE bandwidth leak workaround (cpuset.c). */
        int (*rebuild_root_domains)(void *data);
        /* Hold (or let go of) the latency hint, /dev/cpu_dma_latency. */
        void (*latency_hint)(void *data, bool wanted, int32_t value_us);
        /*
         * Issue 10.  Optional (NULL: not done), so that a test kernel may
         * leave them out.  thread_enforce: after a setting was applied, make
         * a FIFO/RR runtime per period a bound the thread cannot exceed (or
         * stop enforcing, for any other setting); key names the thread until
         * thread_unenforce, which is called before the thread is let go.
         */
        int (*thread_enforce)(void *data, uint64_t key, const struct thread *t,
                              const struct rtf_sched_setting *applied, uint64_t runtime_ns, uint64_t period_ns);
        void (*thread_unenforce)(void *data, uint64_t key);
        /* A thread its pidfd says is gone may live on as its process's leader
         * after an execve(): take back what it was given (thread.h). */
        int (*thread_demote_successor)(void *data, struct thread *t, bool leader_attached);
        /* 1: the thread is still where its setting put it; 0: it moved itself. */
        int (*thread_placement_holds)(void *data, const struct thread *t);
};

/* The kernel for real; `data` is the struct manager it serves. */
extern const struct kernel_ops kernel_linux_ops;
