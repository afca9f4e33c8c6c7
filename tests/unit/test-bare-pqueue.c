/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtf-bare's scheduler queues (src/bare/lib/pqueue.c): key order, FIFO among equals. */
#include "lib/pqueue.h"
#include "tap.h"

int main(void) {
        struct pq_node head, n[6];
        const int64_t keys[6] = { 5, 1, 5, 0, 9, 1 };
        const int order[6] = { 3, 1, 5, 0, 2, 4 };
        struct pq_node *p;
        int i;

        pq_init(&head);
        CHECK(pq_empty(&head));
        CHECK(pq_first(&head) == NULL);
        for (i = 0; i < 6; i++) {
                pq_node_init(&n[i]);
                CHECK(!pq_linked(&n[i]));
                pq_insert(&head, &n[i], keys[i]);
        }
        CHECK_EQ(pq_length(&head), 6);
        for (i = 0, p = head.next; p != &head; p = p->next, i++)
                CHECK(p == &n[order[i]]);

        /* Removing the first gives the next; a removed node is unlinked and can go back in. */
        pq_remove(&n[3]);
        CHECK(!pq_linked(&n[3]));
        CHECK(pq_first(&head) == &n[1]);
        pq_insert(&head, &n[3], 1);                     /* behind the two 1s */
        CHECK(n[5].next == &n[3]);
        pq_remove(&n[4]);                               /* the last */
        CHECK(head.prev == &n[2]);
        CHECK_EQ(pq_length(&head), 5);
        while ((p = pq_first(&head)))
                pq_remove(p);
        CHECK(pq_empty(&head));
        return test_done();
}
