/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stddef.h>

#include "ratelog.h"

bool ratelog_allow(struct ratelog *r, uid_t uid, pid_t pid, int64_t now_ns, uint64_t *ret_suppressed) {
        struct ratelog_peer *p = NULL, *oldest = &r->peers[0];

        *ret_suppressed = 0;
        if (now_ns <= 0)
                now_ns = 1;             /* 0 marks a free slot */
        for (int i = 0; i < RATELOG_PEERS; i++) {
                struct ratelog_peer *q = &r->peers[i];

                if (q->window_ns && q->uid == uid && q->pid == pid) {
                        p = q;
                        break;
                }
                if (q->window_ns < oldest->window_ns)
                        oldest = q;
        }
        if (!p) {
                /* A forgotten peer's suppressed count is lost with its slot:
                 * only when more than RATELOG_PEERS peers are refused at once. */
                p = oldest;
                *p = (struct ratelog_peer){ .uid = uid, .pid = pid, .window_ns = now_ns };
        } else if (now_ns - p->window_ns >= RATELOG_INTERVAL_NS) {
                *ret_suppressed = p->suppressed;
                p->window_ns = now_ns;
                p->logged = 0;
                p->suppressed = 0;
        }
        if (p->logged < RATELOG_BURST) {
                p->logged++;
                return true;
        }
        p->suppressed++;
        return false;
}
