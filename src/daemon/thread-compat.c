/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Threads on kernels without PIDFD_THREAD (thread-compat.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "state.h"
#include "thread-compat.h"
#include "util.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL     /* Linux 6.9 */
#endif

/* A thread's /proc entries vanish with it: ENOENT (or ESRCH mid-read) is -ESRCH. */
static int read_text(const char *path, char *buf, size_t size) {
        int n = read_text_file(path, buf, size);

        return n == -ENOENT ? -ESRCH : n;
}

static int task_starttime(pid_t tgid, pid_t tid, uint64_t *ret) {
        char path[96], buf[1024];
        int n;

        snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tgid, (int)tid);
        n = read_text(path, buf, sizeof(buf));
        if (n < 0)
                return n;
        return stat_text_starttime(buf, (size_t)n, ret);
}

static int tgid_of(pid_t tid, pid_t *ret) {
        char path[64], buf[4096];
        const char *p;
        int tgid, n;

        snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
        n = read_text(path, buf, sizeof(buf));
        if (n < 0)
                return n;
        p = strstr(buf, "\nTgid:");
        if (!p || sscanf(p, "\nTgid: %d", &tgid) != 1 || tgid <= 0)
                return -EIO;
        *ret = tgid;
        return 0;
}

/* EINVAL from pidfd_open(PIDFD_THREAD) means an unknown flag only if rtfd's
 * own thread cannot be opened that way either. */
static bool has_pidfd_thread(void) {
        int fd = pidfd_open(gettid(), PIDFD_THREAD);

        if (fd < 0)
                return errno != EINVAL;
        close(fd);
        return true;
}

int thread_compat_pidfd_open(pid_t tid, int *ret_pidfd, pid_t *ret_tgid, uint64_t *ret_starttime) {
        uint64_t before = 0, after = 0;
        pid_t tgid = 0;
        int fd, r;

        fd = pidfd_open(tid, PIDFD_THREAD);
        if (fd >= 0) {
                *ret_pidfd = fd;
                *ret_tgid = 0;          /* the caller reads the owners from the pidfd or /proc */
                *ret_starttime = 0;
                return 0;
        }
        if (errno != EINVAL || has_pidfd_thread())
                return errno == ESRCH || errno == EINVAL ? -ESRCH : -errno;

        /* The thread's start time and process, then a pidfd that pins the
         * process, then the same start time in that process's task list: the
         * thread read first is the one in the process now held. */
        r = tgid_of(tid, &tgid);
        if (r >= 0)
                r = task_starttime(tgid, tid, &before);
        if (r < 0)
                return r == -ESRCH || r == -EIO ? -ESRCH : r;
        fd = pidfd_open(tgid, 0);
        if (fd < 0)
                return errno == ESRCH || errno == EINVAL ? -ESRCH : -errno;
        r = task_starttime(tgid, tid, &after);
        if (r < 0 || after != before || before == 0) {
                close(fd);
                return r < 0 && r != -ESRCH ? r : -ESRCH;
        }
        *ret_pidfd = fd;
        *ret_tgid = tgid;
        *ret_starttime = before;
        return 0;
}

bool thread_compat_same(pid_t tgid, pid_t tid, uint64_t starttime) {
        uint64_t now = 0;

        if (starttime == 0)
                return true;
        return task_starttime(tgid, tid, &now) >= 0 && now == starttime;
}
