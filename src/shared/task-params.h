/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one parameter model of a request (struct rtf_task_params of
 * rtf-plugin.h: what librtf sends, what rtfd admits, what a plugin sees) and
 * its one validator and limits.  librtf (src/lib/params.c), rtfd's broker
 * (src/daemon/manager.c) and the policy parser (acl.h) use these, so that a
 * request one accepts the others accept too.
 *
 * Words: a "CPU" is an absolute CPU number; a "core" (task->core,
 * decision->core) is a position in one plugin instance's list of CPUs.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "rtf/rtf-plugin.h"

/*
 * Times are accepted in [1, RTF_TIME_LIMIT_US) microseconds: 2^32 us is about
 * 71 minutes, far beyond any real-time period, and keeps every product the
 * daemon and plugins compute (ns conversions, utilisations) in 64 bits.  The
 * admission math accepts more (ADM_TIME_MAX_US), never less.
 */
#define RTF_TIME_LIMIT_US (UINT64_C(1) << 32)
#define RTF_PRIORITY_MIN 1u
#define RTF_PRIORITY_MAX 99u

/*
 * Whether each field of `p` is in shape: known flags, every declared time in
 * [1, RTF_TIME_LIMIT_US) and every undeclared one 0, a declared priority in
 * 1..99 (else 0).  What librtf's setters can build.  Returns 0, or -EINVAL
 * with the reason in `reason` (may be NULL).  Pure.
 */
int rtf_task_params_check_shape(const struct rtf_task_params *p, char *reason, size_t reason_size);

/*
 * What rtfd takes from a client: in shape, and a runtime of at most the
 * period (checked before any policy or plugin is asked).
 */
int rtf_task_params_check(const struct rtf_task_params *p, char *reason, size_t reason_size);
