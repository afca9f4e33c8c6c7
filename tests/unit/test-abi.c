/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The layout of the public structs is ABI: applications compile it into
 * their code (RTF_SPEC_INIT on the stack).  The values are written out here
 * on purpose, so that any change to rtf.h fails this test and is a decision.
 * Growing a struct means a new size that the library also accepts, never a
 * moved field.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtf/rtf.h"
#include "tap.h"

static void test_params(void) {
        struct rtf_params p = RTF_PARAMS_INIT;

        CHECK_EQ(sizeof(struct rtf_params), 112);
        CHECK_EQ(_Alignof(struct rtf_params), 8);
        CHECK_EQ(offsetof(struct rtf_params, size), 0);
        CHECK_EQ(offsetof(struct rtf_params, flags), 4);
        CHECK_EQ(offsetof(struct rtf_params, period_us), 8);
        CHECK_EQ(offsetof(struct rtf_params, runtime_us), 16);
        CHECK_EQ(offsetof(struct rtf_params, des_runtime_us), 24);
        CHECK_EQ(offsetof(struct rtf_params, deadline_us), 32);
        CHECK_EQ(offsetof(struct rtf_params, priority), 40);
        CHECK_EQ(offsetof(struct rtf_params, reserved0), 44);
        CHECK_EQ(offsetof(struct rtf_params, scheduler), 48);
        CHECK_EQ(sizeof(p.scheduler), 32);
        CHECK_EQ(offsetof(struct rtf_params, reserved), 80);
        CHECK_EQ(sizeof(p.reserved), 32);

        CHECK_EQ(p.size, 112);
        CHECK_EQ(p.flags, 0);
}

static void test_spec(void) {
        struct rtf_spec s = RTF_SPEC_INIT;

        CHECK_EQ(sizeof(struct rtf_spec), 272);
        CHECK_EQ(_Alignof(struct rtf_spec), 8);
        CHECK_EQ(offsetof(struct rtf_spec, size), 0);
        CHECK_EQ(offsetof(struct rtf_spec, state), 4);
        CHECK_EQ(offsetof(struct rtf_spec, id), 8);
        CHECK_EQ(offsetof(struct rtf_spec, accepted_runtime_us), 16);
        CHECK_EQ(offsetof(struct rtf_spec, priority), 24);
        CHECK_EQ(offsetof(struct rtf_spec, core), 28);
        CHECK_EQ(offsetof(struct rtf_spec, tid), 32);
        CHECK_EQ(offsetof(struct rtf_spec, reserved0), 36);
        CHECK_EQ(offsetof(struct rtf_spec, plugin), 40);
        CHECK_EQ(sizeof(s.plugin), 32);
        CHECK_EQ(offsetof(struct rtf_spec, params), 72);
        CHECK_EQ(offsetof(struct rtf_spec, period_ns), 184);
        CHECK_EQ(offsetof(struct rtf_spec, next_release_ns), 192);
        CHECK_EQ(offsetof(struct rtf_spec, jobs), 200);
        CHECK_EQ(offsetof(struct rtf_spec, overruns), 208);
        CHECK_EQ(offsetof(struct rtf_spec, task), 216);
        CHECK_EQ(offsetof(struct rtf_spec, reserved), 224);
        CHECK_EQ(sizeof(s.reserved), 48);

        CHECK_EQ(s.size, 272);
        CHECK_EQ(s.id, 0);
        CHECK_EQ(s.core, -1);
        CHECK_EQ(s.tid, 0);
        CHECK_EQ(s.params.size, 0);
}

static void test_constants(void) {
        CHECK_EQ(RTF_OK, 0);
        CHECK_EQ(RTF_SCHEDULE_FAIL, 1);
        CHECK_EQ(RTF_ACL_FAIL, 2);
        CHECK_EQ(RTF_CONNECTION_ERR, 3);
        CHECK_EQ(RTF_SCHEDULER_FAIL, RTF_SCHEDULE_FAIL);
        CHECK_EQ(RTF_PLUGIN_NAME_MAX, 32);
        CHECK_EQ(RTF_PARAM_HAS_PERIOD, 1);
        CHECK_EQ(RTF_PARAM_HAS_RUNTIME, 2);
        CHECK_EQ(RTF_PARAM_HAS_DES_RUNTIME, 4);
        CHECK_EQ(RTF_PARAM_HAS_DEADLINE, 8);
        CHECK_EQ(RTF_PARAM_HAS_PRIORITY, 16);
        CHECK_EQ(RTF_PARAM_HAS_SCHEDULER, 32);
        CHECK_EQ(RTF_PARAM_IGNORE_ADMISSION, 64);
        CHECK_EQ(sizeof(rtf_result_t), sizeof(int));
}

