/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librtf without rtfd (test-client-*.c): the peer is a SOCK_SEQPACKET
 * listener thread in the test's process that answers in a chosen wrong way
 * (closing, staying silent, garbage, another seq or type, an oversized
 * packet) or with a scripted reply; it has no daemon logic, the real rtfd is
 * tested in tests/integration.  Statistics reports (REPORT) are recorded and
 * never answered, as rtfd does.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "protocol.h"
#include "rtf/rtf.h"

/* RTF_TIMEOUT_MS while the peer runs: how long librtf waits for a reply. */
#define TIMEOUT_MS 300

enum peer_mode {
        PEER_SCRIPT,            /* answer with the scripted reply, seq echoed */
        PEER_ECHO,              /* refuse, with the request's period as reason */
        PEER_CLOSE,             /* read the request, then close */
        PEER_HANG_UP,           /* close every connection as soon as accepted */
        PEER_SILENT,            /* read the request, never answer */
        PEER_GARBAGE,           /* answer with bytes that are no message */
        PEER_WRONG_SEQ,         /* a well-formed REPLY to another seq */
        PEER_WRONG_TYPE,        /* a STATUS_REPLY to a CREATE */
        PEER_OVERSIZE,          /* a packet larger than RTF_MSG_MAX */
        PEER_HOLD,              /* answer as PEER_SCRIPT once peer_release() is called */
};

/*
 * main(): starts the peer in a private directory, points librtf at it
 * (RTF_SOCKET, RTF_TIMEOUT_MS) and runs each test; a SIGPIPE kills the test,
 * as the library must never raise one.  Skips (77) when it cannot listen, and
 * says why.
 */
int peer_tests_run(void (*const *tests)(void), size_t n);
/* The peer's directory and socket. */
const char *peer_dir(void);
const char *peer_path(void);

/* The mode of every following answer, and the scripted reply (if not NULL). */
void peer_set(enum peer_mode mode, const struct rtf_msg_reply *reply);
/* The last request received, and how many were (if ret_requests). */
struct rtf_msg peer_last(unsigned *ret_requests);
/* The last report received, and how many were. */
struct rtf_msg peer_last_report(unsigned *ret_reports);
/* Let a PEER_HOLD answer go. */
void peer_release(void);
/* Connections the peer closed at once (PEER_HANG_UP), and all it accepted. */
unsigned peer_hung_up(void);
unsigned peer_accepted(void);

int64_t now_ms(void);
/* A period and a tenth of it as runtime. */
void make_params(struct rtf_params *p, uint64_t period);
