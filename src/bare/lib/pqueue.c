/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pqueue.h"

void pq_insert(struct pq_node *head, struct pq_node *n, int64_t key) {
        struct pq_node *at = head->prev;

        /* From the back: equal keys, the common case for wake-ups at one priority, stop at once. */
        while (at != head && at->key > key)
                at = at->prev;
        n->key = key;
        n->prev = at;
        n->next = at->next;
        at->next->prev = n;
        at->next = n;
}

void pq_remove(struct pq_node *n) {
        n->prev->next = n->next;
        n->next->prev = n->prev;
        pq_node_init(n);
}

size_t pq_length(const struct pq_node *head) {
        size_t len = 0;

        for (const struct pq_node *n = head->next; n != head; n = n->next)
                len++;
        return len;
}