/* LIBRTF_1.1: periodic tasks with budgets. */
static void test_task(void) {
        struct rtf_task_attr a = RTF_TASK_ATTR_INIT;
        struct rtf_task_stats st;

        CHECK_EQ(sizeof(struct rtf_task_attr), 64);
        CHECK_EQ(offsetof(struct rtf_task_attr, overrun_policy), 4);
        CHECK_EQ(offsetof(struct rtf_task_attr, flags), 8);
        CHECK_EQ(offsetof(struct rtf_task_attr, budget_us), 16);
        CHECK_EQ(offsetof(struct rtf_task_attr, first_release_ns), 24);
        CHECK_EQ(offsetof(struct rtf_task_attr, reserved), 32);
        CHECK_EQ(a.size, 64);
        CHECK_EQ(a.overrun_policy, RTF_OVERRUN_SKIP);

        CHECK_EQ(sizeof(struct rtf_task_stats), 184);
        CHECK_EQ(offsetof(struct rtf_task_stats, budget_mode), 4);
        CHECK_EQ(offsetof(struct rtf_task_stats, period_ns), 8);
        CHECK_EQ(offsetof(struct rtf_task_stats, periods), 24);
        CHECK_EQ(offsetof(struct rtf_task_stats, budget_exhaustions), 48);
        CHECK_EQ(offsetof(struct rtf_task_stats, max_response_ns), 80);
        CHECK_EQ(offsetof(struct rtf_task_stats, timer_lead_ns), 120);
        CHECK_EQ(offsetof(struct rtf_task_stats, reserved), 128);
        CHECK_EQ(sizeof(st.reserved), 56);
}

/*
 * Callers of other sizes, through librtf itself: one built against this
 * header, one against a newer header with a larger struct (accepted while
 * its unknown tail is zero), and a struct too small for what it claims.
 */
static void test_sizes(void) {
        struct {
                struct rtf_params p;
                uint64_t newer[2];      /* members a newer header added */
        } big;
        struct rtf_params old = RTF_PARAMS_INIT;
        struct rtf_spec spec = RTF_SPEC_INIT;
        struct rtf_task_stats st;

        CHECK_EQ(rtf_params_set_period(&old, 1000), 0);
        CHECK_EQ(rtf_params_get_period(&old), 1000);

        memset(&big, 0, sizeof(big));
        big.p.size = sizeof(big);
        CHECK_EQ(rtf_params_set_period(&big.p, 2000), 0);
        CHECK_EQ(rtf_params_get_period(&big.p), 2000);
        big.newer[1] = 1;               /* asks for something this library does not know */
        CHECK_EQ(rtf_params_set_period(&big.p, 3000), -EINVAL);
        CHECK_EQ(rtf_params_get_period(&big.p), 0);

        old.size = sizeof(old) - 8;     /* shorter than the first version */
        CHECK_EQ(rtf_params_set_period(&old, 1000), -EINVAL);

        /* An output struct: a task that was never started says so whatever the size. */
        memset(&st, 0, sizeof(st));
        st.size = sizeof(st);
        CHECK_EQ(rtf_task_stats(&spec, &st), -EINVAL);
}

int main(void) {
        /* pid_t and pointers are 4 bytes on ILP32: these numbers are LP64's. */
        if (sizeof(void *) != 8 || sizeof(long) != 8 || sizeof(pid_t) != 4) {
                fprintf(stderr, "skipped: the expected layout is written down for LP64 only\n");
                return 77;
        }

        test_params();
        test_spec();
        test_task();
        test_constants();
        test_sizes();
        return test_done();
}
