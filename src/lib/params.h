/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rtf/rtf.h"

/*
 * Times are accepted in [1, RTF_TIME_LIMIT_US) microseconds: 2^32 us is about
 * 71 minutes, far beyond any real-time period, and keeps every product the
 * daemon and plugins compute (ns conversions, utilisations) in 64 bits.
 */
#define RTF_TIME_LIMIT_US (UINT64_C(1) << 32)
#define RTF_PRIORITY_MIN 1u
#define RTF_PRIORITY_MAX 99u

/*
 * Whether *p could have been built by the setters: right size, known flags,
 * every declared field in range.  Returns 0 or -EINVAL.
 */
int params_validate(const struct rtf_params *p);
