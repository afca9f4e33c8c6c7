/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The detector of SCHED_DEADLINE threads left throttled by the kernel. */
#include <errno.h>
#include <string.h>

#include "dl-health.h"
#include "tap.h"

#define MS 1000000LL
#define S 1000000000LL

static void test_parse(void) {
        static const char dl[] =
                "sleep (2810, #threads: 1)\n"
                "-------------------------------------------------------------------\n"
                "se.exec_start                                :        139716.257922\n"
                "policy                                       :                    6\n"
                "dl.runtime                                   :              -424631\n"
                "dl.deadline                                  :         141433234924\n";
        static const char other[] = "policy                                       :                    0\n"
                                    "prio                                         :                  120\n";
        int64_t runtime = 1, deadline = 1;

        CHECK_EQ(sched_text_parse_dl(dl, strlen(dl), &runtime, &deadline), 0);
        CHECK_EQ(runtime, -424631);
        CHECK_EQ(deadline, 141433234924LL);

        runtime = deadline = 7;
        CHECK_EQ(sched_text_parse_dl(other, strlen(other), &runtime, &deadline), -ENODATA);
        CHECK_EQ(runtime, 7);   /* outputs untouched on failure */
        /* a truncated buffer: the deadline line is cut off */
        CHECK_EQ(sched_text_parse_dl(dl, strlen(dl) - 30, &runtime, &deadline), -ENODATA);
        CHECK_EQ(sched_text_parse_dl("", 0, &runtime, &deadline), -ENODATA);
}

static void test_stuck(void) {
        const uint64_t period = 10 * MS, dl = 10 * MS;
        const int64_t far = 10 * S;
        struct dl_sample a = { .runtime_ns = -2 * MS, .deadline_ns = 100 * S + far, .now_ns = 100 * S };
        struct dl_sample b = a;

        b.now_ns += 1 * S;
        /* the broken state: frozen, negative runtime, deadline far ahead */
        CHECK(dl_state_is_stuck(&a, &b, period, dl));
        /* one sample is never enough */
        CHECK(!dl_state_is_stuck(NULL, &b, period, dl));
        /* samples out of order */
        CHECK(!dl_state_is_stuck(&b, &a, period, dl));
        /* a replenishment happened: deadline moved */
        b.deadline_ns += period;
        CHECK(!dl_state_is_stuck(&a, &b, period, dl));
        b.deadline_ns = a.deadline_ns;
        /* runtime positive: the thread may run */
        a.runtime_ns = b.runtime_ns = 1 * MS;
        CHECK(!dl_state_is_stuck(&a, &b, period, dl));
        a.runtime_ns = b.runtime_ns = 0;
        CHECK(dl_state_is_stuck(&a, &b, period, dl));
        /* a legitimately throttled thread: deadline within the horizon */
        a.deadline_ns = b.deadline_ns = b.now_ns + 2 * (int64_t)(period + dl) + DL_STUCK_SLACK_NS;
        CHECK(!dl_state_is_stuck(&a, &b, period, dl));
        a.deadline_ns = b.deadline_ns = a.deadline_ns + 1;
        CHECK(dl_state_is_stuck(&a, &b, period, dl));
        /* long periods widen the horizon */
        CHECK(!dl_state_is_stuck(&a, &b, 4 * (uint64_t)S, 4 * (uint64_t)S));
        /* absurd parameters never overflow into a verdict */
        CHECK(!dl_state_is_stuck(&a, &b, UINT64_MAX, UINT64_MAX));
}

int main(void) {
        test_parse();
        test_stuck();
        return test_done();
}
