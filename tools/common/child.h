/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helper processes of the tools (stress-ng, cyclictest, a private rtfd)
 * that must not outlive the tool, whatever way it ends: each runs in a
 * process group of its own (so the tool can stop it and everything it
 * forked with one kill) and gets SIGKILL from the kernel when the tool dies
 * (PR_SET_PDEATHSIG, which even a SIGKILL of the tool triggers).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * Start argv[0] (PATH searched) in a new process group.  stdout and stderr
 * go to `output` (truncated) or /dev/null when NULL.  Returns the pid (also
 * the group id) or a negative errno.
 */
pid_t child_spawn(char *const argv[], const char *output);
/*
 * Wait for the child, at most timeout_ms (< 0: forever).  Returns its wait
 * status, -ETIMEDOUT, -EINTR if `interrupted` became true, or -errno.
 */
int child_wait(pid_t pid, int timeout_ms, volatile bool *interrupted);
/* SIGTERM to the whole group, SIGKILL after grace_ms, reap the child. */
void child_stop(pid_t pid, int grace_ms);
/* Whether any process of group `pgid` is left. */
bool child_group_alive(pid_t pgid);
