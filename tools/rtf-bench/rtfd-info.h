/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What rtf-bench learns about an rtfd it did not start, before it measures
 * it: the plugin instances and cores it serves (the STATUS request, as
 * rtfctl asks it) and which process listens on its socket (SO_PEERCRED of
 * the connection), whose memory it reads.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtf/rtf.h"

#define RTFD_INFO_KIND_MAX 16           /* as the STATUS row's policy field */
#define RTFD_INFO_COMM_MAX 16           /* TASK_COMM_LEN */

/* One plugin instance of rtfd's configuration, its STATUS rows summed. */
struct rtfd_instance {
        char name[RTF_PLUGIN_NAME_MAX]; /* the instance's name: what a request names */
        char kind[RTFD_INFO_KIND_MAX];  /* the plugin's own name: EDF, RM, FP, RR, ... */
        uint32_t n_cpus;
        int32_t *cpus;                  /* n_cpus absolute CPU numbers */
        bool partitioned;               /* on at least one of its cores */
        uint32_t tasks;                 /* specifications it holds, every client's */
        double utilization;             /* declared, summed over its cores */
};

struct rtfd_info {
        pid_t pid;                      /* who listens on the socket; 0 if the kernel did not say */
        uid_t uid;
        char comm[RTFD_INFO_COMM_MAX + 1]; /* of pid; "" if unknown */
        struct rtfd_instance *instances;
        size_t n_instances;
};

/*
 * Connect to socket_path, read the listener's credentials and every STATUS
 * row, and disconnect.  Returns 0, or a negative errno (-EPROTO: the peer
 * does not speak rtfd's protocol); *ret is written only on success.
 */
int rtfd_info_query(const char *socket_path, struct rtfd_info *ret);
void rtfd_info_deinit(struct rtfd_info *info);

/*
 * The USS of a process in KiB: the Private_* lines of
 * /proc/PID/smaps_rollup.  Returns 0, or a negative errno (-EACCES: only
 * root, or the process's owner, may read another process's smaps).
 */
int proc_uss_kib(pid_t pid, long *ret_kib);
