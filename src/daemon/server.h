/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The listening socket and the client connections.  Each connection has a
 * bounded queue of replies; when it is full (the client does not read), rtfd
 * stops reading that client's requests until the queue drains, so a slow or
 * hostile client only ever stalls itself.
 */
#pragma once

#include <stdint.h>

struct event_loop;
struct manager;
struct server;

struct server_options {
        const char *socket_path;        /* limits come from manager_limits() */
};

/* Listen (or take systemd's socket) and serve clients through `mgr`. */
/* Create the socket's directory (0755) if missing and check that it is
 * trusted (trusted.h): a negative errno, logged with the path and the fix. */
int server_prepare_dir(const struct server_options *o);
int server_new(const struct server_options *o, struct event_loop *ev, struct manager *mgr, struct server **ret);
/* Close every connection (releasing what the clients held) and the socket;
 * takes NULL, returns NULL. */
struct server *server_free(struct server *srv);
static inline void server_freep(struct server **p) {
        server_free(*p);
}
