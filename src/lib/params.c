/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * struct rtf_params (Table 3 of the paper).  Each setter checks one value and
 * marks it declared in p->flags; a getter returns 0 (NULL for the scheduler)
 * for a field that was not declared, so an unset field never leaks a stale
 * value.  The struct carries its size and may grow (struct-size.h).
 */
#include <errno.h>
#include <string.h>

#include "error.h"
#include "params.h"
#include "protocol.h"
#include "struct-size.h"


/* For the getters, which leave rtf_last_reason() alone. */
static bool params_size_ok(const struct rtf_params *p) {
        return RTF_STRUCT_VALID(p);
}

static bool params_usable(const struct rtf_params *p) {
        if (!p) {
                reason_set("no parameters (NULL)");
                return false;
        }
        if (!RTF_STRUCT_VALID(p)) {
                reason_set("struct rtf_params has size %u, this librtf knows %zu (initialise it with "
                           "RTF_PARAMS_INIT or rtf_params_init(); a larger struct needs its new members zero)",
                           p->size, sizeof(*p));
                return false;
        }
        return true;
}

static bool time_valid(uint64_t us) {
        return us > 0 && us < RTF_TIME_LIMIT_US;
}

static bool priority_valid(uint32_t priority) {
        return priority >= RTF_PRIORITY_MIN && priority <= RTF_PRIORITY_MAX;
}

static int time_refused(const char *what, uint64_t us) {
        reason_set("%s must be in 1..%llu us, not %llu", what, (unsigned long long)(RTF_TIME_LIMIT_US - 1),
                   (unsigned long long)us);
        return -EINVAL;
}

static int params_set_time(struct rtf_params *p, uint64_t *field, uint32_t flag, uint64_t us, const char *what) {
        reason_clear();
        if (!params_usable(p))
                return -EINVAL;
        if (!time_valid(us))
                return time_refused(what, us);
        *field = us;
        p->flags |= flag;
        return 0;
}

static uint64_t params_get_time(const struct rtf_params *p, const uint64_t *field, uint32_t flag) {
        return p->flags & flag ? *field : 0;
}

/* Both declared and a > b. */
static bool declared_above(const struct rtf_params *p, uint32_t fa, uint64_t a, uint32_t fb, uint64_t b) {
        return (p->flags & fa) && (p->flags & fb) && a > b;
}

int params_validate(const struct rtf_params *p) {
        struct rtf_task_params t;
        char why[RTF_REASON_MAX];

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
        if (rtf_task_params_check_shape(&t, why, sizeof(why)) < 0) {
                reason_set("%s", why);
                return -EINVAL;
        }
        if (p->flags & RTF_PARAM_HAS_SCHEDULER) {
                size_t n = strnlen(p->scheduler, sizeof(p->scheduler));
                if (n == 0 || n == sizeof(p->scheduler)) {
                        reason_set("a scheduler name has 1..%zu characters", sizeof(p->scheduler) - 1);
                        return -EINVAL;
                }
        }
        /*
         * What no plugin can grant, whatever the machine: a thread cannot use
         * more than the whole of one CPU, nor get more CPU time before its
         * deadline than the deadline is long.
         */
        if (declared_above(p, RTF_PARAM_HAS_RUNTIME, p->runtime_us, RTF_PARAM_HAS_PERIOD, p->period_us)) {
                reason_set("runtime must be at most the period (runtime %llu us > period %llu us)",
                           (unsigned long long)p->runtime_us, (unsigned long long)p->period_us);
                return -EINVAL;
        }
        if (declared_above(p, RTF_PARAM_HAS_RUNTIME, p->runtime_us, RTF_PARAM_HAS_DEADLINE, p->deadline_us)) {
                reason_set("runtime must be at most the deadline (runtime %llu us > deadline %llu us)",
                           (unsigned long long)p->runtime_us, (unsigned long long)p->deadline_us);
                return -EINVAL;
        }
        if (declared_above(p, RTF_PARAM_HAS_DES_RUNTIME, p->des_runtime_us, RTF_PARAM_HAS_PERIOD, p->period_us)) {
                reason_set("desired runtime must be at most the period (%llu us > period %llu us)",
                           (unsigned long long)p->des_runtime_us, (unsigned long long)p->period_us);
                return -EINVAL;
        }
        return 0;
}

RTF_PUBLIC int rtf_params_init(struct rtf_params *p) {
        reason_clear();
        if (!p) {
                reason_set("no parameters (NULL)");
                return -EINVAL;
        }
        *p = (struct rtf_params) RTF_PARAMS_INIT;
        return 0;
}

