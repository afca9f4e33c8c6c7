/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
