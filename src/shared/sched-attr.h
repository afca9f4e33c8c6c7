/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sched_setattr(2)/sched_getattr(2).  glibc before 2.41 has no wrapper, and
 * <linux/sched/types.h> cannot be included beside <sched.h> (both define
 * struct sched_param), so the kernel's struct sched_attr (SCHED_ATTR_SIZE_VER1)
 * is spelled here once, checked by size.
 */
#pragma once

#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

struct rtf_sched_attr {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime;
        uint64_t sched_deadline;
        uint64_t sched_period;
        uint32_t sched_util_min;
        uint32_t sched_util_max;
};
_Static_assert(sizeof(struct rtf_sched_attr) == 56, "struct sched_attr VER1 is 56 bytes");

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

static inline int rtf_sched_setattr(pid_t tid, const struct rtf_sched_attr *attr, unsigned flags) {
        return syscall(SYS_sched_setattr, tid, attr, flags) < 0 ? -errno : 0;
}

static inline int rtf_sched_getattr(pid_t tid, struct rtf_sched_attr *attr, unsigned flags) {
        return syscall(SYS_sched_getattr, tid, attr, sizeof(*attr), flags) < 0 ? -errno : 0;
}
