/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The process-wide connection to rtfd. */
#pragma once

#include <stdint.h>

#include "protocol.h"

/*
 * Send the request in *msg (header.type and body are read; seq is assigned
 * here) and wait for its reply, which must be of type `reply_type` and echo
 * the seq; the reply replaces *msg.  Requests of all threads are serialised.
 *
 * Returns 0 with the reply in *msg, RTF_CONNECTION_ERR when rtfd closed the
 * connection or did not answer in time, -ENOTCONN without a connection (or in
 * a child after fork()), -EPROTO for a reply that cannot be understood.  On
 * RTF_CONNECTION_ERR and -EPROTO the connection is dropped: a reply that
 * arrives late must not be taken for the answer to a later request.
 */
int client_request(struct rtf_msg *msg, uint16_t reply_type);

/*
 * Send a one-way REPORT for spec `id` if the connection is free at this very
 * moment: for librtf's periodic path, which runs in real-time threads.  Never
 * waits for another thread's request (trylock), never blocks in send()
 * (MSG_DONTWAIT), never allocates, and leaves rtf_last_reason() alone.
 * Returns 0 when sent, -EBUSY when another request holds the connection,
 * -ENOTCONN without a connection, or the -errno of send() (-EAGAIN: rtfd is
 * behind).
 */
int client_report(uint64_t id, const struct rtf_wire_stats *stats);
