/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rtf/rtf.h"

/* The limits (RTF_TIME_LIMIT_US, RTF_PRIORITY_MIN/MAX) and the validator
 * are rtf's one parameter model, shared with rtfd. */
#include "task-params.h"

/*
 * Whether *p could have been built by the setters: right size, known flags,
 * every declared field in range.  Returns 0 or -EINVAL.
 */
int params_validate(const struct rtf_params *p);
