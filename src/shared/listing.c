/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "listing.h"

#define RATE_RETRY_NS (5 * 1000 * 1000)
#define RATE_RETRIES 2000

int rtf_listing_connect(const char *path) {
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        struct timeval tv = { .tv_sec = 5 };
        int fd;

        if (strlen(path) >= sizeof(addr.sun_path))
                return -ENAMETOOLONG;
        memcpy(addr.sun_path, path, strlen(path) + 1);
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
            connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                int r = -errno;

                close(fd);
                return r;
        }
        return fd;
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
