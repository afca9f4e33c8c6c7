/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Asking rtfd for its listings (STATUS, TASKS, TASK_STATS): rtfctl and
 * rtf-bench.  One connection of its own (not librtf's process-wide one), one
 * page per request.  Internal to the project: rows are protocol.h's.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

/* A SOCK_SEQPACKET connection to `path` whose receives time out after 5 s; fd or -errno. */
int rtf_listing_connect(const char *path);

/*
 * One page of the listing `type` from row `start`, into ret.  The question is
 * asked in the oldest protocol version that has it, so that an older rtfd
 * answers too.  A non-root connection's listings count toward rtfd's request
 * rate: a refusal for the rate is asked again every 5 ms, for up to 10 s.
 * Returns 0; rtfd's refusal (negative errno, its reason copied to ret_reason);
 * -EPROTO for an answer that is not this page; -ETIMEDOUT; another -errno.
 */
int rtf_listing_fetch(int fd, uint16_t type, uint32_t start, uint32_t seq, struct rtf_msg *ret,
                      char *ret_reason, size_t reason_size);
