/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Telling the exec'd successor of an attached thread from a process leader
 * that is real-time on its own (thread.h). */
#include <sched.h>

#include "tap.h"
#include "thread.h"

#define ROF SCHED_FLAG_RESET_ON_FORK

static struct rtf_sched_attr attr(uint32_t policy, uint64_t flags, uint32_t prio) {
        return (struct rtf_sched_attr){ .size = sizeof(struct rtf_sched_attr), .sched_policy = policy,
                                        .sched_flags = flags, .sched_priority = prio };
}

int main(void) {
        const struct rtf_sched_setting fifo20 = { .policy = RTF_POLICY_FIFO, .priority = 20, .cpu = -1 };
        const struct rtf_sched_setting dl = { .policy = RTF_POLICY_DEADLINE, .runtime_ns = 3000000,
                                              .deadline_ns = 10000000, .period_ns = 10000000, .cpu = -1 };
        struct rtf_sched_attr a;

        /* The leader was not real-time at attach: any real-time policy with
         * reset-on-fork (which no unprivileged program can clear) is rtfd's,
         * even at a priority the program lowered after the exec. */
        a = attr(SCHED_FIFO, ROF, 20);
        CHECK(thread_is_exec_successor(&a, false, &fifo20));
        a = attr(SCHED_FIFO, ROF, 3);
        CHECK(thread_is_exec_successor(&a, false, &fifo20));
        CHECK(thread_is_exec_successor(&a, false, NULL));
        a = attr(SCHED_DEADLINE, ROF, 0);
        CHECK(thread_is_exec_successor(&a, false, &dl));
        /* Not real-time, or real-time without reset-on-fork: not rtfd's doing. */
        a = attr(SCHED_OTHER, ROF, 0);
        CHECK(!thread_is_exec_successor(&a, false, &fifo20));
        a = attr(SCHED_IDLE, 0, 0);
        CHECK(!thread_is_exec_successor(&a, false, &fifo20));
        a = attr(SCHED_FIFO, 0, 20);
        CHECK(!thread_is_exec_successor(&a, false, &fifo20));

        /* The leader was real-time of its own (rtkit): only an exact match. */
        a = attr(SCHED_FIFO, ROF, 20);
        CHECK(thread_is_exec_successor(&a, true, &fifo20));
        CHECK(!thread_is_exec_successor(&a, true, NULL));
        a = attr(SCHED_RR, ROF, 20);
        CHECK(!thread_is_exec_successor(&a, true, &fifo20));
        a = attr(SCHED_FIFO, ROF, 19);
        CHECK(!thread_is_exec_successor(&a, true, &fifo20));
        a = attr(SCHED_DEADLINE, ROF, 0);
        a.sched_runtime = 3000000;
        a.sched_deadline = a.sched_period = 10000000;
        CHECK(thread_is_exec_successor(&a, true, &dl));
        a.sched_runtime = 2000000;
        CHECK(!thread_is_exec_successor(&a, true, &dl));

        CHECK(thread_policy_is_rt(SCHED_FIFO) && thread_policy_is_rt(SCHED_RR) && thread_policy_is_rt(SCHED_DEADLINE));
        CHECK(!thread_policy_is_rt(SCHED_OTHER) && !thread_policy_is_rt(SCHED_BATCH) && !thread_policy_is_rt(SCHED_IDLE));
        return test_done();
}
