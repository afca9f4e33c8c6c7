/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Refusals of one peer summarised (issue 10, point 7): one connection could
 * make rtfd write ~40,000 refusal lines a second, and journald's own rate
 * limit then drops genuine audit lines.  A peer (uid, pid) gets
 * RATELOG_BURST refusal lines per RATELOG_INTERVAL_NS; beyond that they are
 * counted, and the next line of that peer after the interval says how many
 * were left out.  Grants are never subject to this: rtfd never drops their
 * audit lines.  Pure (the caller gives the time), unit-tested.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define RATELOG_BURST 10
#define RATELOG_INTERVAL_NS 1000000000LL
#define RATELOG_PEERS 64                /* remembered at once; the oldest window is reused */

struct ratelog {
        struct ratelog_peer {
                uid_t uid;
                pid_t pid;
                int64_t window_ns;      /* start of its interval; 0 = free slot */
                uint32_t logged;
                uint64_t suppressed;
        } peers[RATELOG_PEERS];
};

/*
 * May a refusal line of (uid, pid) be written at `now_ns`?  true: write it,
 * and if *ret_suppressed > 0 say that many were left out before it.
 */
bool ratelog_allow(struct ratelog *r, uid_t uid, pid_t pid, int64_t now_ns, uint64_t *ret_suppressed);
