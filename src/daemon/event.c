/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "event.h"
#include "util.h"

static int epfd = -1;
static void **graveyard;
static size_t graveyard_len, graveyard_cap;

void event_defer_free(void *ptr) {
        if (!ptr)
                return;
        if (graveyard_len == graveyard_cap) {
                size_t cap = graveyard_cap ? graveyard_cap * 2 : 64;
                void **g = realloc(graveyard, cap * sizeof(*g));

                if (!g) {
                        /* Leaking is better than a use-after-free. */
                        return;
                }
                graveyard = g;
                graveyard_cap = cap;
        }
        graveyard[graveyard_len++] = ptr;
}

static void graveyard_flush(void) {
        for (size_t i = 0; i < graveyard_len; i++)
                free(graveyard[i]);
        graveyard_len = 0;
}

int event_init(void) {
        epfd = epoll_create1(EPOLL_CLOEXEC);
        return epfd < 0 ? -errno : 0;
}

void event_done(void) {
        graveyard_flush();
        free(graveyard);
        graveyard = NULL;
        graveyard_cap = 0;
        epfd = safe_close(epfd);
}

int event_add(struct source *s, int fd, uint32_t events, source_fn fn) {
        struct epoll_event ev = { .events = events, .data.ptr = s };

        s->fd = fd;
        s->events = events;
        s->fn = fn;
        return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int event_modify(struct source *s, uint32_t events) {
        struct epoll_event ev = { .events = events, .data.ptr = s };

        if (events == s->events)
                return 0;
        if (epoll_ctl(epfd, EPOLL_CTL_MOD, s->fd, &ev) < 0)
                return -errno;
        s->events = events;
        return 0;
}

void event_remove(struct source *s) {
        if (s->fd >= 0)
                epoll_ctl(epfd, EPOLL_CTL_DEL, s->fd, NULL);
        s->fd = -1;
}

int event_dispatch(int timeout_ms) {
        struct epoll_event evs[32];
        int n;

        n = epoll_wait(epfd, evs, ELEMENTSOF(evs), timeout_ms);
        if (n < 0)
                return errno == EINTR ? 0 : -errno;
        /* A handler may remove a source that is later in this batch: removal
         * sets its fd to -1, and its memory waits in the graveyard. */
        for (int i = 0; i < n; i++) {
                struct source *s = evs[i].data.ptr;

                if (s->fd >= 0)
                        s->fn(s, evs[i].events);
        }
        graveyard_flush();
        return 0;
}
