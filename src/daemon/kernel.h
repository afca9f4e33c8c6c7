/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every step the broker takes on the kernel, as one small table, so that the
 * broker (manager*.c) is a library: rtfd passes kernel_linux_ops (real
 * system calls, kernel-linux.c), tests/unit/test-broker.c passes a fake
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
};

/* The kernel for real; `data` is the struct manager it serves. */
extern const struct kernel_ops kernel_linux_ops;
