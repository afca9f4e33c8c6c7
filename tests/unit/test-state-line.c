/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The state journal's line: what rtfd writes, it reads back; what an old rtfd
 * wrote still reads; what nobody should write is refused. */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "state.h"
#include "tap.h"

static void test_round_trip(void) {
        struct state_entry e = { .tid = 4242, .pidfd_ino = 77, .tgid = 4200, .proc_ino = 76, .leader_was_rt = true,
                                 .original = { .policy = SCHED_IDLE, .nice = 7, .reset_on_fork = true } };
        struct state_entry back;
        char line[160];

        CHECK(state_format_line(line, sizeof(line), '+', &e) > 0);
        CHECK_EQ(state_parse_line(line, &back), 1);
        CHECK_EQ(back.tid, 4242);
        CHECK_EQ(back.pidfd_ino, 77);
        CHECK_EQ(back.tgid, 4200);
        CHECK_EQ(back.proc_ino, 76);
        CHECK(back.leader_was_rt);
        CHECK_EQ(back.original.policy, SCHED_IDLE);
        CHECK_EQ(back.original.nice, 7);
        CHECK(back.original.reset_on_fork);
        CHECK(state_format_line(line, sizeof(line), '-', &e) > 0);
        CHECK_EQ(state_parse_line(line, &back), 0);
}

static void test_old_journal(void) {
        struct state_entry e;

        /* rtfd before issue 10: "+ tid starttime inode" */
        CHECK_EQ(state_parse_line("+ 12 0 99\n", &e), 1);
        CHECK_EQ(e.tid, 12);
        CHECK_EQ(e.pidfd_ino, 99);
        CHECK_EQ(e.tgid, 0);            /* no process: no exec successor looked for */
        CHECK_EQ(e.original.policy, SCHED_OTHER);
        CHECK_EQ(e.original.nice, 0);
}

static void test_refused(void) {
        static const char *const bad[] = {
                "", "+\n", "* 12 0 99\n", "+ 0 0 99\n", "+ -5 0 99\n", "+ 12 0\n",
                "+ 12 0 99 10 5 1 0 0 0\n",             /* SCHED_FIFO as an "original" */
                "+ 12 0 99 10 5 6 0 0 0\n",             /* SCHED_DEADLINE */
                "+ 12 0 99 10 5 0 -21 0 0\n",           /* nice out of range */
                "+ 12 0 99 10 5 0 20 0 0\n",
                "+ 12 0 99 -3 5 0 0 0 0\n",
                "+ 12 0 99 10 5 0\n",                   /* cut short */
        };
        struct state_entry e = { .tid = 1 };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                int r = state_parse_line(bad[i], &e);

                if (r != -EINVAL)
                        fprintf(stderr, "accepted: '%s'\n", bad[i]);
                CHECK_EQ(r, -EINVAL);
        }
        CHECK_EQ(e.tid, 1);             /* untouched on failure */
}

int main(void) {
        test_round_trip();
        test_old_journal();
        test_refused();
        return test_done();
}
