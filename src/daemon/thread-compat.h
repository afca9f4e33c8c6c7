/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Holding a thread on kernels without PIDFD_THREAD (before Linux 6.9, e.g.
 * Debian 12's 6.1): pidfd_open() accepts only a process id there, so rtfd
 * holds the pidfd of the thread's process and recognises the thread itself
 * by its start time in /proc/<pid>/task/<tid>/stat.  The guarantee of
 * thread.h stays: before and after every call by thread id, the process
 * pidfd must say "alive" (the pid is not reused meanwhile) and the task
 * directory of that process must still hold a thread of that id with that
 * start time.  A thread id reused inside the same process within one clock
 * tick of the start time (10 ms) would pass; that needs the pid space of
 * the machine to wrap around in between.  What is lost: a thread that exits
 * while its process lives does not make the pidfd readable, so rtfd sees
 * it gone at its next check of that thread, not at once.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A pidfd for thread `tid`: with PIDFD_THREAD where the kernel has it
 * (*ret_starttime = 0), else the pidfd of its process *ret_tgid and the
 * thread's start time (> 0).  Returns 0, -ESRCH if there is no such thread,
 * or -errno; the outputs are written only on success.
 */
int thread_compat_pidfd_open(pid_t tid, int *ret_pidfd, pid_t *ret_tgid, uint64_t *ret_starttime);

/* Whether thread `tid` of process `tgid` (whose pidfd says alive) still has
 * `starttime`; true when starttime is 0 (a PIDFD_THREAD pidfd says it all). */
bool thread_compat_same(pid_t tgid, pid_t tid, uint64_t starttime);
