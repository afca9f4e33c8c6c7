/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Intrusive doubly linked lists, in the style of systemd's src/basic/list.h:
 * an item carries LIST_FIELDS(type, name) (name_next, name_prev), a list is a
 * head pointer (and, for O(1) appends, a tail pointer).  One item may be in
 * several lists under different names.  Every macro evaluates its arguments
 * more than once: pass plain lvalues.
 */
#pragma once

#include <stddef.h>

#define LIST_FIELDS(t, name) t *name##_next, *name##_prev

/* Put `item` first in `head`. */
#define LIST_PREPEND(name, head, item)                                          \
        do {                                                                    \
                (item)->name##_prev = NULL;                                     \
                (item)->name##_next = (head);                                   \
                if (head)                                                       \
                        (head)->name##_prev = (item);                           \
                (head) = (item);                                                \
        } while (0)

/* Take `item` out of `head`. */
#define LIST_REMOVE(name, head, item)                                           \
        do {                                                                    \
                if ((item)->name##_next)                                        \
                        (item)->name##_next->name##_prev = (item)->name##_prev; \
                if ((item)->name##_prev)                                        \
                        (item)->name##_prev->name##_next = (item)->name##_next; \
                else if ((head) == (item))                                      \
                        (head) = (item)->name##_next;                           \
                (item)->name##_next = (item)->name##_prev = NULL;               \
        } while (0)

/* Put `item` last in the list (`head`, `tail`). */
#define LIST_APPEND_TAIL(name, head, tail, item)                                \
        do {                                                                    \
                (item)->name##_next = NULL;                                     \
                (item)->name##_prev = (tail);                                   \
                if (tail)                                                       \
                        (tail)->name##_next = (item);                           \
                else                                                            \
                        (head) = (item);                                        \
                (tail) = (item);                                                \
        } while (0)

/* Take `item` out of the list (`head`, `tail`). */
#define LIST_REMOVE_TAIL(name, head, tail, item)                                \
        do {                                                                    \
                if ((tail) == (item))                                           \
                        (tail) = (item)->name##_prev;                           \
                LIST_REMOVE(name, head, item);                                  \
        } while (0)

#define LIST_FOREACH(name, i, head) for ((i) = (head); (i); (i) = (i)->name##_next)

/* As LIST_FOREACH, but `i` may be removed (and freed) in the body. */
#define LIST_FOREACH_SAFE(name, i, n, head)                                     \
        for ((i) = (head); (i) && (((n) = (i)->name##_next), 1); (i) = (n))
