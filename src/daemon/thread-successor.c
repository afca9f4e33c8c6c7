/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether a process's leader is an attached thread that exec'd (thread.h):
 * a pure decision over the kernel's attributes, unit-tested on its own.
 */
#include <sched.h>

#include "thread.h"

bool thread_policy_is_rt(uint32_t policy) {
        return policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE;
}

bool thread_is_exec_successor(const struct rtf_sched_attr *now, bool leader_was_rt,
                              const struct rtf_sched_setting *applied) {
        if (!thread_policy_is_rt(now->sched_policy) || !(now->sched_flags & SCHED_FLAG_RESET_ON_FORK))
                return false;
        /* A leader that was not real-time when the thread was attached got
         * its policy from rtfd: only the exec'd thread carries it there.  An
         * unprivileged program may lower its FIFO priority after the exec, so
         * nothing more is compared. */
        if (!leader_was_rt)
                return true;
        /* The leader had a real-time policy of its own (rtkit, root): only
         * exactly what rtfd applied tells the two apart. */
        if (!applied)
                return false;
        switch (applied->policy) {
        case RTF_POLICY_DEADLINE:
                return now->sched_policy == SCHED_DEADLINE && now->sched_runtime == applied->runtime_ns &&
                       now->sched_deadline == applied->deadline_ns && now->sched_period == applied->period_ns;
        case RTF_POLICY_FIFO:
        case RTF_POLICY_RR:
                return now->sched_policy == (applied->policy == RTF_POLICY_FIFO ? SCHED_FIFO : SCHED_RR) &&
                       now->sched_priority == applied->priority;
        default:
                return false;
        }
}
