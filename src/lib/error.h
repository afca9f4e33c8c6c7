/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The thread-local explanation behind rtf_last_reason(): the daemon's
 * reply.reason, or the library's own words when rtfd could not be reached;
 * and the errno the compatibility layers (RTAI, Xenomai native) return for
 * an rtf result.
 */
#pragma once

#include "util.h"

/* Forget the reason of the previous request of this thread. */
void reason_clear(void);
/* Replace it (truncated to the buffer). */
void reason_set(const char *fmt, ...) _printf_(1, 2);

/*
 * An RTF_* result as the negative errno of a compatibility layer: 0 for
 * RTF_OK, -EBUSY when no plugin admits, `refused_errno` when the policy
 * refuses (RTAI says -EACCES, Xenomai's native skin -EPERM: each layer's
 * documented value), -ENOTCONN without rtfd; an errno passes unchanged.
 */
int result_to_errno(int result, int refused_errno);