RTF_PUBLIC int rtf_params_set_period(struct rtf_params *p, uint64_t us) {
        return params_set_time(p, p ? &p->period_us : NULL, RTF_PARAM_HAS_PERIOD, us, "the period");
}

RTF_PUBLIC int rtf_params_set_runtime(struct rtf_params *p, uint64_t us) {
        return params_set_time(p, p ? &p->runtime_us : NULL, RTF_PARAM_HAS_RUNTIME, us, "the runtime");
}

RTF_PUBLIC int rtf_params_set_des_runtime(struct rtf_params *p, uint64_t us) {
        return params_set_time(p, p ? &p->des_runtime_us : NULL, RTF_PARAM_HAS_DES_RUNTIME, us, "the desired runtime");
}

RTF_PUBLIC int rtf_params_set_deadline(struct rtf_params *p, uint64_t us) {
        return params_set_time(p, p ? &p->deadline_us : NULL, RTF_PARAM_HAS_DEADLINE, us, "the deadline");
}

RTF_PUBLIC int rtf_params_set_priority(struct rtf_params *p, uint32_t priority) {
        reason_clear();
        if (!params_usable(p))
                return -EINVAL;
        if (!priority_valid(priority)) {
                reason_set("the priority must be in %u..%u, not %u", RTF_PRIORITY_MIN, RTF_PRIORITY_MAX, priority);
                return -EINVAL;
        }
        p->priority = priority;
        p->flags |= RTF_PARAM_HAS_PRIORITY;
        return 0;
}

RTF_PUBLIC int rtf_params_set_scheduler(struct rtf_params *p, const char *plugin) {
        size_t n;

        reason_clear();
        if (!params_usable(p))
                return -EINVAL;

        if (!plugin || !*plugin) {
                memset(p->scheduler, 0, sizeof(p->scheduler));
                p->flags &= ~(uint32_t)RTF_PARAM_HAS_SCHEDULER;
                return 0;
        }

        n = strnlen(plugin, sizeof(p->scheduler));
        if (n >= sizeof(p->scheduler)) {
                reason_set("a scheduler name has 1..%zu characters", sizeof(p->scheduler) - 1);
                return -EINVAL;
        }
        memset(p->scheduler, 0, sizeof(p->scheduler));
        memcpy(p->scheduler, plugin, n);
        p->flags |= RTF_PARAM_HAS_SCHEDULER;
        return 0;
}

RTF_PUBLIC int rtf_params_ignore_admission(struct rtf_params *p, bool ignore) {
        reason_clear();
        if (!params_usable(p))
                return -EINVAL;
        if (ignore)
                p->flags |= RTF_PARAM_IGNORE_ADMISSION;
        else
                p->flags &= ~(uint32_t)RTF_PARAM_IGNORE_ADMISSION;
        return 0;
}

RTF_PUBLIC uint64_t rtf_params_get_period(const struct rtf_params *p) {
        return params_size_ok(p) ? params_get_time(p, &p->period_us, RTF_PARAM_HAS_PERIOD) : 0;
}

RTF_PUBLIC uint64_t rtf_params_get_runtime(const struct rtf_params *p) {
        return params_size_ok(p) ? params_get_time(p, &p->runtime_us, RTF_PARAM_HAS_RUNTIME) : 0;
}

RTF_PUBLIC uint64_t rtf_params_get_des_runtime(const struct rtf_params *p) {
        return params_size_ok(p) ? params_get_time(p, &p->des_runtime_us, RTF_PARAM_HAS_DES_RUNTIME) : 0;
}

RTF_PUBLIC uint64_t rtf_params_get_deadline(const struct rtf_params *p) {
        return params_size_ok(p) ? params_get_time(p, &p->deadline_us, RTF_PARAM_HAS_DEADLINE) : 0;
}

RTF_PUBLIC uint32_t rtf_params_get_priority(const struct rtf_params *p) {
        return params_size_ok(p) && (p->flags & RTF_PARAM_HAS_PRIORITY) ? p->priority : 0;
}

RTF_PUBLIC const char *rtf_params_get_scheduler(const struct rtf_params *p) {
        if (!params_size_ok(p) || !(p->flags & RTF_PARAM_HAS_SCHEDULER))
                return NULL;
        /* A caller may have written the field directly: never read past it. */
        if (strnlen(p->scheduler, sizeof(p->scheduler)) == sizeof(p->scheduler))
                return NULL;
        return p->scheduler;
}
