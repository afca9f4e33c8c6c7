/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hint.h"
#include "rtf/rtf.h"

const char *ctl_socket_path(void) {
        const char *e = getenv("RTF_SOCKET");

        return e && *e ? e : RTF_DEFAULT_SOCKET;
}

void ctl_hint_connect(const char *path, int error) {
        switch (error) {
        case ENOENT:
                fprintf(stderr, "rtfctl: hint: there is no socket %s: rtfd is not running, or listens "
                        "elsewhere.  Start it (systemctl start rtfd, or rtfd as root), or name its socket "
                        "with --socket PATH or RTF_SOCKET.\n", path);
                break;
        case ECONNREFUSED:
                fprintf(stderr, "rtfctl: hint: %s exists but nobody listens on it: rtfd is not running "
                        "(it stopped or crashed).  Start it again (systemctl start rtfd).\n", path);
                break;
        case EACCES:
        case EPERM:
                fprintf(stderr, "rtfctl: hint: you may not open %s or a directory above it; rtfd makes "
                        "it mode 0666 in a 0755 directory.  Check: ls -ld %s\n", path, path);
                break;
        case ENOTSOCK:
        case ENOTDIR:
        case EPROTOTYPE:
                fprintf(stderr, "rtfctl: hint: %s is not rtfd's socket; name the right one with "
                        "--socket PATH or RTF_SOCKET.\n", path);
                break;
        case ENAMETOOLONG:
                fprintf(stderr, "rtfctl: hint: a socket path has at most %zu characters.\n",
                        sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1);
                break;
        default:
                break;
        }
}

void ctl_hint_connect_probe(const char *path) {
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        int fd, error = 0;

        if (strlen(path) >= sizeof(addr.sun_path)) {
                ctl_hint_connect(path, ENAMETOOLONG);
                return;
        }
        memcpy(addr.sun_path, path, strlen(path) + 1);
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return;
        if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
                error = errno;
        close(fd);
        if (error)
                ctl_hint_connect(path, error);
}
