/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pure parsers of what the kernel says about cgroups, for the choice between
 * cgroup v1 and v2 cpusets (cpuset.h): /proc/self/mountinfo,
 * /proc/PID/cgroup and the space-separated lists of cgroup.controllers.
 * Functions over a buffer, unit-tested without the kernel.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define CGROUP_PATH_MAX 512

struct cgroup_mounts {
        char v1_cpuset[CGROUP_PATH_MAX];        /* mount point of a v1 hierarchy with cpuset, or "" */
        char v2[CGROUP_PATH_MAX];               /* mount point of the unified hierarchy, or "" */
};

/*
 * The first v1 hierarchy that carries the cpuset controller and the first
 * cgroup2 mount in `len` bytes of mountinfo (proc(5)).  Octal escapes of
 * mount points (\040 for a space) are decoded.  0, or -EINVAL for a
 * malformed line, -ENAMETOOLONG for a mount point longer than the buffers.
 */
int cgroup_parse_mountinfo(const char *buf, size_t len, struct cgroup_mounts *ret);

/* The unified-hierarchy path ("0::PATH" line) of /proc/PID/cgroup; -ENOENT if none. */
int cgroup_parse_v2_path(const char *buf, size_t len, char *ret, size_t size);

/* Whether `word` is one of the space-separated words of `list` (cgroup.controllers). */
bool cgroup_list_has(const char *list, const char *word);
