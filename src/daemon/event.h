/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The epoll dispatcher: every fd rtfd waits on is a `struct source` whose
 * handler is called with the epoll events.  Handlers never block.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct source;
typedef void (*source_fn)(struct source *s, uint32_t events);

struct source {
        int fd;
        uint32_t events;        /* as registered: event_modify() skips a no-op change */
        source_fn fn;
};

/* One per daemon; embedded in its owner (main.c's struct rtfd). */
struct event_loop {
        int epfd;
        void **graveyard;               /* freed after the current dispatch batch */
        size_t graveyard_len, graveyard_cap;
};

#define EVENT_LOOP_NULL ((struct event_loop){ .epfd = -1 })

int event_init(struct event_loop *e);
void event_done(struct event_loop *e);
int event_add(struct event_loop *e, struct source *s, int fd, uint32_t events, source_fn fn);
/* Change the events waited for; free when they are the same. */
int event_modify(struct event_loop *e, struct source *s, uint32_t events);
void event_remove(struct event_loop *e, struct source *s);
/* Free ptr after the current dispatch batch, when no pending event can
 * refer to it any more (its sources must be event_remove()d already). */
void event_defer_free(struct event_loop *e, void *ptr);
/* Wait once (timeout in ms, -1 = forever) and dispatch; returns 0 or -errno. */
int event_dispatch(struct event_loop *e, int timeout_ms);
