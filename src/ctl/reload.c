/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfd reloads on SIGHUP.  rtfctl finds rtfd's process through the socket:
 * the kernel names the peer of a connection (SO_PEERPIDFD, a pidfd that
 * cannot be recycled; SO_PEERCRED on older kernels), nothing a file or the
 * daemon says.  The peer of the listening socket is whoever created it,
 * which under socket activation is systemd, not rtfd: so the peer's command
 * name must be rtfd, or rtfctl signals nothing.  Only root may signal a root
 * daemon; rtfctl says so before trying.  A protocol request would let any
 * user ask and need an access rule of its own; the signal needs none.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hint.h"
#include "listing.h"
#include "names.h"
#include "reload.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

static int peer_pidfd(int fd, pid_t *ret_pid) {
        struct ucred cred;
        socklen_t len = sizeof(cred);
        int pidfd = -1;

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return -errno;
        *ret_pid = cred.pid;
        len = sizeof(pidfd);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0 && pidfd >= 0)
                return pidfd;
        /* Before Linux 6.5: the pid, checked again below through its own pidfd. */
        pidfd = (int)syscall(SYS_pidfd_open, cred.pid, 0);
        return pidfd < 0 ? -errno : pidfd;
}

int reload_main(const char *socket_path) {
        char comm[64];
        pid_t pid = 0;
        int fd, pidfd;

        if (geteuid() != 0) {
                fprintf(stderr, "rtfctl reload: only root may reload rtfd (sudo rtfctl reload)\n");
                return 1;
        }
        fd = rtf_listing_connect(socket_path);
        if (fd < 0) {
                fprintf(stderr, "rtfctl reload: cannot connect to rtfd at %s: %s\n", socket_path, strerror(-fd));
                ctl_hint_connect(socket_path, -fd);
                return 1;
        }
        pidfd = peer_pidfd(fd, &pid);
        close(fd);
        if (pidfd < 0) {
                fprintf(stderr, "rtfctl reload: cannot find the process behind %s: %s\n", socket_path,
                        strerror(-pidfd));
                return 1;
        }
        /* The name is read after the pidfd is held: a recycled pid makes the signal fail (ESRCH). */
        ctl_thread_comm(pid, comm, sizeof(comm));
        if (strcmp(comm, "rtfd") != 0) {
                fprintf(stderr, "rtfctl reload: the socket %s belongs to pid %d (%s), not to rtfd (socket "
                        "activation?); use: systemctl reload rtfd\n", socket_path, (int)pid, comm);
                close(pidfd);
                return 1;
        }
        if (syscall(SYS_pidfd_send_signal, pidfd, SIGHUP, NULL, 0) < 0) {
                fprintf(stderr, "rtfctl reload: cannot signal rtfd (pid %d): %s\n", (int)pid, strerror(errno));
                close(pidfd);
                return 1;
        }
        close(pidfd);
        printf("rtfctl: asked rtfd (pid %d) to reload; its log says \"Configuration reloaded\" or why it "
               "kept the running configuration\n", (int)pid);
        return 0;
}
