/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "fdlimit.h"
#include "log.h"
#include "util.h"

int fdlimit_raise(uint64_t *ret_soft) {
        struct rlimit rl;
        rlim_t before;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return -errno;
        before = rl.rlim_cur;
        if (rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                        rl.rlim_cur = before;
        }
        /* select() is never used: a limit above FD_SETSIZE is harmless. */
        *ret_soft = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX / 2 : (uint64_t)rl.rlim_cur;
        if (rl.rlim_cur != before)
                log_info("File descriptor limit raised from %llu to %llu", (unsigned long long)before,
                         (unsigned long long)rl.rlim_cur);
        return 0;
}

uint32_t fdlimit_max_clients(uint64_t soft, uint32_t max_clients, uint64_t *ret_threads) {
        uint64_t room = soft > FDLIMIT_RESERVED ? soft - FDLIMIT_RESERVED : 0;
        uint64_t clients = room / 4 / FDLIMIT_PER_CLIENT;

        if (clients > max_clients)
                clients = max_clients;
        if (clients == 0 && room > 0)
                clients = 1;
        *ret_threads = (room - clients * FDLIMIT_PER_CLIENT) / FDLIMIT_PER_THREAD;
        return (uint32_t)clients;
}

static void backoff_over(struct source *s, uint32_t events) {
        struct fdlimit_backoff *b = (struct fdlimit_backoff *)((char *)s - offsetof(struct fdlimit_backoff, timer));
        uint64_t n;

        (void)!read(s->fd, &n, sizeof(n));
        b->paused = false;
        if (event_modify(b->ev, b->listener, b->events) < 0)
                log_warning("Cannot poll the listening socket again");
}

int fdlimit_backoff_init(struct fdlimit_backoff *b, struct event_loop *ev) {
        int fd, r;

        *b = (struct fdlimit_backoff){ .ev = ev, .timer = { .fd = -1 } };
        fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (fd < 0)
                return -errno;
        r = event_add(ev, &b->timer, fd, EPOLLIN, backoff_over);
        if (r < 0) {
                close(fd);
                b->timer.fd = -1;
        }
        return r;
}

int fdlimit_accept_failed(struct fdlimit_backoff *b, struct source *listener, uint32_t events, int error) {
        struct itimerspec its = { .it_value = { .tv_sec = FDLIMIT_BACKOFF_MS / 1000,
                                                .tv_nsec = (FDLIMIT_BACKOFF_MS % 1000) * 1000000L } };

        if (error != EMFILE && error != ENFILE)
                return 0;
        if (b->paused || b->timer.fd < 0)
                return 1;
        b->listener = listener;
        b->events = events;
        if (event_modify(b->ev, listener, 0) < 0 || timerfd_settime(b->timer.fd, 0, &its, NULL) < 0)
                return 1;
        b->paused = true;
        b->pauses++;
        if (!b->logged_ns || now_monotonic_ns() - b->logged_ns >= FDLIMIT_LOG_INTERVAL_NS) {
                log_warning_errno(error, "Cannot accept connections (%m): the listening socket is not polled for "
                                  "%d ms at a time until descriptors are free again (%llu pause(s) since the last "
                                  "such message)", FDLIMIT_BACKOFF_MS, (unsigned long long)b->pauses);
                b->logged_ns = now_monotonic_ns();
                b->pauses = 0;
        }
        return 1;
}

void fdlimit_backoff_done(struct fdlimit_backoff *b) {
        if (b->timer.fd >= 0) {
                event_remove(b->ev, &b->timer);
                safe_close(b->timer.fd);
        }
        *b = (struct fdlimit_backoff){ .timer = { .fd = -1 } };
}
