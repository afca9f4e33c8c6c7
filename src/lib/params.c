/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * struct rtf_params (Table 3 of the paper).  Each setter checks one value and
 * marks it declared in p->flags; a getter returns 0 (NULL for the scheduler)
 * for a field that was not declared, so an unset field never leaks a stale
 * value.  The struct carries its size and may grow (struct-size.h).
 */
#include <errno.h>
#include <string.h>

#include "params.h"
#include "protocol.h"
#include "struct-size.h"


static bool params_usable(const struct rtf_params *p) {
        return RTF_STRUCT_VALID(p);
}

static bool time_valid(uint64_t us) {
        return us > 0 && us < RTF_TIME_LIMIT_US;
}

static bool priority_valid(uint32_t priority) {
        return priority >= RTF_PRIORITY_MIN && priority <= RTF_PRIORITY_MAX;
}

static int params_set_time(struct rtf_params *p, uint64_t *field, uint32_t flag, uint64_t us) {
        if (!time_valid(us))
                return -EINVAL;
        *field = us;
        p->flags |= flag;
        return 0;
}

static uint64_t params_get_time(const struct rtf_params *p, const uint64_t *field, uint32_t flag) {
        return p->flags & flag ? *field : 0;
}

int params_validate(const struct rtf_params *p) {
        struct rtf_task_params t;

        if (!params_usable(p))
                return -EINVAL;
        /* Only the declared fields: an undeclared one is never sent. */
        t = (struct rtf_task_params){
                .flags = p->flags,
                .priority = p->flags & RTF_PARAM_HAS_PRIORITY ? p->priority : 0,
                .period_us = p->flags & RTF_PARAM_HAS_PERIOD ? p->period_us : 0,
                .runtime_us = p->flags & RTF_PARAM_HAS_RUNTIME ? p->runtime_us : 0,
                .des_runtime_us = p->flags & RTF_PARAM_HAS_DES_RUNTIME ? p->des_runtime_us : 0,
                .deadline_us = p->flags & RTF_PARAM_HAS_DEADLINE ? p->deadline_us : 0,
        };

        if (rtf_task_params_check_shape(&t, NULL, 0) < 0)
                return -EINVAL;
        if (p->flags & RTF_PARAM_HAS_SCHEDULER) {
                size_t n = strnlen(p->scheduler, sizeof(p->scheduler));
                if (n == 0 || n == sizeof(p->scheduler))
                        return -EINVAL;
        }
        return 0;
}

RTF_PUBLIC int rtf_params_init(struct rtf_params *p) {
        if (!p)
                return -EINVAL;
        *p = (struct rtf_params) RTF_PARAMS_INIT;
        return 0;
}

RTF_PUBLIC int rtf_params_set_period(struct rtf_params *p, uint64_t us) {
        if (!params_usable(p))
                return -EINVAL;
        return params_set_time(p, &p->period_us, RTF_PARAM_HAS_PERIOD, us);
}

RTF_PUBLIC int rtf_params_set_runtime(struct rtf_params *p, uint64_t us) {
        if (!params_usable(p))
                return -EINVAL;
        return params_set_time(p, &p->runtime_us, RTF_PARAM_HAS_RUNTIME, us);
}

RTF_PUBLIC int rtf_params_set_des_runtime(struct rtf_params *p, uint64_t us) {
        if (!params_usable(p))
                return -EINVAL;
        return params_set_time(p, &p->des_runtime_us, RTF_PARAM_HAS_DES_RUNTIME, us);
}

RTF_PUBLIC int rtf_params_set_deadline(struct rtf_params *p, uint64_t us) {
        if (!params_usable(p))
                return -EINVAL;
        return params_set_time(p, &p->deadline_us, RTF_PARAM_HAS_DEADLINE, us);
}

RTF_PUBLIC int rtf_params_set_priority(struct rtf_params *p, uint32_t priority) {
        if (!params_usable(p) || !priority_valid(priority))
                return -EINVAL;
        p->priority = priority;
        p->flags |= RTF_PARAM_HAS_PRIORITY;
        return 0;
}

RTF_PUBLIC int rtf_params_set_scheduler(struct rtf_params *p, const char *plugin) {
        size_t n;

        if (!params_usable(p))
                return -EINVAL;

        if (!plugin || !*plugin) {
                memset(p->scheduler, 0, sizeof(p->scheduler));
                p->flags &= ~(uint32_t)RTF_PARAM_HAS_SCHEDULER;
                return 0;
        }

        n = strnlen(plugin, sizeof(p->scheduler));
        if (n >= sizeof(p->scheduler))
                return -EINVAL;
        memset(p->scheduler, 0, sizeof(p->scheduler));
        memcpy(p->scheduler, plugin, n);
        p->flags |= RTF_PARAM_HAS_SCHEDULER;
        return 0;
}

RTF_PUBLIC int rtf_params_ignore_admission(struct rtf_params *p, bool ignore) {
        if (!params_usable(p))
                return -EINVAL;
        if (ignore)
                p->flags |= RTF_PARAM_IGNORE_ADMISSION;
        else
                p->flags &= ~(uint32_t)RTF_PARAM_IGNORE_ADMISSION;
        return 0;
}

RTF_PUBLIC uint64_t rtf_params_get_period(const struct rtf_params *p) {
        return params_usable(p) ? params_get_time(p, &p->period_us, RTF_PARAM_HAS_PERIOD) : 0;
}

RTF_PUBLIC uint64_t rtf_params_get_runtime(const struct rtf_params *p) {
        return params_usable(p) ? params_get_time(p, &p->runtime_us, RTF_PARAM_HAS_RUNTIME) : 0;
}

RTF_PUBLIC uint64_t rtf_params_get_des_runtime(const struct rtf_params *p) {
        return params_usable(p) ? params_get_time(p, &p->des_runtime_us, RTF_PARAM_HAS_DES_RUNTIME) : 0;
}

RTF_PUBLIC uint64_t rtf_params_get_deadline(const struct rtf_params *p) {
        return params_usable(p) ? params_get_time(p, &p->deadline_us, RTF_PARAM_HAS_DEADLINE) : 0;
}

RTF_PUBLIC uint32_t rtf_params_get_priority(const struct rtf_params *p) {
        return params_usable(p) && (p->flags & RTF_PARAM_HAS_PRIORITY) ? p->priority : 0;
}

RTF_PUBLIC const char *rtf_params_get_scheduler(const struct rtf_params *p) {
        if (!params_usable(p) || !(p->flags & RTF_PARAM_HAS_SCHEDULER))
                return NULL;
        /* A caller may have written the field directly: never read past it. */
        if (strnlen(p->scheduler, sizeof(p->scheduler)) == sizeof(p->scheduler))
                return NULL;
        return p->scheduler;
}
