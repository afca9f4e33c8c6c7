/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "event.h"
#include "util.h"

void event_defer_free(struct event_loop *e, void *ptr) {
        if (!ptr)
                return;
        if (e->graveyard_len == e->graveyard_cap) {
                size_t cap = e->graveyard_cap ? e->graveyard_cap * 2 : 64;
                void **g = realloc(e->graveyard, cap * sizeof(*g));

                if (!g) {
                        /* Leaking is better than a use-after-free. */
                        return;
                }
                e->graveyard = g;
                e->graveyard_cap = cap;
        }
        e->graveyard[e->graveyard_len++] = ptr;
}

static void graveyard_flush(struct event_loop *e) {
        for (size_t i = 0; i < e->graveyard_len; i++)
                free(e->graveyard[i]);
        e->graveyard_len = 0;
}

int event_init(struct event_loop *e) {
        *e = EVENT_LOOP_NULL;
        e->epfd = epoll_create1(EPOLL_CLOEXEC);
        return e->epfd < 0 ? -errno : 0;
}

void event_done(struct event_loop *e) {
        graveyard_flush(e);
        free(e->graveyard);
        e->graveyard = NULL;
        e->graveyard_cap = 0;
        e->epfd = safe_close(e->epfd);
}

int event_add(struct event_loop *e, struct source *s, int fd, uint32_t events, source_fn fn) {
        struct epoll_event ev = { .events = events, .data.ptr = s };

        s->fd = fd;
        s->events = events;
        s->fn = fn;
        return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int event_modify(struct event_loop *e, struct source *s, uint32_t events) {
        struct epoll_event ev = { .events = events, .data.ptr = s };

        if (events == s->events)
                return 0;
        if (epoll_ctl(e->epfd, EPOLL_CTL_MOD, s->fd, &ev) < 0)
                return -errno;
        s->events = events;
        return 0;
}

void event_remove(struct event_loop *e, struct source *s) {
        if (s->fd >= 0)
                epoll_ctl(e->epfd, EPOLL_CTL_DEL, s->fd, NULL);
        s->fd = -1;
}

int event_dispatch(struct event_loop *e, int timeout_ms) {
        struct epoll_event evs[32];
        int n;

        n = epoll_wait(e->epfd, evs, ELEMENTSOF(evs), timeout_ms);
        if (n < 0)
                return errno == EINTR ? 0 : -errno;
        /* A handler may remove a source that is later in this batch: removal
         * sets its fd to -1, and its memory waits in the graveyard. */
        for (int i = 0; i < n; i++) {
                struct source *s = evs[i].data.ptr;

                if (s->fd >= 0)
                        s->fn(s, evs[i].events);
        }
        graveyard_flush(e);
        return 0;
}
