/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "transport.h"

static int socket_set_timeouts(int fd, unsigned ms) {
        struct timeval tv = {
                .tv_sec = ms / 1000,
                .tv_usec = (ms % 1000) * 1000,
        };

        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
                return -errno;
        /* A daemon that stops reading must not block send() forever either. */
        if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
                return -errno;
        return 0;
}

int transport_connect(const char *path, unsigned timeout_ms) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd, r;

        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, path, strlen(path));
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        r = socket_set_timeouts(fd, timeout_ms);
        if (r == 0 && connect(fd, (const struct sockaddr *) &sa, sizeof(sa)) < 0)
                r = -errno;
        if (r < 0) {
                close(fd);
                return r;
        }
        return fd;
}
