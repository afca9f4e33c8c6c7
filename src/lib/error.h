/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The thread-local explanation behind rtf_last_reason(): the daemon's
 * reply.reason, or the library's own words when rtfd could not be reached.
 */
#pragma once

#include "util.h"

/* Forget the reason of the previous request of this thread. */
void reason_clear(void);
/* Replace it (truncated to the buffer). */
void reason_set(const char *fmt, ...) _printf_(1, 2);
