/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtfd's listings, whole, for rtfctl's views. */
#pragma once

#include <stdint.h>

#include "protocol.h"

struct ctl_conn {
        int fd;
        uint32_t seq;
};

/* Connect to `socket_path`; on failure say why and what to do (hint.h). 0 or -errno. */
int ctl_conn_open(struct ctl_conn *c, const char *socket_path);
void ctl_conn_close(struct ctl_conn *c);

/*
 * Every row of the listing `type` (RTF_MSG_STATUS, _TASKS, _TASK_STATS), page
 * by page, into one array of `row_size` bytes per row (free() it).  rtfd's
 * refusal is said on stderr.  0 or -errno (-ECONNRESET: an rtfd that does not
 * know the question closed the connection).
 */
int ctl_fetch_all(struct ctl_conn *c, uint16_t type, size_t row_size, void **ret_rows, uint32_t *ret_n);
