/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Refusal lines of one peer, summarised beyond a few per second. */
#include "ratelog.h"
#include "tap.h"

#define S 1000000000LL

int main(void) {
        static struct ratelog r;
        uint64_t more;
        int written = 0;

        /* 10,000 refusals in one second: RATELOG_BURST lines. */
        for (int i = 0; i < 10000; i++)
                written += ratelog_allow(&r, 1000, 42, 5 * S + i * 100000LL, &more);
        CHECK_EQ(written, RATELOG_BURST);
        /* The next interval's first line says how many were left out. */
        CHECK(ratelog_allow(&r, 1000, 42, 6 * S + 1, &more));
        CHECK_EQ(more, 10000 - RATELOG_BURST);
        CHECK(ratelog_allow(&r, 1000, 42, 6 * S + 2, &more));
        CHECK_EQ(more, 0);
        /* Another peer (same uid, another process) has its own budget. */
        CHECK(ratelog_allow(&r, 1000, 43, 6 * S + 3, &more));
        CHECK(ratelog_allow(&r, 1001, 42, 6 * S + 3, &more));
        /* More peers than slots: the oldest slot is reused, nobody is silenced for good. */
        for (int pid = 100; pid < 100 + 3 * RATELOG_PEERS; pid++)
                CHECK(ratelog_allow(&r, 2000, pid, 7 * S + pid, &more));
        CHECK(ratelog_allow(&r, 1000, 42, 8 * S, &more));
        return test_done();
}
