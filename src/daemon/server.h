/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The listening socket and the client connections.  Each connection has a
 * bounded queue of replies; when it is full (the client does not read), rtfd
 * stops reading that client's requests until the queue drains, so a slow or
 * hostile client only ever stalls itself.
 */
#pragma once

#include <stdint.h>

struct server_options {
        const char *socket_path;        /* limits come from manager_limits() */
};

int server_init(const struct server_options *o);
/* Close every connection (releasing what the clients held) and the socket. */
void server_done(void);
