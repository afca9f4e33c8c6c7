/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtf's one parameter validator (src/shared/task-params.c). */
#include <errno.h>
#include <string.h>

#include "protocol.h"
#include "tap.h"
#include "task-params.h"

static int check(struct rtf_task_params p, const char *want) {
        char why[128] = "";
        int r = rtf_task_params_check(&p, why, sizeof(why));

        if (want)
                CHECK(strstr(why, want) != NULL);
        return r;
}

int main(void) {
        const uint32_t both = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME;
        struct rtf_task_params p;

        CHECK_EQ(check((struct rtf_task_params){ .flags = both, .period_us = 10, .runtime_us = 10 }, NULL), 0);
        CHECK_EQ(check((struct rtf_task_params){ .flags = both, .period_us = 10, .runtime_us = 11 },
                       "runtime must be at most the period"), -EINVAL);
        /* The ceiling: 2^32 - 1 in, 2^32 out. */
        CHECK_EQ(check((struct rtf_task_params){ .flags = RTF_PARAM_HAS_PERIOD, .period_us = RTF_TIME_LIMIT_US - 1 },
                       NULL), 0);
        CHECK_EQ(check((struct rtf_task_params){ .flags = RTF_PARAM_HAS_PERIOD, .period_us = RTF_TIME_LIMIT_US },
                       "period 4294967296 us is out of range (1..4294967295)"), -EINVAL);
        CHECK_EQ(check((struct rtf_task_params){ .flags = RTF_PARAM_HAS_DEADLINE }, "deadline 0 us"), -EINVAL);
        /* Undeclared fields are 0. */
        CHECK_EQ(check((struct rtf_task_params){ .runtime_us = 5 }, "runtime 5 us"), -EINVAL);
        CHECK_EQ(check((struct rtf_task_params){ .priority = 5 }, "priority 5"), -EINVAL);
        CHECK_EQ(check((struct rtf_task_params){ .flags = RTF_PARAM_HAS_PRIORITY, .priority = 99 }, NULL), 0);
        CHECK_EQ(check((struct rtf_task_params){ .flags = RTF_PARAM_HAS_PRIORITY, .priority = 100 }, "(1..99)"),
                 -EINVAL);
        CHECK_EQ(check((struct rtf_task_params){ .flags = 1u << 30 }, "unknown parameter flags"), -EINVAL);
        /* The shape alone (librtf's setters) allows a runtime above the period; rtfd says why not. */
        p = (struct rtf_task_params){ .flags = both, .period_us = 10, .runtime_us = 11 };
        CHECK_EQ(rtf_task_params_check_shape(&p, NULL, 0), 0);
        return test_done();
}
