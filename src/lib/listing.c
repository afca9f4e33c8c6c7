/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The listing client: part of librtf's internals (src/lib), linked into
 * rtfctl and rtf-bench as the static library librtf-listing, with librtf's
 * own way of connecting (transport.c).  Not exported by librtf.so: the rows
 * are the wire's, which may change with the protocol version.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "listing.h"
#include "transport.h"

#define LISTING_TIMEOUT_MS 5000
#define RATE_RETRY_NS (5 * 1000 * 1000)
#define RATE_RETRIES 2000

int rtf_listing_connect(const char *path) {
        return transport_connect(path, LISTING_TIMEOUT_MS);
}

int rtf_listing_fetch(int fd, uint16_t type, uint32_t start, uint32_t seq, struct rtf_msg *ret,
                      char *ret_reason, size_t reason_size) {
        uint8_t out[RTF_MSG_MAX], buf[RTF_MSG_MAX];
        struct rtf_msg req = {
                .header = { .version = (uint16_t)rtf_msg_type_version(type), .type = type, .seq = seq },
                .list = { .start = start },
        };
        ssize_t n;
        int len;

        len = rtf_msg_encode(&req, out, sizeof(out));
        if (len < 0)
                return len;
        for (int tries = 0;; tries++) {
                if (send(fd, out, (size_t)len, MSG_NOSIGNAL) != len)
                        return -errno;
                do
                        n = recv(fd, buf, sizeof(buf), 0);
                while (n < 0 && errno == EINTR);
                if (n < 0)
                        return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
                if (n == 0)
                        return -ECONNRESET;
                if (rtf_msg_decode(buf, (size_t)n, ret) < 0 || ret->header.seq != seq)
                        return -EPROTO;
                if (ret->header.type == RTF_MSG_REPLY && ret->reply.result == -EAGAIN && tries < RATE_RETRIES) {
                        nanosleep(&(struct timespec){ .tv_nsec = RATE_RETRY_NS }, NULL);
                        continue;
                }
                if (ret->header.type == RTF_MSG_REPLY && ret->reply.result < 0) {
                        if (reason_size)
                                snprintf(ret_reason, reason_size, "%s", ret->reply.reason);
                        return ret->reply.result;
                }
                return ret->header.type == (type | 0x100) ? 0 : -EPROTO;
        }
}
