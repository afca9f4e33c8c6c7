/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dl-health.h"

bool dl_state_is_stuck(const struct dl_sample *prev, const struct dl_sample *cur,
                       uint64_t period_ns, uint64_t rel_deadline_ns) {
        int64_t horizon;

        if (!prev || prev->now_ns >= cur->now_ns)
                return false;
        if (cur->runtime_ns > 0 || cur->runtime_ns != prev->runtime_ns ||
            cur->deadline_ns != prev->deadline_ns)
                return false;
        if (period_ns > INT64_MAX / 4 || rel_deadline_ns > INT64_MAX / 4)
                return false;
        horizon = 2 * (int64_t)(period_ns + rel_deadline_ns) + DL_STUCK_SLACK_NS;
        return cur->deadline_ns - cur->now_ns > horizon;
}

int sched_text_parse_dl(const char *text, size_t len, int64_t *ret_runtime_ns,
                        int64_t *ret_deadline_ns) {
        long long runtime = 0, deadline = 0;
        bool have_runtime = false, have_deadline = false;
        const char *p = text, *end = text + len;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
                char line[128];

                if (n < sizeof(line)) {
                        memcpy(line, p, n);
                        line[n] = 0;
                        if (sscanf(line, "dl.runtime : %lld", &runtime) == 1)
                                have_runtime = true;
                        else if (sscanf(line, "dl.deadline : %lld", &deadline) == 1)
                                have_deadline = true;
                }
                p += n + 1;
        }
        if (!have_runtime || !have_deadline)
                return -ENODATA;
        *ret_runtime_ns = runtime;
        *ret_deadline_ns = deadline;
        return 0;
}
