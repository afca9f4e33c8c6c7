/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "admission/admission.h"
#include "protocol.h"
#include "rtf/rtf.h"
#include "task-params.h"

_Static_assert(ADM_TIME_MAX_US >= RTF_TIME_LIMIT_US - 1, "the admission math must take every valid time");

__attribute__((format(printf, 3, 4)))
static int invalid(char *reason, size_t size, const char *fmt, ...) {
        va_list ap;

        if (reason && size) {
                va_start(ap, fmt);
                vsnprintf(reason, size, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

int rtf_task_params_check_shape(const struct rtf_task_params *p, char *reason, size_t reason_size) {
        const struct {
                uint32_t flag;
                uint64_t value;
                const char *name;
        } times[] = {
                { RTF_PARAM_HAS_PERIOD, p->period_us, "period" },
                { RTF_PARAM_HAS_RUNTIME, p->runtime_us, "runtime" },
                { RTF_PARAM_HAS_DES_RUNTIME, p->des_runtime_us, "desired runtime" },
                { RTF_PARAM_HAS_DEADLINE, p->deadline_us, "deadline" },
        };

        if (p->flags & ~(uint32_t)RTF_PARAM_KNOWN)
                return invalid(reason, reason_size, "unknown parameter flags 0x%x",
                               p->flags & ~(uint32_t)RTF_PARAM_KNOWN);
        for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
                bool set = p->flags & times[i].flag;

                if (set ? times[i].value == 0 || times[i].value >= RTF_TIME_LIMIT_US : times[i].value != 0)
                        return invalid(reason, reason_size, "%s %" PRIu64 " us is out of range (1..%" PRIu64 ")",
                                       times[i].name, times[i].value, RTF_TIME_LIMIT_US - 1);
        }
        if ((p->flags & RTF_PARAM_HAS_PRIORITY) ? p->priority < RTF_PRIORITY_MIN || p->priority > RTF_PRIORITY_MAX
                                                 : p->priority != 0)
                return invalid(reason, reason_size, "priority %" PRIu32 " is out of range (%u..%u)", p->priority,
                               RTF_PRIORITY_MIN, RTF_PRIORITY_MAX);
        return 0;
}

int rtf_task_params_check(const struct rtf_task_params *p, char *reason, size_t reason_size) {
        int r = rtf_task_params_check_shape(p, reason, reason_size);

        if (r < 0)
                return r;
        if ((p->flags & RTF_PARAM_HAS_RUNTIME) && (p->flags & RTF_PARAM_HAS_PERIOD) && p->runtime_us > p->period_us)
                return invalid(reason, reason_size, "runtime must be at most the period (%" PRIu64 " us > %" PRIu64
                               " us)", p->runtime_us, p->period_us);
        return 0;
}
