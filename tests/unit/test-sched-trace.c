/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sched_switch parser and the on-CPU time of rtf-budget (tools/rtf-budget/sched-trace.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched-trace.h"
#include "tap.h"

static const char trace[] =
        "# tracer: nop\n"
        "#\n"
        "# entries-in-buffer/entries-written: 4/4   #P:2\n"
        "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
        "       rtfb-tau3-100     [001] d..2. 15514.758934: sched_switch: prev_comm=rtfb-tau3 prev_pid=100 "
        "prev_prio=59 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
        "          <idle>-0       [001] d..2. 15514.759994: sched_switch: prev_comm=swapper/1 prev_pid=0 "
        "prev_prio=120 prev_state=R ==> next_comm=rtfb-tau3 next_pid=100 next_prio=59\n"
        /* a name with spaces and a colon must not confuse the parser */
        "   odd name: x-7 [000] d..2. 15514.760000: sched_switch: prev_comm=odd name: x prev_pid=7 "
        "prev_prio=120 prev_state=R ==> next_comm=rtfb-tau1 next_pid=101 next_prio=79\n"
        "       rtfb-tau3-100     [001] d..2. 15514.760500: sched_switch: prev_comm=rtfb-tau3 prev_pid=100 "
        "prev_prio=59 prev_state=R ==> next_comm=rtfb-tau2 next_pid=102 next_prio=69\n";

static void test_parse(void) {
        struct sched_switch_event *ev = NULL;
        size_t n = 0;

        CHECK_EQ(sched_trace_parse(trace, strlen(trace), &ev, &n), 4);
        CHECK_EQ(n, 4);
        if (n != 4)
                return;
        CHECK_EQ(ev[0].ts_ns, 15514758934000LL);
        CHECK_EQ(ev[0].prev_pid, 100);
        CHECK_EQ(ev[0].next_pid, 0);
        CHECK_EQ(ev[1].ts_ns, 15514759994000LL);
        CHECK_EQ(ev[1].next_pid, 100);
        CHECK_EQ(ev[2].prev_pid, 7);
        CHECK_EQ(ev[2].next_pid, 101);
        CHECK_EQ(ev[3].ts_ns, 15514760500000LL);
        free(ev);

        /* nothing but comments: no events, no error */
        CHECK_EQ(sched_trace_parse("# tracer: nop\n", 14, &ev, &n), 0);
        CHECK_EQ(n, 0);
        free(ev);
}

static void test_parse_refuses_broken_lines(void) {
        static const char *const bad[] = {
                "x-1 [000] d..2. 15514.7589: sched_switch: prev_comm=a prev_pid=1 ==> next_comm=b next_pid=2\n",
                "x-1 [000] d..2. 15514.758934: sched_switch: prev_comm=a prev_pid= ==> next_comm=b next_pid=2\n",
                "x-1 [000] d..2. 15514.758934: sched_switch: prev_comm=a prev_pid=1 ==> next_comm=b\n",
                "x-1 [000] d..2. .758934: sched_switch: prev_comm=a prev_pid=1 ==> next_comm=b next_pid=2\n",
                "x-1 [000] d..2. 1.758934: sched_switch: prev_comm=a prev_pid=99999999999 ==> next_comm=b "
                "next_pid=2\n",
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct sched_switch_event *ev = NULL;
                size_t n = 0;

                CHECK_EQ(sched_trace_parse(bad[i], strlen(bad[i]), &ev, &n), -EINVAL);
        }
}

static void test_oncpu(void) {
        /* tid 5: running at 0, out at 100, in at 300, out at 350, in at 900 */
        static const struct sched_switch_event ev[] = {
                { 100, 5, 0 }, { 200, 0, 6 }, { 300, 6, 5 }, { 350, 5, 0 }, { 900, 0, 5 },
        };
        size_t n = sizeof(ev) / sizeof(ev[0]);

        CHECK_EQ(sched_trace_oncpu_ns(ev, n, 5, 0, 1000), 100 + 50 + 100);
        CHECK_EQ(sched_trace_oncpu_ns(ev, n, 5, 0, 250), 100);
        CHECK_EQ(sched_trace_oncpu_ns(ev, n, 5, 0, 320), 120);
        /* from a moment it was running again: events up to `from` are not looked at */
        CHECK_EQ(sched_trace_oncpu_ns(ev, n, 5, 320, 1000), 30 + 100);
        CHECK_EQ(sched_trace_oncpu_ns(ev, n, 5, 0, 0), 0);
        /* another thread's switches are not ours */
        CHECK_EQ(sched_trace_oncpu_ns(ev, n, 6, 200, 1000), 100);
        /* no events: on a CPU throughout */
        CHECK_EQ(sched_trace_oncpu_ns(NULL, 0, 5, 10, 60), 50);
}

int main(void) {
        test_parse();
        test_parse_refuses_broken_lines();
        test_oncpu();
        return test_done();
}
