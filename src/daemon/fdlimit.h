/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfd's own file descriptors (issue 10, point 5).  Every connection costs
 * two (the socket, the peer's pidfd), every attached thread up to four (its
 * pidfd, its process's pidfd, and for the runtime enforcer a copy of the
 * pidfd and the CPU-time counter): systemd's default soft limit (1024) is
 * below what rtfd's own limits allow.  At start rtfd raises its soft limit
 * to the hard one and derives from it how many connections it accepts; when
 * it runs out anyway (EMFILE/ENFILE), the listener is not polled for
 * FDLIMIT_BACKOFF_MS, so that a readable listening socket that cannot be
 * accepted never turns into a busy loop, and this is logged at most once a
 * minute (with the number of pauses since).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "event.h"

#define FDLIMIT_RESERVED 64             /* rtfd itself: plugins, config, cpusets, journal, timers */
#define FDLIMIT_PER_CLIENT 2
#define FDLIMIT_PER_THREAD 4
#define FDLIMIT_BACKOFF_MS 250
#define FDLIMIT_LOG_INTERVAL_NS (60 * 1000000000LL)

/* Raise the soft RLIMIT_NOFILE to the hard one; returns the soft limit in force. */
int fdlimit_raise(uint64_t *ret_soft);

/*
 * With `soft` descriptors, how many connections fit beside `max_clients`'
 * share of attached threads (pure, for tests): connections get a quarter
 * of what is left after FDLIMIT_RESERVED, attached threads the rest.
 */
uint32_t fdlimit_max_clients(uint64_t soft, uint32_t max_clients, uint64_t *ret_threads);

struct fdlimit_backoff {
        struct event_loop *ev;
        struct source *listener;
        uint32_t events;                /* what the listener waits for normally */
        struct source timer;
        bool paused;
        uint64_t pauses;                /* since the last log line */
        int64_t logged_ns;              /* 0 = never */
};

/* Its timer is made with the listener: at EMFILE there is no descriptor left for it. */
int fdlimit_backoff_init(struct fdlimit_backoff *b, struct event_loop *ev);
/* accept() failed with `error`: if it is EMFILE or ENFILE, stop polling the
 * listener for a while and return 1; else 0. */
int fdlimit_accept_failed(struct fdlimit_backoff *b, struct source *listener, uint32_t events, int error);
void fdlimit_backoff_done(struct fdlimit_backoff *b);
