/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scheduler's queues: an intrusive, circular, doubly linked list kept in
 * key order, FIFO among equal keys.  The ready queue is keyed by priority
 * (0 highest), wait queues by priority too, the timer queue by wake-up time.
 * Pure, so it is unit-tested on the host.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pq_node {
        struct pq_node *next, *prev;
        int64_t key;
};

#define PQ_HEAD_INIT(h) { .next = &(h), .prev = &(h) }

static inline void pq_init(struct pq_node *head) {
        head->next = head->prev = head;
}

/* A node that is in no queue points at itself (pq_node_init, pq_remove). */
static inline void pq_node_init(struct pq_node *n) {
        n->next = n->prev = n;
}

static inline bool pq_empty(const struct pq_node *head) {
        return head->next == head;
}

static inline bool pq_linked(const struct pq_node *n) {
        return n->next != n;
}

static inline struct pq_node *pq_first(struct pq_node *head) {
        return pq_empty(head) ? NULL : head->next;
}

/* After every node whose key is <= key: the newcomer queues behind its equals. */
void pq_insert(struct pq_node *head, struct pq_node *n, int64_t key);
void pq_remove(struct pq_node *n);
size_t pq_length(const struct pq_node *head);

#define pq_entry(ptr, type, member) ((type *) ((char *) (ptr) - offsetof(type, member)))
