/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One line of the state journal (state.h), written and read by pure
 * functions: a journal is a file an attacker may have planted (issue 10), so
 * its reader is unit-tested and bounds what a line can make rtfd set.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>

#include "state.h"

int state_format_line(char *buf, size_t size, char sign, const struct state_entry *e) {
        return snprintf(buf, size, "%c %d %" PRIu64 " %" PRIu64 " %d %" PRIu64 " %d %d %d %d\n", sign, (int)e->tid,
                        e->starttime, e->pidfd_ino, (int)e->tgid, e->proc_ino, e->original.policy, e->original.nice,
                        e->original.reset_on_fork, e->leader_was_rt);
}

int state_parse_line(const char *line, struct state_entry *ret) {
        struct state_entry e = { .original = THREAD_ORIGINAL_NULL };
        unsigned long long start, ino, proc_ino = 0;
        int tid, tgid = 0, policy = SCHED_OTHER, nice = 0, rof = 0, leader_rt = 0, n;
        char sign;

        n = sscanf(line, "%c %d %llu %llu %d %llu %d %d %d %d", &sign, &tid, &start, &ino, &tgid, &proc_ino,
                   &policy, &nice, &rof, &leader_rt);
        if ((n != 4 && n != 10) || tid <= 0 || (sign != '+' && sign != '-'))
                return -EINVAL;
        /* What a journal may ask rtfd to set is bounded to what a demotion sets. */
        if (tgid < 0 || (policy != SCHED_OTHER && policy != SCHED_BATCH && policy != SCHED_IDLE) ||
            nice < -20 || nice > 19)
                return -EINVAL;
        e.tid = tid;
        e.starttime = start;
        e.pidfd_ino = ino;
        e.tgid = tgid;
        e.proc_ino = proc_ino;
        e.original.policy = policy;
        e.original.nice = nice;
        e.original.reset_on_fork = rof != 0;
        e.leader_was_rt = leader_rt != 0;
        *ret = e;
        return sign == '+';
}
