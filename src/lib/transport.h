/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reaching rtfd: one SOCK_SEQPACKET connection with bounded waits.  Shared by
 * librtf's process-wide connection (client.c) and the listing client
 * (listing.c) that rtfctl and rtf-bench link, so that there is one way to
 * connect to rtfd, not two.
 */
#pragma once

/*
 * A close-on-exec connection to the socket `path` whose send() and recv()
 * each give up after `timeout_ms`.  The fd, or -ENAMETOOLONG for a path that
 * does not fit a socket address, or the -errno of socket(), setsockopt() or
 * connect().
 */
int transport_connect(const char *path, unsigned timeout_ms);
