/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What cpuset.c shares with the two cgroup versions' halves, cpuset-v1.c
 * and cpuset-v2.c.  Not an interface for anything else.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cpuset.h"

/* Files of cgroupfs: 0 or a negative errno.  read_file strips the trailing newline. */
int cpuset_write_file(const char *dir, const char *name, const char *value);
int cpuset_read_file(const char *dir, const char *name, char *buf, size_t size);
/* The CPUs of cs that are (or are not) partitioned, as a cpuset list "0,2". */
void cpuset_cpu_list(char *buf, size_t size, const struct cpuset *cs, bool partitioned);

/* Tasks that are exiting cannot be moved but keep a cgroup busy until they
 * are gone, and tasks forked meanwhile land in it: removals retry a while. */
#define CPUSET_REMOVE_TRIES 100
#define CPUSET_REMOVE_RETRY_USEC 10000

/* cgroup v1: the partitions of cs->partitioned under cs->root. */
int cpuset_v1_setup(struct cpuset *cs);
void cpuset_v1_teardown(struct cpuset *cs);
void cpuset_v1_cleanup_stale(const char *root);
int cpuset_v1_move_thread(struct cpuset *cs, pid_t tid, int cpu);
int cpuset_v1_rebuild_root_domains(struct cpuset *cs, const char *root);

/* cgroup v2: the partitions of cs->partitioned under cs->root/cs->base/rtf. */
int cpuset_v2_setup(struct cpuset *cs);
void cpuset_v2_teardown(struct cpuset *cs);
void cpuset_v2_cleanup_stale(struct cpuset *cs);
int cpuset_v2_move_thread(struct cpuset *cs, pid_t tid, int cpu);
int cpuset_v2_rebuild_root_domains(struct cpuset *cs);
